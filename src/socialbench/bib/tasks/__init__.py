"""BIB tasks: one module per task, each a small recipe; the registry maps names to recipes.

Evaluation tasks (each episode an expected ``e`` / unexpected ``u`` pair) and background
training tasks (expected only) are keyed by the folder they are written to, per split kind.
Each module's docstring says what familiarization shows and what the tests do.
"""

from __future__ import annotations

from socialbench.bib.tasks import (
    agent_blocked_instrumental,
    efficiency_irrational,
    efficiency_path,
    efficiency_time,
    inaccessible_goal,
    instrumental_blocking_barrier,
    instrumental_inconsequential_barrier,
    instrumental_no_barrier,
    multi_agent,
    no_navigation_preference,
    no_preference_multi_agent,
    preference,
    single_object,
)
from socialbench.bib.tasks.base import Built, Recipe

# Folder order as released (bib spec).
EVAL_TASKS: dict[str, Recipe] = {m.RECIPE.name: m.RECIPE for m in (
    preference, multi_agent, inaccessible_goal, efficiency_path, efficiency_time,
    efficiency_irrational, instrumental_no_barrier, instrumental_inconsequential_barrier,
    instrumental_blocking_barrier)}
TRAIN_TASKS: dict[str, Recipe] = {m.RECIPE.name: m.RECIPE for m in (
    single_object, no_navigation_preference, no_preference_multi_agent,
    agent_blocked_instrumental)}

__all__ = ["EVAL_TASKS", "TRAIN_TASKS", "Built", "Recipe"]

"""AGENT's four scenarios, one module each; every trial type is a small registered recipe.

``RECIPES["2.1"](context)`` builds one trial of type 2.1 (see each recipe's docstring for what
the familiarization shows and what the expected and surprising test videos do).
"""

from socialbench.agent3d.scenarios import (  # noqa: F401  (importing registers the recipes)
    action_efficiency,
    cost_reward,
    goal_preferences,
    unobserved_constraints,
)
from socialbench.agent3d.scenarios.common import Context, RecipeError
from socialbench.agent3d.scenarios.registry import RECIPES, TrialVideos

__all__ = ["RECIPES", "Context", "RecipeError", "TrialVideos"]

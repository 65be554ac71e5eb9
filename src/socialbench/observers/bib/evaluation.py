"""Evaluate BIB observers on a dataset root: find the pairs, rate them, score.

The glue between the files (``socialbench.bib.io``), the observers (``voe.registry``) and the
shared loop (``voe.evaluate``), used by ``socialbench bib evaluate`` and ``bib audit``, the tour
and the speed script. Works on our generated layout and on the released one (task folders of
``<id>e.json`` / ``<id>u.json``); a folder of pairs without task folders (like the six real
sample files) is one task named after the folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from socialbench.bib.io import find_pairs, load_episode
from socialbench.bib.io.layout import EVALUATION_TASKS
from socialbench.core.errors import UserError
from socialbench.core.metrics import TiePolicy
from socialbench.observers.bib.controls import CONTROLS, chance_band
from socialbench.observers.bib.inverse_planning import AUDIT_FLOOR
from socialbench.observers.bib.shortcuts import SHORTCUTS, designed_ceiling
from socialbench.voe.evaluate import (
    OVERALL,
    PairRating,
    TaskResult,
    rate_pairs,
    rate_pairs_many,
    summarize,
)
from socialbench.voe.observer import Observer, Reduction
from socialbench.voe.registry import make_observer

Pair = tuple[str, Path, Path]
# The audit's observers (``socialbench bib audit``): every shortcut, the agent-blind controls,
# then inverse planning.
AUDIT_OBSERVERS: tuple[str, ...] = (*SHORTCUTS, *CONTROLS, "inverse-planning")


def collect_pairs(root: Path | str, tasks: Sequence[str] = (),
                  max_per_task: int | None = None) -> list[Pair]:
    """``(task, expected path, unexpected path)`` for every complete pair under ``root``."""
    root = Path(root)
    if not root.exists():
        raise UserError(f"{root} does not exist: give a BIB evaluation dataset root "
                        f"(make one with `socialbench bib generate --split eval --out DIR`)")
    pairs: list[Pair] = []
    for pair in find_pairs(root):
        if pair.expected is None or pair.unexpected is None:
            continue
        task = pair.task or pair.expected.parent.name or "unnamed"
        pairs.append((task, pair.expected, pair.unexpected))
    if not pairs:
        raise UserError(f"no expected/unexpected pairs (<id>e.json + <id>u.json) under {root}: "
                        f"is it an evaluation split?")
    found = list(dict.fromkeys(t for t, _, _ in pairs))
    if tasks:
        unknown = [t for t in tasks if t not in found]
        if unknown:
            raise UserError(f"no pairs for task(s) {', '.join(unknown)} under {root}; "
                            f"tasks found: {', '.join(found)}")
        pairs = [p for p in pairs if p[0] in tasks]
    if max_per_task is not None:
        kept: dict[str, int] = {}
        trimmed = []
        for pair in pairs:
            if kept.get(pair[0], 0) < max_per_task:
                kept[pair[0]] = kept.get(pair[0], 0) + 1
                trimmed.append(pair)
        pairs = trimmed
    order = {t: i for i, t in enumerate(EVALUATION_TASKS)}
    return sorted(pairs, key=lambda p: (order.get(p[0], len(order)), p[0], str(p[1])))


def evaluate_observer(observer: Observer, pairs: Sequence[Pair], *, reduce: Reduction = "max",
                      console: Console | None = None, progress: bool = True, seed: int = 0,
                      n_boot: int = 1000, ties: TiePolicy = "half", workers: int = 1,
                      ) -> tuple[list[PairRating], dict[str, TaskResult]]:
    """Rate every pair and score per task (relative accuracy, AUC, bootstrap CIs)."""
    ratings = rate_pairs(observer, pairs, reduce=reduce, load=load_episode, console=console,
                         progress=progress, workers=workers)
    return ratings, summarize(ratings, seed=seed, n_boot=n_boot, order=EVALUATION_TASKS,
                              ties=ties)


def compare_observers(root: Path | str, names: Sequence[str] = AUDIT_OBSERVERS, *,
                      max_pairs: int | None = None, console: Console | None = None,
                      progress: bool = True, n_boot: int = 200,
                      workers: int = 1) -> dict[str, dict[str, TaskResult]]:
    """Every pair under ``root`` rated by each observer (each file read once), scored per
    task: observer name -> task -> result."""
    pairs = collect_pairs(root, max_per_task=max_pairs)
    observers = [make_observer("bib", name) for name in names]
    ratings = rate_pairs_many(observers, pairs, load=load_episode, console=console,
                              progress=progress, workers=workers)
    return {name: summarize(ratings[name], n_boot=n_boot, order=EVALUATION_TASKS)
            for name in names}


def audit_problems(results: dict[str, dict[str, TaskResult]]) -> list[str]:
    """Where an audit (:func:`compare_observers`) contradicts BIB's design: a shortcut above
    its designed ceiling on a sub-evaluation built against it (the data leak its cue), an
    agent-blind control off chance where the design does not imply its cue, or inverse
    planning below its floor overall."""
    problems = []
    for name, by_task in results.items():
        for task, result in by_task.items():
            ceiling = designed_ceiling(name, task, result.pairs)
            if ceiling is not None and result.relative_accuracy > ceiling:
                problems.append(f"{name} scores {100 * result.relative_accuracy:.1f} % on {task}"
                                f", above its designed ceiling of {100 * ceiling:.1f} % (the "
                                f"data leak the cue it follows)")
            band = chance_band(name, task, result.pairs) if task != OVERALL else None
            if band is not None and not band[0] <= result.relative_accuracy <= band[1]:
                problems.append(f"{name} scores {100 * result.relative_accuracy:.1f} % on {task}"
                                f", outside chance ({100 * band[0]:.1f}-{100 * band[1]:.1f} %"
                                f"): the two tests differ in a cue the design does not imply")
    planner = results.get("inverse-planning", {})
    overall = planner.get(OVERALL) or next(iter(planner.values()), None)
    if overall is not None and overall.relative_accuracy < AUDIT_FLOOR:
        problems.append(f"inverse-planning scores {100 * overall.relative_accuracy:.1f} % "
                        f"overall, below its floor of {100 * AUDIT_FLOOR:.0f} %")
    return problems

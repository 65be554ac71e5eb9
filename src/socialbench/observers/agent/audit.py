"""Audit an AGENT dataset with the control observers: per type, each control's accuracy.

AGENT's metric (agent spec): over a type's pairs, the share of all (surprising, expected)
rating pairs with the surprising video rated higher, ties half
(:func:`socialbench.core.metrics.pairwise_accuracy`). A control should score 50%: the
generator counterbalances every cue within each consecutive pair of trials, so on a type with n
pairs a control scores within ``1 / (2n)`` of 50% (exactly 50% for even n); ``problems`` names
each type and control farther from chance than ``max(TOLERANCE, 1 / (2n))``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from socialbench.agent3d.episodes import find_test_pairs, load_episode
from socialbench.agent3d.schema import TRIAL_TYPES
from socialbench.core.errors import UserError
from socialbench.core.metrics import pairwise_accuracy
from socialbench.observers.agent.controls import CONTROLS
from socialbench.voe.evaluate import PairRating, rate_pairs_many
from socialbench.voe.registry import make_observer

OVERALL = "all"
TOLERANCE = 0.05  # issue's 45-55 % band for a control on a type


@dataclass(frozen=True)
class Score:
    """One control on one type (or on every pair: ``OVERALL``)."""

    pairs: int
    accuracy: float


def scores(ratings: Sequence[PairRating]) -> dict[str, Score]:
    """Per type (in AGENT's order) and over all pairs: pairwise accuracy of the ratings."""
    types = sorted({r.task for r in ratings},
                   key=lambda t: (TRIAL_TYPES.index(t) if t in TRIAL_TYPES else 99, t))
    out = {}
    for task in [*types, OVERALL]:
        rows = [r for r in ratings if task in (OVERALL, r.task)]
        out[task] = Score(len(rows), pairwise_accuracy([r.unexpected for r in rows],
                                                       [r.expected for r in rows]))
    return out


def audit(root: Path | str, names: Sequence[str] = CONTROLS, *, workers: int = 1,
          console: Console | None = None, progress: bool = True) -> dict[str, dict[str, Score]]:
    """Rate every test pair under ``root`` with each control (each trial read once):
    control -> type -> score."""
    pairs = find_test_pairs(root)
    if not pairs:
        raise UserError(f"no AGENT test trials (expected/ + surprising/) under {root}; make "
                        f"them with `socialbench agent generate --split test --out {root}`")
    observers = [make_observer("agent", name) for name in names]
    ratings = rate_pairs_many(observers, pairs, load=load_episode, console=console,
                              progress=progress, description="auditing", workers=workers)
    return {name: scores(ratings[name]) for name in names}


def problems(results: dict[str, dict[str, Score]]) -> list[str]:
    """Each control and type farther from 50% than counterbalancing allows."""
    found = []
    for name, by_type in results.items():
        for task, score in by_type.items():
            allowed = max(TOLERANCE, 1 / (2 * score.pairs))
            if task != OVERALL and abs(score.accuracy - 0.5) > allowed + 1e-9:
                found.append(f"{name} scores {100 * score.accuracy:.1f} % on type {task} "
                             f"({score.pairs} pairs; chance is 50 +- {100 * allowed:.1f} %): "
                             f"the cue it follows tells the answer")
    return found


def table(results: dict[str, dict[str, Score]], markdown: bool = False) -> str:
    """Types as rows, controls as columns, accuracy in %, with the number of pairs."""
    names = list(results)
    tasks = list(next(iter(results.values()))) if results else []
    header = ["type", "pairs", *(n.removeprefix("control-") for n in names)]
    rows = [[t, str(results[names[0]][t].pairs),
             *(f"{100 * results[n][t].accuracy:.1f}" for n in names)] for t in tasks]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join([*lines, *("| " + " | ".join(r) + " |" for r in rows)])
    widths = [max(len(row[k]) for row in [header, *rows]) for k in range(len(header))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True))
                     for row in [header, *rows])

"""How the inverse-planning observer's constants were chosen: a sweep on tuning episodes.

    python scripts/inverse_planning_constants.py [--pairs 20] [--seed 2022] [--workers 2]

Builds ``--pairs`` expected/unexpected pairs of every BIB evaluation task in memory, from seeds
of their own (``derive_seed(--seed, "tuning", task, index)``: no file of a generated split has
them), then rates them with the observer's constants at their values
(``InversePlanningConfig``) and with one constant at a time moved to each value of its sweep.
It prints, per setting, the relative accuracy (ties half) averaged over the nine
sub-evaluations, the lowest one, and the mean AUC (every video rated on its own, which tells
settings apart where relative accuracy saturates). ``--markdown`` prints the table of
docs/bib_observers.md.
"""

from __future__ import annotations

import argparse
from dataclasses import fields

import numpy as np

from socialbench.bib.generate import SPLITS, build_episode
from socialbench.bib.schema import Episode
from socialbench.core.metrics import relative_accuracy, roc_auc
from socialbench.core.parallel import ordered_map
from socialbench.core.seeding import derive_seed
from socialbench.observers.bib.inverse_planning import InversePlanner, InversePlanningConfig

SWEEP: dict[str, tuple[float, ...]] = {
    "beta": (1.0, 2.0, 4.0, 8.0),
    "p_rational": (0.5, 0.75, 0.9, 0.99),
    "beta_irrational": (0.0, 0.5, 1.0, 2.0),
    "stop_miss": (0.005, 0.02, 0.1),
    "alpha": (0.1, 0.5, 1.0, 2.0),
}

# The tuning pairs, built in the parent before the workers fork (they inherit them).
_PAIRS: list[tuple[str, Episode, Episode]] = []


def build_pairs(pairs: int, seed: int) -> list[tuple[str, Episode, Episode]]:
    split = SPLITS["eval"]
    built = []
    for task, recipe in split.tasks.items():
        for index in range(pairs):
            b = build_episode(recipe, split.shapes, derive_seed(seed, "tuning", task, index),
                              index)
            assert b.unexpected is not None
            built.append((task, Episode(b.expected), Episode(b.unexpected)))
    return built


def score(setting: tuple[str, float]) -> tuple[str, float, float, float, float]:
    """(constant, value, mean relative accuracy over tasks, lowest task's, mean AUC)."""
    name, value = setting
    observer = InversePlanner(**({name: value} if name else {}))
    by_task: dict[str, tuple[list[float], list[float]]] = {}
    for task, e, u in _PAIRS:
        rated = by_task.setdefault(task, ([], []))
        rated[0].append(observer.surprise(e))
        rated[1].append(observer.surprise(u))
    accuracies = [relative_accuracy(e, u) for e, u in by_task.values()]
    auc = [roc_auc(e, u) for e, u in by_task.values()]
    return name, value, float(np.mean(accuracies)), float(np.min(accuracies)), float(np.mean(auc))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20, help="pairs per sub-evaluation")
    parser.add_argument("--seed", type=int, default=2022)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    _PAIRS.extend(build_pairs(args.pairs, args.seed))
    chosen = {f.name: getattr(InversePlanningConfig(), f.name)
              for f in fields(InversePlanningConfig) if f.name in SWEEP}
    settings = [("", 0.0)] + [(name, value) for name, values in SWEEP.items()
                              for value in values if value != chosen[name]]
    rows = list(ordered_map(score, settings, args.workers))
    if args.markdown:
        print("| setting | mean relative accuracy % | lowest sub-evaluation % | mean AUC % |")
        print("| --- | ---: | ---: | ---: |")
    else:
        print(f"{len(_PAIRS)} tuning pairs; constants as chosen: "
              + ", ".join(f"{k}={v:g}" for k, v in chosen.items()))
    for name, value, mean, low, auc in rows:
        label = "as chosen" if not name else f"{name} = {value:g} (chosen {chosen[name]:g})"
        if args.markdown:
            print(f"| {label} | {100 * mean:.1f} | {100 * low:.1f} | {100 * auc:.1f} |")
        else:
            print(f"{label:40} mean {100 * mean:5.1f} %   lowest {100 * low:5.1f} %   "
                  f"AUC {100 * auc:5.1f} %")


if __name__ == "__main__":
    main()

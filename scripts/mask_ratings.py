"""The mask model's evaluation table in docs/mask.md: one checkpoint's predictions rated three ways.

    python scripts/mask_ratings.py CHECKPOINT DATA [--markdown]

Rates every expected/unexpected pair under DATA (each file read once) with the checkpoint's
per-step surprise in three ways: ``new-cell`` with the max over steps (the default, as
``socialbench bib evaluate --observer mask`` rates), ``path-mean`` with the max, and
``new-cell`` with the mean over steps; prints, per sub-evaluation, relative accuracy (ties
half; 95 % bootstrap interval for the default) and ROC AUC beside the paper's mask model.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from socialbench.bib.io import load_episode
from socialbench.bib.published import AUC, RELATIVE_ACCURACY
from socialbench.observers.bib.evaluation import collect_pairs
from socialbench.observers.bib.mask import MaskObserver
from socialbench.voe.evaluate import PairRating, summarize
from socialbench.voe.observer import view_of

# (label, surprise mode, reduction over steps)
RATINGS = (("new-cell, max", "new-cell", "max"), ("path-mean, max", "path-mean", "max"),
           ("new-cell, mean", "new-cell", "mean"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("data", type=Path)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    observers = {mode: MaskObserver(checkpoint=args.checkpoint, surprise_mode=mode)
                 for mode in {mode for _, mode, _ in RATINGS}}
    ratings: dict[str, list[PairRating]] = {label: [] for label, _, _ in RATINGS}
    for task, expected, unexpected in collect_pairs(args.data):
        seen = [view_of(load_episode(path)) for path in (expected, unexpected)]
        steps = {mode: [np.asarray(o.surprise_per_step(v), float) for v in seen]
                 for mode, o in observers.items()}
        for label, mode, reduce in RATINGS:
            e, u = (float(getattr(np, reduce)(s)) if s.size else 0.0 for s in steps[mode])
            ratings[label].append(PairRating(task, expected.stem[:-1], e, u))
    results = {label: summarize(rated) for label, rated in ratings.items()}
    default = results[RATINGS[0][0]]
    if args.markdown:
        others = " | ".join(f"{label}: Rel / AUC" for label, _, _ in RATINGS[1:])
        print(f"| sub-evaluation | pairs | Rel [95% CI] | AUC | paper Rel | paper AUC | {others} |")
        print("| --- | --- | --- | --- | --- | --- | " + " | ".join("---" for _ in RATINGS[1:])
              + " |")
    for task, result in default.items():
        low, high = result.relative_accuracy_ci
        paper_rel = RELATIVE_ACCURACY.get(task, {}).get("mask")
        paper_auc = AUC.get(task, {}).get("mask")
        cells = [task, str(result.pairs),
                 f"{100 * result.relative_accuracy:.1f} [{100 * low:.0f}-{100 * high:.0f}]",
                 f"{100 * result.auc:.1f}",
                 "-" if paper_rel is None else f"{paper_rel:.1f}",
                 "-" if paper_auc is None else f"{paper_auc:.1f}"]
        cells += [f"{100 * results[label][task].relative_accuracy:.1f} / "
                  f"{100 * results[label][task].auc:.1f}" for label, _, _ in RATINGS[1:]]
        print("| " + " | ".join(cells) + " |" if args.markdown else "  ".join(cells))


if __name__ == "__main__":
    main()

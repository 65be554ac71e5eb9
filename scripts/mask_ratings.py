"""The mask model's evaluation table in docs/mask.md: one checkpoint's predictions rated three ways.

    python scripts/mask_ratings.py CHECKPOINT DATA [--markdown]
    python scripts/mask_ratings.py CHECKPOINT --generate eval [--episodes N] [--seed S] [--tasks T]

Rates every expected/unexpected pair under DATA (each file read once), or with ``--generate``
every pair ``socialbench bib generate --split SPLIT --no-video --seed S [--episodes N]`` would
write, built in memory one pair at a time (the paper's 9,000 evaluation pairs are ~49 GB of
JSON; the ratings equal the files': tests/observers/test_mask_shards.py), with the checkpoint's
per-step surprise in three ways: ``new-cell`` with the max over steps (the default, as
``socialbench bib evaluate --observer mask`` rates), ``path-mean`` with the max, and
``new-cell`` with the mean over steps; prints, per sub-evaluation, relative accuracy (ties
half; 95 % bootstrap interval for the default) and ROC AUC beside the paper's mask model.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch

from socialbench.bib.io import load_episode
from socialbench.bib.io.layout import EVALUATION_TASKS
from socialbench.bib.published import AUC, RELATIVE_ACCURACY
from socialbench.core.files import atomic_write
from socialbench.observers.bib.evaluation import collect_pairs
from socialbench.observers.bib.mask import MaskObserver
from socialbench.observers.bib.shards import generated_pairs
from socialbench.voe.evaluate import PairRating, summarize
from socialbench.voe.observer import view_of
from socialbench.voe.report import results_json

# (label, surprise mode, reduction over steps)
RATINGS = (("new-cell, max", "new-cell", "max"), ("path-mean, max", "path-mean", "max"),
           ("new-cell, mean", "new-cell", "mean"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("data", type=Path, nargs="?")
    parser.add_argument("--generate", metavar="SPLIT", help="rate a generated split in memory")
    parser.add_argument("--episodes", type=int, default=None, help="pairs per task (--generate)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (--generate)")
    parser.add_argument("--tasks", default=None,
                        help="comma-separated sub-evaluations to rate (--generate; default all)")
    parser.add_argument("--threads", type=int, default=1, help="PyTorch CPU threads")
    parser.add_argument("--ratings", type=Path, nargs="+", default=None,
                        help="JSON lines of the pairs' ratings, appended (to the first file) as "
                             "they are rated; pairs already in any of the files are not rated "
                             "again (a stopped run resumes)")
    parser.add_argument("--reverse", action="store_true",
                        help="--generate: last pairs first (a second process from the other end)")
    parser.add_argument("--no-rate", action="store_true",
                        help="only summarize the pairs already in --ratings")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", type=Path, default=None,
                        help="also write the default rating as `bib evaluate --json` does "
                             "(for scripts/bib_table1.py)")
    args = parser.parse_args()
    if (args.data is None) == (args.generate is None):
        parser.error("give DATA or --generate SPLIT")
    torch.set_num_threads(args.threads)
    observer = MaskObserver(checkpoint=args.checkpoint)
    modes = tuple(dict.fromkeys(mode for _, mode, _ in RATINGS))
    ratings: dict[str, list[PairRating]] = {label: [] for label, _, _ in RATINGS}
    done = set()
    for path in args.ratings or []:
        for line in path.read_text().splitlines() if path.is_file() else []:
            row = json.loads(line)
            if (row["task"], row["name"]) in done:
                continue  # rated by both of two processes
            done.add((row["task"], row["name"]))
            for label, (e, u) in row["ratings"].items():
                ratings[label].append(PairRating(row["task"], row["name"], e, u))
    if args.no_rate:
        pairs = iter(())
    elif args.generate:
        # pair k of every task before pair k + 1 of any: a stopped run rated the first pairs
        # of every sub-evaluation
        pairs = ((task, name, lambda e=e, u=u: [e, u]) for task, name, e, u in
                 generated_pairs(args.generate, tasks=args.tasks, episodes=args.episodes,
                                 seed=args.seed, interleaved=True, reverse=args.reverse, skip=done))
    else:
        pairs = ((task, e.stem[:-1], lambda e=e, u=u: [load_episode(e), load_episode(u)])
                 for task, e, u in collect_pairs(args.data) if (task, e.stem[:-1]) not in done)
    sink = open(args.ratings[0], "a") if args.ratings else None  # noqa: SIM115
    for count, (task, name, episodes) in enumerate(pairs, 1):
        if count % 500 == 0:
            print(f"rated {count} pairs", file=sys.stderr, flush=True)
        by_video = [observer.steps_by_mode(view_of(episode), modes) for episode in episodes()]
        steps = {mode: [np.asarray(video[mode], float) for video in by_video] for mode in modes}
        row = {}
        for label, mode, reduce in RATINGS:
            e, u = (float(getattr(np, reduce)(s)) if s.size else 0.0 for s in steps[mode])
            ratings[label].append(PairRating(task, name, e, u))
            row[label] = [e, u]
        if sink is not None:
            sink.write(json.dumps({"task": task, "name": name, "ratings": row}) + "\n")
            sink.flush()
    if sink is not None:
        sink.close()
    # by name within a task, as bib evaluate orders pairs (the bootstrap draws depend on it)
    results = {label: summarize(sorted(rated, key=lambda r: (r.task, r.name)),
                                order=EVALUATION_TASKS) for label, rated in ratings.items()}
    default = results[RATINGS[0][0]]
    if args.json is not None:
        with atomic_write(args.json) as tmp:
            tmp.write_text(json.dumps(results_json("mask", default), indent=1) + "\n")
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

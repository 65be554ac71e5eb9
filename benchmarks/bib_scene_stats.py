"""Scene statistics of the real BIB files beside generated ones (issue: scenes like the real).

    python benchmarks/bib_scene_stats.py [--pairs 20] [--style released|tidy]
        [--split eval|eval-new-shapes|train] [--real ../shared/data/bib_real_samples]

Builds ``--pairs`` episodes of every task in memory (no files; the episodes ``bib generate
--seed 0`` writes first, with the border cells it lists twice) and prints
one Markdown row per data set: the real samples first, then each generated task (background
tasks of ``--split train`` named ``<task> (train)``); then, per task, each statistic sparser or
tidier than the real files' and the design's reason for it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from socialbench.bib import style
from socialbench.bib.generate import build_episode, get_split, list_border_repeats
from socialbench.bib.io.layout import find_pairs
from socialbench.bib.io.read import load_episode
from socialbench.bib.scene_stats import (
    DESIGN_REASONS,
    Summary,
    markdown_table,
    row_name,
    summarize,
    tidier_than_real,
)
from socialbench.bib.schema import Episode
from socialbench.core.seeding import derive_seed

REAL = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "bib_real_samples"


def real_summary(root: Path) -> Summary:
    pairs = []
    for pair in find_pairs(root):
        e = load_episode(pair.expected)
        u = load_episode(pair.unexpected) if pair.unexpected is not None else None
        pairs.append((e, u))
    return summarize(pairs)


def generated_summary(split: str, task: str, pairs: int, scene_style: str) -> Summary:
    chosen = get_split(split)
    recipe = chosen.tasks[task]
    built = []
    look = style.get_style(scene_style)
    for index in range(pairs):
        seed = derive_seed(0, split, task, index)  # as `bib generate --seed 0` seeds its jobs
        b = build_episode(recipe, chosen.shapes, seed, index, scene_style=look)
        list_border_repeats(b, look.border_repeats, seed)
        built.append((Episode(b.expected), Episode(b.unexpected) if b.unexpected else None))
    return summarize(built)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--style", default=style.DEFAULT_STYLE, choices=list(style.STYLES))
    parser.add_argument("--split", default="eval", choices=["eval", "eval-new-shapes", "train"])
    parser.add_argument("--real", type=Path, default=REAL)
    args = parser.parse_args()
    rows = {"real": real_summary(args.real)}
    for task in get_split(args.split).tasks:
        rows[row_name(args.split, task)] = generated_summary(args.split, task, args.pairs,
                                                             args.style)
    print(markdown_table(rows))
    print()
    real = rows["real"]
    for task, summary in rows.items():
        if task == "real":
            continue
        reasons = DESIGN_REASONS.get(task, {})
        for stat in tidier_than_real(summary, real):
            why = reasons.get(stat, "NO STATED REASON")
            print(f"- {task}: {stat} differs from the real files by design: {why}")


if __name__ == "__main__":
    main()

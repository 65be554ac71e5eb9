"""Scene statistics of the real BIB files beside generated ones (issue: scenes like the real).

    python benchmarks/bib_scene_stats.py [--pairs 20]
        [--style released|released-v2|released-v1|tidy]
        [--split eval|eval-new-shapes|train] [--real ../shared/data/bib_real_samples]
        [--tasks a,b] [--also-style released-v2] [--steps-plot steps.png] [--walk-shapes]

Builds ``--pairs`` episodes of every task in memory (no files; the episodes ``bib generate
--seed 0`` writes first, with the border cells it lists twice) and prints
one Markdown row per data set: the real samples first, then each generated task (background
tasks of ``--split train`` named ``<task> (train)``; with ``--also-style S``, each task again in
style S, named ``<task>, S``); then, per task, each statistic sparser or
tidier than the real files' and the design's reason for it; then the agent's steps in full: every
consecutive frame pair's (dx, dy), still frames included, by class and under each reading of
"axis-aligned 2-px steps" (``bib.scene_stats.steps_table``), and the signed 5 x 5 histograms of
the real files and of the first task. ``--steps-plot`` draws the step classes of every row as
grouped bars (the real files' three episodes as dots, to show how much they differ).
``--walk-shapes`` also prints how the agent's walks bend in familiarization and in each test
(turns, straight walks, slanted strides, tortuosity; the audit's ``control-path-shape``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from socialbench.bib import style
from socialbench.bib.generate import build_episode, get_split, list_border_repeats
from socialbench.bib.io.layout import find_pairs
from socialbench.bib.io.read import load_episode
from socialbench.bib.scene_stats import (
    DESIGN_REASONS,
    STEP_CLASSES,
    Summary,
    markdown_table,
    row_name,
    signed_grid,
    step_shares,
    steps_table,
    summarize,
    tidier_than_real,
)
from socialbench.bib.schema import Episode
from socialbench.bib.tasks import counterbalance
from socialbench.core.seeding import derive_seed

REAL = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "bib_real_samples"


def real_summary(root: Path) -> Summary:
    return real_summary_of(find_pairs(root))


def plot_steps(rows: dict[str, Summary], real_episodes: list[Summary], out: Path) -> None:
    """Grouped bars: each row's share of the moves per step class; dots: the real episodes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.8 / len(rows)
    for k, (name, summary) in enumerate(rows.items()):
        shares = step_shares(summary.displacements)
        xs = [i + (k - (len(rows) - 1) / 2) * width for i in range(len(STEP_CLASSES))]
        ax.bar(xs, [100 * shares.get(c, 0.0) for c in STEP_CLASSES], width, label=name)
        if name == "real":
            for episode in real_episodes:
                own = step_shares(episode.displacements)
                ax.plot(xs, [100 * own.get(c, 0.0) for c in STEP_CLASSES], "k.", ms=5)
    ax.set_xticks(range(len(STEP_CLASSES)), [f"{c}" for c in STEP_CLASSES])
    ax.set_xlabel("step, sorted (|dx|, |dy|) px")
    ax.set_ylabel("% of the agent's moves")
    ax.set_title("Agent steps: real files (dots: each real episode) vs generated")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)


def real_episodes(root: Path) -> list[Summary]:
    return [real_summary_of([pair]) for pair in find_pairs(root)]


def real_summary_of(pairs) -> Summary:
    return summarize((load_episode(p.expected),
                      load_episode(p.unexpected) if p.unexpected is not None else None)
                     for p in pairs)


def walk_shapes_table(rows: dict[str, list[tuple[Episode, Episode | None]]]) -> str:
    """Markdown: per data set, the agent's walks (``controls.walk_shape``) in familiarization
    (the expected episode's 8 trials) and in the expected and unexpected tests: mean turns,
    share of straight walks (no turn), share of slanted 2-px strides, mean tortuosity."""
    from socialbench.observers.bib.controls import walk_shape

    head = ("| data | walks: fam. / e / u | turns: fam. / e / u | straight walks: fam. / e / u "
            "| slanted strides: fam. / e / u | tortuosity: fam. / e / u |")
    lines = [head, "| --- |" + " ---: |" * 5]
    for name, pairs in rows.items():
        roles = [[walk_shape(t) for e, _ in pairs for t in e.trials[:-1]],
                 [walk_shape(e.trials[-1]) for e, _ in pairs],
                 [walk_shape(u.trials[-1]) for _, u in pairs if u is not None]]
        roles = [r for r in roles if r]
        lines.append(f"| {name} | {' / '.join(str(len(r)) for r in roles)} "
                     f"| {_means(roles, lambda w: w.turns, '{:.2f}')} "
                     f"| {_means(roles, lambda w: 100 * (w.turns == 0), '{:.0f}%')} "
                     f"| {_means(roles, lambda w: 100 * w.slanted, '{:.0f}%')} "
                     f"| {_means(roles, lambda w: w.tortuosity, '{:.2f}')} |")
    return "\n".join(lines)


def _means(roles: list[list], value, fmt: str) -> str:
    return " / ".join(fmt.format(float(np.mean([value(w) for w in r]))) for r in roles)


def generated_summary(split: str, task: str, pairs: int, scene_style: str) -> Summary:
    return summarize(generated_pairs(split, task, pairs, scene_style))


def generated_pairs(split: str, task: str, pairs: int,
                    scene_style: str) -> list[tuple[Episode, Episode | None]]:
    chosen = get_split(split)
    recipe = chosen.tasks[task]
    built = []
    look = style.get_style(scene_style)
    for index in range(pairs):
        seed = derive_seed(0, split, task, index)  # as `bib generate --seed 0` seeds its jobs
        side = counterbalance.side_for(0, split, task, index) if split != "train" else None
        b = build_episode(recipe, chosen.shapes, seed, index, scene_style=look, side=side)
        list_border_repeats(b, look.border_repeats, seed)
        built.append((Episode(b.expected), Episode(b.unexpected) if b.unexpected else None))
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--style", default=style.DEFAULT_STYLE, choices=list(style.STYLES))
    parser.add_argument("--split", default="eval", choices=["eval", "eval-new-shapes", "train"])
    parser.add_argument("--real", type=Path, default=REAL)
    parser.add_argument("--tasks", default=None, help="comma-separated task folders (all)")
    parser.add_argument("--also-style", default=None, choices=list(style.STYLES))
    parser.add_argument("--steps-plot", type=Path, default=None)
    parser.add_argument("--walk-shapes", action="store_true",
                        help="also the walks' shapes in familiarization and each test")
    args = parser.parse_args()
    episodes = {"real": [(load_episode(p.expected), load_episode(p.unexpected)
                          if p.unexpected is not None else None)
                         for p in find_pairs(args.real)]}
    tasks = args.tasks.split(",") if args.tasks else list(get_split(args.split).tasks)
    for task in tasks:
        episodes[row_name(args.split, task)] = generated_pairs(args.split, task, args.pairs,
                                                               args.style)
        if args.also_style:
            episodes[f"{row_name(args.split, task)}, {args.also_style}"] = generated_pairs(
                args.split, task, args.pairs, args.also_style)
    rows = {name: summarize(pairs) for name, pairs in episodes.items()}
    print(markdown_table(rows))
    print()
    real = rows["real"]
    for task, summary in rows.items():
        if task == "real":
            continue
        reasons = DESIGN_REASONS.get(task.split(", ")[0], {})
        for stat in tidier_than_real(summary, real):
            why = reasons.get(stat, "NO STATED REASON")
            print(f"- {task}: {stat} differs from the real files by design: {why}")
    print()
    print(steps_table({name: summary.displacements for name, summary in rows.items()}))
    first = next(name for name in rows if name != "real")
    for name in ("real", first):
        print(f"\nsigned (dx, dy) over every frame pair, {name}:")
        print(signed_grid(rows[name].displacements))
    if args.walk_shapes:
        print("\nthe agent's walks by role (observers/bib/controls.walk_shape):\n")
        print(walk_shapes_table(episodes))
    if args.steps_plot is not None:
        plot_steps(rows, real_episodes(args.real), args.steps_plot)
        print(f"\nwrote {args.steps_plot}")


if __name__ == "__main__":
    main()

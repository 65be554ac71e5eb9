"""Ablations of the learned planner (docs/beyond.md), every variant on the same pairs.

    python -m socialbench.observers.bib.learned_planner.ablation --checkpoint CKPT --data DIR \\
        [--max-pairs N] [--variants full,no-preference-latent,...]

Each pair's files are read and turned into arrays once; every variant rates them. Variants:
``full`` (the checkpoint), ``no-preference-latent`` (goal prior ignores familiarization),
``shared-preference`` (one preference for every agent), ``always-rational`` (no rationality
latent), ``untrained`` (the initial values instead of the learned ones). Prints relative
accuracy % with 95 % bootstrap intervals per sub-evaluation, a Markdown table.
"""

from __future__ import annotations

from pathlib import Path

import click

from socialbench.bib.io import load_episode
from socialbench.bib.io.layout import EVALUATION_TASKS
from socialbench.core.progress import progress_bar
from socialbench.observers.bib.evaluation import collect_pairs
from socialbench.observers.bib.learned_planner.model import ModelConfig, PlannerModel
from socialbench.observers.bib.learned_planner.observer import LearnedPlanner, episode_arrays
from socialbench.voe.evaluate import OVERALL, PairRating, summarize

VARIANTS: dict[str, dict] = {
    "full": {}, "no-preference-latent": {"preference": False},
    "shared-preference": {"per_agent": False}, "always-rational": {"p_rational": 1.0 - 1e-9},
    "untrained": {}}


def variant(trained: LearnedPlanner, name: str) -> LearnedPlanner:
    """The trained observer with one piece of the model taken away."""
    config = ModelConfig(**{**trained.config.to_json(), **VARIANTS[name]})
    out = LearnedPlanner(config)
    if name != "untrained":
        out.model = PlannerModel(config)
        out.model.load_state_dict(trained.model.state_dict())
    out.model.eval()
    return out


@click.command()
@click.option("--checkpoint", required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--data", required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--max-pairs", type=click.IntRange(min=1), default=None)
@click.option("--variants", default=",".join(VARIANTS), show_default=True)
@click.option("--tasks", default="", help="Comma-separated sub-evaluations (default: all).")
def main(checkpoint: Path, data: Path, max_pairs: int | None, variants: str, tasks: str) -> None:
    trained = LearnedPlanner.load(checkpoint)
    names = [v.strip() for v in variants.split(",") if v.strip()]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise click.UsageError(f"unknown variant(s) {', '.join(unknown)}; choose from "
                               f"{', '.join(VARIANTS)}")
    observers = {n: variant(trained, n) for n in names}
    pairs = collect_pairs(data, [t for t in tasks.split(",") if t], max_pairs)
    ratings: dict[str, list[PairRating]] = {n: [] for n in names}
    with progress_bar() as bar:
        for task, e_path, u_path in bar.track(pairs, description="rating pairs"):
            e, u = (episode_arrays(load_episode(p)) for p in (e_path, u_path))
            for n, observer in observers.items():
                se, su = (float(observer.surprise_of_arrays(a).max()) for a in (e, u))
                ratings[n].append(PairRating(task, e_path.name, se, su))
    results = {n: summarize(r, order=EVALUATION_TASKS) for n, r in ratings.items()}
    click.echo("| sub-evaluation | pairs | " + " | ".join(names) + " |")
    click.echo("| --- | --- |" + " --- |" * len(names))
    for task in results[names[0]]:
        cells = []
        for n in names:
            r = results[n][task]
            low, high = r.relative_accuracy_ci
            cells.append(f"{100 * r.relative_accuracy:.1f} [{100 * low:.0f}-{100 * high:.0f}]")
        label = "overall" if task == OVERALL else task
        click.echo(f"| {label} | {results[names[0]][task].pairs} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

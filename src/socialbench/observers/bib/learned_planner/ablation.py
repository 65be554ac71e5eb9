"""Ablations of the learned planner and controls beside it (docs/beyond.md), on the same pairs.

    python -m socialbench.observers.bib.learned_planner.ablation --checkpoint CKPT \\
        (--data DIR | --generate SPLIT [--episodes N] [--seed S]) [--variants full,...] \\
        [--controls] [--ratings FILE.jsonl] [--max-pairs N] [--tasks ...]

Each pair is read (or, with ``--generate``, built in memory as ``socialbench bib generate
--split SPLIT --no-video --seed S`` would write it: the paper-sized split is ~49 GB of JSON)
and turned into arrays once; every variant rates it. Variants: ``full`` (the checkpoint),
``no-preference-latent`` (goal prior ignores familiarization), ``shared-preference`` (one
preference for every agent), ``no-rationality-mixture`` (only the rational agent: prior 1),
``no-learned-costs`` (the cell costs at their initial values, every cell open; the learned
beta, route sharpness and alpha kept), ``untrained`` (every value at its initial one).
``--controls`` adds the four agent-blind controls of ``socialbench bib audit``.
``--ratings``: every pair's ratings appended as JSON lines as they come; pairs already there
are not rated again (a stopped run resumes). Prints relative accuracy % with 95 % bootstrap
intervals per sub-evaluation (and the first column's AUC), a Markdown table.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator
from pathlib import Path

import click
import torch

from socialbench.bib.io import load_episode
from socialbench.bib.io.layout import EVALUATION_TASKS
from socialbench.bib.schema import Episode
from socialbench.core.errors import UserError
from socialbench.core.progress import progress_bar
from socialbench.observers.bib.evaluation import collect_pairs
from socialbench.observers.bib.learned_planner.model import ModelConfig, PlannerModel
from socialbench.observers.bib.learned_planner.observer import LearnedPlanner, episode_arrays
from socialbench.observers.bib.learned_planner.planner import CellCosts
from socialbench.voe.evaluate import OVERALL, PairRating, TaskResult, summarize
from socialbench.voe.observer import Observer, view_of
from socialbench.voe.registry import make_observer

VARIANTS: dict[str, dict] = {
    "full": {}, "no-preference-latent": {"preference": False},
    "shared-preference": {"per_agent": False}, "no-rationality-mixture": {"p_rational": 1.0},
    "no-learned-costs": {}, "untrained": {}}
CONTROLS = ("control-novelty", "control-duration", "control-speed", "control-contrast")
MAX_RATINGS_LINE = 1 << 16  # a ratings line holds a dozen numbers

PairSource = Iterator[tuple[str, str, Callable[[], tuple[Episode, Episode]]]]


def variant(trained: LearnedPlanner, name: str) -> LearnedPlanner:
    """The trained observer with one piece of the model taken away."""
    config = ModelConfig(**{**trained.config.to_json(), **VARIANTS[name]})
    out = LearnedPlanner(config)
    if name != "untrained":
        out.model = PlannerModel(config)
        out.model.load_state_dict(trained.model.state_dict())
    if name == "no-learned-costs":
        out.model.costs = CellCosts()  # the initial belief: no cell blocks
    out.model.eval()
    return out


def pair_source(data: Path | None, generate: str | None, *, episodes: int | None, seed: int,
                tasks: list[str], max_pairs: int | None,
                skip: Collection[tuple[str, str]]) -> PairSource:
    """``(task, name, build)`` per pair not in ``skip``: from files under ``data`` (first
    ``max_pairs`` by name per task) or generated in memory (pair k of every task before pair
    k + 1 of any, so a stopped run has rated the first pairs of every sub-evaluation)."""
    from socialbench.observers.bib.shards import generated_pairs

    if generate is not None:
        for task, name, e, u in generated_pairs(generate, tasks=tasks or None, episodes=episodes,
                                                seed=seed, interleaved=True, skip=skip):
            yield task, name, lambda e=e, u=u: (e, u)
        return
    assert data is not None
    for task, e_path, u_path in collect_pairs(data, tasks, max_pairs):
        name = e_path.stem[:-1]
        if (task, name) not in skip:
            yield task, name, lambda e=e_path, u=u_path: (load_episode(e), load_episode(u))


def read_ratings(path: Path | None) -> dict[tuple[str, str], dict[str, list[float]]]:
    """The pairs a previous run rated: (task, name) -> observer -> [expected, unexpected]."""
    done: dict[tuple[str, str], dict[str, list[float]]] = {}
    if path is None or not path.is_file():
        return done
    with path.open() as lines:
        for number, line in enumerate(lines, 1):
            if len(line) > MAX_RATINGS_LINE:
                raise UserError(f"{path}:{number}: a line of {len(line)} characters is not a "
                                f"ratings line; give another --ratings file")
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                done[(str(row["task"]), str(row["name"]))] = {
                    k: [float(v[0]), float(v[1])] for k, v in row["ratings"].items()}
            except (ValueError, KeyError, TypeError, IndexError):
                if line.endswith("\n"):
                    raise UserError(f"{path}:{number}: not a ratings line; give another "
                                    f"--ratings file") from None
                # the last line of a run stopped while writing: rated again
    return done


def rate_pair(planners: dict[str, LearnedPlanner], controls: list[Observer],
              e: Episode, u: Episode) -> dict[str, list[float]]:
    """Every observer's (expected, unexpected) surprise of one pair; the planner variants share
    the pair's arrays. Observers see the trials alone (``view_of``)."""
    seen = [view_of(e), view_of(u)]
    arrays = [episode_arrays(v) for v in seen]
    out = {n: [float(p.surprise_of_arrays(a).max()) for a in arrays]
           for n, p in planners.items()}
    for control in controls:
        out[control.name] = [float(control.surprise(v)) for v in seen]
    return out


def markdown_rows(results: dict[str, dict[str, TaskResult]]) -> list[str]:
    """A Markdown table: sub-evaluation, pairs, each observer's relative accuracy % [95 %
    interval], then the first observer's AUC."""
    names = list(results)
    lines = ["| sub-evaluation | pairs | " + " | ".join(names) + f" | AUC ({names[0]}) |",
             "| --- | ---: |" + " ---: |" * (len(names) + 1)]
    for task, first in results[names[0]].items():
        cells = []
        for n in names:
            r = results[n][task]
            low, high = r.relative_accuracy_ci
            cells.append(f"{100 * r.relative_accuracy:.1f} [{100 * low:.1f}-{100 * high:.1f}]")
        label = "overall" if task == OVERALL else task
        lines.append(f"| {label} | {first.pairs} | " + " | ".join(cells)
                     + f" | {100 * first.auc:.1f} |")
    return lines


@click.command()
@click.option("--checkpoint", required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--data", type=click.Path(exists=True, path_type=Path), default=None)
@click.option("--generate", metavar="SPLIT", default=None,
              help="Rate the pairs `bib generate --split SPLIT --no-video` writes, in memory.")
@click.option("--episodes", type=click.IntRange(min=1), default=None,
              help="--generate: pairs per sub-evaluation (default: the paper's counts).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="--generate: the generator's seed.")
@click.option("--max-pairs", type=click.IntRange(min=1), default=None,
              help="--data: at most this many pairs per sub-evaluation (first by name).")
@click.option("--variants", default=",".join(VARIANTS), show_default=True)
@click.option("--controls", is_flag=True, help="Add the four agent-blind controls.")
@click.option("--tasks", default="", help="Comma-separated sub-evaluations (default: all).")
@click.option("--ratings", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="JSON lines of every pair's ratings, appended; pairs there are not re-rated.")
@click.option("--no-rate", is_flag=True, help="Only summarize the pairs in --ratings.")
@click.option("--threads", type=click.IntRange(min=1), default=1, show_default=True,
              help="PyTorch CPU threads (the model's tensors are small: more threads only "
                   "wait on each other on a busy machine).")
def main(checkpoint: Path, data: Path | None, generate: str | None, episodes: int | None,
         seed: int, max_pairs: int | None, variants: str, controls: bool, tasks: str,
         ratings: Path | None, no_rate: bool, threads: int) -> None:
    if (data is None) == (generate is None):
        raise click.UsageError("give --data DIR or --generate SPLIT")
    torch.set_num_threads(threads)
    names = [v.strip() for v in variants.split(",") if v.strip()]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise click.UsageError(f"unknown variant(s) {', '.join(unknown)}; choose from "
                               f"{', '.join(VARIANTS)}")
    trained = LearnedPlanner.load(checkpoint)
    planners = {n: variant(trained, n) for n in names}
    blind = [make_observer("bib", c) for c in CONTROLS] if controls else []
    wanted = names + [c.name for c in blind]
    done = read_ratings(ratings)
    chosen = [t for t in tasks.split(",") if t]
    rated = {k: v for k, v in done.items() if all(n in v for n in wanted)
             and (not chosen or k[0] in chosen)}
    if not no_rate:
        source = pair_source(data, generate, episodes=episodes, seed=seed, tasks=chosen,
                             max_pairs=max_pairs, skip=set(rated))
        sink = ratings.open("a") if ratings is not None else None  # noqa: SIM115
        try:
            with progress_bar() as bar:
                for task, name, build in bar.track(source, description="rating pairs"):
                    rated[(task, name)] = rate_pair(planners, blind, *build())
                    if sink is not None:
                        sink.write(json.dumps({"task": task, "name": name,
                                               "ratings": rated[(task, name)]}) + "\n")
                        sink.flush()
        finally:
            if sink is not None:
                sink.close()
    if not rated:
        raise UserError("no pair rated: check --data/--generate, --tasks and --ratings")
    keys = sorted(rated)  # by name within a task, as bib evaluate orders pairs
    results = {n: summarize([PairRating(t, name, *rated[(t, name)][n]) for t, name in keys],
                            order=EVALUATION_TASKS) for n in wanted}
    click.echo("\n".join(markdown_rows(results)))


if __name__ == "__main__":
    main()

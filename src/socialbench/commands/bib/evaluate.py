"""`socialbench bib evaluate`: rate a dataset's expected/unexpected pairs with an observer."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console

from socialbench.commands.backend import backend_options
from socialbench.core.errors import UserError
from socialbench.observers.bib.video_model.frame_source import FRAME_SOURCES
from socialbench.voe.registry import observer_names

# Published columns shown beside ours: the BIB paper's two baselines, the best learned model and
# Bayesian inverse planning (all models: socialbench.bib.published).
PUBLISHED_SHOWN = ("mask", "video", "IRENE", "HBToM")


@click.command(name="evaluate")
@click.option("--data", "data", required=True, type=click.Path(path_type=Path),
              help="Evaluation dataset root: task folders of <id>e.json/<id>u.json (ours or "
                   "released), or one folder of pairs.")
@click.option("--observer", "observer", required=True,
              help=f"Observer name: {', '.join(observer_names('bib'))}.")
@click.option("--train", "train", type=click.Path(path_type=Path), default=None,
              help="Fit a learned observer on this training split (80/20 train/validation), as "
                   "`socialbench bib train` does with its defaults.")
@click.option("--checkpoint", type=click.Path(path_type=Path), default=None,
              help="Learned observers: load this checkpoint, or save to it after --train.")
@click.option("--tasks", default="", help="Comma-separated sub-evaluations (default: all found).")
@click.option("--max-pairs", type=click.IntRange(min=1), default=None,
              help="Rate at most this many pairs per task (first by name).")
@click.option("--reduce", type=click.Choice(["max", "mean"]), default="max", show_default=True,
              help="A video's surprise: the max (BIB paper) or mean over its rated steps.")
@click.option("--ties", type=click.Choice(["half", "correct"]), default="half", show_default=True,
              help="Relative accuracy: a tied pair counts half; 'correct' reproduces the released "
                   "BIB code, which counted ties as correct (a bug).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the bootstrap confidence intervals.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes rating pairs (the numbers do not depend on it).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object instead of tables.")
@click.option("--frames", "frames", type=click.Choice(FRAME_SOURCES), default=None,
              help="video: rate the 2d or 3d videos (drawn from the JSON); default: those the "
                   "checkpoint was trained on (another is an error).")
@backend_options(reads=("data",))
def evaluate(data: Path, observer: str, train: Path | None, checkpoint: Path | None, tasks: str,
             max_pairs: int | None, reduce: str, ties: str, seed: int, workers: int,
             as_json: bool, frames: str | None) -> None:
    """Rate every expected/unexpected pair under DATA with an observer; print relative accuracy
    and AUC per sub-evaluation beside the published numbers."""
    from socialbench.bib.published import RELATIVE_ACCURACY
    from socialbench.observers.bib.evaluation import collect_pairs, evaluate_observer
    from socialbench.observers.bib.training import ready_observer
    from socialbench.voe.report import results_json, results_table

    console = Console(stderr=as_json)
    wanted = [t.strip() for t in tasks.split(",") if t.strip()]
    if frames is not None and observer != "video":
        raise UserError(f"--frames chooses the video model's frames; observer {observer!r} "
                        f"takes none")
    pairs = collect_pairs(data, wanted, max_pairs)
    rater = ready_observer(observer, train=train, checkpoint=checkpoint, console=console,
                           observer_options=frames and {"frames": frames})
    seen = getattr(getattr(rater, "config", None), "frames", None)
    if frames is not None and seen != frames:
        raise UserError(f"{checkpoint} was trained on {seen} frames: rate it with --frames "
                        f"{seen}, or train a model with --frames {frames}")
    _, results = evaluate_observer(rater, pairs, reduce=reduce, console=console,  # type: ignore
                                   seed=seed, ties=ties, workers=workers)
    if as_json:
        click.echo(json.dumps(results_json(observer, results, reduce=reduce, ties=ties)))
        return
    console.print(results_table(observer, results, published=RELATIVE_ACCURACY,
                                models=PUBLISHED_SHOWN,
                                title=f"{observer} on {data} (reduce={reduce}): relative "
                                      f"accuracy and AUC %; dim: published relative accuracy % "
                                      f"({', '.join(PUBLISHED_SHOWN)})"))

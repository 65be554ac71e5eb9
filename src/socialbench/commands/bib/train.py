"""`socialbench bib train`: fit a learned BIB observer on a background training set."""

from __future__ import annotations

import time
from pathlib import Path

import click

from socialbench.core.errors import UserError
from socialbench.observers.bib.video_model.frame_source import FRAME_SOURCES

# bib paper, appendix Table 2: the mask model's per-cell precision/recall on the background tasks
PAPER_BACKGROUND = {"single_object": (0.88, 0.67), "preference": (0.92, 0.57),
                    "multi_agent": (0.97, 0.56), "instrumental_action": (0.89, 0.74)}


@click.command(name="train")
@click.option("--observer", "observer_name", default="mask", show_default=True,
              help="Learned observer to train.")
@click.option("--train", "train_dirs", multiple=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Root of a training set (task folders of *e.json files); repeat it to train "
                   "on several sets together.")
@click.option("--shards", "shards", default=None,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Train the mask model on pre-tensorised shards instead (a folder made by "
                   "`socialbench bib shards`; memory-mapped, no JSON read).")
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Checkpoint to write. OUT.resume (state after each epoch, for resuming) and "
                   "OUT.data-*.npz (the train and validation arrays) are kept beside it.")
@click.option("--epochs", default=5, show_default=True, type=click.IntRange(min=1))
@click.option("--max-episodes", type=click.IntRange(min=1), default=None,
              help="Use at most N episodes of each training task (the first by sorted name).")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--batch-size", default=None, type=click.IntRange(min=2),
              help="Episodes per batch (default: the observer's: mask 64, video 4).")
@click.option("--lr", default=None, type=click.FloatRange(min=0, min_open=True),
              help="Adam learning rate (default: the observer's: mask 1e-3, video 1e-4).")
@click.option("--device", default="cpu", show_default=True,
              help="video, learned-planner: cpu or cuda (a GPU; an error if PyTorch sees "
                   "none).")
@click.option("--threads", default=1, show_default=True, type=click.IntRange(min=1),
              help="PyTorch CPU threads (results are reproducible for a given thread count).")
@click.option("--frames", "frames", type=click.Choice(FRAME_SOURCES), default=None,
              help="video: the videos it learns from, drawn from the JSON: 2d (default) or 3d "
                   "(the same episodes as PyBullet scenes, as `bib generate --render 3d`).")
@click.option("--unet-widths", "unet_widths", default=None, metavar="W1,W2,...",
              help="video: the U-Net's channels at each level, comma-separated (default "
                   "8,16,32,64; ours: the paper gives none).")
@click.option("--test-steps", "test_steps", default=None, type=click.IntRange(min=1),
              help="video: train on N random test steps of each episode per epoch (default: "
                   "all; fewer give more optimiser steps per CPU-second).")
@click.option("--fam-trials", "fam_trials", default=None, type=click.IntRange(1, 8),
              help="video: in training, average N random familiarization trials' embeddings "
                   "(default: all 8; rating always uses 8).")
@click.option("--step-sampling", "step_sampling", type=click.Choice(["all", "moving"]),
              default=None,
              help="video: draw the --test-steps among all test steps (default) or only among "
                   "those where the frame changes (moving).")
@click.option("--shards-in-memory", "shards_in_memory", default=None, metavar="N|all",
              help="video: frame shards (64 episodes each) whose episodes are mixed in one "
                   "pass (default 4); all: every batch drawn from the whole training set "
                   "(~2.5 MB of frames an episode, about twice that at peak: 14 GB for "
                   "3,200 episodes).")
@click.option("--max-updates", "max_updates", default=None, type=click.IntRange(min=1),
              help="video: stop after N optimiser steps in all, mid-epoch if need be (the "
                   "state is kept: the same command with a larger N continues).")
@click.option("--workers", default=None, type=click.IntRange(min=1),
              help="video: processes drawing the frame shards before training (default 1; the "
                   "shards are the same whatever the number).")
@click.option("--precision", type=click.Choice(["fp32", "bf16"]), default=None,
              help="video: the training steps' arithmetic, fp32 (default) or bf16 (faster on "
                   "CPUs with bf16 matrix units; weights and validation stay fp32).")
@click.option("--visit-rule", "visit_rule", type=click.Choice(["centre", "body"]), default=None,
              help="mask: a visited cell is the agent centre's (centre, default) or any cell "
                   "its icon overlaps (body); with --shards, the shards' rule.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
def train(observer_name: str, train_dirs: tuple[Path, ...], shards: Path | None, out: Path,
          epochs: int,
          max_episodes: int | None, seed: int, batch_size: int | None, lr: float | None,
          device: str, threads: int, frames: str | None, unet_widths: str | None,
          test_steps: int | None,
          fam_trials: int | None, step_sampling: str | None, shards_in_memory: str | None,
          max_updates: int | None, workers: int | None, precision: str | None,
          visit_rule: str | None, quiet: bool) -> None:
    """Train a learned observer on expected-only training episodes and save a checkpoint.

    The training set is split 80/20 by sorted file name within each task (bib spec); the
    validation part reports per-cell precision/recall per task. Interrupted? Run the same command
    again: it resumes after the last finished epoch. A larger --epochs continues a finished run.
    """
    try:
        import torch
    except ModuleNotFoundError:
        raise UserError("`bib train` needs PyTorch: pip install torch==2.13.0 && "
                        "pip install -e '.[torch]'") from None

    from socialbench.observers.bib.training import train_from_shards, train_observer

    if bool(train_dirs) == (shards is not None):
        raise UserError("give either --train DIR (episode files) or --shards DIR (made by "
                        "`socialbench bib shards`)")
    if shards is not None and visit_rule is not None:
        raise UserError("--shards: the model takes the visit rule the shards were built with "
                        "(`bib shards --visit-rule`); drop --visit-rule")
    if shards is not None and max_episodes is not None:
        raise UserError("--max-episodes applies to --train; build smaller shards instead")
    if frames is not None and observer_name != "video":
        raise UserError(f"--frames chooses the video model's frames; observer {observer_name!r} "
                        f"takes none")
    torch.set_num_threads(threads)
    started = time.perf_counter()
    video_only = (test_steps, fam_trials, step_sampling, shards_in_memory, max_updates, workers,
                  precision, unet_widths)
    if any(v is not None for v in video_only) and observer_name != "video":
        raise UserError(f"--test-steps, --fam-trials, --step-sampling, --shards-in-memory, "
                        f"--max-updates, --workers, --precision and --unet-widths are the video "
                        f"model's; observer {observer_name!r} takes none of them")
    if visit_rule is not None and observer_name != "mask":
        raise UserError(f"--visit-rule is the mask model's; observer {observer_name!r} takes none")
    given = {"batch_size": batch_size, "lr": lr, "device": None if device == "cpu" else device,
             "test_steps": test_steps, "fam_trials": fam_trials, "step_sampling": step_sampling,
             "max_updates": max_updates, "workers": workers, "precision": precision}
    options = {"epochs": epochs, "seed": seed, **{k: v for k, v in given.items() if v is not None}}
    if shards_in_memory is not None:  # None is "all" from here on
        options["shards_in_memory"] = _shards_in_memory(shards_in_memory)
    built = {"frames": frames, "visit_rule": visit_rule,
             "unet_widths": None if unet_widths is None else _widths(unet_widths)}
    if shards is not None:
        _, metrics = train_from_shards(observer_name, shards, out=out, progress=not quiet,
                                       **options)
    else:
        _, metrics = train_observer(observer_name, train_dirs, out=out,
                                    max_per_task=max_episodes, progress=not quiet,
                                    observer_options={k: v for k, v in built.items()
                                                      if v is not None}, **options)
    elapsed = time.perf_counter() - started
    if observer_name == "video":
        _print_mse(metrics)
    elif observer_name == "learned-planner":
        _print_learned(metrics)
    else:
        _print_table(metrics)
    click.echo(f"saved {out} ({elapsed:.1f} s in all)")


def _shards_in_memory(text: str) -> int | None:
    """--shards-in-memory: a positive count, or all (None)."""
    if text == "all":
        return None
    if not text.isdigit() or int(text) < 1:
        raise UserError(f"--shards-in-memory takes a positive number or all, got {text!r}")
    return int(text)


def _widths(text: str) -> tuple[int, ...]:
    """--unet-widths: positive channel counts, one per U-Net level."""
    parts = text.split(",")
    if not 1 <= len(parts) <= 6 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise UserError(f"--unet-widths takes 1-6 positive channel counts separated by commas "
                        f"(e.g. 8,16,32,64), got {text!r}")
    return tuple(int(p) for p in parts)


def _print_mse(metrics: dict[str, float]) -> None:
    """The video model's validation error per background task (bib paper, Table 3)."""
    for key in sorted(k for k in metrics if k.startswith("val_mse")):
        copying = metrics.get(key.replace("val_mse", "val_copy_mse"), float("nan"))
        click.echo(f"{key.partition('/')[2] or 'all'}: next-frame MSE {metrics[key]:.3e} "
                   f"(copying the current frame: {copying:.3e})")


def _print_learned(metrics: dict[str, float]) -> None:
    """The learned planner: validation negative log-likelihood per step, the learned values."""
    for key in sorted(k for k in metrics if k.startswith("val_nll")):
        click.echo(f"{key.partition('/')[2] or 'all'}: validation NLL {metrics[key]:.3f} "
                   f"nats per step")
    learned = ", ".join(f"{k}={v:.3g}" for k, v in metrics.items()
                        if not k.startswith(("val_nll", "train_nll")))
    click.echo(f"learned: {learned}")


def _print_table(metrics: dict[str, float]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="validation: per-cell precision / recall (p > 0.5)")
    for column in ("task", "precision", "recall", "paper precision", "paper recall"):
        table.add_column(column)
    tasks = sorted({k.split("/", 1)[1] for k in metrics if k.startswith("precision/")})
    for task in [*tasks, ""]:
        suffix = f"/{task}" if task else ""
        paper = PAPER_BACKGROUND.get(task)
        table.add_row(task or "all", f"{metrics.get('precision' + suffix, float('nan')):.2f}",
                      f"{metrics.get('recall' + suffix, float('nan')):.2f}",
                      f"{paper[0]:.2f}" if paper else "", f"{paper[1]:.2f}" if paper else "")
    Console().print(table)

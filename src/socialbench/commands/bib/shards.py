"""`socialbench bib shards`: background episodes as the mask model's pre-tensorised shards."""

from __future__ import annotations

import time
from pathlib import Path

import click

from socialbench.bib.style import DEFAULT_STYLE


@click.command(name="shards")
@click.option("--out", required=True, type=click.Path(path_type=Path),
              help="Shard folder (re-run the same command to resume or refresh stale shards).")
@click.option("--split", type=click.Choice(["train"]), default="train", show_default=True,
              help="Background (training) episodes, expected outcomes only.")
@click.option("--tasks", default=None,
              help="Comma-separated background tasks (default: all four).")
@click.option("--episodes", type=int, default=None,
              help="Episodes per task (default: the paper's 10k/10k/4k/4k).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="As `bib generate --seed`: the same seed gives the same episodes.")
@click.option("--shard-size", type=int, default=500, show_default=True,
              help="Episodes per shard (one task's consecutive episodes).")
@click.option("--scene-style", default=DEFAULT_STYLE, show_default=True,
              help="As `bib generate --scene-style`.")
@click.option("--border-repeats", type=int, default=None,
              help="As `bib generate --border-repeats`.")
@click.option("--visit-rule", "visit_rule", type=click.Choice(["centre", "body"]),
              default="centre", show_default=True,
              help="Visited cells in the masks: the agent centre's cell, or every cell its "
                   "icon overlaps (docs/mask.md).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def shards(out: Path, split: str, tasks: str | None, episodes: int | None, seed: int,
           shard_size: int, scene_style: str, border_repeats: int | None, visit_rule: str,
           quiet: bool) -> None:
    """Generate background episodes in memory (the episodes `bib generate` would write with the
    same options; no JSON is written) and store the mask model's arrays in fixed-size shards
    for `socialbench bib train --shards OUT`."""
    from socialbench.observers.bib.shards import build_shards, plan_shards

    started = time.perf_counter()
    plans = plan_shards(split, tasks=tasks, episodes=episodes, seed=seed, shard_size=shard_size,
                        scene_style=scene_style, border_repeats=border_repeats,
                        visit_rule=visit_rule)
    settings = {"split": split, "tasks": tasks, "episodes": episodes, "seed": seed,
                "shard_size": shard_size, "scene_style": scene_style,
                "border_repeats": border_repeats, "visit_rule": visit_rule}
    index = build_shards(out, plans, progress=not quiet, settings=settings)
    n = sum(entry["count"] for entry in index["shards"])
    click.echo(f"{out}: {len(index['shards'])} shards, {n} episodes "
               f"({time.perf_counter() - started:.1f} s)")

"""`socialbench bib generate`."""

from __future__ import annotations

import os
from pathlib import Path

import click
from rich.console import Console

from socialbench.bib.generate import SPLITS, audit_table
from socialbench.bib.generate import generate as generate_split
from socialbench.bib.style import DEFAULT_STYLE
from socialbench.bib.tasks.efficiency_time import DEFAULT_TIME_CONTROL, TIME_CONTROLS
from socialbench.bib.video import RENDER_MODES
from socialbench.commands.backend import backend_options


@click.command(name="generate")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Output folder (re-run the same command to resume).")
@click.option("--split", type=click.Choice(list(SPLITS)), default="eval", show_default=True,
              help="eval: training shapes; eval-new-shapes: unseen shapes; train: background.")
@click.option("--tasks", default=None,
              help="Comma-separated task folders (default: all of the split's tasks).")
@click.option("--episodes", type=int, default=None,
              help="Episodes per task (default: the paper's: 1000 per evaluation task; "
                   "10k/10k/4k/4k background).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--workers", type=int, default=os.cpu_count() or 1, show_default="one per CPU",
              help="Worker processes (the files are the same whatever their number).")
@click.option("--no-video", is_flag=True, help="Write the JSON files only (no mp4).")
@click.option("--counts", default="paper", show_default=True,
              help="Episodes per task when --episodes is not given: paper (1000 per evaluation "
                   "task) or released (the released v1.1 evaluation set's counts).")
@click.option("--scene-style", default=DEFAULT_STYLE, show_default=True,
              help="released: scenes with the real files' statistics (walls, offsets, trial "
                   "lengths, colours, border cells listed twice, 1-px steps at turns, objects "
                   "in view of the start at a slant, preference's shorter test walk split "
                   "evenly, multi_agent's objects in view alike); released-v3: the same with "
                   "those two left to a coin per episode; released-v2: released-v3 without "
                   "objects placed in view; released-v1: released-v2 with the earlier motion "
                   "(no 1-px turn steps); tidy: the earlier generator's.")
@click.option("--border-repeats", type=int, default=None,
              help="Released quirk: list this many border cells among the random walls too "
                   "(they then appear twice; released samples: 2-5). Default: the scene "
                   "style's (released: 2-5 a wall list; tidy: 0).")
@click.option("--time-control", type=click.Choice(TIME_CONTROLS), default=DEFAULT_TIME_CONTROL,
              show_default=True,
              help="How efficiency_time's straight path lasts as long as the detour: slow (the "
                   "agent walks slower) or pauses (still frames spread along its path).")
@click.option("--render", type=click.Choice(RENDER_MODES), default="2d", show_default=True,
              help="Videos in 2d (the paper's flat frames) or 3d (the same episodes drawn by "
                   "PyBullet: the grid as a floor, walls as blocks, bodies in their colours).")
@backend_options()
def generate(out: Path, split: str, tasks: str | None, episodes: int | None, seed: int,
             workers: int, no_video: bool, counts: str, scene_style: str,
             border_repeats: int | None, time_control: str, render: str) -> None:
    """Generate a BIB dataset in the released layout, with a manifest and an audit."""
    audit = generate_split(out, split, tasks=tasks, episodes=episodes, seed=seed,
                           workers=workers, video=not no_video, border_repeats=border_repeats,
                           scene_style=scene_style, counts=counts, time_control=time_control,
                           render=render)
    console = Console()
    console.print(audit_table(audit))
    console.print(f"wrote {out} (manifest.json, audit.json, _meta/)")

"""`socialbench bib validate DIR`: check a BIB dataset against the paper's design."""

from __future__ import annotations

import os
from pathlib import Path

import click

from socialbench.bib.io.layout import find_pairs
from socialbench.bib.validate import has_videos, validate_dataset
from socialbench.commands.backend import backend_options
from socialbench.core.problems import fail_on_problems


@click.command(name="validate")
@click.argument("root", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--max-problems", type=click.IntRange(min=1), default=20, show_default=True,
              help="Stop after this many problems.")
@click.option("--video-check/--no-video-check", default=None,
              help="Check each mp4 against its JSON. Default: when the dataset has videos (its "
                   "manifest says so; without one, the first episode has an mp4).")
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1,
              show_default="one per CPU", help="Worker processes (the report is the same).")
@backend_options(reads=("root",))
def validate(root: Path, max_problems: int, video_check: bool | None, workers: int) -> None:
    """Check every episode and pair under ROOT (manifest checksums, trials, motion, pairs,
    videos); exit 1 naming the first problems, or print a one-line OK summary."""
    pairs = find_pairs(root)
    if video_check is None:
        video_check = has_videos(root, pairs)
    problems = validate_dataset(root, max_problems=max_problems, video_check=video_check,
                                progress=True, workers=workers, pairs=pairs)
    fail_on_problems(problems, root, max_problems)
    files = sum((p.expected is not None) + (p.unexpected is not None) for p in pairs)
    both = sum(p.expected is not None and p.unexpected is not None for p in pairs)
    tasks = sorted({p.task or "?" for p in pairs})
    videos = "videos checked" if video_check else "videos not checked"
    click.echo(f"OK: {files} episode files ({both} expected/unexpected pairs), {len(tasks)} "
               f"task(s) ({', '.join(tasks)}), {videos}")

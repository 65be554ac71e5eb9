"""`socialbench agent validate DIR`: check an AGENT dataset against the benchmark's design."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import click

from socialbench.commands.backend import backend_options
from socialbench.core.problems import fail_on_problems


@click.command(name="validate")
@click.argument("root", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--max-problems", type=click.IntRange(min=1), default=20, show_default=True,
              help="Stop after this many problems.")
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1,
              show_default="one per CPU", help="Worker processes (the report is the same).")
@backend_options(reads=("root",))
def validate(root: Path, max_problems: int, workers: int) -> None:
    """Check every trial under ROOT (manifest checksums, states against configs, no
    penetration except type 2.5's surprising video, outcomes, pairs sharing familiarization;
    over the dataset: test trials hold both test videos, half of scenario 1's tests swap the
    objects' sides, the manifest's counts, no cue telling the preferred object); exit 1
    naming the first problems, or print a one-line OK summary."""
    from socialbench.agent3d.io import TRIAL_FILE, find_trials, read_json  # PyBullet: on use
    from socialbench.agent3d.validate import validate_dataset

    problems = validate_dataset(root, max_problems=max_problems, workers=workers,
                                progress=True)
    fail_on_problems(problems, root, max_problems)
    trials = find_trials(root)
    types = Counter(read_json(t / TRIAL_FILE)["trial_type"] for t in trials)
    click.echo(f"OK: {len(trials)} trials, {len(types)} type(s) "
               f"({', '.join(f'{k}: {v}' for k, v in sorted(types.items()))})")

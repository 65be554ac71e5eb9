"""The one progress bar every long job shows (generation, training, evaluation, validation).

It draws on stderr, so stdout carries only results (``--json`` output stays parseable).
"""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


def progress_bar(label: str = "{task.description}", *, show: bool = True,
                 transient: bool = False, console: Console | None = None) -> Progress:
    """A rich bar: label, bar, done/total, time left; on stderr unless ``console`` says else."""
    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    disable=not show, transient=transient,
                    console=console or Console(stderr=True))


def training_bar(label: str, *, show: bool = True) -> Progress:
    """The bar of a training run: frames done, frames per second and the rolling success rate
    (a task's ``fps`` and ``success`` fields)."""
    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[fps]:>6.0f} FPS"),
                    TextColumn("success {task.fields[success]:.3f}"), TimeRemainingColumn(),
                    disable=not show, console=Console(stderr=True))

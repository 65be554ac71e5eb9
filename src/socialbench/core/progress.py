"""The one progress bar every long job shows (generation, training, evaluation, validation).

It draws on stderr, so stdout carries only results (``--json`` output stays parseable). Where
stderr is not a terminal (``nohup``, a batch job's log file) a live bar cannot be drawn, so the
bar writes a plain line instead: at most one per ``LOG_EVERY_S`` seconds for each task, and one
when the task finishes.
"""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

LOG_EVERY_S = 30.0  # a log file gets a line per task this often, not one per update
# in a line of text two bare clocks would not say which is which
_TIME_PREFIX = {TimeElapsedColumn: "elapsed", TimeRemainingColumn: "left"}


class LoggedProgress(Progress):
    """A rich ``Progress`` that also reports to a log: without a terminal it prints each task's
    columns as one line every ``log_every`` seconds and once at its end."""

    def __init__(self, *columns: str | ProgressColumn, log_every: float = LOG_EVERY_S,
                 **options: Any) -> None:
        super().__init__(*columns, **options)
        self.log_every = log_every
        self._plain = not self.disable and not self.console.is_terminal
        self._logged: dict[TaskID, float] = {}  # task -> when its last line was written
        self._ended: set[TaskID] = set()

    def start(self) -> None:
        if not self._plain:  # in a log the live display would only add blank lines
            super().start()

    def stop(self) -> None:
        if not self._plain:
            super().stop()
            return
        for task_id in self.task_ids:  # where each unfinished task stopped (an interruption)
            if task_id not in self._ended and self._tasks[task_id].visible:
                self._ended.add(task_id)
                self._write(task_id)

    def add_task(self, description: str, *args: Any, **options: Any) -> TaskID:
        task_id = super().add_task(description, *args, **options)
        self._logged[task_id] = time.monotonic()  # the first line comes after log_every
        return task_id

    def update(self, task_id: TaskID, **options: Any) -> None:
        super().update(task_id, **options)
        self._log(task_id)

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._log(task_id)

    def _log(self, task_id: TaskID) -> None:
        if not self._plain or task_id in self._ended:
            return
        task = self._tasks[task_id]
        now = time.monotonic()
        if task.finished:
            self._ended.add(task_id)
        elif now - self._logged.get(task_id, now) < self.log_every:
            return
        self._logged[task_id] = now
        self._write(task_id)

    def _write(self, task_id: TaskID) -> None:
        task = self._tasks[task_id]
        # the columns as text, without the bar (a log line reads as words and numbers)
        parts = []
        for column in self.columns:
            if isinstance(column, BarColumn):
                continue
            shown = Text(column.format(task=task)) if isinstance(column, str) else column(task)
            shown = shown if isinstance(shown, Text) else Text(str(shown))
            prefix = _TIME_PREFIX.get(type(column))
            parts.append(Text(prefix + " ") + shown if prefix else shown)
        line = Text(" ").join(parts)
        self.console.print(line, soft_wrap=True, highlight=False)


def progress_bar(label: str = "{task.description}", *, show: bool = True,
                 transient: bool = False, console: Console | None = None) -> Progress:
    """A rich bar: label, bar, done/total, time left; on stderr unless ``console`` says else."""
    return LoggedProgress(TextColumn(label), BarColumn(), MofNCompleteColumn(),
                          TimeRemainingColumn(), disable=not show, transient=transient,
                          console=console or Console(stderr=True))


def training_bar(label: str, *, show: bool = True) -> Progress:
    """The bar of a training run: frames done, frames per second and the rolling success rate
    (a task's ``fps`` and ``success`` fields)."""
    return LoggedProgress(TextColumn(label), BarColumn(), MofNCompleteColumn(),
                          TextColumn("{task.fields[fps]:>6.0f} FPS"),
                          TextColumn("success {task.fields[success]:.3f}"),
                          TimeElapsedColumn(), TimeRemainingColumn(), disable=not show,
                          console=Console(stderr=True))

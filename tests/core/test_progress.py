"""The progress bar in a log: without a terminal it writes plain lines (nohup, batch jobs)."""

from __future__ import annotations

import io

from rich.console import Console

from socialbench.core.progress import LoggedProgress, progress_bar, training_bar


def _log_console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=False, width=120), out


def test_a_log_gets_plain_lines_then_one_at_the_end():
    console, out = _log_console()
    with progress_bar(console=console, transient=True) as bar:
        assert isinstance(bar, LoggedProgress)
        bar.log_every = 0.0
        task = bar.add_task("planning every video", total=3)
        for _ in range(3):
            bar.advance(task)
        bar.advance(task, 0)  # after the end: no further line
    lines = out.getvalue().splitlines()
    assert lines == ["planning every video 1/3 left -:--:--",
                     "planning every video 2/3 left " + lines[1].split()[-1],
                     "planning every video 3/3 left 0:00:00"]
    assert "━" not in out.getvalue()  # no bar drawn in a file


def test_lines_are_spaced_in_time():
    console, out = _log_console()
    with progress_bar(console=console, transient=True) as bar:
        task = bar.add_task("writing", total=100)  # LOG_EVERY_S apart: none before the end
        for _ in range(99):
            bar.advance(task)
        assert out.getvalue().strip() == ""
        bar.advance(task)
    assert out.getvalue().strip() == "writing 100/100 left 0:00:00"


def test_training_lines_name_their_clocks_and_fields(monkeypatch):
    bar = training_bar("train")
    console, out = _log_console()
    bar.live.console = console  # the bar's console, redirected to a file
    monkeypatch.setattr(bar, "_plain", True)
    bar.log_every = 0.0
    task = bar.add_task("t", total=640, fps=0.0, success=0.0)
    bar.update(task, completed=320, fps=201.0, success=0.25)
    line = out.getvalue().strip()
    assert line.startswith("train 320/640")
    assert "201 FPS" in line and "success 0.250" in line
    assert "elapsed " in line and "left " in line


def test_a_terminal_or_a_hidden_bar_writes_no_lines():
    out = io.StringIO()
    terminal = Console(file=out, force_terminal=True, width=120)
    assert not progress_bar(console=terminal)._plain
    console, _ = _log_console()
    assert not progress_bar(console=console, show=False)._plain


def test_an_interrupted_task_leaves_its_last_state_in_the_log():
    console, out = _log_console()
    try:
        with progress_bar(console=console) as bar:
            task = bar.add_task("generating", total=10)
            bar.advance(task, 4)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert out.getvalue().splitlines() == ["generating  4/10 left -:--:--"]  # MofN pads

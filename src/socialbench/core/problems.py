"""How every `validate` command reports what it found (one line a problem, then a verdict)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click


def fail_on_problems(problems: Sequence[str], root: Path, max_problems: int) -> None:
    """Print each problem on stderr and exit 1 with a one-line count; return if there are none."""
    if not problems:
        return
    for problem in problems:
        click.echo(problem, err=True)
    more = " (stopped there: --max-problems)" if len(problems) >= max_problems else ""
    raise click.ClickException(f"{len(problems)} problem(s) in {root}{more}")

"""`socialbench agent audit DATA`: the control observers' accuracy per trial type.

Each control follows one cue that must say nothing about the answer (an entity's id, its place
in the lists, its side, colour code or shape, the familiar side, the first familiarization
video's object); on well-made data each scores 50% on every type
(``socialbench.observers.agent.audit``).
"""

from __future__ import annotations

from pathlib import Path

import click


@click.command(name="audit")
@click.argument("data", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--markdown", is_flag=True, help="Print a Markdown table instead.")
@click.option("--check", is_flag=True,
              help="Then exit 1 naming each control farther from 50% on a type than "
                   "counterbalancing allows (5 points, or 1/(2n) with n pairs).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes rating pairs (the numbers do not depend on it).")
def audit(data: Path, markdown: bool, check: bool, workers: int) -> None:
    """Rate every test pair under DATA with each control observer and print, per trial type,
    each one's pairwise accuracy (%; AGENT's metric, ties count half; chance is 50)."""
    from rich.console import Console

    from socialbench.core.problems import fail_on_problems
    from socialbench.observers.agent.audit import audit as run_audit
    from socialbench.observers.agent.audit import problems, table

    results = run_audit(data, workers=workers, console=Console(stderr=True))
    click.echo(table(results, markdown=markdown))
    if check:
        found = problems(results)
        fail_on_problems(found, data, max_problems=len(found) + 1)
        click.echo("OK: every control within chance on every type", err=markdown)

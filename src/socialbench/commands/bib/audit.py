"""`socialbench bib audit DATA`: every shortcut, the agent-blind controls and inverse planning.

The audit of docs/bib_observers.md: each file is read once and rated by every observer; the
table is sub-evaluation x observer relative accuracy beside HBToM's published numbers
(``--markdown``: the Markdown table the docs print, a sub-evaluation built to defeat a shortcut
in bold, a control's design-implied cue marked and explained under the table).
"""

from __future__ import annotations

from pathlib import Path

import click

# Short labels (at most a cell's width, "100.0") so the 11 observers fit 120 columns.
LABELS: dict[str, str] = {
    "shortcut-nearest": "near.", "shortcut-location": "loc.", "shortcut-path": "path",
    "shortcut-direct": "dir.", "shortcut-key": "key", "inverse-planning": "inv.plan",
    "control-novelty": "novel", "control-duration": "dur.", "control-speed": "speed",
    "control-contrast": "cont.", "control-path-shape": "shape",
    "multi_agent": "multi-agent", "inaccessible_goal": "inaccessible",
    "efficiency_path": "eff. path", "efficiency_time": "eff. time",
    "efficiency_irrational": "eff. irrational", "instrumental_no_barrier": "instr. none",
    "instrumental_inconsequential_barrier": "instr. inconseq.",
    "instrumental_blocking_barrier": "instr. blocking",
}


@click.command(name="audit")
@click.argument("data", type=click.Path(path_type=Path))
@click.option("--max-pairs", type=click.IntRange(min=1), default=None,
              help="Rate at most this many pairs per task (first by name).")
@click.option("--observers", default=None,
              help="Comma-separated observers (default: the five shortcuts, the five "
                   "agent-blind controls and inverse-planning).")
@click.option("--markdown", is_flag=True, help="Print a Markdown table instead.")
@click.option("--check", is_flag=True,
              help="Then exit 1 naming each shortcut above its designed ceiling on a "
                   "sub-evaluation built against it, each control off chance where the design "
                   "does not imply its cue, or inverse planning below its floor.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes rating pairs (the numbers do not depend on it).")
def audit(data: Path, max_pairs: int | None, observers: str | None, markdown: bool,
          check: bool, workers: int) -> None:
    """Rate every expected/unexpected pair under DATA with each observer (each file read once)
    and print sub-evaluation x observer relative accuracy (%; ties count half)."""
    from rich.console import Console

    from socialbench.bib.published import RELATIVE_ACCURACY
    from socialbench.core.problems import fail_on_problems
    from socialbench.observers.bib.controls import DESIGN_IMPLIED
    from socialbench.observers.bib.evaluation import (
        AUDIT_OBSERVERS,
        audit_problems,
        compare_observers,
    )
    from socialbench.observers.bib.shortcuts import designed_ceiling
    from socialbench.voe.report import comparison_table, markdown_table

    names = [n.strip() for n in observers.split(",") if n.strip()] if observers else \
        list(AUDIT_OBSERVERS)
    console = Console(stderr=markdown)
    results = compare_observers(data, names, max_pairs=max_pairs, console=console,
                                workers=workers)
    if markdown:
        click.echo(markdown_table(
            results, published=RELATIVE_ACCURACY, models=("HBToM",),
            emphasis=lambda name, task: designed_ceiling(name, task, 1) is not None,
            mark=lambda name, task: " (d)" if (name, task) in DESIGN_IMPLIED else ""))
        shown = [(n, t) for n, t in DESIGN_IMPLIED if n in results and t in results[n]]
        if shown:
            click.echo("\n(d) the cue is the design's, not a leak:\n")
        for name, task in shown:
            implied = DESIGN_IMPLIED[(name, task)]
            after = (f"at chance on {implied.neutralised_by}" if implied.neutralised_by else
                     "it points to the expected test, so following it scores below chance")
            click.echo(f"- {name} on {task}: {implied.reason}; {after}.")
    else:
        table = comparison_table(results, published=RELATIVE_ACCURACY, models=("HBToM",),
                                 labels=LABELS)
        table.pad_edge = False  # two columns more for the sub-evaluations' names
        console.print(table)
    if check:
        problems = audit_problems(results)
        fail_on_problems(problems, data, max_problems=len(problems) + 1)
        click.echo("OK: every shortcut at or below its designed ceiling, every control at "
                   "chance where its cue is not the design's, inverse planning at or above its "
                   "floor", err=markdown)

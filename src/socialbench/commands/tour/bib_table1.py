"""BIB's Table 1 in `socialbench run`: the mask and video models' columns measured here (shipped
with the package: ``observers.bib.table1``), beside the paper's (arXiv v1)."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from socialbench.bib.io.layout import EVALUATION_TASKS
from socialbench.bib.published import TABLE1, TABLE1_COLUMNS
from socialbench.commands.bib.audit import LABELS
from socialbench.observers.bib.table1 import measured_table1


def table1_rows(console: Console) -> None:
    """Print the paper's Table 1 and ours, column by column (Rel. / AUC, %), and the scale of
    each of ours."""
    measured = measured_table1()
    if not measured:
        console.print("[dim]No measured BIB Table 1 shipped (scripts/bib_table1.py writes "
                      "one).[/dim]")
        return
    table = Table(title="BIB Table 1: relative accuracy / AUC %, the paper's (dim) and ours",
                  box=box.SIMPLE_HEAD)
    table.add_column("sub-evaluation")
    for column in TABLE1_COLUMNS:
        table.add_column(f"{column}: paper", justify="right", style="dim")
        table.add_column("ours", justify="right")
    for task in [*EVALUATION_TASKS, "overall"]:
        cells = [LABELS.get(task, task) if task != "overall" else "all pairs"]
        for column in TABLE1_COLUMNS:
            paper = TABLE1[column].get(task)
            cells.append("-" if paper is None else f"{paper[0]:.1f}/{paper[1]:.1f}")
            cells.append(_ours(measured.get(column, {}).get("tasks", {}).get(task)))
        table.add_row(*cells)
    console.print(table)
    for column in TABLE1_COLUMNS:
        if column in measured:
            console.print(f"[dim]ours, {column}: {measured[column]['trained']}; "
                          f"rated on {measured[column]['evaluated']}[/dim]")
    console.print("[dim]Commands, intervals and known gaps: docs/bib_baselines.md[/dim]")


def _ours(numbers: dict[str, Any] | None) -> str:
    if not numbers:
        return "-"
    return f"{100 * numbers['relative_accuracy']:.1f}/{100 * numbers['auc']:.1f}"

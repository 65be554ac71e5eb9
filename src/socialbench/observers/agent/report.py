"""AGENT protocol results as a table beside the paper's rows, and G3/G4 matrices as heat maps."""

from __future__ import annotations

import math
from pathlib import Path

from rich import box
from rich.table import Table

from socialbench.agent3d.schema import TRIAL_TYPES
from socialbench.observers.agent.evaluation import ProtocolResult
from socialbench.observers.agent.protocols import (
    PUBLISHED,
    SCENARIO_NAMES,
    published_rows,
    scenario_of,
)


def _columns(result: ProtocolResult) -> list[str]:
    columns: list[str] = []
    for s, name in SCENARIO_NAMES.items():
        types = [t for t in TRIAL_TYPES if scenario_of(t) == s and t in result.types]
        if types:
            columns += [*types, name]
    return [*columns, "All"]


def _cell(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.2f}"


def result_table(result: ProtocolResult, title: str = "") -> Table:
    """Types and scenarios as columns; our row, then the paper's (dim)."""
    columns = _columns(result)
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("model", no_wrap=True)  # a wrapped row name reads as two rows
    for column in columns:
        table.add_column(column, justify="right")
    ours = {**result.types, **result.scenarios, "All": result.overall}
    table.add_row(f"ours: {result.observer} {result.protocol}",
                  *[_cell(ours.get(c)) for c in columns], end_section=True)
    table.add_row("test pairs", *[str(result.pairs.get(c, "")) for c in columns],
                  end_section=True, style="dim")
    for row in published_rows(result.observer, result.protocol):
        table.add_row(f"paper: {row}", *[_cell(PUBLISHED[row].get(c)) for c in columns],
                      style="dim")
    return table


def markdown_table(result: ProtocolResult) -> str:
    columns = _columns(result)
    ours = {**result.types, **result.scenarios, "All": result.overall}
    lines = ["| model | " + " | ".join(columns) + " |",
             "| --- | " + " | ".join("---:" for _ in columns) + " |",
             f"| ours: {result.observer} {result.protocol} | "
             + " | ".join(_cell(ours.get(c)) for c in columns) + " |",
             "| test pairs | " + " | ".join(str(result.pairs.get(c, "")) for c in columns)
             + " |"]
    for row in published_rows(result.observer, result.protocol):
        lines.append(f"| paper: {row} | "
                     + " | ".join(_cell(PUBLISHED[row].get(c)) for c in columns) + " |")
    return "\n".join(lines)


def draw_heatmap(result: ProtocolResult, path: Path) -> None:
    """The train (rows) x test (columns) accuracy matrix of a G3/G4 run as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows = list(result.matrix)
    found = {c for r in result.matrix.values() for c in r}
    cols = [r for r in rows if r in found] + sorted(found - set(rows))  # the rows' order
    values = np.array([[result.matrix[r].get(c, np.nan) for c in cols] for r in rows])
    fig, ax = plt.subplots(figsize=(1 + 0.6 * len(cols), 1 + 0.5 * len(rows)))
    image = ax.imshow(values, vmin=0, vmax=1, cmap="viridis")
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel("testing " + ("type" if result.protocol == "G3" else "scenario"))
    ax.set_ylabel("training " + ("type" if result.protocol == "G3" else "scenario"))
    for i in range(len(rows)):
        for j in range(len(cols)):
            if not np.isnan(values[i, j]):
                ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if values[i, j] < 0.6 else "black")
    ax.set_title(f"{result.observer}, {result.protocol}: pairwise accuracy")
    fig.colorbar(image, ax=ax, fraction=0.046)
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(path)

"""Tables and JSON of VOE results, printed beside the papers' published numbers.

``published`` arguments map task -> model -> score in percent, as the papers print them (for BIB:
:mod:`socialbench.bib.published`). Our scores are fractions internally and shown in percent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich import box
from rich.table import Table

from socialbench.voe.evaluate import OVERALL, TaskResult

Published = Mapping[str, Mapping[str, float]]


def _pct(value: float) -> str:
    return "-" if value is None or math.isnan(value) else f"{100 * value:.1f}"


def _ci(ci: tuple[float, float]) -> str:
    low, high = ci
    return "" if math.isnan(low) else f" [{100 * low:.0f}-{100 * high:.0f}]"


def results_table(observer: str, results: Mapping[str, TaskResult], *,
                  published: Published | None = None, models: Sequence[str] = (),
                  title: str | None = None) -> Table:
    """One row per task: pairs, relative accuracy [95% CI], AUC, then published columns."""
    published = published or {}
    table = Table(title=title or f"observer {observer}: relative accuracy and AUC (%)",
                  box=box.SIMPLE_HEAD)
    table.add_column("sub-evaluation")
    table.add_column("pairs", justify="right")
    table.add_column("rel.acc [95% CI]", justify="right")
    table.add_column("AUC", justify="right")
    for model in models:
        table.add_column(model, justify="right", style="dim")
    for task, result in results.items():
        cells = [task, str(result.pairs),
                 _pct(result.relative_accuracy) + _ci(result.relative_accuracy_ci),
                 _pct(result.auc)]
        for model in models:
            value = published.get(task, {}).get(model)
            cells.append("-" if value is None else f"{value:.1f}")
        table.add_row(*cells, end_section=(task == OVERALL))
    return table


def comparison_table(by_observer: Mapping[str, Mapping[str, TaskResult]], *,
                     published: Published | None = None, models: Sequence[str] = (),
                     title: str = "relative accuracy (%)",
                     labels: Mapping[str, str] | None = None) -> Table:
    """Tasks x observers (relative accuracy), published models' columns beside.

    ``labels`` gives short column/row labels (observer or task name -> label) for narrow screens.
    """
    labels = labels or {}
    published = published or {}
    tasks: list[str] = []
    for results in by_observer.values():
        tasks += [t for t in results if t not in tasks and t != OVERALL]
    table = Table(title=title, box=box.SIMPLE_HEAD)
    table.add_column("sub-evaluation")
    table.add_column("pairs", justify="right")
    for name in by_observer:
        table.add_column(labels.get(name, name), justify="right")
    for model in models:
        table.add_column(model, justify="right", style="dim")
    for task in tasks:
        pairs = next((r[task].pairs for r in by_observer.values() if task in r), 0)
        cells = [labels.get(task, task), str(pairs)]
        cells += [_pct(r[task].relative_accuracy) if task in r else "-"
                  for r in by_observer.values()]
        for model in models:
            value = published.get(task, {}).get(model)
            cells.append("-" if value is None else f"{value:.1f}")
        table.add_row(*cells)
    return table


def results_json(observer: str, results: Mapping[str, TaskResult],
                 **extra: Any) -> dict[str, Any]:
    """``{"observer", "tasks": {TASK: {"relative_accuracy", "auc", "pairs", ...}}, "overall"}``."""
    out: dict[str, Any] = {"observer": observer,
                           "tasks": {t: r.as_dict() for t, r in results.items() if t != OVERALL}}
    if OVERALL in results:
        out["overall"] = results[OVERALL].as_dict()
    out.update(extra)
    return out


def markdown_table(by_observer: Mapping[str, Mapping[str, TaskResult]], *,
                   published: Published | None = None, models: Sequence[str] = (),
                   labels: Mapping[str, str] | None = None,
                   emphasis: Callable[[str, str], bool] | None = None,
                   mark: Callable[[str, str], str] | None = None) -> str:
    """The comparison as a Markdown table (relative accuracy %), for docs: the published
    models' columns after ours; ``emphasis(observer, task)`` bolds a cell and
    ``mark(observer, task)`` appends a text to it (a footnote's sign)."""
    labels = labels or {}
    published = published or {}
    tasks: list[str] = []
    for results in by_observer.values():
        tasks += [t for t in results if t not in tasks and t != OVERALL]
    header = [labels.get(name, name) for name in by_observer] + [f"{m} (pub.)" for m in models]
    lines = ["| sub-evaluation | pairs | " + " | ".join(header) + " |",
             "| --- | ---: | " + " | ".join("---:" for _ in header) + " |"]
    for task in tasks:
        pairs = next((r[task].pairs for r in by_observer.values() if task in r), 0)
        cells = []
        for name, results in by_observer.items():
            cell = _pct(results[task].relative_accuracy) if task in results else "-"
            bold = emphasis is not None and task in results and emphasis(name, task)
            cell = f"**{cell}**" if bold else cell
            cells.append(cell + (mark(name, task) if mark is not None and task in results
                                 else ""))
        for model in models:
            value = published.get(task, {}).get(model)
            cells.append("-" if value is None else f"{value:.1f}")
        lines.append(f"| {task} | {pairs} | " + " | ".join(cells) + " |")
    return "\n".join(lines)

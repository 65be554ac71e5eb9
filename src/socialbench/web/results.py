"""Evaluation results as the web shows them: per-task tables beside the papers' numbers, and
per episode each observer's surprise over the test trial.

Results are the JSON ``socialbench bib evaluate --json`` prints (``voe.report.results_json``).
A surprise curve is what the observer's ``surprise_per_step`` gives on the episode's
``voe.observer.view_of`` (the trials alone), computed when asked; a learned observer needs
its checkpoint (``--checkpoint``), without one it has no curve.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from socialbench.core.errors import UserError

MAX_RESULTS_BYTES = 10_000_000


@dataclass(frozen=True)
class Results:
    """One observer's evaluation: ``tasks`` maps task -> {relative_accuracy, auc, pairs, ...}."""

    observer: str
    tasks: dict[str, dict[str, Any]]
    overall: dict[str, Any] | None
    source: str
    options: dict[str, Any]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def load_results(path: Path | str) -> Results:
    """Read and check one ``evaluate --json`` file; one-line errors."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_RESULTS_BYTES:
            raise UserError(f"{path}: larger than {MAX_RESULTS_BYTES} bytes: not a results file")
        data = json.loads(path.read_text())
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from exc
    except ValueError as exc:
        raise UserError(f"{path}: not JSON ({exc}); give the output of `bib evaluate --json`"
                        ) from exc
    if not (isinstance(data, dict) and isinstance(data.get("observer"), str)
            and isinstance(data.get("tasks"), dict)):
        raise UserError(f"{path}: not an evaluation result: expected {{'observer', 'tasks'}} "
                        f"as `socialbench bib evaluate --json` prints")
    for task, row in data["tasks"].items():
        if not (isinstance(row, dict) and _number(row.get("relative_accuracy"))
                and _number(row.get("pairs"))):
            raise UserError(f"{path}: task {task!r} has no relative_accuracy and pairs")
    overall = data.get("overall") if isinstance(data.get("overall"), dict) else None
    options = {k: v for k, v in data.items() if k not in ("observer", "tasks", "overall")}
    return Results(data["observer"], data["tasks"], overall, str(path), options)


def pct(value: Any) -> str:
    """A fraction as a percentage with one decimal, or "-"."""
    if not _number(value) or math.isnan(value):
        return "-"
    return f"{100 * value:.1f}"


def published_models() -> tuple[str, ...]:
    from socialbench.bib.published import MODELS

    return MODELS


def task_table(results: Sequence[Results], *, models: Sequence[str] | None = None
               ) -> dict[str, Any]:
    """Rows of tasks x (our observers' relative accuracy and AUC, then published models).

    ``{"columns": [...], "rows": [[task, pairs, cell, ...]], "sources": {model: citation}}``;
    cells are strings, as printed.
    """
    from socialbench.bib.published import RELATIVE_ACCURACY, SOURCES

    models = published_models() if models is None else models
    tasks: list[str] = []
    for result in results:
        tasks += [t for t in result.tasks if t not in tasks]
    columns = ["sub-evaluation", "pairs"]
    for result in results:
        columns += [f"{result.observer} rel.acc", f"{result.observer} AUC"]
    columns += list(models)
    rows = []
    for task in tasks:
        pairs = next((r.tasks[task]["pairs"] for r in results if task in r.tasks), 0)
        row = [task, str(pairs)]
        for result in results:
            cell = result.tasks.get(task, {})
            ci = cell.get("relative_accuracy_ci")
            interval = (f" [{pct(ci[0])}-{pct(ci[1])}]"
                        if isinstance(ci, list) and len(ci) == 2 and pct(ci[0]) != "-" else "")
            row += [pct(cell.get("relative_accuracy")) + interval, pct(cell.get("auc"))]
        for model in models:
            value = RELATIVE_ACCURACY.get(task, {}).get(model)
            row.append("-" if value is None else f"{value:.1f}")
        rows.append(row)
    if any(r.overall for r in results):
        row = ["overall", str(next((r.overall["pairs"] for r in results if r.overall), 0))]
        for result in results:
            overall = result.overall or {}
            row += [pct(overall.get("relative_accuracy")), pct(overall.get("auc"))]
        rows.append(row + ["" for _ in models])
    return {"columns": columns, "rows": rows,
            "sources": {m: SOURCES.get(m, "") for m in models}}


@lru_cache(maxsize=16)
def _observer(name: str, checkpoint: str | None) -> Any:
    from socialbench.observers.bib.training import ready_observer

    return ready_observer(name, train=None,
                          checkpoint=Path(checkpoint) if checkpoint else None, console=None)


def surprise_curve(observer: str, episode: Any, *,
                   checkpoints: Mapping[str, str] | None = None) -> list[float] | None:
    """The observer's surprise at each rated step of the episode's test trial, or None when
    the observer cannot rate without a checkpoint."""
    from socialbench.voe.observer import view_of

    checkpoint = (checkpoints or {}).get(observer)
    try:
        rater = _observer(observer, checkpoint)
    except UserError:
        return None
    return [float(v) for v in rater.surprise_per_step(view_of(episode))]

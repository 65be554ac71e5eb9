"""Our measured BIB Table 1 (mask and video models, every column), shipped with the package.

The four columns of the BIB paper's Table 1 (arXiv v1: mask 2D, video 2D, video on new shapes,
video 3D; ``bib.published.TABLE1``) as measured here, with the scale each was trained and rated
at (docs/bib_baselines.md gives the commands). ``socialbench run`` prints them beside the
paper's; ``scripts/bib_table1.py`` puts a ``socialbench bib evaluate --json`` result into a
column. Per task the numbers are those of ``bib evaluate --json``: relative accuracy and AUC as
fractions, the relative accuracy's 95 % bootstrap interval, and the pairs rated.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from socialbench.bib.published import TABLE1_COLUMNS
from socialbench.core.errors import UserError
from socialbench.core.files import atomic_write

TABLE1_FILE = Path(__file__).with_name("table1_measured.json")
TABLE1_FORMAT = "socialbench-bib-table1/1"
KEPT = ("relative_accuracy", "relative_accuracy_ci", "auc", "pairs")  # per task


def measured_table1(path: Path = TABLE1_FILE) -> dict[str, Any]:
    """Column -> {"trained", "evaluated", "tasks": task -> numbers}; empty when none saved."""
    if not Path(path).exists():
        return {}
    data = json.loads(Path(path).read_text())
    if data.get("format") != TABLE1_FORMAT:
        raise UserError(f"{path} is not a BIB Table 1 file (format {data.get('format')!r})")
    return dict(data["columns"])


def set_column(column: str, evaluation: dict[str, Any], trained: str, evaluated: str,
               path: Path = TABLE1_FILE) -> None:
    """Save ``evaluation`` (the JSON of ``bib evaluate --json``) as ``column``, with a line on
    how the model was trained and on what it was rated."""
    if column not in TABLE1_COLUMNS:
        raise UserError(f"unknown Table 1 column {column!r}; use one of "
                        f"{', '.join(TABLE1_COLUMNS)}")
    tasks = evaluation.get("tasks")
    if not isinstance(tasks, dict) or not tasks:
        raise UserError("the evaluation holds no 'tasks': give the output of "
                        "`socialbench bib evaluate --json`")
    if isinstance(evaluation.get("overall"), dict):  # all pairs together, as in the tables
        tasks = {**tasks, "overall": evaluation["overall"]}
    columns = measured_table1(path)
    columns[column] = {"trained": trained, "evaluated": evaluated,
                       "tasks": {task: {k: numbers[k] for k in KEPT if k in numbers}
                                 for task, numbers in tasks.items()}}
    ordered = {name: columns[name] for name in TABLE1_COLUMNS if name in columns}
    with atomic_write(Path(path)) as tmp:
        tmp.write_text(json.dumps({"format": TABLE1_FORMAT, "columns": ordered}, indent=1) + "\n")

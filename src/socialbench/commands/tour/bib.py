"""BIB's section of `socialbench run`: generate every task, validate it, audit it, evaluate it.

Generates a few episodes of every evaluation and background task (with video) into a temporary
folder, checks them with the validator (files, pairs, videos, manifest), prints a table of what
was made and the generator's audit statistics, then rates the evaluation pairs with the
shortcut observers and inverse planning (the table of ``socialbench bib audit``) and with the
learned planner's shipped checkpoint (``bib_learned``).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from socialbench.bib.generate import SPLITS, audit_table, generate
from socialbench.bib.published import RELATIVE_ACCURACY
from socialbench.bib.validate import validate_dataset
from socialbench.commands.bib.audit import LABELS
from socialbench.commands.tour.bib_learned import learned_rows
from socialbench.commands.tour.bib_table1 import table1_rows
from socialbench.core.runner import META_DIR, verify_manifest
from socialbench.observers.bib.evaluation import compare_observers
from socialbench.voe.report import comparison_table

TOUR_SEED = 2021  # any fixed seed: the tour is reproducible


def _frames(root: Path, task: str) -> int:
    total = 0
    for path in sorted((root / META_DIR / task).glob("*.json")):
        total += sum(json.loads(path.read_text())["frames"].values())
    return total


def _generate_and_check(root: Path, split: str, episodes: int, workers: int,
                        table: Table) -> dict:
    audit = generate(root, split, episodes=episodes, seed=TOUR_SEED, workers=workers,
                     video=True, show_progress=False)
    manifest_problems = verify_manifest(root)
    for task in SPLITS[split].tasks:
        problems = validate_dataset(root / task, video_check=True)
        table.add_row(split, task, str(audit[task]["episodes"]), str(_frames(root, task)),
                      str(len(problems)) if not problems else f"[red]{len(problems)}: "
                      f"{problems[0]}[/red]")
    if manifest_problems:
        table.add_row(split, "manifest", "", "", f"[red]{manifest_problems[0]}[/red]")
    return audit


def _observers(console: Console, data_dir: Path, quick: bool) -> None:
    """Sub-evaluation x observer relative accuracy on the tour's episodes, beside HBToM."""
    start = time.perf_counter()
    results = compare_observers(data_dir, max_pairs=2 if quick else None, console=console)
    console.print(comparison_table(
        results, published=RELATIVE_ACCURACY, models=("HBToM",),
        title="BIB observers: relative accuracy % (chance 50; ties count half)",
        labels=LABELS))
    pairs = sum(r.pairs for r in next(iter(results.values())).values() if r.task != "overall")
    console.print(f"[dim]{len(results)} observers on {pairs} pairs in "
                  f"{time.perf_counter() - start:.1f} s; few pairs per task: read the numbers "
                  f"as a smoke test, the audit is in docs/bib_observers.md[/dim]")


def tour(console: Console, quick: bool = True) -> None:
    """Generate, validate and audit a few episodes of every BIB task; print the tables."""
    episodes = 1 if quick else 4
    workers = max(1, min(2, os.cpu_count() or 1))
    table = Table(title=f"BIB generation: {episodes} episode(s) per task, with video, validated")
    for column in ("split", "task", "episodes", "frames", "problems"):
        table.add_column(column, justify="left" if column in ("split", "task") else "right")
    with tempfile.TemporaryDirectory(prefix="socialbench-bib-") as tmp:
        eval_root, train_root = Path(tmp) / "eval", Path(tmp) / "train"
        eval_audit = _generate_and_check(eval_root, "eval", episodes, workers, table)
        train_audit = _generate_and_check(train_root, "train", episodes, workers, table)
        console.print(table)
        console.print(audit_table(eval_audit))
        console.print(audit_table(train_audit))
        _observers(console, eval_root, quick)
        learned_rows(console, eval_root, quick)
    table1_rows(console)

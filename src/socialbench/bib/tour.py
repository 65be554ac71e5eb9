"""BIB's section of `socialbench run`: generate every task, validate it, audit it, evaluate it.

Generates a few episodes of every evaluation and background task (with video) into a temporary
folder, checks them with the validator (files, pairs, videos, manifest), prints a table of what
was made and the generator's audit statistics, then - when the observers are installed - hands
the evaluation folder to ``socialbench.observers.bib.tour`` for its evaluation table.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from socialbench.bib.generate import META_DIR, SPLITS, audit_table, generate
from socialbench.bib.validate import validate_dataset
from socialbench.core.runner import verify_manifest

TOUR_SEED = 2021  # any fixed seed: the tour is reproducible
OBSERVERS_TOUR = "socialbench.observers.bib.tour"


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


def _has_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


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
        if _has_module(OBSERVERS_TOUR):
            importlib.import_module(OBSERVERS_TOUR).tour(console, eval_root, quick)
        else:
            console.print("[dim]BIB observers not installed: no evaluation table[/dim]")

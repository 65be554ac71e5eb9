"""This benchmark's section of `socialbench run`: one test trial of every AGENT type, generated
in PyBullet, validated, and summarised (what the expected and surprising videos do); then BIPaCK
rates those 13 test pairs, calibrated on one training trial of each scenario, beside the
paper's BIPaCK and human rows."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from socialbench.agent3d.generate import generate
from socialbench.agent3d.io import find_trials, load_trial
from socialbench.agent3d.render import RenderOptions
from socialbench.agent3d.schema import TRIAL_TYPES, Video
from socialbench.agent3d.validate import validate_dataset


def _doing(video: Video | None) -> str:
    if video is None:
        return "-"
    notes = video.config.annotations
    if notes.get("gave_up"):
        return "gives up"
    path = notes.get("plan", {}).get("path", "?")
    return f"goal {notes.get('goal_id')}: {path}"


def tour(console: Console, quick: bool = True) -> None:
    """Generate one test trial of each of the 13 types (states only; ``quick=False`` also renders
    them at 64x64), validate them, and print what each video shows."""
    render = None if quick else RenderOptions(width=64, height=64, frames="none")
    with tempfile.TemporaryDirectory(prefix="socialbench-agent-") as folder:
        root = Path(folder)
        start = time.perf_counter()
        generate(root, seed=0, types=TRIAL_TYPES, splits=("test",), scale=1e-6, workers=1,
                 render=render, show_progress=False)
        seconds = time.perf_counter() - start
        problems = validate_dataset(root)
        table = Table(title="AGENT: one generated test trial per type (PyBullet)")
        for column in ("type", "fam. videos", "frames", "familiarization", "expected",
                       "surprising"):
            table.add_column(column)
        for trial_dir in find_trials(root):
            trial = load_trial(trial_dir, annotations=True)
            frames = sum(len(v.frames) for v in (*trial.familiarization, trial.expected,
                                                 trial.surprising) if v is not None)
            table.add_row(trial.trial_type, str(len(trial.familiarization)), str(frames),
                          "; ".join(_doing(v) for v in trial.familiarization),
                          _doing(trial.expected), _doing(trial.surprising))
        console.print(table)
        console.print(f"generated {len(TRIAL_TYPES)} trials in {seconds:.1f} s "
                      f"({'states only' if render is None else 'rendered 64x64'}); "
                      f"validation: {'OK' if not problems else f'{len(problems)} problem(s)'}")
        for problem in problems[:5]:
            console.print(f"  [red]{problem}")
        bipack_tour(console, root, root / "calibration")


CALIBRATION_TYPES = ("1.1", "2.1", "3.1", "4.1")  # one training trial of each scenario


def bipack_tour(console: Console, test_root: Path, calibration_root: Path) -> None:
    """BIPaCK on the test pairs under ``test_root`` (one per type: a type's figure is 0, 0.5
    or 1), calibrated on training trials generated into ``calibration_root``."""
    from socialbench.observers.agent.evaluation import BipackRater, find_pairs, run_protocol
    from socialbench.observers.agent.report import result_table

    start = time.perf_counter()
    generate(calibration_root, seed=0, types=CALIBRATION_TYPES, splits=("train",), scale=1e-6,
             workers=1, render=None, show_progress=False)
    pairs = find_pairs(test_root)
    rater = BipackRater(calibration_root, pairs, max_train=1, progress=False)
    result = run_protocol(rater, "all", sorted({t for t, _, _ in pairs}))
    seconds = time.perf_counter() - start
    console.print(result_table(result, title="AGENT: BIPaCK on these test pairs (protocol all)"))
    console.print(f"BIPaCK: {len(pairs)} test pairs, calibrated on {len(CALIBRATION_TYPES)} "
                  f"training trials (types {', '.join(CALIBRATION_TYPES)}), in {seconds:.1f} s "
                  f"(generating those trials included); one pair per type, so a type scores "
                  f"0, 0.5 or 1: `socialbench agent evaluate` rates a whole test split")

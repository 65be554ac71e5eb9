"""A contact sheet of BIB 3D frames (``--render 3d``), beside one 2D frame per task for reference.

    nice -n 5 python scripts/bib3d_sheet.py [--out docs/img/bib/bib3d_sheet.png] [--seed 0]

One generated episode per task (one row each, ``--tasks``): the start, middle and last frame of
the first familiarization trial and of the (expected) test trial, drawn by
:class:`~socialbench.bib.render3d.Renderer3D` as the videos are, then the test's middle frame in
2D. Each tile is labelled.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from socialbench.bib.generate import SPLITS, build_episode
from socialbench.bib.render import render_frame
from socialbench.bib.render3d import Renderer3D
from socialbench.bib.schema import Trial

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bib_contact_sheet import sheet  # noqa: E402  (the 2D sheet's tile layout)

TASKS = "preference,multi_agent,inaccessible_goal,efficiency_path,instrumental_blocking_barrier"


def _three(renderer: Renderer3D, trial: Trial, name: str) -> list[tuple[str, np.ndarray]]:
    frames = list(renderer.trial_frames(trial))
    picks = {"start": 0, "middle": len(frames) // 2, "end": len(frames) - 1}
    return [(f"{name} {label}", frames[i]) for label, i in picks.items()]


def task_row(renderer: Renderer3D, task: str, seed: int) -> list[tuple[str, np.ndarray]]:
    split = SPLITS["eval"]
    built = build_episode(split.tasks[task], split.shapes, seed, 0)
    short = task.replace("instrumental_", "instr. ").replace("efficiency_", "eff. ")
    short = short.replace("inaccessible_goal", "inacc. goal").replace("blocking_barrier", "block")
    test = built.expected[-1]
    return (_three(renderer, built.expected[0], f"{short} fam")
            + _three(renderer, test, f"{short} test")
            + [(f"{short} test middle 2D", render_frame(test.frames[len(test) // 2]))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img/bib/bib3d_sheet.png"))
    parser.add_argument("--tasks", default=TASKS)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with Renderer3D() as renderer:
        rows = [task_row(renderer, task, args.seed) for task in args.tasks.split(",")]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    sheet(rows).save(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

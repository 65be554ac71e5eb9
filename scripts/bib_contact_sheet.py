"""A contact sheet of BIB frames: the real released samples beside generated episodes.

    python scripts/bib_contact_sheet.py [--out docs/img/bib/scenes.png] [--style released]
        [--task preference --episodes 6]

Row 1: the three real preference episodes (first familiarization trial: the start frame and the
frame the agent reaches its goal) and one real test. Rows 2-4: one generated episode of each
evaluation task (seed = row index), the same two frames of its first trial and its e and u test
starts, so walls, offsets, colours and glyphs can be compared by eye. Each tile is labelled.
With ``--task T``: below the real row, ``--episodes`` generated episodes of that task, one a
row (seed = row index): familiarization trials and both tests at the goal, the agent's walk
traced in red (real row traced too), to see where objects sit and how the walks run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from socialbench.bib import style
from socialbench.bib.generate import SPLITS, build_episode
from socialbench.bib.io.layout import find_pairs
from socialbench.bib.io.read import load_episode
from socialbench.bib.render import render_frame
from socialbench.bib.schema import Trial

REAL = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "bib_real_samples"
LABEL = 14  # px of caption above each tile
PAD = 4


TRACE = (255, 0, 0)


def _moment(trial: Trial, which: str, trace: bool = False) -> np.ndarray:
    """The trial's start frame, or the frame where the agent first stops at its goal (with
    ``trace``, the agent's centre on every frame drawn over it)."""
    frames = trial.frames
    if which == "start":
        return render_frame(frames[0])
    track = [f.agent.center for f in frames]
    last = len(track) - 1
    while last > 0 and track[last - 1] == track[last]:
        last -= 1
    image = render_frame(frames[last])
    if trace:
        image = image.copy()
        for x, y in track[: last + 1]:
            row, col = image.shape[0] - 1 - int(y), int(x)  # y up in the files
            image[row, col] = TRACE
    return image


def _tiles_real(root: Path) -> list[tuple[str, np.ndarray]]:
    tiles = []
    for pair in find_pairs(root):
        e = load_episode(pair.expected)
        tiles.append((f"real {pair.name} fam start", _moment(e.trials[0], "start")))
        tiles.append((f"real {pair.name} fam goal", _moment(e.trials[0], "goal")))
    e = load_episode(find_pairs(root)[0].expected)
    tiles.append(("real test e goal", _moment(e.test, "goal")))
    return tiles


def _tiles_generated(task: str, index: int, look: style.SceneStyle) -> list[tuple[str, np.ndarray]]:
    split = SPLITS["eval"]
    built = build_episode(split.tasks[task], split.shapes, index, index, scene_style=look)
    short = task.replace("instrumental_", "instr. ").replace("efficiency_", "eff. ")
    tiles = [(f"{short} fam start", _moment(built.expected[0], "start")),
             (f"{short} fam goal", _moment(built.expected[0], "goal"))]
    if built.unexpected is not None:
        tiles.append((f"{short} test e", _moment(built.expected[-1], "goal")))
        tiles.append((f"{short} test u", _moment(built.unexpected[-1], "goal")))
    return tiles


def _tiles_walks(task: str, index: int, look: style.SceneStyle,
                 trials: int) -> list[tuple[str, np.ndarray]]:
    """One generated episode's first ``trials`` familiarization walks and both tests, traced."""
    split = SPLITS["eval"]
    built = build_episode(split.tasks[task], split.shapes, index, index, scene_style=look)
    tiles = [(f"#{index} fam {k}", _moment(t, "goal", trace=True))
             for k, t in enumerate(built.expected[:trials])]
    tiles.append((f"#{index} test e", _moment(built.expected[-1], "goal", trace=True)))
    if built.unexpected is not None:
        tiles.append((f"#{index} test u", _moment(built.unexpected[-1], "goal", trace=True)))
    return tiles


def sheet(rows: list[list[tuple[str, np.ndarray]]]) -> Image.Image:
    cols = max(len(r) for r in rows)
    w, h = 200 + PAD, 200 + LABEL + PAD
    out = Image.new("RGB", (cols * w + PAD, len(rows) * h + PAD), (200, 200, 200))
    draw = ImageDraw.Draw(out)
    for r, row in enumerate(rows):
        for c, (label, image) in enumerate(row):
            x, y = PAD + c * w, PAD + r * h
            draw.text((x + 2, y + 1), label, fill=(0, 0, 0))
            out.paste(Image.fromarray(image), (x, y + LABEL))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img/bib/scenes.png"))
    parser.add_argument("--style", default=style.DEFAULT_STYLE, choices=list(style.STYLES))
    parser.add_argument("--real", type=Path, default=REAL)
    parser.add_argument("--task", default=None, choices=list(SPLITS["eval"].tasks),
                        help="rows of this task's episodes, walks traced (default: every task)")
    parser.add_argument("--episodes", type=int, default=6)
    args = parser.parse_args()
    look = style.get_style(args.style)
    real = _tiles_real(args.real)
    if args.task is not None:
        traced = [(label, _moment(load_episode(pair.expected).trials[k], "goal", trace=True))
                  for pair in find_pairs(args.real) for k, label in
                  ((0, f"real {pair.name} fam 0"), (8, f"real {pair.name} test e"))]
        rows = [traced] + [_tiles_walks(args.task, i, look, len(traced) - 2)
                           for i in range(args.episodes)]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        sheet(rows).save(args.out)
        print(f"wrote {args.out}")
        return
    tasks = list(SPLITS["eval"].tasks)
    generated = [t for k, task in enumerate(tasks) for t in _tiles_generated(task, k, look)]
    per_row = len(real)
    rows = [real] + [generated[i:i + per_row] for i in range(0, len(generated), per_row)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    sheet(rows).save(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

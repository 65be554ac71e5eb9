"""Contact sheets of AGENT trials: a few frames of every video of one test trial per type.

For each trial type, one test-split trial is generated as ``socialbench agent generate`` makes
it, every video is rendered (320 x 320 by default, as ``--render``) and five evenly spaced
frames of each are laid out in a row (familiarization videos, then expected, then surprising)
with a label, into ``OUT/type_X.Y.png``. The framing figures of every video
(``agent3d/framing.py``: the agent's median size in pixels, the share of frames it is seen in,
goals cut by the image's edge) are printed as a Markdown table, from all frames (or every
``--every``-th and the shown ones), not only those shown.

Run: ``nice -n 5 python scripts/agent_contact_sheets.py [--out docs/img/agent] [--types 2.1]
[--seed 0] [--camera ours|released] [--size 320] [--every 1]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from socialbench.agent3d.framing import framing_problems, measure_framing
from socialbench.agent3d.generate import make_trial
from socialbench.agent3d.layout.cameras import camera_style
from socialbench.agent3d.render import RenderOptions, render_frames
from socialbench.agent3d.schema import TRIAL_TYPES, Video
from socialbench.core.seeding import derive_seed

COLUMNS = 5
LABEL_WIDTH = 120
GAP = 4  # white pixels between frames and rows


def sheet_rows(trial) -> list[tuple[str, Video]]:
    rows = [(f"familiarization {k + 1}", v) for k, v in enumerate(trial.familiarization)]
    rows.append(("expected", trial.expected))
    if trial.surprising is not None:
        rows.append(("surprising", trial.surprising))
    return rows


def render_row(video: Video, options: RenderOptions, every: int = 1
               ) -> tuple[list[np.ndarray], np.ndarray]:
    """(the COLUMNS shown frames, the segmentation of every ``every``-th frame and of those)."""
    count = len(video.frames)
    shown = sorted({round(k * (count - 1) / (COLUMNS - 1)) for k in range(COLUMNS)})
    chosen = sorted(set(range(0, count, every)) | set(shown))
    pictures, segmentation = [], []
    for index, frame in zip(chosen, render_frames(Video(video.config,
                                                        [video.frames[t] for t in chosen]),
                                                  options), strict=True):
        segmentation.append(frame.segmentation)
        if index in shown:
            pictures.append(frame.rgb)
    return pictures, np.stack(segmentation)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img/agent"))
    parser.add_argument("--types", default=",".join(TRIAL_TYPES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=320)
    parser.add_argument("--camera", default="ours", choices=("ours", "released"))
    parser.add_argument("--every", type=int, default=1,
                        help="measure the framing on every N-th frame (and the shown ones)")
    args = parser.parse_args()
    options = RenderOptions(width=args.size, height=args.size, frames="none", mp4=False)
    args.out.mkdir(parents=True, exist_ok=True)
    print("| type | video | frames | agent px (median) | agent seen | goals cut | problems |")
    print("|---|---|---|---|---|---|---|")
    for trial_type in [t for t in args.types.split(",") if t]:
        with camera_style(args.camera):
            trial = make_trial(trial_type, "test", 0, derive_seed(args.seed, "sheet", trial_type))
        rows = sheet_rows(trial)
        side = args.size
        sheet = Image.new("RGB", (LABEL_WIDTH + COLUMNS * (side + GAP), len(rows) * (side + GAP)),
                          "white")
        draw = ImageDraw.Draw(sheet)
        for r, (label, video) in enumerate(rows):
            pictures, segmentation = render_row(video, options, args.every)
            for c, picture in enumerate(pictures):
                sheet.paste(Image.fromarray(picture), (LABEL_WIDTH + c * (side + GAP),
                                                       r * (side + GAP)))
            draw.text((6, r * (side + GAP) + 6), f"type {trial_type}\n{label}\n{len(video.frames)} "
                      f"frames", fill="black")
            framing = measure_framing(video.config, segmentation)
            problems = framing_problems(framing, check_visibility=trial.scenario != 3)
            print(f"| {trial_type} | {label} | {len(video.frames)} | "
                  f"{framing.agent_extent_px:.0f} | {framing.agent_visible:.0%} | "
                  f"{list(framing.goals_cut) or '-'} | {'; '.join(problems) or '-'} |",
                  flush=True)
        sheet.save(args.out / f"type_{trial_type}.png", optimize=True)


if __name__ == "__main__":
    main()

"""Scenario 3, what is hidden: visibility figures of a generated dataset and a contact sheet.

``figures DIR``: for every scenario-3 video under DIR (a dataset ``socialbench agent generate``
wrote), from its ground truth in ``_meta/`` and the scene config's camera
(``agent3d.visibility``): the share of the frames in which the agent moves that show it, the
least share of the goal shown in any frame, how many jumps show in part, the wall's pixels
before the occluder falls, and, from the state files a model reads, the frames that lack the
agent. Printed as a Markdown table, per type and for both.

``sheet --out PNG``: a few 3.1 and 3.2 test trials generated as the dataset makes them (seed 0,
the first trials of the test split whose agent jumps and walks round, and the first 3.2 trial
whose agent jumps and that reveals a doorway, filmed turned), each rendered at the default
size: one row per video (familiarization, expected, surprising), six frames per row: the
agent's start, its highest frame (a jump's apex) and its arrival, then the occluder
falling and the scene it reveals (familiarization: more frames of the walk); a frame whose
states lack the agent is labelled ``hidden``.

Run: ``nice -n 5 python scripts/agent_scenario3.py figures DIR`` and
``nice -n 5 python scripts/agent_scenario3.py sheet --out docs/img/agent/scenario3.png``
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from socialbench.agent3d.generate import make_trial
from socialbench.agent3d.io import find_trials, load_trial, load_video, named_videos
from socialbench.agent3d.layout.constants import AGENT_ID
from socialbench.agent3d.render import RenderOptions, render_frames
from socialbench.agent3d.schema import Trial, Video
from socialbench.agent3d.visibility import MOVING_STEP, occlusion, video_visibility
from socialbench.core.seeding import derive_seed

TYPES = ("3.1", "3.2")
COLUMNS = 6
LABEL_WIDTH = 150
GAP = 4


def figures(root: Path) -> str:
    rows: dict[str, list[dict]] = {t: [] for t in TYPES}
    for trial_dir in find_trials(root):
        trial = load_trial(trial_dir, annotations=True)
        if trial.trial_type not in rows:
            continue
        for folder, video in named_videos(trial):
            seen = occlusion(video, video_visibility(video))
            stored = load_video(trial_dir / folder).frames  # what a model reads (any layout)
            missing = sum(AGENT_ID not in {state.id for state in frame} for frame in stored)
            rows[trial.trial_type].append({
                "agent": seen.agent_moving, "goal": seen.goal_least, "jumps": seen.jumps,
                "wall": seen.obstacle_before_reveal, "missing": missing / len(stored),
                "path": video.config.annotations.get("plan", {}).get("path", "")})
    lines = ["| | videos (jumping / walking round) | agent shown, share of its moving frames: "
             "min / mean | goal shown, least share in a frame: min | jumps shown in part "
             "(least share of a jump's frames) | wall pixels before the fall: max | "
             "state frames without the agent: mean |",
             "|---|---|---|---|---|---|---|"]
    for name, group in [*((t, rows[t]) for t in TYPES), ("both", rows["3.1"] + rows["3.2"])]:
        if not group:
            continue
        agent = np.array([r["agent"] for r in group])
        jumps = [j for r in group for j in r["jumps"]]
        shown = sum(s > 0 for _, s in jumps)
        least = min((s / f for f, s in jumps), default=float("nan"))
        jumping = sum(r["path"].startswith("jump") for r in group)
        lines.append(
            f"| {name} | {len(group)} ({jumping} / {len(group) - jumping}) | "
            f"{agent.min():.0%} / {agent.mean():.0%} | {min(r['goal'] for r in group):.0%} | "
            f"{shown} of {len(jumps)} ({least:.0%}) | {max(r['wall'] for r in group)} | "
            f"{np.mean([r['missing'] for r in group]):.0%} |")
    return "\n".join(lines)


def _example_trials(count: int) -> list[Trial]:
    """The first test trials of each type (seed 0) whose agent jumps, and that walk round."""
    found = []
    for trial_type in TYPES:
        jumping = walking = 0
        for index in range(40):
            trial = make_trial(trial_type, "test", index,
                               derive_seed(0, "agent3d", trial_type, "test", index))
            jumps = trial.familiarization[0].config.annotations["plan"]["path"].startswith("jump")
            if (jumps and jumping < count) or (not jumps and walking < count):
                found.append(trial)
                jumping, walking = jumping + jumps, walking + (not jumps)
            if jumping >= count and walking >= count:
                break
    return found


def _doorway_trial() -> Trial:
    """The first 3.2 test trial (seed 0) whose agent jumps and whose surprising video reveals
    a doorway (its wall as two posts and a lintel), filmed turned."""
    for index in range(200):
        trial = make_trial("3.2", "test", index, derive_seed(0, "agent3d", "3.2", "test", index))
        assert trial.surprising is not None
        jumps = trial.familiarization[0].config.annotations["plan"]["path"].startswith("jump")
        if jumps and sum(e.kind == "obstacle" for e in trial.surprising.config.entities) == 3:
            return trial
    raise RuntimeError("no doorway among the first 200 3.2 trials")


def _chosen_frames(video: Video) -> list[int]:
    """While the agent moves: its start, its highest frame (a jump's apex; the middle of a
    walk) and its arrival; then the occluder's fall (familiarization: two more moving frames
    and the last)."""
    track = np.array(video.track(AGENT_ID))
    moving = np.flatnonzero(np.linalg.norm(np.diff(track, axis=0), axis=1) > MOVING_STEP) + 1
    start, end = int(moving[0]), int(moving[-1])
    top = int(moving[np.argmax(track[moving, 2])])
    apex = top if track[top, 2] > track[start, 2] + 0.05 else (start + end) // 2
    fall = occlusion(video, video_visibility(video)).reveal
    last = len(video.frames) - 1
    if fall is None:
        return [start, (start + apex) // 2, apex, (apex + end) // 2, end, last]
    return [start, apex, end, fall, (fall + last) // 2, last]


def sheet(out: Path) -> None:
    options = RenderOptions()
    tiles: list[tuple[str, list[np.ndarray], list[bool]]] = []
    for trial in [*_example_trials(1), _doorway_trial()]:
        plan = trial.familiarization[0].config.annotations["plan"]["path"]
        for folder, video in named_videos(trial):
            chosen = _chosen_frames(video)
            shown = video_visibility(video)
            hidden = [not shown.visible[t, shown.column(AGENT_ID)] for t in chosen]
            pictures = [f.rgb for f in render_frames(
                Video(video.config, [video.frames[t] for t in chosen]), options)]
            label = f"{trial.trial_type} {plan}\n{folder.replace('_video_1', '')}"
            tiles.append((label, pictures, hidden))
    width = LABEL_WIDTH + COLUMNS * (options.width + GAP)
    image = Image.new("RGB", (width, len(tiles) * (options.height + GAP)), "white")
    draw = ImageDraw.Draw(image)
    for row, (label, pictures, hidden) in enumerate(tiles):
        top = row * (options.height + GAP)
        draw.text((4, top + options.height // 2 - 10), label, fill="black")
        for col, (picture, gone) in enumerate(zip(pictures, hidden, strict=True)):
            left = LABEL_WIDTH + col * (options.width + GAP)
            image.paste(Image.fromarray(picture), (left, top))
            if gone:
                draw.text((left + 4, top + 4), "hidden", fill="red")
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save(out)
    print(f"wrote {out} ({len(tiles)} rows)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("figures").add_argument("root", type=Path)
    sub.add_parser("sheet").add_argument("--out", type=Path,
                                         default=Path("docs/img/agent/scenario3.png"))
    args = parser.parse_args()
    if args.command == "figures":
        print(figures(args.root))
    else:
        sheet(args.out)


if __name__ == "__main__":
    main()

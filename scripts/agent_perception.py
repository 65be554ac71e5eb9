"""AGENT perception from RGB-D: measure it and draw it.

    python scripts/agent_perception.py iou DATA [--segmentation rgbd|truth] [--markdown]
        3D box IoU of perceived vs true boxes (the truth from the state files: this script may
        read them, the observers do not), mean over entities and frames, per type and class.
    python scripts/agent_perception.py sheet DATA --out PNG [--types 1.1,2.4] [--video NAME]
        five frames of one test trial's video per type (surprising, or NAME, e.g.
        Familiarization_video_2), perceived boxes drawn over the RGB (agent white, goals
        magenta, obstacles cyan, ramps green, occluder yellow).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from socialbench.agent3d.episodes import find_test_pairs
from socialbench.agent3d.io import load_video
from socialbench.agent3d.render import read_frames
from socialbench.agent3d.schema import VideoStates
from socialbench.observers.agent.perception.camera import PinholeCamera
from socialbench.observers.agent.perception.episodes import familiarization_dirs, perceive_video
from socialbench.observers.agent.perception.iou import CLASSES, video_iou
from socialbench.observers.agent.tracks import VideoTracks, video_tracks

COLOURS = {"agent": (255, 255, 255), "goal": (255, 0, 255), "obstacle": (0, 255, 255),
           "occluder": (255, 255, 0), "ramp": (0, 255, 0)}


def test_videos(data: Path) -> list[tuple[str, Path]]:
    out = []
    for trial_type, expected, surprising in find_test_pairs(data):
        if expected.parent.parent.name != "test_set":
            continue
        for v in (*familiarization_dirs(expected.parent), expected, surprising):
            out.append((trial_type, v))
    return out


def shown_in_picture(video_dir: Path, truth: VideoTracks) -> np.ndarray:
    """(T, E): where the renderer's segmentation shows each true entity."""
    seg = read_frames(video_dir)["segmentation"]
    return np.stack([(seg == i).any(axis=(1, 2)) for i in truth.ids], axis=1)


def iou(data: Path, segmentation: str, markdown: bool) -> None:
    by_type: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for trial_type, video_dir in test_videos(data):
        truth = video_tracks(VideoStates.of(load_video(video_dir)))
        seen = video_tracks(perceive_video(video_dir, segmentation))
        for cls, values in video_iou(truth, seen, shown_in_picture(video_dir, truth)).items():
            by_type[trial_type][cls].extend(values)
            by_type["all"][cls].extend(values)
    header = ["type", *CLASSES, "all entities"]
    rows = []
    for t in sorted(by_type, key=lambda k: (k == "all", k)):
        cells = [f"{np.mean(by_type[t][c]):.2f} ({len(by_type[t][c])})" if by_type[t][c]
                 else "-" for c in CLASSES]
        every = [v for c in CLASSES for v in by_type[t][c]]
        rows.append([t, *cells, f"{np.mean(every):.2f}"])
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    for row in rows:
        print(("| " + " | ".join(row) + " |") if markdown else "  ".join(row))


def draw_boxes(image: Image.Image, states: VideoStates, t: int) -> None:
    tracks = video_tracks(states)
    camera = PinholeCamera.of(states.camera, image.width, image.height)
    draw = ImageDraw.Draw(image)
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
    edges = [(a, b) for a in range(8) for b in range(a + 1, 8)
             if np.abs(corners[a] - corners[b]).sum() == 2]
    for i, cls in enumerate(tracks.classes):
        if cls == "floor" or not tracks.visible[t, i]:
            continue
        pts = tracks.centres[t, i] + corners * tracks.half[t, i]
        px, depth = camera.project(pts)
        if (depth <= 0).any():
            continue
        colour = COLOURS["ramp" if tracks.shapes[i] == "ramp" else cls]
        for width, fill in ((3, (0, 0, 0)), (1, colour)):  # dark rim: white boxes on a white floor
            for a, b in edges:
                draw.line([tuple(px[a]), tuple(px[b])], fill=fill, width=width)


def sheet(data: Path, out: Path, segmentation: str, types: list[str] | None,
          video: str = "surprising") -> None:
    chosen: dict[str, Path] = {}
    for trial_type, video_dir in test_videos(data):
        if video_dir.name == video and (types is None or trial_type in types):
            chosen.setdefault(trial_type, video_dir)
    rows = []
    for trial_type in sorted(chosen):
        video_dir = chosen[trial_type]
        rgb = read_frames(video_dir)["rgb"]
        states = perceive_video(video_dir, segmentation)
        cells = []
        for t in np.linspace(0, len(rgb) - 1, 5).astype(int):
            image = Image.fromarray(rgb[t])
            draw_boxes(image, states, int(t))
            ImageDraw.Draw(image).text((3, 2), f"{trial_type} t={t}", fill=(255, 255, 255))
            cells.append(np.asarray(image))
        rows.append(np.concatenate(cells, axis=1))
    Image.fromarray(np.concatenate(rows, axis=0)).save(out)
    print(f"wrote {out} ({len(rows)} videos)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("iou")
    a.add_argument("data", type=Path)
    a.add_argument("--segmentation", choices=("rgbd", "truth"), default="rgbd")
    a.add_argument("--markdown", action="store_true")
    b = sub.add_parser("sheet")
    b.add_argument("data", type=Path)
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--segmentation", choices=("rgbd", "truth"), default="rgbd")
    b.add_argument("--types", help="comma-separated trial types (default: every type)")
    b.add_argument("--video", default="surprising",
                   help="which video of each type's first test trial (default: surprising)")
    args = parser.parse_args()
    if args.command == "iou":
        iou(args.data, args.segmentation, args.markdown)
    else:
        sheet(args.data, args.out, args.segmentation,
              args.types.split(",") if args.types else None, args.video)


if __name__ == "__main__":
    main()

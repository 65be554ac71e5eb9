"""AGENT rendering speed beside raw TinyRenderer, with each stage's cost, in one run.

One test-split trial's expected video is rendered, frame for frame, five ways, in alternating
rounds (the median round is printed, so a busy machine slows every figure alike):

- ``raw``: ``getCameraImage`` on the same scene (textured floor and walls, the same light,
  PyBullet's own shadows off as ours), in a loop: no pose updates, no decoding: the limit;
- ``raw, PyBullet shadows``: the same with ``shadow=1`` (for comparison: we draw our own);
- ``frames, no drop shadows``: ``render.render_frames`` (pose updates, decoding to RGB, depth in
  mm and entity ids) without our drop shadows;
- ``frames``: ``render_frames`` as rendering runs it (drop shadows on);
- ``written``: ``render.render_video``: frames plus the mp4 and ``frames.npz``.

Run: ``nice -n 5 python benchmarks/agent_render.py [--type 2.1] [--size 320] [--rounds 3]``
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from socialbench.agent3d.bodies import physics_client
from socialbench.agent3d.generate import make_trial
from socialbench.agent3d.physics import p
from socialbench.agent3d.render import (
    LIGHT,
    LIGHT_DIRECTION,
    RenderOptions,
    build_visual_scene,
    camera_matrices,
    render_frames,
    render_video,
)
from socialbench.agent3d.schema import Video
from socialbench.core.seeding import derive_seed


def raw_seconds(video: Video, options: RenderOptions, shadow: int) -> float:
    """TinyRenderer drawing the video's scene as often as it has frames, nothing else."""
    view, projection = camera_matrices(video.config.camera, options)
    with physics_client() as client:
        build_visual_scene(video.config, client, options.textures)
        start = time.perf_counter()
        for _ in video.frames:
            p.getCameraImage(options.width, options.height, view, projection, shadow=shadow,
                             lightDirection=LIGHT_DIRECTION, renderer=p.ER_TINY_RENDERER,
                             physicsClientId=client, **LIGHT)
        return time.perf_counter() - start


def frames_seconds(video: Video, options: RenderOptions) -> float:
    start = time.perf_counter()
    for _ in render_frames(video, options):
        pass
    return time.perf_counter() - start


def written_seconds(video: Video, options: RenderOptions) -> float:
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        render_video(video, Path(scratch), options)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--type", default="2.1", help="the trial type whose video is rendered")
    parser.add_argument("--size", type=int, default=RenderOptions().width,
                        help="frame side, pixels (default: the render's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    options = RenderOptions(width=args.size, height=args.size)
    video = make_trial(args.type, "test", 0, derive_seed(args.seed, "bench", args.type)).expected
    ways: dict[str, Callable[[], float]] = {
        "raw (limit)": lambda: raw_seconds(video, options, 0),
        "raw, PyBullet shadows": lambda: raw_seconds(video, options, 1),
        "frames, no drop shadows": lambda: frames_seconds(video, replace(options, shadows=False)),
        "frames": lambda: frames_seconds(video, options),
        "written (mp4 + npz)": lambda: written_seconds(video, options),
    }
    frames_seconds(video, options)  # warm up: textures drawn and cached, modules loaded
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(args.rounds):
        for name, way in ways.items():
            seconds[name].append(way())
    count = len(video.frames)
    raw = float(np.median(seconds["raw (limit)"]))
    poses = [[(s.id, s.position, s.orientation) for s in frame] for frame in video.frames]
    repeats = sum(now == before for before, now in zip(poses[:-1], poses[1:], strict=True))
    print(f"type {args.type} expected video, {count} frames, {args.size}x{args.size}, median of "
          f"{args.rounds} rounds; {repeats} frames repeat the last one's poses (render_frames "
          f"copies them, the raw loop draws every frame)")
    print(f"{'':<26} {'frames/s':>9} {'ms/frame':>9} {'of raw':>7}")
    for name, values in seconds.items():
        median = float(np.median(values))
        print(f"{name:<26} {count / median:>9.1f} {1000 * median / count:>9.2f} "
              f"{raw / median:>7.0%}")


if __name__ == "__main__":
    main()

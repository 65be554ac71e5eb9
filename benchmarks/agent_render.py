"""AGENT rendering speed beside raw TinyRenderer, with each stage's cost, in one run.

One test-split trial's expected video is rendered, frame for frame, five ways, in alternating
rounds (the median round is printed, so a busy machine slows every figure alike):

- ``raw``: ``getCameraImage`` on the same scene (textured floor and walls, the same light,
  PyBullet's own shadows off as ours), in a loop: no pose updates, no decoding: the limit;
- ``raw, PyBullet shadows``: the same with ``shadow=1`` (for comparison: we draw our own);
- ``frames, no drop shadows``: ``render.render_frames`` (pose updates, decoding to RGB, depth in
  mm and entity ids) without our drop shadows;
- ``frames``: ``render_frames`` as rendering runs it (drop shadows on);
- ``written``: ``render.render_video``: frames plus the mp4 and ``frames.npz``, the frames drawn
  ahead by a thread of their own (``RenderOptions.draw_ahead``, the default);
- ``written, one thread``: the same drawn and written in turn (``draw_ahead=0``).

Each way's wall time and CPU time are taken (the process's, and the calling thread's apart).
On a busy machine the CPU shares are the steadier; with the drawing thread, the longer of the
two threads' CPU times is what the wall time would come to on two free cores (an estimate:
this script's machine has none free), printed as ``critical path``.

Run: ``nice -n 5 python benchmarks/agent_render.py [--type 2.1] [--size 320] [--rounds 3]
[--every 3]``
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

Times = tuple[float, float, float]  # wall, process CPU, the calling thread's CPU (seconds)


def timed(work: Callable[[], object]) -> Times:
    wall, cpu, own = time.perf_counter(), time.process_time(), time.thread_time()
    work()
    return (time.perf_counter() - wall, time.process_time() - cpu, time.thread_time() - own)


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


def written_times(video: Video, options: RenderOptions) -> Times:
    with tempfile.TemporaryDirectory() as scratch:
        return timed(lambda: render_video(video, Path(scratch), options))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--type", default="2.1", help="the trial type whose video is rendered")
    parser.add_argument("--size", type=int, default=RenderOptions().width,
                        help="frame side, pixels (default: the render's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--every", type=int, default=1,
                        help="render every Nth frame only (3: no frame repeats the last one's "
                             "poses, so none is copied instead of drawn)")
    args = parser.parse_args()
    options = RenderOptions(width=args.size, height=args.size)
    video = make_trial(args.type, "test", 0, derive_seed(args.seed, "bench", args.type)).expected
    video = Video(video.config, video.frames[::max(args.every, 1)])
    ways: dict[str, Callable[[], Times]] = {
        "raw (limit)": lambda: timed(lambda: raw_seconds(video, options, 0)),
        "raw, PyBullet shadows": lambda: timed(lambda: raw_seconds(video, options, 1)),
        "frames, no drop shadows": lambda: timed(
            lambda: frames_seconds(video, replace(options, shadows=False))),
        "frames": lambda: timed(lambda: frames_seconds(video, options)),
        "written (mp4 + npz)": lambda: written_times(video, options),
        "written, one thread": lambda: written_times(video, replace(options, draw_ahead=0)),
    }
    frames_seconds(video, options)  # warm up: textures drawn and cached, modules loaded
    times: dict[str, list[Times]] = {name: [] for name in ways}
    for _ in range(args.rounds):
        for name, way in ways.items():
            times[name].append(way())
    count = len(video.frames)
    raw_wall, raw_cpu = (float(np.median([t[k] for t in times["raw (limit)"]])) for k in (0, 1))
    poses = [[(s.id, s.position, s.orientation) for s in frame] for frame in video.frames]
    repeats = sum(now == before for before, now in zip(poses[:-1], poses[1:], strict=True))
    print(f"type {args.type} expected video, {count} frames, {args.size}x{args.size}, median of "
          f"{args.rounds} rounds; {repeats} frames repeat the last one's poses (render_frames "
          f"copies them, the raw loop draws every frame)")
    print(f"{'':<26} {'frames/s':>9} {'ms/frame':>9} {'of raw':>7} {'CPU ms':>7} {'of raw':>7}")
    for name, values in times.items():
        wall, cpu = (float(np.median([t[k] for t in values])) for k in (0, 1))
        print(f"{name:<26} {count / wall:>9.1f} {1000 * wall / count:>9.2f} "
              f"{raw_wall / wall:>7.0%} {1000 * cpu / count:>7.2f} {raw_cpu / cpu:>7.0%}")
    # with the drawing thread: each thread's CPU time; the longer is the wall time on two
    # free cores (the interpreter lock aside), set beside the raw loop's CPU time
    values = times["written (mp4 + npz)"]
    writing = float(np.median([t[2] for t in values]))
    drawing = float(np.median([t[1] - t[2] for t in values]))
    print(f"written, drawing thread: writing thread {1000 * writing / count:.2f} ms/frame of CPU, "
          f"drawing thread {1000 * drawing / count:.2f}; critical path "
          f"{raw_cpu / max(writing, drawing):.0%} of raw (an estimate for two free cores)")


if __name__ == "__main__":
    main()

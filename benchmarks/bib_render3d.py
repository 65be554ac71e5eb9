"""BIB 3D rendering speed beside raw TinyRenderer of the same scene, in one run.

One generated test trial (``instrumental_blocking_barrier``: walls, barrier, key, lock) is drawn,
frame for frame, four ways, in alternating rounds (the median round is printed, so a busy
machine slows every figure alike):

- ``raw``: ``getCameraImage`` of the trial's first frame's scene in a loop, bodies never moved:
  the limit;
- ``posed``: :meth:`Renderer3D.render` of every frame: the scene built once, then bodies moved
  per frame (``resetBasePositionAndOrientation``);
- ``rebuilt``: the scene built anew for every frame (what ``posed`` avoids);
- ``video frames``: :meth:`Renderer3D.trial_frames`, as the video writer runs it (a frame
  repeated in a row is drawn once).

Then the video model's 3D frames (``--frames 3d``: 3 fps, 64 x 64) of that whole episode (9
trials), in frames the model gets per second: drawn from the JSON at 64 px (the default), at
128 or 200 px and box-filtered to 64, beside drawing every 25-fps frame at 200 px as the mp4s
need (encoding and decoding not counted, so the mp4 route is slower still).

Run: ``nice -n 5 python benchmarks/bib_render3d.py [--rounds 3] [--seed 0]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from socialbench.bib import generate as gen
from socialbench.bib.render3d import Renderer3D
from socialbench.bib.schema import Trial
from socialbench.observers.bib.video_model.frames import sample_indices
from socialbench.observers.bib.video_model.frames3d import rendered_frames_3d, renderer_3d


def test_episode(seed: int) -> list[Trial]:
    split = gen.SPLITS["eval"]
    built = gen.build_episode(split.tasks["instrumental_blocking_barrier"], split.shapes,
                              seed=seed, index=0)
    return list(built.expected)


def test_trial(seed: int) -> Trial:
    return test_episode(seed)[-1]


def model_frames(seed: int, rounds: int) -> None:
    """The video model's 3D frames of one episode, per second, by render size."""
    trials = test_episode(seed)
    wanted = sum(len(sample_indices(len(t))) for t in trials)
    ways: dict[str, Callable[[], object]] = {}
    renderers = {side: renderer_3d(side) for side in (64, 128, 200)}
    for side, renderer in renderers.items():
        ways[f"{side} px" + (" -> 64" if side != 64 else "")] = (
            lambda r=renderer: rendered_frames_3d(trials, r))
    video = renderers[200]
    ways["mp4 route"] = lambda: [image for t in trials for image in video.trial_frames(t)]
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(rounds):
        for name, way in ways.items():
            start = time.perf_counter()
            way()
            times[name].append(time.perf_counter() - start)
    for renderer in renderers.values():
        renderer.close()
    every = sum(len(t) for t in trials)
    print(f"video model frames of one episode: {wanted} at 3 fps of {every} at 25 fps, "
          f"median of {rounds} rounds")
    slowest = wanted / statistics.median(times["mp4 route"])
    for name, spent in times.items():
        rate = wanted / statistics.median(spent)
        print(f"{name:>13}: {rate:7.1f} model frames/s ({rate / slowest:4.1f}x the mp4 route's "
              f"drawing)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    trial = test_trial(args.seed)
    frames = list(trial.frames)
    with Renderer3D() as r:
        def raw() -> None:
            r.reset()
            r.pose(frames[0])
            for _ in frames:
                r.snapshot()

        def posed() -> None:
            r.reset()
            for frame in frames:
                r.render(frame)

        def rebuilt() -> None:
            for frame in frames:
                r.reset()
                r.render(frame)

        def video() -> None:
            for _ in r.trial_frames(trial):
                pass

        ways: dict[str, Callable[[], None]] = {"raw": raw, "posed": posed, "rebuilt": rebuilt,
                                               "video frames": video}
        times: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(args.rounds):
            for name, way in ways.items():
                start = time.perf_counter()
                way()
                times[name].append(time.perf_counter() - start)
    print(f"one test trial, {len(frames)} frames, 200 x 200, TinyRenderer, "
          f"median of {args.rounds} rounds")
    raw_rate = len(frames) / statistics.median(times["raw"])
    for name, spent in times.items():
        rate = len(frames) / statistics.median(spent)
        print(f"{name:>13}: {rate:7.1f} frames/s ({100 * rate / raw_rate:5.1f} % of raw)")
    model_frames(args.seed, args.rounds)


if __name__ == "__main__":
    main()

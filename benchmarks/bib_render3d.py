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


def test_trial(seed: int) -> Trial:
    split = gen.SPLITS["eval"]
    built = gen.build_episode(split.tasks["instrumental_blocking_barrier"], split.shapes,
                              seed=seed, index=0)
    return built.expected[-1]


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


if __name__ == "__main__":
    main()

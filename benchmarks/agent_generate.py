"""AGENT generation speed: trials per second, states-only and rendered, beside PyBullet's limit.

For each trial type, one test-split trial (familiarization, expected, surprising) is built by the
generator (``generate.make_trial``) and written with ``io.write_trial``; then one trial is
written again with rendering. The limit beside each figure is PyBullet alone, measured in the
same run on the same scenes: the raw physics steps those trials needed (``stepSimulation`` in a
loop) and the raw TinyRenderer calls for the same number of frames (``getCameraImage`` in a
loop, no pose updates, no encoding).
The states-only limit is the faster of stepping one call per 1/210 s step and one call per
35 fps frame (``numSubSteps``, as the generator steps).
Run: ``nice -n 10 python benchmarks/agent_generate.py [--types 2.1,4.2] [--size 200]
[--no-render]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from agent_render import raw_seconds  # benchmarks/ is this script's folder (sys.path[0])

from socialbench.agent3d.bodies import build_scene, physics_client
from socialbench.agent3d.generate import make_trial
from socialbench.agent3d.io import write_trial
from socialbench.agent3d.motion import SUBSTEPS, TIMESTEP
from socialbench.agent3d.physics import p
from socialbench.agent3d.render import RenderOptions
from socialbench.agent3d.schema import TRIAL_TYPES, SceneConfig, Trial, Video
from socialbench.core.seeding import derive_seed


def make_test_trial(trial_type: str, seed: int) -> Trial:
    """One test-split trial of a type, as the generator makes it (resampling included)."""
    return make_trial(trial_type, "test", 0, derive_seed(seed, "bench", trial_type))


def videos_of(trial: Trial) -> list:
    return [*trial.familiarization, trial.expected] + \
        ([trial.surprising] if trial.surprising is not None else [])


def raw_steps_per_second(config: SceneConfig, steps: int, per_frame: bool = False) -> float:
    """PyBullet stepping the scene with nothing else: the physics limit. ``per_frame``: one
    call per 35 fps frame running its ``SUBSTEPS`` steps inside PyBullet (as the generator
    steps), else one call per 1/210 s step."""
    with physics_client(timestep=TIMESTEP) as client:
        build_scene(config, client)
        calls = steps
        if per_frame:
            p.setPhysicsEngineParameter(fixedTimeStep=TIMESTEP * SUBSTEPS, numSubSteps=SUBSTEPS,
                                        physicsClientId=client)
            calls = steps // SUBSTEPS
        start = time.perf_counter()
        for _ in range(calls):
            p.stepSimulation(physicsClientId=client)
        elapsed = time.perf_counter() - start
        p.setPhysicsEngineParameter(numSubSteps=0, physicsClientId=client)
        return calls * (SUBSTEPS if per_frame else 1) / elapsed


def raw_frames_per_second(video: Video, options: RenderOptions) -> float:
    """TinyRenderer drawing the video's scene (textured, the same light) with nothing else:
    the rendering limit (``agent_render.py`` times each stage beside it)."""
    return len(video.frames) / raw_seconds(video, options, shadow=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--types", default=",".join(TRIAL_TYPES),
                        help="comma-separated trial types (default: all 13)")
    parser.add_argument("--render-type", default="2.1", help="the type timed with rendering")
    parser.add_argument("--size", type=int, default=200, help="rendered frame side, pixels")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-render", action="store_true", help="time states-only alone")
    args = parser.parse_args()
    types = [t for t in args.types.split(",") if t]
    options = RenderOptions(width=args.size, height=args.size)

    print(f"{'type':>5} {'videos':>6} {'frames':>6} {'build s':>8} {'write s':>8}")
    built, frames_total, build_time, write_time = [], 0, 0.0, 0.0
    with tempfile.TemporaryDirectory() as scratch:
        for trial_type in types:
            start = time.perf_counter()
            trial = make_test_trial(trial_type, args.seed)
            middle = time.perf_counter()
            write_trial(trial, Path(scratch) / f"states_{trial_type}")
            end = time.perf_counter()
            frames = sum(len(v.frames) for v in videos_of(trial))
            built.append(trial)
            frames_total += frames
            build_time += middle - start
            write_time += end - middle
            print(f"{trial_type:>5} {len(videos_of(trial)):>6} {frames:>6} "
                  f"{middle - start:>8.3f} {end - middle:>8.3f}")
        states_rate = len(built) / (build_time + write_time)
        steps = frames_total * SUBSTEPS
        # the limit: the faster of stepping one call per step or one call per frame
        per_step = float(np.median([raw_steps_per_second(t.expected.config, 24_000)
                                    for t in built]))
        per_frame = float(np.median([raw_steps_per_second(t.expected.config, 24_000, True)
                                     for t in built]))
        raw_steps = max(per_step, per_frame)
        limit_states = raw_steps / (steps / len(built))
        frame_rate = frames_total / (build_time + write_time)
        print(f"\nstates-only: {states_rate:.2f} trials/s ({frame_rate:.0f} frames/s; build "
              f"{build_time:.2f} s, write {write_time:.2f} s for {len(built)} trials)")
        print(f"  limit (raw PyBullet stepping of the same {frames_total} frames, "
              f"{raw_steps:,.0f} steps/s x {SUBSTEPS} steps/frame; one call a step "
              f"{per_step:,.0f}, a frame {per_frame:,.0f}): {limit_states:.2f} trials/s, "
              f"generation at {100 * states_rate / limit_states:.0f} % of it")
        if args.no_render:
            return

        rendered = make_test_trial(args.render_type, args.seed)
        frames = sum(len(v.frames) for v in videos_of(rendered))
        start = time.perf_counter()
        write_trial(rendered, Path(scratch) / "rendered", options)
        render_time = time.perf_counter() - start
        raw_fps = raw_frames_per_second(rendered.expected, options)
        print(f"\nrendered ({args.size}x{args.size}, textures and drop shadows, mp4 + npz, type "
              f"{args.render_type}, {frames} frames): {1 / render_time:.3f} trials/s "
              f"({frames / render_time:.1f} frames/s)")
        print(f"  limit (raw TinyRenderer, same textures and light, {raw_fps:.1f} frames/s): "
              f"{raw_fps / frames:.3f} trials/s, rendering at "
              f"{100 * frames / render_time / raw_fps:.0f} % of it")


if __name__ == "__main__":
    main()

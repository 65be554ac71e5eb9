"""AGENT generation speed: trials per second, states-only and rendered, beside PyBullet's limit.

For each trial type, one test-split trial (familiarization, expected, surprising) is built by the
generator (``generate.make_trial``) and written with ``io.write_trial``; then one trial is
written again with rendering. The limit beside each figure is PyBullet alone, measured in the
same run on the same scenes: the raw physics steps those trials needed (``stepSimulation`` in a
loop, on the bodies the generator simulates: all but the room's walls; the whole scene's
figure, walls included, is printed beside it) and the raw TinyRenderer calls for the same
number of frames (``getCameraImage`` in a loop, no pose updates, no encoding; the expected
video's frames, timed before and after the rendered trial is written).
The states-only limit is the faster of stepping one call per 1/210 s step and one call per
35 fps frame (``numSubSteps``, as the generator steps), timed right after each trial is made
(a busy machine's changing load lands on both); the set is made ``--rounds`` times and the
median round's share is reported. Beside it, the generator's own ``stepSimulation`` calls are
timed as it makes the trials (a clock read around each, through a copy of the PyBullet
module's names: no lookup added): the same frames' stepping with the agent really moving,
which costs more than the raw loop's agent at rest, and with the failed samples' frames.
Run: ``nice -n 10 python benchmarks/agent_generate.py [--types 2.1,4.2] [--size 320]
[--no-render] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import types
from pathlib import Path

import numpy as np
from agent_render import raw_seconds  # benchmarks/ is this script's folder (sys.path[0])

from socialbench.agent3d import motion
from socialbench.agent3d.bodies import build_scene, physics_client
from socialbench.agent3d.generate import make_trial
from socialbench.agent3d.io import write_trial
from socialbench.agent3d.motion import SUBSTEPS, TIMESTEP, simulated_entities
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


def raw_steps_per_second(config: SceneConfig, steps: int, per_frame: bool = False,
                         whole: bool = False) -> tuple[float, float]:
    """PyBullet stepping the scene with nothing else: the physics limit, in steps per second
    of wall time and of this process's CPU time. ``per_frame``: one call per 35 fps frame
    running its ``SUBSTEPS`` steps inside PyBullet (as the generator steps), else one call per
    1/210 s step. The bodies are those the generator steps (``motion.simulated_entities``);
    ``whole``: every body of the config, the room's walls too (the earlier limit)."""
    with physics_client(timestep=TIMESTEP) as client:
        build_scene(config if whole else simulated_entities(config), client)
        calls = steps
        if per_frame:
            p.setPhysicsEngineParameter(fixedTimeStep=TIMESTEP * SUBSTEPS, numSubSteps=SUBSTEPS,
                                        physicsClientId=client)
            calls = steps // SUBSTEPS
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            p.stepSimulation(physicsClientId=client)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        p.setPhysicsEngineParameter(numSubSteps=0, physicsClientId=client)
        done = calls * (SUBSTEPS if per_frame else 1)
        return done / elapsed, done / max(cpu, 1e-9)


class TimedSteps:
    """Installed as ``motion.p``: PyBullet's names copied as attributes (as fast to look up as
    the module's), ``stepSimulation`` timed; ``seconds`` adds up the wall time in it."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.names = types.SimpleNamespace(**vars(p))
        step = p.stepSimulation

        def timed_step(*args: int, **kwargs: int) -> None:
            start = time.perf_counter()
            step(*args, **kwargs)
            self.seconds += time.perf_counter() - start

        self.names.stepSimulation = timed_step


def raw_frames_per_second(video: Video, options: RenderOptions) -> float:
    """TinyRenderer drawing the video's scene (textured, the same light) with nothing else:
    the rendering limit (``agent_render.py`` times each stage beside it)."""
    return len(video.frames) / raw_seconds(video, options, shadow=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--types", default=",".join(TRIAL_TYPES),
                        help="comma-separated trial types (default: all 13)")
    parser.add_argument("--render-type", default="2.1", help="the type timed with rendering")
    parser.add_argument("--size", type=int, default=RenderOptions().width,
                        help="rendered frame side, pixels (default: the render's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-render", action="store_true", help="time states-only alone")
    parser.add_argument("--rounds", type=int, default=3, help="states-only rounds (median)")
    args = parser.parse_args()
    types = [t for t in args.types.split(",") if t]
    options = RenderOptions(width=args.size, height=args.size)

    # each trial's raw stepping is timed right after the trial is made, so a change in the
    # machine's load lands on both; each round makes other trials of every type (the next seed:
    # nothing cached from the last), the median round is reported
    print(f"{'round':>5} {'type':>5} {'videos':>6} {'frames':>6} {'build s':>8} {'write s':>8} "
          f"{'raw s':>7}")
    rounds = []
    steps_timer = TimedSteps()
    motion.p = steps_timer.names  # type: ignore[assignment]  # the generator's stepping timed
    with tempfile.TemporaryDirectory() as scratch:
        for round_index in range(args.rounds):
            built, build_time, write_time, raw_time = [], 0.0, 0.0, 0.0
            cpu_time, raw_cpu = 0.0, 0.0  # the same, in this process's CPU seconds
            whole_time = 0.0  # the raw stepping of the whole config, the room's walls too
            per_step_rates, per_frame_rates = [], []
            steps_timer.seconds = 0.0
            for trial_type in types:
                start, cpu = time.perf_counter(), time.process_time()
                trial = make_test_trial(trial_type, args.seed + round_index)  # new trials
                middle = time.perf_counter()
                write_trial(trial, Path(scratch) / f"states_{round_index}_{trial_type}")
                end = time.perf_counter()
                cpu_time += time.process_time() - cpu
                frames = sum(len(v.frames) for v in videos_of(trial))
                steps = frames * SUBSTEPS
                # the limit: the faster of one stepSimulation call per step or per frame
                (per_step, step_cpu) = raw_steps_per_second(trial.expected.config, steps)
                (per_frame, frame_cpu) = raw_steps_per_second(trial.expected.config, steps, True)
                whole_rate = raw_steps_per_second(trial.expected.config, steps, True, True)[0]
                whole_time += steps / whole_rate
                per_step_rates.append(per_step)
                per_frame_rates.append(per_frame)
                raw = steps / max(per_step, per_frame)
                raw_cpu += steps / max(step_cpu, frame_cpu)
                built.append(trial)
                build_time += middle - start
                write_time += end - middle
                raw_time += raw
                print(f"{round_index:>5} {trial_type:>5} {len(videos_of(trial)):>6} {frames:>6} "
                      f"{middle - start:>8.3f} {end - middle:>8.3f} {raw:>7.3f}")
            rounds.append((raw_time / (build_time + write_time), built, build_time, write_time,
                           raw_time, per_step_rates, per_frame_rates, raw_cpu / cpu_time,
                           steps_timer.seconds, whole_time))
        motion.p = p
        rounds.sort(key=lambda r: r[0])
        share, built, build_time, write_time, raw_time, per_step_rates, per_frame_rates, _, \
            own_steps, whole_time = rounds[len(rounds) // 2]
        cpu_shares = sorted(r[7] for r in rounds)
        frames_total = sum(len(v.frames) for t in built for v in videos_of(t))
        states_rate = len(built) / (build_time + write_time)
        print(f"\nstates-only (median of {len(rounds)} rounds; shares "
              f"{', '.join(f'{100 * r[0]:.0f} %' for r in rounds)}): {states_rate:.2f} trials/s "
              f"({frames_total / (build_time + write_time):.0f} frames/s; build "
              f"{build_time:.2f} s, write {write_time:.2f} s for {len(built)} trials)")
        print(f"  limit (raw PyBullet stepping of the same {frames_total} frames x {SUBSTEPS} "
              f"steps, the faster of one call a step (median {np.median(per_step_rates):,.0f} "
              f"steps/s) and one a frame ({np.median(per_frame_rates):,.0f})): "
              f"{len(built) / raw_time:.2f} trials/s, generation at {100 * share:.0f} % of it")
        print(f"  beside the raw stepping of every body of the scenes, the room's walls too "
              f"(one call a frame; the generator does not build those walls): "
              f"{len(built) / whole_time:.2f} trials/s, generation at "
              f"{100 * whole_time / (build_time + write_time):.0f} % of it")
        print(f"  the generator's own stepSimulation calls (the agent moving, failed samples "
              f"too): {own_steps:.2f} s, {own_steps / raw_time:.2f} x the raw loop's; "
              f"generation at {100 * own_steps / (build_time + write_time):.0f} % of it")
        # on a busy machine wall time counts the waits for a core; CPU time does not
        print(f"  in this process's CPU time: generation at "
              f"{100 * cpu_shares[len(cpu_shares) // 2]:.0f} % of raw stepping (rounds "
              f"{', '.join(f'{100 * c:.0f} %' for c in cpu_shares)})")
        if args.no_render:
            return

        rendered = make_test_trial(args.render_type, args.seed)
        frames = sum(len(v.frames) for v in videos_of(rendered))
        # the limit is timed before and after the trial is written, and the two averaged (per
        # frame), so that a change in the machine's load during the write lands on both sides
        raw_before = raw_frames_per_second(rendered.expected, options)
        start = time.perf_counter()
        write_trial(rendered, Path(scratch) / "rendered", options)
        render_time = time.perf_counter() - start
        raw_after = raw_frames_per_second(rendered.expected, options)
        raw_fps = 2 / (1 / raw_before + 1 / raw_after)
        print(f"\nrendered ({args.size}x{args.size}, textures and drop shadows, mp4 + npz, type "
              f"{args.render_type}, {frames} frames): {1 / render_time:.3f} trials/s "
              f"({frames / render_time:.1f} frames/s)")
        print(f"  limit (raw TinyRenderer, same textures and light, {raw_fps:.1f} frames/s: "
              f"{raw_before:.1f} before the write, {raw_after:.1f} after): "
              f"{raw_fps / frames:.3f} trials/s, rendering at "
              f"{100 * frames / render_time / raw_fps:.0f} % of it")


if __name__ == "__main__":
    main()

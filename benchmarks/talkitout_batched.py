"""Steps per second of the batched TalkItOut beside the single Gymnasium env, in the same run.

    python benchmarks/talkitout_batched.py [--steps 400000] [--rounds 3] [--envs 16 256 1024 4096]

Every case takes the paper's random policy (uniform over [8 primitives, speak switch,
4 templates, 16 nouns]: episodes of ~4 steps, so resets dominate), resets included. The actions
are drawn in bulk before the clock starts (for the batched env, one (steps, N, 3) array), so
the figure is the environment's own cost. The batched env runs with ``autoreset_mode``
SAME_STEP (what the PPO trainer uses) and defaults otherwise; at the largest N it is also
run with NEXT_STEP and with ``history_in_obs=True`` (the whole history copied into every
observation). The single env (``gymnasium.make``, default wrappers) and stock
MiniGrid-Empty-8x8-v0 are measured as in ``talkitout_env.py``. Rounds alternate the cases so a
busy machine slows them alike; the best round of each is reported, by the wall clock and by
this process's CPU time (steady when other processes share the cores). The issue's reference:
xminigrid (JAX) runs 1.15M steps/s at 1024 envs on this machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from talkitout_env import talkitout_random_actions, timed_run  # noqa: E402

from socialbench.talkitout.vector_env import TalkItOutVectorEnv  # noqa: E402

XMINIGRID_1024 = 1.15e6  # issue 10: the fastest grid world measured on this machine
Measure = Callable[[], tuple[float, float]]  # () -> (steps/s wall, steps per CPU second)


def batched_random_actions(rng: np.random.Generator, steps: int, n: int) -> np.ndarray:
    """(steps, n, 3) actions of the paper's random policy; silent rows get (4, 16)."""
    move, speak = rng.integers(0, 8, (steps, n)), rng.integers(0, 2, (steps, n)).astype(bool)
    template = np.where(speak, rng.integers(0, 4, (steps, n)), 4)
    noun = np.where(speak, rng.integers(0, 16, (steps, n)), 16)
    return np.stack([move, template, noun], axis=-1)


def batched_rates(actions: np.ndarray, **kwargs: object) -> tuple[float, float]:
    envs = TalkItOutVectorEnv(actions.shape[1], **kwargs)
    envs.reset(seed=0)
    start, cpu = time.perf_counter(), time.process_time()
    for action in actions:
        envs.step(action)
    steps = actions.size // 3
    return steps / (time.perf_counter() - start), steps / (time.process_time() - cpu)


def single_rates(env_id: str, actions: list) -> tuple[float, float]:
    wall, cpu = timed_run(env_id, actions)
    return len(actions) / wall, len(actions) / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400_000,
                        help="environment steps per batched measurement (all envs together)")
    parser.add_argument("--single-steps", type=int, default=50_000,
                        help="steps per single-env measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    parser.add_argument("--envs", type=int, nargs="+", default=[16, 256, 1024, 4096])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    single = talkitout_random_actions(rng, args.single_steps)
    stock = [int(x) for x in rng.integers(0, 7, args.single_steps)]
    single_name = "TalkItOut-v0, gymnasium.make (single env)"
    cases: dict[str, Measure] = {
        "MiniGrid-Empty-8x8-v0, gymnasium.make": lambda: single_rates("MiniGrid-Empty-8x8-v0",
                                                                      stock),
        single_name: lambda: single_rates("socialbench/TalkItOut-v0", single),
    }
    for n in args.envs:
        actions = batched_random_actions(rng, max(args.steps // n, 50), n)
        cases[f"TalkItOutVectorEnv N={n}, same_step"] = (
            lambda a=actions: batched_rates(a, autoreset_mode="same_step"))
    biggest, n = actions, args.envs[-1]
    cases[f"TalkItOutVectorEnv N={n}, next_step"] = (
        lambda: batched_rates(biggest, autoreset_mode="next_step"))
    cases[f"TalkItOutVectorEnv N={n}, same_step, history_in_obs"] = (
        lambda: batched_rates(biggest, autoreset_mode="same_step", history_in_obs=True))

    best = {name: (0.0, 0.0) for name in cases}
    for _ in range(args.rounds):
        for name, measure in cases.items():
            wall, cpu = measure()
            best[name] = (max(best[name][0], wall), max(best[name][1], cpu))
    single_wall, single_cpu = best[single_name]
    print(f"{'case':52s} {'steps/s':>10s} {'x single':>8s} {'x xminigrid':>11s}   "
          f"{'steps/CPU-s':>11s} {'x single':>8s}")
    for name, (wall, cpu) in best.items():
        print(f"{name:52s} {wall:10,.0f} {wall / single_wall:7.1f}x "
              f"{wall / XMINIGRID_1024:10.2f}x   {cpu:11,.0f} {cpu / single_cpu:7.1f}x")


if __name__ == "__main__":
    main()

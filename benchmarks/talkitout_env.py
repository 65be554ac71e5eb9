"""Steps per second of TalkItOut beside stock MiniGrid-Empty-8x8-v0, measured in the same run.

    python benchmarks/talkitout_env.py [--steps 50000] [--rounds 3]

Both environments come from ``gymnasium.make`` (with its default wrappers) and take actions
drawn beforehand, so the figure is the environment's own cost, resets included. TalkItOut is run
(a) with the paper's random policy (uniform over [8 primitives, speak switch, 4 templates,
16 nouns]: episodes of ~4 steps, so resets dominate) and (b) navigation only (turns and forward,
silent: episodes run to t_max). Stock MiniGrid gets uniform random actions. Rounds alternate the
environments so a busy machine slows them alike; the best round of each is reported.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import minigrid  # noqa: F401  (registers the stock MiniGrid environments)
import numpy as np

import socialbench  # noqa: F401  (registers TalkItOut)


def timed_run(env_id: str, actions: np.ndarray, seed: int = 0) -> tuple[float, float]:
    """(wall seconds, this process's CPU seconds) to take ``actions``, resetting as episodes end."""
    env = gym.make(env_id)
    env.reset(seed=seed)
    start, cpu = time.perf_counter(), time.process_time()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return time.perf_counter() - start, time.process_time() - cpu


def steps_per_second(env_id: str, actions: np.ndarray, seed: int = 0) -> float:
    return len(actions) / timed_run(env_id, actions, seed)[0]


def talkitout_random_actions(rng: np.random.Generator, n: int) -> list[tuple[int, int, int]]:
    move, speak = rng.integers(0, 8, n), rng.integers(0, 2, n)
    template, noun = rng.integers(0, 4, n), rng.integers(0, 16, n)
    return [(int(m), int(t), int(w)) if s else (int(m), 4, 16)
            for m, s, t, w in zip(move, speak, template, noun, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000, help="steps per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    cases = {
        "MiniGrid-Empty-8x8-v0, random (reference)":
            ("MiniGrid-Empty-8x8-v0", [int(a) for a in rng.integers(0, 7, args.steps)]),
        "TalkItOut-v0, paper's random policy":
            ("socialbench/TalkItOut-v0", talkitout_random_actions(rng, args.steps)),
        "TalkItOut-v0, navigation only":
            ("socialbench/TalkItOut-v0",
             [(int(a), 4, 16) for a in rng.integers(0, 3, args.steps)]),
    }
    best = dict.fromkeys(cases, 0.0)
    for _ in range(args.rounds):
        for name, (env_id, actions) in cases.items():
            best[name] = max(best[name], steps_per_second(env_id, actions))
    reference = best["MiniGrid-Empty-8x8-v0, random (reference)"]
    for name, rate in best.items():
        print(f"{name:45s} {rate:9,.0f} steps/s   {rate / reference:5.2f}x stock")


if __name__ == "__main__":
    main()

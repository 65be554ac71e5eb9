"""AGENT observers' speed: BIPaCK's seconds per test video and ToMnet-G's training throughput
and seconds per test video, on a dataset generated beforehand.

BIPaCK: for each test pair, the time to rate both test videos from scratch (the shared
familiarization videos planned once, as `agent evaluate` does), split into the planning of
every video (scene, graph, one search per w_v, DTW) and the inference. Target (issue): <= 3 s
per test video on 2 cores. ToMnet-G: episodes per second while training (batch 16) and the
rollout time per test video. The machine's load is printed with the figures.

Run: ``nice -n 5 python benchmarks/agent_observers.py --data DIR [--pairs 10] [--epochs 2]``.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from socialbench.agent3d.episodes import load_episode
from socialbench.agent3d.schema import TRIAL_TYPES
from socialbench.observers.agent.bipack.evidence import video_evidence
from socialbench.observers.agent.bipack.inference import expected_distance
from socialbench.observers.agent.protocols import test_pairs, training_episodes


def bipack_speed(pairs: list) -> None:
    plan_s, infer_s, videos = 0.0, 0.0, 0
    uniform = np.full(6, -np.log(6))
    for _, expected, surprising in pairs:
        e, s = load_episode(expected), load_episode(surprising)
        start = time.perf_counter()
        fam = [video_evidence(v) for v in e.trials[:-1]]
        tests = [video_evidence(e.trials[-1]), video_evidence(s.trials[-1])]
        plan_s += time.perf_counter() - start
        start = time.perf_counter()
        for test in tests:
            expected_distance(fam, test, uniform)
        infer_s += time.perf_counter() - start
        videos += 2
    print(f"bipack: {videos} test videos of {len(pairs)} pairs: "
          f"{(plan_s + infer_s) / videos:.2f} s per test video "
          f"(planning {plan_s / videos:.2f} s, inference {infer_s / videos:.3f} s); "
          f"target <= 3 s")


def tomnet_speed(data: Path, pairs: list, epochs: int) -> None:
    import torch

    from socialbench.observers.agent.tomnet_g.model import ToMnetG
    from socialbench.observers.agent.tomnet_g.observer import sample_of
    from socialbench.observers.agent.tomnet_g.training import rollout, train

    episodes = training_episodes(data, TRIAL_TYPES, max_per_type=4)
    samples = [sample_of(e.trials) for e in episodes]
    torch.manual_seed(0)
    model = ToMnetG()
    start = time.perf_counter()
    train(model, samples, epochs=epochs, progress=False)
    seconds = time.perf_counter() - start
    rate = len(samples) * epochs / seconds
    print(f"tomnet-g: training {len(samples)} episodes x {epochs} epochs: "
          f"{rate:.1f} episodes/s; the paper's 1,920 training trials would take "
          f"{1920 / rate / 60:.1f} min per epoch at this rate")
    tests = [sample_of(load_episode(e).trials) for _, e, _ in pairs]
    start = time.perf_counter()
    for sample in tests:
        rollout(model, sample)
    print(f"tomnet-g: {(time.perf_counter() - start) / len(tests):.2f} s per test video "
          f"(rollout, graphs built beforehand)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--pairs", type=int, default=10, help="test pairs timed (first ones)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--skip", choices=["bipack", "tomnet-g"], default=None)
    args = parser.parse_args()
    pairs = test_pairs(args.data)
    chosen = [pairs[i] for i in np.linspace(0, len(pairs) - 1, min(args.pairs, len(pairs)),
                                            dtype=int)]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if args.skip != "bipack":
        bipack_speed(chosen)
    if args.skip != "tomnet-g":
        tomnet_speed(args.data, chosen, args.epochs)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()

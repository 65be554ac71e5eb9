"""AGENT observers' speed: BIPaCK's seconds per test video and ToMnet-G's training throughput
and seconds per test video, on a dataset generated beforehand.

BIPaCK: for each test pair, the time to rate both test videos from scratch (the shared
familiarization videos planned once, as `agent evaluate` does), split into the planning of
every video (scene, graph, one search per w_v, DTW) and the inference. Target (issue): <= 3 s
per test video on 2 cores. ToMnet-G: the time to read a training trial's states and to
build its graphs (wall and CPU), episodes per second while training (batch 16; rollout and
teacher-forced losses) and the rating time per test video. The machine's load is printed
with the figures.

Run: ``nice -n 5 python benchmarks/agent_observers.py --data DIR [--pairs 10] [--epochs 2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from socialbench.agent3d.episodes import load_episode
from socialbench.agent3d.schema import TRIAL_TYPES
from socialbench.observers.agent.bipack.evidence import video_evidence
from socialbench.observers.agent.bipack.inference import expected_distance
from socialbench.observers.agent.protocols import test_pairs


def bipack_speed(pairs: list) -> None:
    plan_s, infer_s, videos = 0.0, 0.0, 0
    cpu_start = time.process_time()
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
    # wall time shares the CPUs with whatever else runs; CPU time is this process's own
    # (reading the state files included), what a quiet machine's wall time would be
    cpu = (time.process_time() - cpu_start) / videos
    print(f"bipack: {videos} test videos of {len(pairs)} pairs: "
          f"{(plan_s + infer_s) / videos:.2f} s per test video wall "
          f"(planning {plan_s / videos:.2f} s, inference {infer_s / videos:.3f} s), "
          f"{cpu:.2f} s CPU; target <= 3 s")


def tomnet_speed(data: Path, pairs: list, epochs: int, per_type: int) -> None:
    import torch

    from socialbench.agent3d.io import load_trial
    from socialbench.agent3d.schema import VideoStates
    from socialbench.observers.agent.tomnet_g.model import ToMnetG
    from socialbench.observers.agent.tomnet_g.observer import EPOCHS, PACE
    from socialbench.observers.agent.tomnet_g.samples import (
        paced_sample,
        sample_of,
        test_sample,
        training_trials,
    )
    from socialbench.observers.agent.tomnet_g.surprise import surprise
    from socialbench.observers.agent.tomnet_g.training import TRAINING, train

    # reading the state files (agent3d.io) and building the graphs from them, apart; the
    # reference: the same files read row by row with the stdlib's json (the reader before 2826673)
    trials = [d for _, d in training_trials(data, TRIAL_TYPES, per_type)]
    with _row_by_row_reading():
        reference = _reading_cpu(trials, load_trial)
    wall, cpu, samples = np.zeros(2), np.zeros(2), []
    for trial_dir in trials:
        w0, c0 = time.perf_counter(), time.process_time()
        trial = load_trial(trial_dir)
        videos = [VideoStates.of(v) for v in (*trial.familiarization, trial.expected)]
        w1, c1 = time.perf_counter(), time.process_time()
        samples.append(paced_sample(sample_of(videos), PACE))  # as `agent evaluate` reads
        wall += (w1 - w0, time.perf_counter() - w1)
        cpu += (c1 - c0, time.process_time() - c1)
    wall, cpu = wall / len(samples), cpu / len(samples)
    print(f"tomnet-g, per training trial ({len(samples)} timed): reading the states "
          f"{wall[0]:.2f} s wall / {cpu[0]:.3f} s CPU (row by row with json: {reference:.3f} s "
          f"CPU), building the graphs {wall[1]:.3f} s wall / {cpu[1]:.3f} s CPU; the paper's "
          f"1,920 training trials once: {1920 * wall.sum() / 60:.0f} min wall, "
          f"{1920 * cpu.sum() / 60:.1f} min CPU on one process (extrapolated; --workers N "
          f"divides it, --checkpoints keeps the graphs)")
    tests = [paced_sample(test_sample(e), PACE) for _, e, _ in pairs]
    for mode in TRAINING:
        torch.manual_seed(0)
        model = ToMnetG()
        start, cpu_start = time.perf_counter(), time.process_time()
        train(model, samples, epochs=epochs, progress=False, mode=mode)
        rate = len(samples) * epochs / (time.perf_counter() - start)
        cpu_rate = len(samples) * epochs / (time.process_time() - cpu_start)
        print(f"tomnet-g, {mode} training: {len(samples)} episodes x {epochs} epochs: "
              f"{rate:.1f} episodes/s wall, {cpu_rate:.1f} per CPU second; an epoch of the "
              f"paper's 1,920 training trials: {1920 / rate / 60:.1f} min wall at this rate, "
              f"{1920 / cpu_rate / 60:.1f} min CPU (extrapolated)")
        if mode == "teacher-forced":  # the default: the whole full-scale run, once
            total = 1920 * (cpu.sum() + EPOCHS / cpu_rate) / 60
            print(f"tomnet-g, full scale (1,920 trials read once, {EPOCHS} epochs teacher-forced): "
                  f"{total:.0f} min CPU on one process (extrapolated from the rates above)")
        start = time.perf_counter()
        for sample in tests:
            surprise(model, sample, mode)
        print(f"tomnet-g, {mode} surprise: "
              f"{(time.perf_counter() - start) / len(tests):.3f} s per test video "
              f"(graphs built beforehand)")


@contextmanager
def _row_by_row_reading() -> Iterator[None]:
    """agent3d.io as it read before: the stdlib's json and a check per state row."""
    from socialbench.agent3d import io

    bulk, parser = io._all_states, io.orjson
    io._all_states = lambda raw_frames: None
    io.orjson = json  # type: ignore[assignment]  # json.loads takes the bytes alike
    try:
        yield
    finally:
        io._all_states, io.orjson = bulk, parser


def _reading_cpu(trials: list[Path], read: Callable[[Path], object]) -> float:
    """CPU seconds per trial to read ``trials``."""
    start = time.process_time()
    for trial_dir in trials:
        read(trial_dir)
    return (time.process_time() - start) / max(1, len(trials))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--pairs", type=int, default=10, help="test pairs timed (first ones)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--per-type", type=int, default=4,
                        help="ToMnet-G: training trials per type timed")
    parser.add_argument("--skip", choices=["bipack", "tomnet-g"], default=None)
    args = parser.parse_args()
    pairs = test_pairs(args.data)
    chosen = [pairs[i] for i in np.linspace(0, len(pairs) - 1, min(args.pairs, len(pairs)),
                                            dtype=int)]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if args.skip != "bipack":
        bipack_speed(chosen)
    if args.skip != "tomnet-g":
        tomnet_speed(args.data, chosen, args.epochs, args.per_type)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()

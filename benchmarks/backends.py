"""Local workers against Ray on the same CPUs: the same generation, in one run, several times.

Each repetition generates the same datasets twice into fresh folders, once with ``workers``
local processes and once as Ray tasks on a Ray instance started here with as many CPUs (the
order alternates between repetitions, so a busy machine's changing load lands on both), and
checks the two manifests are byte-identical. Workloads: AGENT states-only (``--types``,
``--scale``), BIB with video (``--bib-tasks``, ``--bib-episodes``) and BIB without video
(``--bib-json-episodes``: little work, many bytes); 0 skips one. Reported:
jobs per second per run, the medians, and Ray's median as a share of local's (target >= 90 %).
Starting Ray is timed apart (once per command on a cluster, not per job).
Run: ``nice -n 5 python benchmarks/backends.py [--cpus 2] [--reps 3] [--scale 0.02]
[--bib-episodes 10] [--bib-json-episodes 100] [--dir /tmp/bench]``.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from socialbench.core.backends import LOCAL, Backend, using_backend
from socialbench.core.backends.ray_cluster import ray_session
from socialbench.core.runner import MANIFEST_NAME


def agent_states(types: list[str], scale: float) -> Callable[[Path, int], int]:
    from socialbench.agent3d.generate import generate

    def run(out: Path, workers: int) -> int:
        manifest = generate(out, seed=0, types=types, scale=scale, workers=workers,
                            show_progress=False)
        return len(manifest["jobs"])
    return run


def bib(tasks: list[str], episodes: int, video: bool) -> Callable[[Path, int], int]:
    from socialbench.bib.generate import generate

    def run(out: Path, workers: int) -> int:
        generate(out, "eval", tasks=tasks, episodes=episodes, seed=0, workers=workers,
                 video=video, show_progress=False)
        return len(tasks) * episodes
    return run


def timed(work: Callable[[Path, int], int], out: Path, workers: int, backend: Backend
          ) -> tuple[float, bytes]:
    """Jobs per second of one run and its manifest. A Ray run gets a Ray instance of its own,
    started before the clock starts and stopped after it stops (local runs fork no process of
    a Ray-initialised parent); its workers' start-up and imports are timed, as a command pays
    them."""
    shutil.rmtree(out, ignore_errors=True)
    session = ray_session(backend, workers) if backend.is_ray else contextlib.nullcontext()
    with session, using_backend(backend):
        start = time.perf_counter()
        jobs = work(out, workers)
        seconds = time.perf_counter() - start
    return jobs / seconds, (out / MANIFEST_NAME).read_bytes()


def measure(name: str, work: Callable[[Path, int], int], folder: Path, cpus: int,
            reps: int) -> dict[str, Any]:
    rates: dict[str, list[float]] = {"local": [], "ray": []}
    for rep in range(reps):
        order = [("local", LOCAL), ("ray", Backend("ray"))]
        manifests = {}
        for label, backend in order if rep % 2 == 0 else order[::-1]:
            rate, manifests[label] = timed(work, folder / f"{name}-{label}", cpus, backend)
            rates[label].append(rate)
        assert manifests["ray"] == manifests["local"], f"{name}: manifests differ"
        print(f"{name} rep {rep + 1}: local {rates['local'][-1]:.3f} jobs/s, "
              f"ray {rates['ray'][-1]:.3f} jobs/s (manifests identical)", flush=True)
    local, ray = statistics.median(rates["local"]), statistics.median(rates["ray"])
    print(f"{name}: median local {local:.3f} jobs/s, ray {ray:.3f} jobs/s, "
          f"ray / local = {ray / local:.1%} (per rep: "
          + ", ".join(f"{r / m:.1%}" for r, m in zip(rates["ray"], rates["local"], strict=True))
          + ")", flush=True)
    return {"local": rates["local"], "ray": rates["ray"], "share": ray / local}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpus", type=int, default=2, help="local workers = Ray CPUs")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--types", default=None, help="AGENT types (default: all 13)")
    parser.add_argument("--scale", type=float, default=0.02, help="AGENT scale (0: skip)")
    parser.add_argument("--bib-tasks", default="preference,efficiency_path")
    parser.add_argument("--bib-episodes", type=int, default=10,
                        help="BIB pairs with video per task (0: skip)")
    parser.add_argument("--bib-json-episodes", type=int, default=100,
                        help="BIB pairs without video per task (0: skip): ~4.5 MB of JSON a "
                             "pair, the driver's writing is then the limit")
    parser.add_argument("--dir", type=Path, default=None, help="scratch folder (removed)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="backends-", dir=args.dir))
    try:
        start = time.perf_counter()
        with ray_session(Backend("ray"), args.cpus):
            print(f"Ray started with {args.cpus} CPUs in {time.perf_counter() - start:.1f} s "
                  "(once per command, not timed below)", flush=True)
        if args.scale > 0:
            from socialbench.agent3d.schema import TRIAL_TYPES

            types = args.types.split(",") if args.types else list(TRIAL_TYPES)
            measure("agent states-only", agent_states(types, args.scale), folder, args.cpus,
                    args.reps)
        tasks = args.bib_tasks.split(",")
        if args.bib_episodes > 0:
            measure("bib video", bib(tasks, args.bib_episodes, video=True), folder, args.cpus,
                    args.reps)
        if args.bib_json_episodes > 0:
            measure("bib json-only", bib(tasks, args.bib_json_episodes, video=False), folder,
                    args.cpus, args.reps)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

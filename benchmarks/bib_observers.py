"""Speed of the BIB observers: episodes rated per second, beside the rate of reading them.

Generates a small evaluation set itself (``--episodes`` pairs of every sub-evaluation, no video)
in a temporary folder, loads every episode once (the reference: how fast the files are read,
measured in the same run), then times each observer on the episodes in memory. Both wall
time and this process's CPU time are shown: on a shared machine the CPU figure is the stable one.

    python benchmarks/bib_observers.py [--episodes 3] [--seed 0] [--observers a,b]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from socialbench.bib.generate import generate
from socialbench.bib.io import load_episode
from socialbench.observers.bib.evaluation import AUDIT_OBSERVERS, collect_pairs
from socialbench.voe.registry import make_observer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3, help="pairs per sub-evaluation")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--observers", default=",".join(AUDIT_OBSERVERS))
    args = parser.parse_args()
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "eval"
        start = time.perf_counter()
        generate(root, "eval", episodes=args.episodes, seed=args.seed, video=False,
                 show_progress=False)
        console.print(f"generated {args.episodes} pairs x 9 sub-evaluations in "
                      f"{time.perf_counter() - start:.1f} s")
        paths = [p for _, e, u in collect_pairs(root) for p in (e, u)]
        clock = _Clock()
        episodes = [load_episode(p) for p in paths]
        load = clock.stop()

    table = Table(title=f"BIB observers on {len(episodes)} episodes (in memory)")
    table.add_column("what")
    table.add_column("episodes/s (CPU)", justify="right")
    table.add_column("ms/episode CPU", justify="right")
    table.add_column("ms/episode wall", justify="right")
    n = len(episodes)

    def row(what: str, spent: tuple[float, float]) -> None:
        wall, cpu = spent
        table.add_row(what, f"{n / cpu:.1f}", f"{1000 * cpu / n:.1f}", f"{1000 * wall / n:.1f}")

    row("reference: load_episode (read + parse JSON)", load)
    for name in args.observers.split(","):
        observer = make_observer("bib", name)
        clock = _Clock()
        for episode in episodes:
            observer.surprise(episode)
        row(name, clock.stop())
    console.print(table)
    console.print(f"load average (1 min) at the end: {os.getloadavg()[0]:.1f} "
                  f"on {os.cpu_count()} CPUs")


class _Clock:
    """Wall and process CPU time since creation."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def stop(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


if __name__ == "__main__":
    main()

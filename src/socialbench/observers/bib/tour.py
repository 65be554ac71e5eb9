"""The BIB observers' part of the tour, and the shortcut audit.

``tour(console, data_dir, quick)`` is called by the BIB tour after it generated a few episodes of
every task: it rates them with the five shortcut observers and inverse planning, and prints one
table (sub-evaluation x observer relative accuracy) beside HBToM's published numbers.

``python -m socialbench.observers.bib.tour DATA [--max-pairs N] [--markdown]`` prints the same
table for any evaluation set: the shortcut audit of docs/bib_observers.md.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from socialbench.bib.published import RELATIVE_ACCURACY
from socialbench.observers.bib.evaluation import collect_pairs
from socialbench.observers.bib.shortcuts import SHORTCUTS
from socialbench.voe.evaluate import TaskResult, rate_pairs_many, summarize
from socialbench.voe.registry import make_observer
from socialbench.voe.report import comparison_table, markdown_table

OBSERVERS: tuple[str, ...] = (*SHORTCUTS, "inverse-planning")
# Short labels so the table fits 80 columns.
LABELS: dict[str, str] = {
    "shortcut-nearest": "nearest", "shortcut-location": "location", "shortcut-path": "path",
    "shortcut-direct": "direct", "shortcut-key": "key", "inverse-planning": "inv.plan",
    "multi_agent": "multi-agent", "inaccessible_goal": "inaccessible",
    "efficiency_path": "eff. path", "efficiency_time": "eff. time",
    "efficiency_irrational": "eff. irrational", "instrumental_no_barrier": "instr. none",
    "instrumental_inconsequential_barrier": "instr. inconseq.",
    "instrumental_blocking_barrier": "instr. blocking",
}


def compare(data_dir: Path, names: Sequence[str] = OBSERVERS, *, max_pairs: int | None = None,
            console: Console | None = None, progress: bool = True,
            n_boot: int = 200, workers: int = 1) -> dict[str, dict[str, TaskResult]]:
    """Rate every pair under ``data_dir`` with each observer (each file read once)."""
    from socialbench.bib.io import load_episode

    pairs = collect_pairs(data_dir, max_per_task=max_pairs)
    observers = [make_observer("bib", name) for name in names]
    ratings = rate_pairs_many(observers, pairs, load=load_episode, console=console,
                              progress=progress, workers=workers)
    order = list(RELATIVE_ACCURACY)
    return {name: summarize(ratings[name], n_boot=n_boot, order=order) for name in names}


def tour(console: Console, data_dir: Path, quick: bool = True) -> None:
    """Print sub-evaluation x observer relative accuracy on the tour's episodes."""
    start = time.perf_counter()
    results = compare(Path(data_dir), max_pairs=2 if quick else None, console=console)
    console.print(comparison_table(
        results, published=RELATIVE_ACCURACY, models=("HBToM",),
        title="BIB observers: relative accuracy % (chance 50; ties count half)",
        labels=LABELS))
    pairs = sum(r.pairs for r in next(iter(results.values())).values() if r.task != "overall")
    console.print(f"[dim]{len(results)} observers on {pairs} pairs in "
                  f"{time.perf_counter() - start:.1f} s; few pairs per task: read the numbers "
                  f"as a smoke test, the audit is in docs/bib_observers.md[/dim]")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Shortcut audit: every BIB observer on DATA.")
    parser.add_argument("data", type=Path)
    parser.add_argument("--max-pairs", type=int, default=None, help="per task")
    parser.add_argument("--observers", default=",".join(OBSERVERS))
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    args = parser.parse_args(argv)
    console = Console(stderr=args.markdown)
    results = compare(args.data, args.observers.split(","), max_pairs=args.max_pairs,
                      console=console, workers=args.workers)
    if args.markdown:
        print(markdown_table(results))
    else:
        console.print(comparison_table(results, published=RELATIVE_ACCURACY, models=("HBToM",),
                                       labels=LABELS))


if __name__ == "__main__":
    main()

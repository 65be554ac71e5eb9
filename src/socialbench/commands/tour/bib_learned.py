"""BIB's learned observer in `socialbench run`: the shipped learned-planner checkpoint rates the
tour's evaluation pairs, beside every published learned model and HBToM (docs/beyond.md)."""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console

from socialbench.bib.io import load_episode
from socialbench.bib.io.layout import EVALUATION_TASKS
from socialbench.bib.published import RELATIVE_ACCURACY
from socialbench.commands.bib.audit import LABELS
from socialbench.observers.bib.evaluation import collect_pairs
from socialbench.voe.evaluate import rate_pairs, summarize
from socialbench.voe.report import comparison_table

# The published learned models (bib spec), then hand-built Bayesian inverse planning.
PUBLISHED_COLUMNS = ("BC-MLP", "BC-RNN", "Video-RNN", "VT", "IRENE", "HBToM")


def learned_rows(console: Console, data_dir: Path, quick: bool) -> None:
    """Rate the tour's pairs with the shipped checkpoint and print its table (a note instead
    when PyTorch is not installed)."""
    try:
        import torch

        from socialbench.observers.bib.learned_planner.observer import LearnedPlanner
    except ModuleNotFoundError as exc:
        console.print(f"[dim]BIB learned-planner rows skipped: {exc.name} is not installed "
                      f"(pip install -e '.[torch]')[/dim]")
        return
    start = time.perf_counter()
    observer = LearnedPlanner.shipped()
    pairs = collect_pairs(data_dir, max_per_task=2 if quick else None)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: more threads only wait on each other
    try:
        ratings = rate_pairs(observer, pairs, load=load_episode, console=console)
    finally:
        torch.set_num_threads(threads)
    results = summarize(ratings, n_boot=200, order=EVALUATION_TASKS)
    console.print(comparison_table(
        {"learned-planner (ours)": results}, published=RELATIVE_ACCURACY,
        models=PUBLISHED_COLUMNS, labels=LABELS,
        title="BIB learned observer (shipped checkpoint) vs published learned models: "
              "relative accuracy %"))
    console.print(f"[dim]learned-planner on {len(ratings)} pairs in "
                  f"{time.perf_counter() - start:.1f} s; trained on "
                  f"{observer.training_info.get('episodes', '?')} background episodes only; the "
                  f"full evaluation split is in docs/beyond.md[/dim]")

"""TalkItOut's learned agent in `socialbench run`: the shipped hierarchical agent plays the first
test episodes of both variants, beside its full test-set scores (docs/beyond.md)."""

from __future__ import annotations

import time

from rich.table import Table

from socialbench.talkitout.planner import solvable_share

QUICK_EPISODES = 100  # the first test layouts of each variant: about 1.5 s on two cores


def hierarchical_rows(table: Table, episodes: int = QUICK_EPISODES) -> str:
    """Add the shipped agent's rows to the TalkItOut table (columns: condition, original,
    no liar, source) and return a one-line note on what they are."""
    try:
        import torch

        from socialbench.rl.hierarchical.evaluate import evaluate_hierarchical
        from socialbench.rl.hierarchical.shipped import SHIPPED_CHECKPOINT, shipped_measured
    except ModuleNotFoundError as exc:
        return (f"Hierarchical agent rows skipped: {exc.name} is not installed "
                f"(pip install -e '.[torch]')")
    start = time.perf_counter()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny network: more threads only wait on each other
    try:
        results = [evaluate_hierarchical(SHIPPED_CHECKPOINT, variant, episodes)
                   for variant in ("original", "no-liar")]
    finally:
        torch.set_num_threads(threads)
    # The ceiling on the same slice: the first layouts are not the whole set's average.
    ceilings = [solvable_share(v, episodes).within_t_max for v in ("original", "no-liar")]
    table.add_row(f"Hierarchical (shipped), first {episodes} episodes",
                  *(f"{r.success_mean:.3f} (ceiling {c:.3f})"
                    for r, c in zip(results, ceilings, strict=True)), "measured here")
    measured = shipped_measured()
    if measured is not None:
        cells = [_measured_cell(measured["rows"].get(v)) for v in ("original", "no-liar")]
        table.add_row(f"Hierarchical (shipped), {measured['episodes']} episodes",
                      *cells, "docs/beyond.md")
    return (f"{results[0].agent}, trained on the original variant from observations and "
            f"rewards: {episodes} episodes a variant in {time.perf_counter() - start:.1f} s")


def _measured_cell(row: dict | None) -> str:
    if not row:
        return "-"
    return f"{row['mean']:.3f} +- {row['std']:.3f} ({len(row['per_seed'])} seeds)"

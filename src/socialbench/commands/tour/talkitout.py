"""TalkItOut's section of `socialbench run`: reference agents beside the paper's Table 1."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from socialbench.talkitout.evaluate import EVAL_SEEDS, TEST_EPISODES, evaluate

# SocialAI 0.1, Table 1: success rate, 16 seeds, 28M steps (mean, std): original, no liar.
PAPER_TABLE_1 = {
    "MH-BabyAI-EB": ((0.236, 0.01), (0.996, 0.002)),
    "MH-BabyAI": ((0.259, 0.01), (0.252, 0.010)),
    "Deaf-MH-BabyAI": ((0.260, 0.02), (0.246, 0.014)),
    "Random": ((0.002, 0.001), (0.005, 0.002)),
}
AGENTS = ("random", "door-guess", "oracle")


def tour(console: Console, quick: bool = True, episodes: int = TEST_EPISODES) -> None:
    """Evaluate the three reference agents on both variants and print them beside Table 1
    (quick: 2 seeds instead of the paper's 16)."""
    from socialbench.talkitout.planner import solvable_share

    seeds = 2 if quick else EVAL_SEEDS
    table = Table(title=f"TalkItOut success rate ({episodes} test episodes x {seeds} "
                        f"seeds here; the paper: 16 seeds)")
    table.add_column("condition")
    table.add_column("original", justify="right")
    table.add_column("no liar", justify="right")
    table.add_column("source")
    for name, (orig, no_liar) in PAPER_TABLE_1.items():
        table.add_row(name, f"{orig[0]:.3f} +- {orig[1]:.3f}",
                      f"{no_liar[0]:.3f} +- {no_liar[1]:.3f}", "paper, Table 1")
    for agent in AGENTS:
        cells = []
        for variant in ("original", "no-liar"):
            result = evaluate(agent, variant, episodes, seeds)
            cells.append(f"{result.success_mean:.3f} +- {result.success_std:.3f}")
        table.add_row(f"{agent} (reference agent)", *cells, "measured here")
    ceilings = [solvable_share(v, episodes).within_t_max for v in ("original", "no-liar")]
    table.add_row("informed plan fits in t_max=40", *(f"{c:.3f}" for c in ceilings),
                  "measured here")
    console.print(table)
    console.print("[dim]The PPO baselines (MH-BabyAI, -EB, Deaf) are not trained here; "
                  "door-guess is the ~0.25 policy they converge to; the oracle asks the NPCs "
                  "from observations only.[/dim]")

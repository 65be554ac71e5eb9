"""TalkItOut's section of `socialbench run`: reference agents beside the paper's Table 1."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from socialbench.commands.tour.talkitout_learned import QUICK_EPISODES, hierarchical_rows
from socialbench.rl.conditions import PAPER_LABELS, PAPER_TABLE_1
from socialbench.rl.study import SHIPPED_TABLE, t_max_note, welch_summary
from socialbench.talkitout.evaluate import EVAL_SEEDS, TEST_EPISODES, evaluate

AGENTS = ("random", "door-guess", "oracle")


def tour(console: Console, quick: bool = True, episodes: int = TEST_EPISODES,
         demo_frames: int | None = None) -> None:
    """Evaluate the three reference agents on both variants and print them, and the trained
    agents of a saved study, beside Table 1 (quick: 2 seeds instead of the paper's 16); then
    a short training demonstration (``demo_frames``, default about two minutes)."""
    table, notes = results_table(quick, episodes)
    console.print(table)
    for note in notes:
        console.print(f"[dim]{note}[/dim]")
    if demo_frames is None:
        demo_frames = DEMO_FRAMES if quick else 4 * DEMO_FRAMES
    training_demo(console, demo_frames, min(DEMO_EPISODES, episodes))


def results_table(quick: bool = True, episodes: int = TEST_EPISODES
                  ) -> tuple[Table, list[str]]:
    """Table 1 beside the saved study, the reference agents and the shipped hierarchical agent,
    and the notes to print under it."""
    from socialbench.talkitout.planner import solvable_share

    seeds = 2 if quick else EVAL_SEEDS
    table = Table(title=f"TalkItOut success rate ({episodes} test episodes x {seeds} "
                        f"seeds here; the paper: 16 seeds)")
    table.add_column("condition", no_wrap=True)  # a wrapped label reads as two rows
    table.add_column("original", justify="right")
    table.add_column("no liar", justify="right")
    table.add_column("source")
    for condition, (orig, no_liar) in PAPER_TABLE_1.items():
        table.add_row(PAPER_LABELS[condition], f"{orig[0]:.3f} +- {orig[1]:.3f}",
                      f"{no_liar[0]:.3f} +- {no_liar[1]:.3f}", "paper, Table 1")
    measured, source = saved_study()
    for condition, by_variant in (measured or {}).get("rows", {}).items():
        cells = [_measured_cell(by_variant.get(v)) for v in ("original", "no-liar")]
        table.add_row(f"{PAPER_LABELS.get(condition, condition)} (trained here)", *cells, source)
    for agent in AGENTS:
        cells = []
        for variant in ("original", "no-liar"):
            result = evaluate(agent, variant, episodes, seeds)
            cells.append(f"{result.success_mean:.3f} +- {result.success_std:.3f}")
        table.add_row(f"{agent} (reference agent)", *cells, "measured here")
    learned_note = hierarchical_rows(table, min(QUICK_EPISODES, episodes) if quick else episodes)
    ceilings = [solvable_share(v, episodes).within_t_max for v in ("original", "no-liar")]
    table.add_row("informed plan fits in t_max=40", *(f"{c:.3f}" for c in ceilings),
                  "measured here")
    notes = [learned_note, "door-guess is the ~0.25 policy the paper's learners converge to; "
                           "the oracle asks the NPCs from observations only."]
    if measured is None:
        notes.insert(0, "No study results found: `socialbench talkitout study --out "
                        "runs/table1` trains the PPO rows.")
    elif (tests := welch_summary(measured)) is not None:
        notes.insert(0, tests)
    return table, notes


DEMO_FRAMES = 25_600  # 40 PPO updates: about 2 min on one thread of a quiet machine
DEMO_EPISODES = 200


def _measured_cell(row: dict | None) -> str:
    if not row or row.get("mean") is None:
        return "-"
    spread = f" +- {row['std']:.3f}" if row["seeds"] > 1 else ""  # one seed has no spread
    return (f"{row['mean']:.3f}{spread} "
            f"(n={row['seeds']}, {row['frames'] / 1e6:.1f}M{t_max_note(row)})")


def saved_study() -> tuple[dict | None, str]:
    """The Table 1 of a study in ./runs/table1 when there is one, else the one measured for
    the documentation and shipped with socialbench (None when neither exists)."""
    local = Path("runs/table1/table1.json")
    for path, source in ((local, f"study in {local.parent}"),
                         (SHIPPED_TABLE, "docs/talkitout.md study")):
        if path.exists():
            try:
                return json.loads(path.read_text()), source
            except ValueError:
                continue
    return None, ""


def training_demo(console: Console, frames: int, episodes: int = DEMO_EPISODES) -> None:
    """Train MH-BabyAI-EB on the no-liar variant briefly and score it: the loop end to end."""
    import tempfile

    import torch

    from socialbench.core.progress import training_bar
    from socialbench.rl.evaluate import evaluate_checkpoint
    from socialbench.rl.ppo import PPOConfig
    from socialbench.rl.train import Run, RunConfig

    config = RunConfig(variant="no-liar", frames=frames, precision="bf16",
                       ppo=PPOConfig(exploration_bonus=True))
    # One thread: the same numbers on any machine, and no collapse when another job holds a
    # core (two threads then wait on each other: 42 against 134 frames/s, measured).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with tempfile.TemporaryDirectory() as folder:
            run = Run(folder, config)
            with training_bar("MH-BabyAI-EB on no-liar (demo)") as bar:
                task = bar.add_task("frames", total=frames, fps=0.0, success=float("nan"))
                run.train(lambda row: bar.update(task, completed=row["frames"], fps=row["fps"],
                                                 success=row["success_rolling"]))
            result = evaluate_checkpoint(folder, episodes=episodes)
    finally:
        torch.set_num_threads(threads)
    console.print(f"Training demo: MH-BabyAI-EB, no-liar, {frames:,} frames in "
                  f"{run.seconds:.0f} s ({frames / run.seconds:.0f} frames/s); success on "
                  f"{episodes} test episodes {result.success_mean:.3f} (the paper trains "
                  f"28M frames to reach 0.996; `socialbench talkitout train` runs the full "
                  f"course)")

"""`socialbench talkitout ...` sub-commands: eval, compare, solvable, train, study.

They only parse and call; the learning commands import PyTorch only when run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from socialbench.commands.backend import backend_options
from socialbench.core.errors import UserError
from socialbench.core.files import atomic_write
from socialbench.talkitout.env import PAPER_T_MAX
from socialbench.talkitout.evaluate import (
    EVAL_SEEDS,
    TEST_EPISODES,
    evaluate,
    load_result,
    welch_t_test,
)


@click.group(name="talkitout")
def talkitout() -> None:
    """TalkItOut (SocialAI 0.1): train PPO agents and score agents on the fixed test set."""


@talkitout.command(name="eval")
@click.option("--agent", "agent_name", default="oracle", show_default=True,
              help="random, door-guess or oracle.")
@click.option("--variant", default="original", show_default=True,
              help="original (with the lying guide) or no-liar.")
@click.option("--episodes", default=TEST_EPISODES, show_default=True,
              help="Test environments (the first N of the fixed test set).")
@click.option("--seeds", type=int, default=None,
              help=f"Agent seeds; the success rate is averaged over them "
                   f"[default: {EVAL_SEEDS} for --agent, 1 for --checkpoint].")
@click.option("--t-max", default=PAPER_T_MAX, show_default=True,
              help="Episode length and reward scale (paper 40; released code 320).")
@click.option("--checkpoint", type=click.Path(), default=None,
              help="Score a trained agent instead (a `train --out` folder or its "
                   "checkpoint.pt); --variant defaults to the one it was trained on.")
@click.option("--device", default="cpu", show_default=True, help="cpu or cuda (--checkpoint).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option("--save", type=click.Path(dir_okay=False), default=None,
              help="Also write the JSON result to this file; an interrupted run re-run with "
                   "the same --save resumes from the seeds already done.")
@click.pass_context
def eval_command(ctx: click.Context, agent_name: str, variant: str, episodes: int,
                 seeds: int | None, t_max: int, checkpoint: str | None, device: str,
                 as_json: bool, save: str | None) -> None:
    """Success rate of an agent, per seed, then mean and std over seeds."""
    journal = Path(f"{save}.partial") if save else None
    if checkpoint is not None:
        from socialbench.rl.evaluate import evaluate_checkpoint
        from socialbench.rl.hierarchical.evaluate import evaluate_hierarchical
        from socialbench.rl.hierarchical.trainer import is_hierarchical_checkpoint

        chosen = ctx.get_parameter_source("variant") == click.core.ParameterSource.COMMANDLINE
        score = evaluate_hierarchical if is_hierarchical_checkpoint(checkpoint) \
            else evaluate_checkpoint
        result = score(checkpoint, variant if chosen else None, episodes, seeds or 1, device)
        variant, agent_name = result.variant, result.agent
    else:
        result = evaluate(agent_name, variant, episodes, seeds or EVAL_SEEDS,
                          show_progress=not as_json, journal=journal, t_max=t_max)
    if save:
        with atomic_write(save) as tmp:  # the result file appears only when complete
            tmp.write_text(result.to_json() + "\n")
        journal.unlink(missing_ok=True)
    if as_json:
        click.echo(result.to_json())
        return
    table = Table(title=f"TalkItOut {variant}: {agent_name}, {episodes} episodes")
    table.add_column("seed", justify="right")
    table.add_column("success", justify="right")
    for seed, rate in enumerate(result.per_seed):
        table.add_row(str(seed), f"{rate:.3f}")
    table.add_row("mean +- std", f"{result.success_mean:.3f} +- {result.success_std:.3f}")
    Console().print(table)


@talkitout.command()
@click.argument("first", type=click.Path(dir_okay=False))
@click.argument("second", type=click.Path(dir_okay=False))
def compare(first: str, second: str) -> None:
    """Welch's t-test between two `eval --json` result files (p < 0.05: significant)."""
    a, b = load_result(first), load_result(second)
    t, p = welch_t_test(a.per_seed, b.per_seed)
    verdict = "significant" if p < 0.05 else "not significant"
    click.echo(f"{a.agent}/{a.variant} {a.success_mean:.3f} +- {a.success_std:.3f} vs "
               f"{b.agent}/{b.variant} {b.success_mean:.3f} +- {b.success_std:.3f}: "
               f"Welch t = {t:.3f}, p = {p:.3g} ({verdict} at p < 0.05)")


@talkitout.command()
@click.option("--variant", default="original", show_default=True)
@click.option("--episodes", default=TEST_EPISODES, show_default=True)
@click.option("--t-max", default=PAPER_T_MAX, show_default=True)
def solvable(variant: str, episodes: int, t_max: int) -> None:
    """Share of test layouts an informed plan (full knowledge) finishes within t_max."""
    from socialbench.talkitout.planner import solvable_share

    report = solvable_share(variant, episodes, t_max)
    click.echo(report.summary())


@talkitout.command()
@click.option("--model", "model_name", type=click.Choice(["mh-babyai", "deaf", "hierarchical"]),
              default="mh-babyai", show_default=True,
              help="MH-BabyAI, Deaf-MH-BabyAI, or the hierarchical agent (built-in options, "
                   "learned high level; docs/beyond.md).")
@click.option("--exploration-bonus", is_flag=True,
              help="Add the episodic language exploration bonus (MH-BabyAI-EB).")
@click.option("--variant", default="original", show_default=True,
              help="original (with the lying guide) or no-liar.")
@click.option("--frames", default=1_000_000, show_default=True,
              help="Training frames (the paper: 28M).")
@click.option("--seed", default=0, show_default=True)
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Run folder: config, log.csv, TensorBoard events, checkpoint.pt, curve.png.")
@click.option("--resume", is_flag=True, help="Continue the run in --out from its checkpoint.")
@click.option("--dialogue", type=click.Choice(["history", "current"]), default="history",
              show_default=True, help="Dialogue input (Appendix B: current-dialogue).")
@click.option("--no-memory", is_flag=True, help="No LSTM (Appendix B: no-mem).")
@click.option("--text", type=click.Choice(["gru", "bigru", "attgru"]), default="gru",
              show_default=True, help="Dialogue encoder (Appendix B, Figure 4).")
@click.option("--vision", type=click.Choice(["conv", "bow"]), default="conv",
              show_default=True, help="Image encoder (Appendix B: bow).")
@click.option("--t-max", default=PAPER_T_MAX, show_default=True,
              help="Episode length (paper 40; released code 320).")
@click.option("--device", default="cpu", show_default=True, help="cpu or cuda.")
@click.option("--precision", type=click.Choice(["bf16", "fp32"]), default="bf16",
              show_default=True,
              help="bf16: autocast convolutions and matrix products to bfloat16 (weights stay "
                   "float32); fp32: everything in float32.")
@click.option("--threads", type=int, default=None, help="PyTorch CPU threads [all cores].")
@click.option("--checkpoint-every", default=50, show_default=True,
              help="Updates between checkpoints.")
@click.option("--ablation", default="full", show_default=True,
              help="--model hierarchical only: feature columns zeroed (full, no-dialogue, "
                   "no-reference, no-consistency).")
@click.option("--success-bonus", default=2.0, show_default=True,
              help="--model hierarchical only: added to the return of a successful episode.")
def train(model_name: str, exploration_bonus: bool, variant: str, frames: int, seed: int,
          out: str, resume: bool, dialogue: str, no_memory: bool, text: str, vision: str,
          t_max: int, device: str, precision: str, threads: int | None,
          checkpoint_every: int, ablation: str, success_bonus: float) -> None:
    """Train an agent with recurrent PPO (SocialAI 0.1's hyperparameters)."""
    import torch

    from socialbench.core.progress import training_bar
    from socialbench.rl.model import ModelConfig
    from socialbench.rl.ppo import PPOConfig
    from socialbench.rl.train import Run, RunConfig

    if threads:
        torch.set_num_threads(threads)
    if model_name == "hierarchical":
        _train_hierarchical(variant, frames, seed, out, resume, t_max, device, ablation,
                            success_bonus, checkpoint_every, exploration_bonus)
        return
    try:
        model = ModelConfig(deaf=model_name == "deaf", dialogue=dialogue,
                            memory=not no_memory, text=text, vision=vision)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    config = RunConfig(variant=variant, frames=frames, seed=seed, t_max=t_max, model=model,
                       ppo=PPOConfig(exploration_bonus=exploration_bonus), precision=precision,
                       checkpoint_every=checkpoint_every)
    run = Run(out, config, resume=resume, device=device)
    with training_bar(f"{config.label} on {variant}") as bar:
        task = bar.add_task("frames", total=frames, completed=run.trainer.frames,
                            fps=0.0, success=float("nan"))
        run.train(_show_progress(bar, task, every=25))
    click.echo(f"{config.label} on {variant}: {run.trainer.frames:,} frames in "
               f"{run.seconds:.0f} s; run folder {out} (checkpoint.pt, log.csv, curve.png)")


def _show_progress(bar: Any, task: Any, every: int) -> Callable[[dict], None]:
    """A training run's per-update callback: moves the bar, and when the output is redirected
    to a file prints a plain line every ``every`` updates instead."""

    def show(row: dict) -> None:
        bar.update(task, completed=row["frames"], fps=row["fps"],
                   success=row["success_rolling"])
        if not bar.console.is_terminal and row["update"] % every == 0:
            click.echo(f"update {row['update']}: {row['frames']:,} frames, "
                       f"{row['fps']:.0f} FPS, success {row['success_rolling']:.3f}", err=True)

    return show


def _train_hierarchical(variant: str, frames: int, seed: int, out: str, resume: bool, t_max: int,
                        device: str, ablation: str, success_bonus: float,
                        checkpoint_every: int, exploration_bonus: bool) -> None:
    """`train --model hierarchical`: PPO on the high level of the hierarchical agent."""
    from socialbench.core.progress import training_bar
    from socialbench.rl.hierarchical.trainer import HierarchicalConfig, HierarchicalRun

    if exploration_bonus:
        raise UserError("--exploration-bonus is for mh-babyai/deaf; the hierarchical agent "
                        "learns from the environment's reward only")
    config = HierarchicalConfig(variant=variant, frames=frames, seed=seed, t_max=t_max,
                                ablation=ablation, success_bonus=success_bonus,
                                checkpoint_every=checkpoint_every)
    run = HierarchicalRun(out, config, resume=resume, device=device)
    with training_bar(f"{config.label} on {variant}") as bar:
        task = bar.add_task("frames", total=frames, completed=run.frames, fps=0.0,
                            success=float("nan"))
        run.train(_show_progress(bar, task, every=10))
    click.echo(f"{config.label} on {variant}: {run.frames:,} frames ({run.episodes:,} episodes) "
               f"in {run.seconds:.0f} s; run folder {out} (checkpoint.pt, log.csv, curve.png)")


@talkitout.command()
@click.option("--conditions", default="mh-babyai-eb,mh-babyai,deaf,random", show_default=True,
              help="Comma-separated conditions: mh-babyai | deaf | random, with variant words "
                   "-eb, -current-dialogue, -no-mem, -bigru, -attgru, -bow.")
@click.option("--variants", default="original,no-liar", show_default=True)
@click.option("--seeds", default=16, show_default=True, help="Training seeds per condition.")
@click.option("--frames", default=28_000_000, show_default=True,
              help="Training frames per run (the paper: 28M).")
@click.option("--episodes", default=TEST_EPISODES, show_default=True,
              help="Test episodes each final checkpoint is scored on.")
@click.option("--out", required=True, type=click.Path(file_okay=False))
@click.option("--workers", default=1, show_default=True,
              help="Runs trained at once (each gets cores / workers PyTorch threads).")
@click.option("--threads", type=click.IntRange(min=1), default=None,
              help="PyTorch threads per run (default: cores / workers). Runs are bit-identical "
                   "across machines and backends only at the same --threads.")
@click.option("--precision", type=click.Choice(["bf16", "fp32"]), default="bf16",
              show_default=True)
@click.option("--t-max", default=PAPER_T_MAX, show_default=True, type=click.IntRange(min=1),
              help="Episode length, in training and test (the paper 40; the released code, "
                   "which made Table 1, 320). Runs of another length than 40 live in "
                   "seedS-tT folders; the table holds the runs of this length.")
@backend_options(writes=("out",))
def study(conditions: str, variants: str, seeds: int, frames: int, episodes: int, out: str,
          workers: int, threads: int | None, precision: str, t_max: int) -> None:
    """Every condition x variant x seed trained, evaluated and tabulated (Table 1);
    re-run the same command to resume."""
    from socialbench.rl.study import run_study, table_markdown

    names = [c.strip() for c in conditions.split(",") if c.strip()]
    chosen = [v.strip() for v in variants.split(",") if v.strip()]
    table = run_study(out, names, chosen, seeds, frames, episodes, workers, precision,
                      t_max=t_max, threads=threads, on_result=lambda e: click.echo(
                          f"{e['condition']} {e['variant']} seed {e['seed']}: "
                          f"{e['success']:.3f} after {e['frames']:,} frames", err=True))
    click.echo(table_markdown(table, chosen))

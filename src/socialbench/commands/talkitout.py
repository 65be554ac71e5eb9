"""`socialbench talkitout ...` sub-commands: eval, compare, solvable. They only parse and call."""

from __future__ import annotations

import os
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

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
    """TalkItOut (SocialAI 0.1): evaluate reference agents on the fixed test set."""


@talkitout.command(name="eval")
@click.option("--agent", "agent_name", default="oracle", show_default=True,
              help="random, door-guess or oracle.")
@click.option("--variant", default="original", show_default=True,
              help="original (with the lying guide) or no-liar.")
@click.option("--episodes", default=TEST_EPISODES, show_default=True,
              help="Test environments (the first N of the fixed test set).")
@click.option("--seeds", default=EVAL_SEEDS, show_default=True,
              help="Agent seeds; the success rate is averaged over them.")
@click.option("--t-max", default=PAPER_T_MAX, show_default=True,
              help="Episode length and reward scale (paper 40; released code 320).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option("--save", type=click.Path(dir_okay=False), default=None,
              help="Also write the JSON result to this file; an interrupted run re-run with "
                   "the same --save resumes from the seeds already done.")
def eval_command(agent_name: str, variant: str, episodes: int, seeds: int, t_max: int,
                 as_json: bool, save: str | None) -> None:
    """Success rate of an agent, per seed, then mean and std over seeds."""
    journal = Path(f"{save}.partial") if save else None
    result = evaluate(agent_name, variant, episodes, seeds, show_progress=not as_json,
                      journal=journal, t_max=t_max)
    if save:
        tmp = Path(f"{save}.tmp")
        tmp.write_text(result.to_json() + "\n")
        os.replace(tmp, save)  # the result file appears only when complete
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

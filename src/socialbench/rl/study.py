"""A study: every condition x variant x training seed, trained, evaluated and tabulated.

It reproduces SocialAI 0.1's Table 1 (and Appendix B's variants): each run trains for the
same number of frames, its final checkpoint is scored on the fixed 1000-episode test set, and
each condition's success rates over seeds give mean +- std, with Welch's t-tests between
conditions. Everything lives in one folder and the study resumes where it stopped:

    runs/{condition}/{variant}/seed{S}/   one training run each (resumed from its checkpoint)
    results.jsonl                         one line per finished (condition, variant, seed)
    table1.json, table1.md                the table; curves.png the learning curves
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.core.backends import current_backend
from socialbench.core.errors import UserError
from socialbench.core.files import atomic_write
from socialbench.rl.conditions import PAPER_LABELS, PAPER_TABLE_1, parse_condition
from socialbench.rl.ppo import PPOConfig
from socialbench.rl.train import LOG, RunConfig, read_log
from socialbench.talkitout.env import PAPER_T_MAX
from socialbench.talkitout.evaluate import check_variant

RESULTS = "results.jsonl"
# The study measured for docs/talkitout.md, shipped so that `socialbench run` can print it.
SHIPPED_TABLE = Path(__file__).with_name("table1_measured.json")


@dataclass(frozen=True)
class Job:
    condition: str
    variant: str
    seed: int
    frames: int
    episodes: int
    precision: str
    threads: int
    t_max: int

    @property
    def key(self) -> tuple[str, str, int, int]:
        return self.condition, self.variant, self.seed, self.t_max

    def folder(self, out: Path) -> Path:
        return out / "runs" / self.condition / self.variant / seed_folder(self.seed, self.t_max)


def seed_folder(seed: int, t_max: int) -> str:
    """A run's folder name: ``seedS``, or ``seedS-tT`` when it does not train with the paper's
    40 steps (a study may hold both episode lengths without one run resuming the other)."""
    return f"seed{seed}" if t_max == PAPER_T_MAX else f"seed{seed}-t{t_max}"


def run_job(job: Job, out: Path) -> dict[str, Any]:
    """Train (resuming) and evaluate one run; the random condition is only evaluated."""
    import torch

    torch.set_num_threads(job.threads)
    condition = parse_condition(job.condition)
    if not condition.trained:
        from socialbench.talkitout.evaluate import make_env, success_rate

        # the test episodes of the study's length, as the trained conditions' are
        rate = success_rate("random", job.variant, job.seed, job.episodes,
                            env=make_env(job.variant, t_max=job.t_max))
        return {"condition": job.condition, "variant": job.variant, "seed": job.seed,
                "frames": 0, "success": rate, "t_max": job.t_max}
    from socialbench.rl.evaluate import load_agent
    from socialbench.rl.evaluate import success_rate as model_success_rate
    from socialbench.rl.train import Run

    config = RunConfig(variant=job.variant, frames=job.frames, seed=job.seed, t_max=job.t_max,
                       model=condition.model,
                       ppo=PPOConfig(exploration_bonus=condition.exploration_bonus),
                       precision=job.precision)
    Run(job.folder(out), config, resume=True).train()
    model, run, frames = load_agent(job.folder(out))
    rate = model_success_rate(model, run, job.variant, job.seed, job.episodes)
    return {"condition": job.condition, "variant": job.variant, "seed": job.seed,
            "frames": frames, "success": rate, "t_max": run.t_max}


def read_results(out: Path) -> dict[tuple[str, str, int, int], dict[str, Any]]:
    """Finished runs of the study by (condition, variant, seed, t_max); a line cut short by an
    interruption is ignored (lines without t_max were trained with the paper's 40 steps)."""
    done: dict[tuple[str, str, int, int], dict[str, Any]] = {}
    path = out / RESULTS
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                entry = json.loads(line)
                done[(entry["condition"], entry["variant"], int(entry["seed"]),
                      int(entry.get("t_max", PAPER_T_MAX)))] = entry
            except (ValueError, KeyError, TypeError):
                continue
    return done


def run_study(out: str | Path, conditions: Sequence[str], variants: Sequence[str], seeds: int,
              frames: int, episodes: int = 1000, workers: int = 1, precision: str = "bf16",
              t_max: int = 40, on_result: Callable[[dict[str, Any]], None] | None = None,
              threads: int | None = None) -> dict[str, Any]:
    """Run every missing (condition, variant, seed), then write and return the table.

    ``threads``: PyTorch threads per run. PyTorch's sums depend on the thread count, so a run
    is bit-identical wherever it trains (local or Ray, any machine) only at a fixed count; by
    default each run gets this machine's cores (a Ray node's) / ``workers``."""
    out = Path(out)
    for name in conditions:
        parse_condition(name)  # every name checked before any work
    for variant in variants:
        check_variant(variant)
    if seeds < 1 or frames < 1 or workers < 1 or t_max < 1 or \
            (threads is not None and threads < 1):
        raise UserError("--seeds, --frames, --workers, --threads and --t-max must be at least 1")
    out.mkdir(parents=True, exist_ok=True)
    fixed_threads = threads is not None
    threads = threads or max(1, (os.cpu_count() or 1) // workers)
    jobs = [Job(c, v, s, frames, episodes, precision, threads, t_max)
            for c in conditions for v in variants for s in range(seeds)]
    done = read_results(out)
    todo = [j for j in jobs if j.key not in done
            or (parse_condition(j.condition).trained and done[j.key]["frames"] < j.frames)]
    for entry in _run_all(todo, out, workers, fixed_threads):
        with open(out / RESULTS, "a") as handle:
            handle.write(json.dumps(entry) + "\n")
        if on_result is not None:
            on_result(entry)
    return write_table(out, conditions, variants, seeds, t_max)


def _run_all(todo: Sequence[Job], out: Path, workers: int, fixed_threads: bool = False
             ) -> Iterator[dict[str, Any]]:
    """Each run's result as it finishes: in local processes, or under ``--backend ray`` as
    Ray tasks of (largest node's CPUs / workers, unless fixed) CPUs and PyTorch threads each
    (``out`` then on
    a filesystem every node sees, checked by the command, so runs write and resume their
    checkpoints in place)."""
    if not todo:
        return
    backend = current_backend()
    if backend.is_ray:
        from socialbench.core.backends.ray_cluster import largest_node_cpus, ray_session, unordered

        with ray_session(backend, os.cpu_count() or 1):
            threads = todo[0].threads if fixed_threads else max(
                1, largest_node_cpus() // workers)
            calls = ((replace(job, threads=threads), out) for job in todo)
            yield from unordered(run_job, calls, window=len(todo), num_cpus=threads)
        return
    # Spawned, not forked: a forked PyTorch process can hang on its parent's thread pool.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = [pool.submit(run_job, job, out) for job in todo]
        for future in as_completed(futures):
            yield future.result()


def summarise(entries: Sequence[dict[str, Any]], conditions: Sequence[str],
              variants: Sequence[str]) -> dict[str, Any]:
    """Mean +- std over seeds per condition and variant, and Welch's t-test of every pair."""
    from socialbench.talkitout.evaluate import welch_t_test

    rates: dict[str, dict[str, list[float]]] = {c: {v: [] for v in variants} for c in conditions}
    frames: dict[str, dict[str, list[int]]] = {c: {v: [] for v in variants} for c in conditions}
    # The episode length each run trained and was tested with: the paper's 40 or the released
    # code's 320 give different tables (docs/talkitout.md), so a row says which it is.
    t_maxes: dict[str, dict[str, set[int]]] = {c: {v: set() for v in variants}
                                               for c in conditions}
    for e in entries:
        if e["condition"] in rates and e["variant"] in variants:
            rates[e["condition"]][e["variant"]].append(float(e["success"]))
            frames[e["condition"]][e["variant"]].append(int(e["frames"]))
            t_maxes[e["condition"]][e["variant"]].add(int(e.get("t_max", PAPER_T_MAX)))
    rows = {c: {v: {"mean": float(np.mean(r)) if r else None,
                    "std": float(np.std(r)) if r else None, "seeds": len(r),
                    "frames": max(frames[c][v], default=0), "per_seed": r,
                    "t_max": sorted(t_maxes[c][v])}
                for v, r in by_variant.items()} for c, by_variant in rates.items()}
    tests = []
    for v in variants:
        for a, b in combinations(conditions, 2):
            if len(rates[a][v]) >= 2 and len(rates[b][v]) >= 2:
                t, p = welch_t_test(rates[a][v], rates[b][v])
                tests.append({"variant": v, "a": a, "b": b, "t": t, "p": p,
                              "significant": p < 0.05})
    return {"rows": rows, "welch": tests}


def write_table(out: Path, conditions: Sequence[str], variants: Sequence[str],
                seeds: int, t_max: int = PAPER_T_MAX) -> dict[str, Any]:
    """``table1.json`` and ``table1.md`` from the results so far with episodes of ``t_max``
    steps, and ``curves.png``."""
    entries = [e for key, e in read_results(out).items() if key[3] == t_max]
    table = summarise(entries, conditions, variants)
    table["seeds_asked"] = seeds
    for name, text in (("table1.json", json.dumps(table, indent=2)),
                       ("table1.md", table_markdown(table, variants))):
        with atomic_write(out / name) as tmp:
            tmp.write_text(text + "\n")
    plot_study_curves(out, conditions, variants, t_max)
    return table


def t_max_note(row: dict[str, Any]) -> str:
    """", t_max 320" for a row not trained with the paper's 40 steps (empty otherwise)."""
    lengths = [int(t) for t in row.get("t_max", [])]
    if not lengths or lengths == [PAPER_T_MAX]:
        return ""
    return ", t_max " + "/".join(str(t) for t in lengths)


def _cell(row: dict[str, Any]) -> str:
    if row.get("mean") is None:
        return "-"
    return f"{row['mean']:.3f} +- {row['std']:.3f} (n={row['seeds']}{t_max_note(row)})"


def table_markdown(table: dict[str, Any], variants: Sequence[str]) -> str:
    """The measured rows and, where the paper has one, the paper's row beside each."""
    header = "| condition | frames | " + " | ".join(variants) + " | paper (" + \
        ", ".join(variants) + ") |"
    lines = [header, "|" + " --- |" * (len(variants) + 3)]
    for condition, by_variant in table["rows"].items():
        paper = PAPER_TABLE_1.get(condition)
        paper_cells = "-" if paper is None else ", ".join(
            f"{paper[0 if v == 'original' else 1][0]:.3f} +- "
            f"{paper[0 if v == 'original' else 1][1]:.3f}" for v in variants)
        frames = max(r["frames"] for r in by_variant.values())
        label = PAPER_LABELS.get(condition, condition)
        lines.append(f"| {label} | {frames:,} | "
                     + " | ".join(_cell(by_variant[v]) for v in variants)
                     + f" | {paper_cells} |")
    if (tests := welch_summary(table)) is not None:
        lines += ["", tests]
    return "\n".join(lines)


def welch_summary(table: dict[str, Any]) -> str | None:
    """A table's Welch t-tests between conditions in one line, each pair with the seeds and
    length of its two cells (None when no two cells of a variant have 2+ seeds)."""
    rows = table.get("rows", {})
    parts = []
    for test in table.get("welch", []):
        cells = [rows.get(test[side], {}).get(test["variant"], {}) for side in ("a", "b")]
        sizes = " vs ".join(f"n={c.get('seeds', '?')} at {c.get('frames', 0) / 1e6:.1f}M"
                            for c in cells)
        names = " vs ".join(PAPER_LABELS.get(test[side], test[side]) for side in ("a", "b"))
        verdict = "differ" if test["significant"] else "do not differ"
        parts.append(f"{test['variant']}: {names} {verdict} (p={test['p']:.2g}; {sizes})")
    if not parts:
        return None
    # the paper's own comparison, quoted only where this table makes the same one
    paper = "; in the paper MH-BabyAI and Deaf do not differ" if any(
        {test["a"], test["b"]} == {"mh-babyai", "deaf"} for test in table["welch"]) else ""
    return (f"Welch's t-test between the conditions trained here (significant at p < 0.05"
            f"{paper}): " + "; ".join(parts))


def plot_study_curves(out: Path, conditions: Sequence[str], variants: Sequence[str],
                      t_max: int = PAPER_T_MAX) -> Path | None:
    """Mean rolling success rate over seeds against frames, one panel per variant (Fig. 3)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(1, len(variants), figsize=(5.5 * len(variants), 3.6), dpi=100,
                             squeeze=False)
    drew = False
    for ax, variant in zip(axes[0], variants, strict=True):
        for condition in conditions:
            curves = []
            runs = out / "runs" / condition / variant
            for log in sorted(runs.glob(f"seed*/{LOG}")):
                named = re.fullmatch(r"seed(\d+)(?:-t\d+)?", log.parent.name)
                if named is None or log.parent.name != seed_folder(int(named[1]), t_max):
                    continue  # not a run of this episode length
                rows = read_log(log)
                if rows:
                    curves.append(([int(r["frames"]) for r in rows],
                                   [float(r["success_rolling"]) for r in rows]))
            if not curves:
                continue
            length = min(len(f) for f, _ in curves)
            mean = np.nanmean([s[:length] for _, s in curves], axis=0)
            ax.plot(curves[0][0][:length], mean,
                    label=f"{PAPER_LABELS.get(condition, condition)} ({len(curves)} seeds)")
            drew = True
        ax.set_title(f"TalkItOut {variant}")
        ax.set_xlabel("frames")
        ax.set_ylabel("success rate (last 100 episodes)")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        if ax.get_lines():
            ax.legend(fontsize=7)
    if not drew:
        plt.close(fig)
        return None
    fig.tight_layout()
    path = out / "curves.png"
    fig.savefig(path)
    plt.close(fig)
    return path

"""The validity audit: no shortcut observer beats BIB's design, inverse planning does."""

from __future__ import annotations

from pathlib import Path

import pytest

from socialbench.observers.bib.evaluation import AUDIT_OBSERVERS, audit_problems
from socialbench.observers.bib.shortcuts import designed_ceiling
from socialbench.voe.evaluate import OVERALL, TaskResult


def _result(task: str, accuracy: float, pairs: int = 3) -> TaskResult:
    return TaskResult(task=task, pairs=pairs, relative_accuracy=accuracy, auc=accuracy,
                      relative_accuracy_ci=(accuracy, accuracy), auc_ci=(accuracy, accuracy),
                      ties=0)


def test_ceilings_follow_the_design():
    assert designed_ceiling("shortcut-key", "instrumental_inconsequential_barrier", 3) == 0.5
    assert designed_ceiling("shortcut-key", "preference", 3) is None  # not built against it
    # nearest vs preference: defeated on average only, so chance plus a sampling margin
    assert designed_ceiling("shortcut-nearest", "preference", 50) == pytest.approx(0.6386, 1e-3)


def test_a_leaking_shortcut_or_a_weak_planner_is_named():
    results = {
        "shortcut-path": {"efficiency_path": _result("efficiency_path", 2 / 3),
                          "preference": _result("preference", 0.0)},
        "inverse-planning": {"preference": _result("preference", 1.0),
                             OVERALL: _result(OVERALL, 0.9, pairs=27)},
    }
    problems = audit_problems(results)
    assert len(problems) == 2
    assert problems[0].startswith("shortcut-path scores 66.7 % on efficiency_path")
    assert problems[1].startswith("inverse-planning scores 90.0 % overall, below its floor")


@pytest.mark.slow
def test_the_audit_on_three_generated_pairs_per_task(tmp_path: Path):
    """About three pairs of every evaluation task, generated, then rated by every shortcut and
    inverse planning (``socialbench bib audit --check``)."""
    from click.testing import CliRunner

    from socialbench.cli import main

    data = tmp_path / "eval"
    made = CliRunner().invoke(main, ["bib", "generate", "--out", str(data), "--episodes", "3",
                                     "--seed", "0", "--no-video", "--workers", "1"])
    assert made.exit_code == 0, made.output
    audit = CliRunner().invoke(main, ["bib", "audit", str(data), "--check", "--markdown"])
    assert audit.exit_code == 0, audit.output
    header = next(line for line in audit.output.splitlines() if line.startswith("| sub-"))
    assert header == ("| sub-evaluation | pairs | " + " | ".join(AUDIT_OBSERVERS)
                      + " | HBToM (pub.) |")
    assert "OK: every shortcut at or below its designed ceiling" in audit.output


def _markdown_rows(output: str) -> dict[str, dict[str, float]]:
    """task -> column -> relative accuracy % of ``bib audit --markdown``'s table."""
    lines = [line for line in output.splitlines() if line.startswith("| ")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        cells = [c.strip().replace("*", "").removesuffix(" (d)")
                 for c in line.strip("|").split("|")]
        rows[cells[0]] = {h: float(c) for h, c in zip(header[2:], cells[2:], strict=True)
                          if c != "-"}
    return rows


@pytest.mark.slow
def test_the_agent_blind_controls_on_twenty_generated_pairs_per_task(tmp_path: Path):
    """Each control at chance wherever the paper's design does not imply its cue (``--check``),
    and where it does, the cue as designed and the paper's own control neutralising it; on
    preference, the nearer object and the shorter video exactly at chance (counterbalanced)."""
    from click.testing import CliRunner

    from socialbench.cli import main
    from socialbench.observers.bib.controls import CONTROLS

    data = tmp_path / "eval"
    made = CliRunner().invoke(main, ["bib", "generate", "--out", str(data), "--episodes", "20",
                                     "--seed", "1", "--no-video", "--workers", "1"])
    assert made.exit_code == 0, made.output
    audit = CliRunner().invoke(main, ["bib", "audit", str(data), "--check", "--markdown",
                                      "--observers", ",".join(("shortcut-nearest", *CONTROLS))])
    assert audit.exit_code == 0, audit.output
    rows = _markdown_rows(audit.output)
    # Design-implied: a detour, or fetching the key, takes longer; the walled-in goal is new;
    # the rational familiarization's barrier is gone at test; equal times over a shorter path.
    assert rows["efficiency_path"]["control-duration"] == 100.0
    assert rows["instrumental_no_barrier"]["control-duration"] == 100.0
    assert rows["inaccessible_goal"]["control-novelty"] == 0.0
    assert rows["efficiency_irrational"]["control-novelty"] == 100.0
    assert rows["efficiency_time"]["control-speed"] == 0.0
    # ...and the paper's own controls: the same cue ties there.
    assert rows["efficiency_time"]["control-duration"] == 50.0
    assert rows["instrumental_blocking_barrier"]["control-duration"] == 50.0
    assert rows["efficiency_path"]["control-novelty"] == 50.0
    assert rows["efficiency_path"]["control-speed"] == 50.0
    # Not the design's, fixed in the generator: the blocking test's barriers are equally new.
    assert rows["instrumental_blocking_barrier"]["control-novelty"] == 50.0
    assert rows["instrumental_blocking_barrier"]["control-contrast"] == 50.0
    # Counterbalanced: the expected walk is the shorter in exactly half the preference pairs.
    assert rows["preference"]["shortcut-nearest"] == 50.0
    assert rows["preference"]["control-duration"] == 50.0
    # The walk's shape: the same walk in both tests ties; where the unexpected test repeats a
    # familiar walk (the design), the shape points to the expected test.
    for task in ("multi_agent", "inaccessible_goal", "efficiency_irrational",
                 "instrumental_blocking_barrier"):
        assert rows[task]["control-path-shape"] == 50.0
    for task in ("preference", "efficiency_path", "instrumental_no_barrier"):
        assert rows[task]["control-path-shape"] < 50.0

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

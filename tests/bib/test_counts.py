"""``bib generate --counts``: the paper's sizes by default, the released v1.1 set on request."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from socialbench.bib.generate import SPLITS, make_jobs, task_counts
from socialbench.cli import main
from socialbench.core.errors import UserError

RELEASED_V11 = {"preference": 1000, "multi_agent": 1000, "inaccessible_goal": 1111,
                "efficiency_path": 1500, "efficiency_time": 1000, "efficiency_irrational": 1000,
                "instrumental_no_barrier": 999, "instrumental_blocking_barrier": 327,
                "instrumental_inconsequential_barrier": 330}


def test_paper_counts_are_the_default() -> None:
    split = SPLITS["eval"]
    assert task_counts(split, list(split.tasks)) == {t: 1000 for t in split.tasks}


@pytest.mark.parametrize("split", ["eval", "eval-new-shapes"])
def test_released_counts_are_the_v1_1_set(split: str) -> None:
    chosen = SPLITS[split]
    counts = task_counts(chosen, list(chosen.tasks), "released")
    assert counts == RELEASED_V11 and sum(counts.values()) == 8267
    jobs = make_jobs(chosen, list(chosen.tasks), counts, seed=0, video=False)
    assert len(jobs) == 8267  # one job per episode, planned without generating any
    assert jobs[-1].name == "instrumental_blocking_barrier/000326"


def test_episodes_overrides_the_counts_and_a_subset_keeps_its_own() -> None:
    split = SPLITS["eval"]
    assert task_counts(split, ["efficiency_path"], "released") == {"efficiency_path": 1500}
    assert task_counts(split, ["efficiency_path"], "released", 3) == {"efficiency_path": 3}


def test_unknown_counts_and_released_train_counts_are_user_errors() -> None:
    with pytest.raises(UserError, match="unknown --counts 'v2'"):
        task_counts(SPLITS["eval"], ["preference"], "v2")
    with pytest.raises(UserError, match="evaluation splits only"):
        task_counts(SPLITS["train"], ["preference"], "released")


def test_the_cli_says_so_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "data"
    result = CliRunner().invoke(main, ["bib", "generate", "--out", str(out), "--counts", "v2"])
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0 and "unknown --counts" in result.output
    assert not out.exists()

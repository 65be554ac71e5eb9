"""The hierarchical TalkItOut agent shipped in the package: weights only, and it still plays."""

from __future__ import annotations

import pytest
import torch

from socialbench.core.errors import UserError
from socialbench.rl.hierarchical.evaluate import evaluate_hierarchical
from socialbench.rl.hierarchical.shipped import (
    SHIPPED_CHECKPOINT,
    shipped_measured,
    strip_checkpoint,
)
from socialbench.rl.hierarchical.trainer import load_policy
from socialbench.talkitout.planner import solvable_share


def test_shipped_file_holds_weights_and_counters_only():
    state = torch.load(SHIPPED_CHECKPOINT, map_location="cpu", weights_only=True)
    assert "optimiser" not in state and "window" not in state
    assert SHIPPED_CHECKPOINT.stat().st_size < 100_000
    policy, config, frames = load_policy(SHIPPED_CHECKPOINT)
    assert config.variant == "original" and frames > 0
    assert sum(p.numel() for p in policy.parameters()) == 14_146


def test_shipped_agent_solves_every_solvable_first_layout_with_the_liar():
    # The paper's learners stay near 0.25 here; the shipped agent asks the wizard, believes
    # the guide it names and so wins every layout an informed plan can finish in time.
    episodes = 20
    result = evaluate_hierarchical(SHIPPED_CHECKPOINT, "original", episodes)
    assert result.success_mean == pytest.approx(
        solvable_share("original", episodes).within_t_max)


def test_shipped_scores_are_the_full_test_sets():
    measured = shipped_measured()
    assert measured["episodes"] == 1000
    assert measured["rows"]["original"]["mean"] >= 0.95
    assert set(measured["rows"]) == {"original", "no-liar"}


def test_stripping_a_run_keeps_the_policy(tmp_path):
    out = strip_checkpoint(SHIPPED_CHECKPOINT, tmp_path / "again.pt")
    original, _, _ = load_policy(SHIPPED_CHECKPOINT)
    again, _, _ = load_policy(out)
    for a, b in zip(original.state_dict().values(), again.state_dict().values(),
                    strict=True):
        assert torch.equal(a, b)
    with pytest.raises(UserError):
        strip_checkpoint(tmp_path / "missing")

"""A ToMnet-G rating from its per-step prediction errors: the largest by default (a surprising
video is surprising at a moment), the mean as an option. Type 2.5's case: the expected video has
several moderate errors (two turns round the taller wall), the surprising one a single larger
error (the jump through it) in a shorter video."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from socialbench.observers.agent.tomnet_g import surprise as rating  # noqa: E402

TURNS = np.r_[np.full(30, 0.005), np.full(4, 0.15), np.full(20, 0.005), np.full(4, 0.14),
              np.full(20, 0.005)]  # expected: round the wall
JUMP = np.r_[np.full(25, 0.004), [0.25], np.full(30, 0.004)]  # surprising: through it


@pytest.fixture
def errors(monkeypatch):
    table = {"expected": TURNS, "surprising": JUMP}
    monkeypatch.setattr(rating, "surprise_per_step",
                        lambda model, sample, mode="teacher-forced", device="cpu": table[sample])


def test_the_peak_rates_the_single_violation_above_the_turns(errors):
    assert rating.surprise(None, "surprising") > rating.surprise(None, "expected")
    assert rating.surprise(None, "surprising") == pytest.approx(0.25)


def test_the_mean_inverts_that_pair(errors):
    mean = {v: rating.surprise(None, v, reduce="mean") for v in ("expected", "surprising")}
    assert mean["expected"] > mean["surprising"]
    assert mean["expected"] == pytest.approx(TURNS.mean())


def test_an_unknown_reduction_is_refused(errors):
    with pytest.raises(ValueError, match="max, mean"):
        rating.surprise(None, "expected", reduce="median")


def test_the_command_offers_both_readings():
    from click.testing import CliRunner

    from socialbench.cli import main

    out = CliRunner().invoke(main, ["agent", "evaluate", "--help"])
    assert out.exit_code == 0 and "--reduce [max|mean]" in out.output

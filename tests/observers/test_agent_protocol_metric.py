"""`socialbench agent evaluate` scores a type with AGENT's metric (agent spec, "Metric"): every
surprising rating against every expected one, not pair by pair as BIB does."""

from __future__ import annotations

import pytest

from socialbench.observers.agent.evaluation import FoldRater, Ratings, run_protocol
from socialbench.observers.agent.protocols import Fold


class FixedRatings(FoldRater):
    name = "fixed"

    def rate(self, fold: Fold) -> Ratings:
        # (expected, surprising) per pair. Pair by pair: 4 > 1 right, 2 < 3 wrong -> 0.5.
        # All pairs: 4 > 1, 4 > 3, 2 > 1 right, 2 < 3 wrong -> 0.75. 2.1: a tie -> 0.5.
        table = {"1.1": [(1.0, 4.0), (3.0, 2.0)], "2.1": [(5.0, 5.0)]}
        return {t: table[t] for t in fold.test if t in table}


def test_a_type_is_scored_over_all_expected_x_surprising_pairs() -> None:
    result = run_protocol(FixedRatings(), "all", ["1.1", "2.1"])
    assert result.types == {"1.1": pytest.approx(0.75), "2.1": pytest.approx(0.5)}
    # overall weighted by test pairs: (0.75 * 2 + 0.5 * 1) / 3
    assert result.overall == pytest.approx(2.0 / 3.0)

"""Metrics on hand-computed cases: ties, AUC, AGENT pairwise accuracy, bootstrap determinism."""

import numpy as np
import pytest

from socialbench.core.metrics import (
    bootstrap_ci,
    pair_outcomes,
    pairwise_accuracy,
    relative_accuracy,
    roc_auc,
)


def test_relative_accuracy_counts_ties_half_by_default():
    # pairs: (1 < 2) right, (3 > 1) wrong, (2 == 2) tie, (0 < 5) right -> (1 + 0 + .5 + 1) / 4
    e, u = [1, 3, 2, 0], [2, 1, 2, 5]
    assert relative_accuracy(e, u) == pytest.approx(2.5 / 4)
    assert list(pair_outcomes(e, u)) == [1.0, 0.0, 0.5, 1.0]


def test_released_code_tie_bug_is_an_option():
    e, u = [1, 3, 2, 0], [2, 1, 2, 5]
    assert relative_accuracy(e, u, ties="correct") == pytest.approx(3 / 4)
    assert relative_accuracy(e, u, ties="wrong") == pytest.approx(2 / 4)
    # the bug: a constant observer scores 100%
    assert relative_accuracy([0, 0, 0], [0, 0, 0], ties="correct") == 1.0
    assert relative_accuracy([0, 0, 0], [0, 0, 0]) == 0.5


def test_relative_accuracy_rejects_unpaired_or_nan():
    with pytest.raises(ValueError, match="pairs must match"):
        relative_accuracy([1, 2], [1])
    with pytest.raises(ValueError, match="NaN"):
        relative_accuracy([np.nan], [1])
    with pytest.raises(ValueError, match="ties"):
        relative_accuracy([1], [2], ties="maybe")  # type: ignore[arg-type]


def test_roc_auc_hand_computed():
    # expected (label 0): 1, 2; unexpected (label 1): 2, 3.
    # positive-negative pairs: (2>1)=1, (2=2)=.5, (3>1)=1, (3>2)=1 -> 3.5 / 4
    assert roc_auc([1, 2], [2, 3]) == pytest.approx(3.5 / 4)
    assert roc_auc([0, 0], [1, 1]) == 1.0
    assert roc_auc([1, 1], [0, 0]) == 0.0


def test_pairwise_accuracy_over_all_pairs_ties_half():
    # surprising 3, 1; expected 1, 2: (3>1)=1 (3>2)=1 (1=1)=.5 (1<2)=0 -> 2.5 / 4
    assert pairwise_accuracy([3, 1], [1, 2]) == pytest.approx(2.5 / 4)
    assert pairwise_accuracy([3, 1], [1, 2], ties="correct") == pytest.approx(3 / 4)
    rng = np.random.default_rng(0)
    plus, minus = rng.integers(0, 5, 50), rng.integers(0, 5, 40)
    brute = np.mean([(p > m) + 0.5 * (p == m) for p in plus for m in minus])
    assert pairwise_accuracy(plus, minus) == pytest.approx(brute)
    assert pairwise_accuracy(plus, minus) == pytest.approx(roc_auc(minus, plus))


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    rng = np.random.default_rng(1)
    e, u = rng.normal(0, 1, 200), rng.normal(0.5, 1, 200)
    a = bootstrap_ci(e, u, "relative_accuracy", seed=3, key="preference")
    b = bootstrap_ci(e, u, "relative_accuracy", seed=3, key="preference")
    c = bootstrap_ci(e, u, "relative_accuracy", seed=4, key="preference")
    assert a == b and a != c
    assert a[0] <= relative_accuracy(e, u) <= a[1]
    low, high = bootstrap_ci(e, u, "auc", seed=3)
    assert low <= roc_auc(e, u) <= high
    # all pairs right: the interval collapses to 1
    assert bootstrap_ci([0, 0], [1, 1]) == (1.0, 1.0)

"""Scores of violation-of-expectation ratings, shared by BIB and AGENT.

Every metric takes *surprise* ratings: a higher value means "more surprising".

* :func:`relative_accuracy` (BIB): the share of expected/unexpected pairs whose expected video is
  rated less surprising than its unexpected partner (chance 0.5). A tie counts half by default;
  ``ties="correct"`` reproduces the released BIB evaluation code, which counted ties as correct
  (a bug: an observer that rates everything 0 would score 100%); ``ties="wrong"`` is the strict
  reading.
* :func:`roc_auc` (BIB "absolute score"): ROC AUC over all videos rated independently, label 1 =
  unexpected, score = surprise (scikit-learn).
* :func:`pairwise_accuracy` (AGENT): the share of all (surprising, expected) rating pairs, over
  every surprising x every expected video of a group, in which the surprising one is rated higher;
  ties count half (as in the later AGENT challenge). Equal to the ROC AUC of the two groups.
* :func:`bootstrap_ci`: percentile confidence intervals by resampling pairs with replacement from a
  seeded generator (same seed -> same interval).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from scipy.stats import rankdata
from sklearn.metrics import roc_auc_score

from socialbench.core.seeding import rng_for

TiePolicy = Literal["half", "correct", "wrong"]
TIE_CREDIT: dict[str, float] = {"half": 0.5, "correct": 1.0, "wrong": 0.0}


def _as_1d(values: Sequence[float] | np.ndarray, what: str) -> np.ndarray:
    array = np.asarray(values, dtype=float).reshape(-1)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{what} contains NaN or infinite surprise values")
    return array


def pair_outcomes(expected: Sequence[float] | np.ndarray, unexpected: Sequence[float] | np.ndarray,
                  ties: TiePolicy = "half") -> np.ndarray:
    """Per pair: 1 if expected < unexpected, 0 if greater, the tie credit if equal."""
    if ties not in TIE_CREDIT:
        raise ValueError(f"ties must be one of {sorted(TIE_CREDIT)}, got {ties!r}")
    e = _as_1d(expected, "expected")
    u = _as_1d(unexpected, "unexpected")
    if e.shape != u.shape:
        raise ValueError(f"{e.size} expected ratings but {u.size} unexpected ones: "
                         "pairs must match")
    return np.where(e < u, 1.0, np.where(e > u, 0.0, TIE_CREDIT[ties]))


def relative_accuracy(expected: Sequence[float] | np.ndarray,
                      unexpected: Sequence[float] | np.ndarray, ties: TiePolicy = "half") -> float:
    """BIB relative accuracy: share of pairs with surprise(e) < surprise(u); ties per ``ties``."""
    outcomes = pair_outcomes(expected, unexpected, ties)
    return float(outcomes.mean()) if outcomes.size else float("nan")


def roc_auc(expected: Sequence[float] | np.ndarray,
            unexpected: Sequence[float] | np.ndarray) -> float:
    """BIB absolute score: ROC AUC with label 1 = unexpected video, score = its surprise."""
    e = _as_1d(expected, "expected")
    u = _as_1d(unexpected, "unexpected")
    if e.size == 0 or u.size == 0:
        return float("nan")
    labels = np.concatenate([np.zeros(e.size), np.ones(u.size)])
    return float(roc_auc_score(labels, np.concatenate([e, u])))


def pairwise_accuracy(surprising: Sequence[float] | np.ndarray,
                      expected: Sequence[float] | np.ndarray, ties: TiePolicy = "half") -> float:
    """AGENT accuracy: mean over all (i, j) of [r+_i > r-_j], ties credited per ``ties``.

    Counted by sorting, so 10^5 x 10^5 ratings need no 10^10 comparisons.
    """
    plus = _as_1d(surprising, "surprising")
    minus = np.sort(_as_1d(expected, "expected"))
    if plus.size == 0 or minus.size == 0:
        return float("nan")
    below = np.searchsorted(minus, plus, side="left")  # expected strictly lower than r+_i
    equal = np.searchsorted(minus, plus, side="right") - below
    credit = below.sum() + TIE_CREDIT[ties] * equal.sum()
    return float(credit / (plus.size * minus.size))


def _auc_rows(expected: np.ndarray, unexpected: np.ndarray) -> np.ndarray:
    """Mann-Whitney AUC of each row (ties half): the vectorised form of :func:`roc_auc`."""
    n0, n1 = expected.shape[1], unexpected.shape[1]
    ranks = rankdata(np.concatenate([expected, unexpected], axis=1), axis=1)
    return (ranks[:, n0:].sum(axis=1) - n1 * (n1 + 1) / 2) / (n0 * n1)


def bootstrap_ci(expected: Sequence[float] | np.ndarray, unexpected: Sequence[float] | np.ndarray,
                 metric: Literal["relative_accuracy", "auc"] = "relative_accuracy", *,
                 n_boot: int = 1000, level: float = 0.95, seed: int = 0,
                 key: str = "", ties: TiePolicy = "half") -> tuple[float, float]:
    """Percentile bootstrap interval of a pair metric, resampling whole pairs.

    The generator is seeded from ``seed`` and ``key`` (e.g. the task name), so each task's interval
    is reproducible on its own, whatever else is evaluated.
    """
    e = _as_1d(expected, "expected")
    u = _as_1d(unexpected, "unexpected")
    if e.size == 0 or e.size != u.size:
        return float("nan"), float("nan")
    picks = rng_for(seed, "bootstrap", metric, key).integers(0, e.size, size=(n_boot, e.size))
    if metric == "relative_accuracy":
        stats = pair_outcomes(e, u, ties)[picks].mean(axis=1)
    elif metric == "auc":
        stats = _auc_rows(e[picks], u[picks])
    else:
        raise ValueError(f"unknown metric {metric!r}")
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(stats, [tail, 100.0 - tail])
    return float(low), float(high)


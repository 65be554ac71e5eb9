"""rounding.round_floats is Python's round(v, 5) + 0.0, bit for bit (the stored states' floats:
the same seed must give the same bytes, whichever way they were rounded)."""

from __future__ import annotations

import numpy as np

from socialbench.agent3d.rounding import round_floats


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(a.view(np.int64), b.view(np.int64)))


def test_round_floats_is_round_bit_for_bit():
    rng = np.random.default_rng(0)
    values = np.concatenate([
        rng.normal(0, scale, 20_000) for scale in (1e-6, 1e-3, 1.0, 10.0, 1e4)
    ] + [
        rng.integers(-64_000, 64_000, 20_000) / 64,  # exact ties at the 6th decimal: 1/64 steps
        np.round(rng.normal(0, 1, 20_000), 6),  # near ties
        np.array([0.0, -0.0, -1e-7, 1e-7, 0.5e-5, -0.5e-5, 0.015625, -0.015625, 1e300, -1e300,
                  np.inf, -np.inf]),
    ])
    expected = np.array([round(v, 5) + 0.0 for v in values.tolist()])
    assert _same_bits(round_floats(values), expected)
    assert _same_bits(round_floats(values.reshape(-1, 4)), expected.reshape(-1, 4))
    assert np.isnan(round_floats(np.array([np.nan]))[0])


def test_round_floats_to_three_digits_is_round_bit_for_bit():
    rng = np.random.default_rng(1)
    values = np.concatenate([rng.normal(0, 3.0, 50_000),
                             rng.integers(-64_000, 64_000, 20_000) / 16_000,  # ties at 4 decimals
                             np.round(rng.normal(0, 1, 20_000), 4), np.array([-0.0, 1e12])])
    expected = np.array([round(v, 3) + 0.0 for v in values.tolist()])
    assert _same_bits(round_floats(values, 3), expected)

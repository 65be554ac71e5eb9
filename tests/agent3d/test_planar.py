"""planar.norm2: the length of a 2-D vector, bit for bit as the generator's NumPy version."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from socialbench.agent3d.planar import norm2


def _fused(x: float, y: float) -> float:
    """sqrt(fma(y, y, x * x)) from exact rational arithmetic: x * x rounded once, y * y added
    and the sum rounded once."""
    return math.sqrt(float(Fraction(y) * Fraction(y) + Fraction(x * x)))


def test_norm2_is_the_fused_square_sum_on_every_scale():
    rng = np.random.default_rng(7)
    values = rng.normal(size=(4000, 2)) * rng.choice([1e-5, 1e-2, 1.0, 30.0, 1e4], (4000, 1))
    values[::5, 0] *= 1e-6  # terms of very different sizes
    for x, y in values.tolist():
        assert norm2(x, y) == _fused(x, y)
    assert norm2(0.0, 0.0) == 0.0 and norm2(-3.0, 4.0) == 5.0


def test_norm2_matches_numpy_where_its_dot_fuses():
    # the files were made with NumPy's 2-element dot product, which this machine's BLAS forms
    # with one fused multiply-add; where a BLAS does not, the generator's output is norm2's
    rng = np.random.default_rng(8)
    values = rng.normal(size=(20000, 2))
    if not all(math.sqrt(float(np.dot(v, v))) == _fused(*v.tolist()) for v in values[:200]):
        pytest.skip("this BLAS does not fuse a 2-element dot product")
    for v in values:
        assert norm2(*v.tolist()) == math.sqrt(float(np.dot(v, v)))

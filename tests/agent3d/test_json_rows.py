"""The state rows' fast writer gives exactly the text of ``repr`` for every float it sees."""

from __future__ import annotations

import numpy as np
import pytest

from socialbench.agent3d.json_rows import filled_rows

PIECES = ['{"position":[', ",", ",", '],"more":[', ",", "]}"]


def by_repr(numbers: np.ndarray) -> list[str]:
    return [PIECES[0] + "".join(repr(float(v)) + piece for v, piece in zip(row, PIECES[1:],
                                                                            strict=True))
            for row in numbers]


def test_every_5_decimal_number_near_zero_is_written_as_repr():
    # every k / 10^5 for |k| < 250,000: 1e-05 ... 9e-05 (Python's exponent form), 0.0001,
    # values with trailing zeros, whole numbers
    values = np.arange(-250_000, 250_000) / 1e5
    numbers = values[: len(values) // 5 * 5].reshape(-1, 5)
    assert filled_rows(PIECES, numbers) == by_repr(numbers)


@pytest.mark.parametrize("scale", [1e-3, 1.0, 30.0, 400.0])
def test_rounded_random_numbers_are_written_as_repr(scale):
    rng = np.random.default_rng(7)
    numbers = np.round(rng.normal(0.0, scale, (20_000, 5)), 5) + 0.0
    assert filled_rows(PIECES, numbers) == by_repr(numbers)


def test_numbers_it_cannot_lay_out_are_written_by_repr():
    odd = [-0.0, 1e-6, 0.123456789, 1000.0, -2.5e7, 1e300, np.nan, np.inf, 999.99999]
    numbers = np.array([[value, 0.5, -1.25, 3.0, 1e-05] for value in odd])
    rows = filled_rows(PIECES, numbers)
    assert rows == by_repr(numbers)
    assert rows[0].startswith('{"position":[-0.0,') and "nan" in rows[6]


def test_pieces_must_fit_the_numbers():
    with pytest.raises(ValueError):
        filled_rows(PIECES[:-1], np.zeros((1, 5)))
    assert filled_rows(PIECES, np.zeros((0, 5))) == []

"""Many JSON rows of 5-decimal floats at once, with the bytes ``json.dumps`` gives them.

A state row of ``state_info.json`` is a fixed text with 34 numbers in it. JSON writes a float
as its ``repr``; one ``repr`` per number was most of the writing time. The floats written are
5-decimal doubles (``round(v, 5)``, ``rounding.round_floats``, ``np.round``): x is the double
nearest to k / 10^5 for an integer k. For such an x with 1e-4 <= |x| < 1000 or x = +0.0,
``repr(x)`` is that decimal in plain notation, trailing zeros dropped but one digit kept after
the point: no other decimal of at most 15 significant digits has the same nearest double, so
it is the shortest that reads back as x, and Python writes plain notation for exponents -4 to
15 (below 1e-4: ``1e-05`` to ``9e-05``, laid out too). So the digits of k are the text: they
are laid out for all rows at once in one byte array (numbers, the fixed pieces, a newline per
row), the unused places masked out. A row with any other number (-0.0, 1000 or more, not
finite, more than 5 decimals) is filled by ``repr``. tests/agent3d/test_json_rows.py compares
with ``repr``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from socialbench.agent3d.bodies import ROUND_DIGITS as DIGITS

_SCALE = 10.0 ** DIGITS
_INT_DIGITS = 3  # |x| < 1000: beyond a 12 m room and any speed in it (else repr)
_MINUS, _POINT, _ZERO = (ord(c) for c in "-.0")
# d e-05 in the places after the sign (3 integer digits, point, 5 decimals), for d = 0..9
_TINY_CHARS = np.array([np.frombuffer(f"{d}e-050000".encode(), np.uint8) for d in range(10)])
_TINY_KEEP = np.array([True] * 5 + [False] * 4)


def filled_rows(pieces: Sequence[str], numbers: np.ndarray) -> list[str]:
    """Per row of ``numbers`` (n x m), ``pieces[0] + repr(row[0]) + pieces[1] + ... +
    repr(row[m - 1]) + pieces[m]``; ``pieces`` (m + 1 texts, no newline in them) are the same
    for every row."""
    numbers = np.asarray(numbers, dtype=float)
    rows, columns = numbers.shape
    if len(pieces) != columns + 1 or any("\n" in piece for piece in pieces):
        raise ValueError("a row needs one piece more than its numbers, and no newline in them")
    if rows == 0:
        return []
    chars, keep, plain = _number_chars(numbers)
    blocks, kept = [], []
    for column, piece in enumerate(pieces):
        text = np.frombuffer((piece if column < columns else piece + "\n").encode(), np.uint8)
        blocks.append(np.broadcast_to(text, (rows, len(text))))
        kept.append(np.ones((rows, len(text)), dtype=bool))
        if column < columns:
            blocks.append(chars[:, column])
            kept.append(keep[:, column])
    text = np.concatenate(blocks, axis=1)[np.concatenate(kept, axis=1)].tobytes()
    result = text.decode("ascii").split("\n")[:-1]
    for row in np.nonzero(~plain.all(axis=1))[0]:  # rare: filled number by number
        values = [repr(float(value)) for value in numbers[row]]
        result[row] = pieces[0] + "".join(value + piece
                                          for value, piece in zip(values, pieces[1:], strict=True))
    return result


def _number_chars(numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each number's characters (n x m x width: sign, integer digits, point, decimals), which
    of them are written, and which numbers this way writes as ``repr`` does."""
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = np.rint(numbers * _SCALE)
        magnitude = np.abs(scaled)
        plain = (scaled / _SCALE == numbers) & (magnitude < 10.0 ** (_INT_DIGITS + DIGITS)) \
            & ((magnitude > 0) | ~np.signbit(numbers))
    integer, fraction = np.divmod(np.where(plain, magnitude, 0).astype(np.int64), 10 ** DIGITS)
    int_chars, int_keep = _digit_table(_INT_DIGITS, leading=False)
    frac_chars, frac_keep = _digit_table(DIGITS, leading=True)
    shape = numbers.shape + (1,)
    chars = np.concatenate([np.full(shape, _MINUS, dtype=np.uint8), int_chars[integer],
                            np.full(shape, _POINT, dtype=np.uint8), frac_chars[fraction]],
                           axis=-1)
    keep = np.concatenate([(scaled < 0)[..., None], int_keep[integer], np.ones(shape, dtype=bool),
                           frac_keep[fraction]], axis=-1)
    # below 1e-4 Python writes 1e-05 ... 9e-05: the digit, then "e-05" in the next places
    tiny = plain & (integer == 0) & (fraction > 0) & (fraction < 10)
    if tiny.any():
        chars[tiny, 1:] = _TINY_CHARS[fraction[tiny]]
        keep[tiny, 1:] = _TINY_KEEP
    return chars, keep, plain


@cache
def _digit_table(width: int, leading: bool) -> tuple[np.ndarray, np.ndarray]:
    """The ``width`` digits of every integer below 10^width (10^width x width characters) and
    which are written: for decimals (``leading``) up to the last nonzero one, the first always;
    for an integer part from the first nonzero one, the units digit always."""
    values = np.arange(10 ** width, dtype=np.int64)[:, None]
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    chars = (values // powers % 10 + _ZERO).astype(np.uint8)
    if leading:
        keep = (values % (powers * 10) != 0) | (powers == powers[0])
    else:
        keep = (values >= powers) | (powers == 1)
    return chars, keep

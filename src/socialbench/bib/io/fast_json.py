"""The fast JSON path: an episode file's bytes -> JSON values, each walls text parsed once.

The walls are ~80 % of a file's text and repeat in every frame of a trial (~150 times): each
distinct walls text is parsed once and its value shared (``benchmarks/bib_files.py`` times it
against plain ``json.loads`` and ``orjson.loads``). The values equal a plain parse; the stdlib
parses what orjson rejects, so errors (and its leniency for NaN and big integers) are the
stdlib's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

try:  # ~1.5x faster parsing than the stdlib (benchmarks/bib_files.py); optional
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency, the stdlib a fallback
    orjson = None  # type: ignore[assignment]

from socialbench.core.errors import DataFileError

MAX_FILE_BYTES = 64 * 2**20  # ours: released files are ~2 MB; 64 MB bounds what one read holds
MAX_NESTING = 4  # extra list levels around frames that the reader unwraps

_WALLS_KEY = b'"walls": '
_KEY_BEFORE = frozenset(b"{, \t\n\r")  # what may precede a key (never a string's inside)
_PLACEHOLDER = -(2**62)  # walls text k is parsed as the integer _PLACEHOLDER - k


def _slim_walls(data: bytes) -> tuple[bytes, list[bytes], int]:
    """``data`` with each "walls" value replaced by a placeholder integer, the distinct walls
    texts (placeholder k stands for text k) and how many were replaced.

    A frame's walls value is ``[]`` or ``[[[x, y], [w, h]], ...]``, which the first "]]]" ends;
    a key counts only after "{", "," or white space, so it is never inside a JSON string. Found
    with ``bytes.split``/``find`` (C), not a regular expression (~10x slower on 3 MB files).
    """
    pieces = data.split(_WALLS_KEY)
    out = [pieces[0]]
    texts: dict[bytes, int] = {}
    order: list[bytes] = []
    count = 0
    for previous, piece in zip(pieces, pieces[1:], strict=False):
        end = -1  # where the walls value ends in ``piece``
        if previous and previous[-1] in _KEY_BEFORE:
            if piece.startswith(b"[]"):
                end = 2
            elif piece.startswith(b"[[[") and (close := piece.find(b"]]]")) >= 0:
                end = close + 3
        if end < 0:
            out += (_WALLS_KEY, piece)  # not a frame's walls value: left as it is
            continue
        text = piece[:end]
        k = texts.get(text)
        if k is None:
            k = texts[text] = len(order)
            order.append(text)
        out += (b'"walls": %d' % (_PLACEHOLDER - k), piece[end:])
        count += 1
    return b"".join(out), order, count


def _loads_shared_walls(data: bytes) -> Any:
    """``orjson.loads(data)``, with each distinct "walls" text parsed once and its value shared.

    The walls are ~80 % of a file's text and repeat in every frame of a trial (~150 times), so
    each is replaced by a placeholder integer before parsing and put back after. The result
    equals a plain parse; when anything is unexpected (a walls text that is not one JSON value, a
    placeholder not found where it was put), the plain parse is used.
    """
    if str(_PLACEHOLDER)[:12].encode() in data:  # a placeholder-like number already there
        return orjson.loads(data)
    slim, order, count = _slim_walls(data)
    if not count:
        return orjson.loads(data)
    try:
        values = [orjson.loads(text) for text in order]
        parsed = orjson.loads(slim)
    except orjson.JSONDecodeError:
        return orjson.loads(data)
    if _restore_walls(parsed, values, 0) != count:
        return orjson.loads(data)
    return parsed


def _restore_walls(value: Any, walls: list[Any], depth: int) -> int:
    """Put the shared walls values back in place of their placeholders; how many were."""
    restored = 0
    if isinstance(value, dict):
        raw = value.get("walls")
        if type(raw) is int and _PLACEHOLDER - len(walls) < raw <= _PLACEHOLDER:
            value["walls"] = walls[_PLACEHOLDER - raw]
            restored = 1
    elif isinstance(value, list) and depth <= MAX_NESTING + 1:
        for item in value:
            if isinstance(item, (list, dict)):
                restored += _restore_walls(item, walls, depth + 1)
    return restored


def read_json(path: Path) -> Any:
    """The JSON values of an episode file, its size bounded; a one-line DataFileError else."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise DataFileError(path, f"cannot be read ({exc.strerror})") from None
    if size > MAX_FILE_BYTES:
        raise DataFileError(path, f"is {size} bytes, over the {MAX_FILE_BYTES}-byte limit for one "
                                  "episode file (raise "
                                  "socialbench.bib.io.fast_json.MAX_FILE_BYTES if real)")
    with open(path, "rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if not data.strip():
        raise DataFileError(path, "is empty: expected a JSON list of 9 trials")
    if orjson is not None:
        try:
            return _loads_shared_walls(data)
        except orjson.JSONDecodeError:
            pass  # parsed again below: the stdlib's message (and its NaN / big-int leniency)
    try:
        return json.loads(data)
    except UnicodeDecodeError:
        raise DataFileError(path, "is not UTF-8 text: expected a JSON list of 9 trials") from None
    except json.JSONDecodeError as exc:
        hint = " (the file looks truncated)" if exc.pos >= len(data.rstrip()) else ""
        raise DataFileError(path, f"is not valid JSON: {exc.msg} at line {exc.lineno} column "
                                  f"{exc.colno}{hint}") from None

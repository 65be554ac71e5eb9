"""BIB episode files: read ours and the released ones, write the released layout exactly.

A file is a JSON list of 9 trials, each a list of per-frame dicts (bib paper, data
specification). Keys, in the released order: ``size, walls, fuse_walls, pin, key, objects,
blocking, home, agent``. Two conventions name the key and the lock: the newer (released
evaluation files) ``pin`` = key, ``key`` = lock; the older ``key`` = key, ``lock`` = lock. The
reader checks for ``pin`` first; the writer always writes the newer one.

Reading normalises the quirks some released files have (bib spec): frames nested in extra
lists are flattened; empty top-level entries are dropped and, of more than 9 trials, the first 9
are kept; an agent (or objects) missing from the first frames of a trial is filled in from the
trial's first frame that has one. What was changed is listed in ``Episode.meta["normalised"]``.

Files from elsewhere are bounded before they are trusted: at most ``MAX_FILE_BYTES`` bytes,
``MAX_TOP_LEVEL`` top-level entries and ``MAX_FRAMES_PER_TRIAL`` frames per trial. Any problem is
a one-line :class:`DataFileError` naming the file and the place (trial and frame count from 0).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

try:  # ~1.5x faster parsing than the stdlib (benchmarks/bib_files.py); optional
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency, the stdlib a fallback
    orjson = None  # type: ignore[assignment]

from socialbench.bib.schema import (
    FRAME_SIZE,
    N_TRIALS,
    Block,
    Episode,
    Frame,
    Run,
    Sprite,
    Trial,
    make_frame,
)
from socialbench.core.errors import DataFileError, UserError
from socialbench.core.paths import safe_join
from socialbench.core.runner import MANIFEST_NAME, load_manifest

MAX_FILE_BYTES = 64 * 2**20  # ours: released files are ~2 MB; 64 MB bounds what one read holds
MAX_TOP_LEVEL = 64  # top-level entries accepted before normalising (9 trials expected)
MAX_FRAMES_PER_TRIAL = 2_000  # released trials are 136-160 frames (bib spec)
MAX_NESTING = 4  # extra list levels around frames that the reader unwraps
MAX_HALF = 100  # px: an icon's half-side (released: 6 and 9); bounds the glyph a renderer draws

# Task folders (bib spec: evaluation root has 9 folders, training root 4).
EVALUATION_TASKS = (
    "preference", "multi_agent", "inaccessible_goal", "efficiency_path", "efficiency_time",
    "efficiency_irrational", "instrumental_no_barrier", "instrumental_inconsequential_barrier",
    "instrumental_blocking_barrier",
)
TRAINING_TASKS = ("single_object", "preference", "multi_agent", "instrumental_action")
TASK_FOLDERS = frozenset(EVALUATION_TASKS + TRAINING_TASKS)

FRAME_KEYS = ("size", "walls", "fuse_walls", "pin", "key", "objects", "blocking", "home",
              "agent")  # the released per-frame key order
SPRITE_FORM = "[[x, y], s, path, [r, g, b]]"
BLOCK_FORM = "[[x, y], [w, h]]"


class _Bad(Exception):
    """A structural problem inside a frame; turned into a DataFileError with the place."""


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------
def _is_number(v: Any) -> bool:
    """A JSON number: not a bool, not NaN or infinite (``json`` accepts those)."""
    return (isinstance(v, int) and not isinstance(v, bool)) or (
        isinstance(v, float) and math.isfinite(v))


def _is_pair(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 2 and _is_number(v[0]) and _is_number(v[1])


def _sprite(raw: Any, what: str) -> Sprite:
    if not (isinstance(raw, list) and len(raw) == 4 and _is_pair(raw[0]) and _is_number(raw[1])
            and isinstance(raw[2], str) and isinstance(raw[3], list) and len(raw[3]) == 3
            and all(_is_number(c) for c in raw[3])):
        raise _Bad(f"{what} is not {SPRITE_FORM}")
    (x, y), half, shape, color = raw
    if not 0 <= half <= MAX_HALF:
        raise _Bad(f"{what} has half-side {half}, expected 0-{MAX_HALF} px")
    if not all(0 <= c <= 255 for c in color):
        raise _Bad(f"{what} has colour {color}, expected [r, g, b] in 0-255")
    return Sprite(x, y, half, shape, (color[0], color[1], color[2]))


def _is_single_sprite(raw: Any) -> bool:
    return isinstance(raw, list) and len(raw) == 4 and _is_pair(raw[0])


def _sprites(raw: Any, key: str) -> tuple[Sprite, ...]:
    """A list of sprites; a single sprite entry is accepted too (``home``/``agent`` style)."""
    if raw is None:
        return ()
    if _is_single_sprite(raw):
        return (_sprite(raw, f"'{key}'"),)
    if not isinstance(raw, list):
        raise _Bad(f"'{key}' is not a list of {SPRITE_FORM}")
    return tuple(_sprite(item, f"'{key}' entry {i}") for i, item in enumerate(raw))


def _one_sprite(raw: Any, key: str) -> Sprite | None:
    if raw is None or raw == []:
        return None
    if isinstance(raw, list) and len(raw) == 1 and isinstance(raw[0], list):
        raw = raw[0]  # a one-element list around the entry
    return _sprite(raw, f"'{key}'")


class _Repeats:
    """Parses a field once per run of equal raw values: a trial repeats its walls and objects in
    every frame, and comparing raw lists (in C) is far cheaper than parsing them again."""

    def __init__(self) -> None:
        self._last: dict[str, tuple[Any, Any]] = {}

    def parse(self, key: str, raw: Any, parser: Any) -> Any:
        last = self._last.get(key)
        if last is not None and (last[0] is raw or last[0] == raw):
            return last[1]
        parsed = parser(raw, key)
        self._last[key] = (raw, parsed)
        return parsed


def _blocks(raw: Any, key: str) -> tuple[Block, ...]:
    if raw is None or raw == []:
        return ()
    if not isinstance(raw, list):
        raise _Bad(f"'{key}' is not a list of {BLOCK_FORM}")
    blocks = []
    for i, item in enumerate(raw):
        if not (isinstance(item, list) and len(item) == 2 and _is_pair(item[0])
                and _is_pair(item[1])):
            raise _Bad(f"'{key}' entry {i} is not {BLOCK_FORM}")
        (x, y), (w, h) = item
        blocks.append(Block(x, y, w, h))
    return tuple(blocks)


def _frame(raw: Any, repeats: _Repeats) -> Frame:
    if not isinstance(raw, dict):
        raise _Bad(f"is a {type(raw).__name__}, not a frame dict")
    size = raw.get("size", list(FRAME_SIZE))
    if not _is_pair(size):
        raise _Bad("'size' is not [width, height]")
    if "pin" in raw:  # newer convention: pin = key, key = lock
        key_name, lock_name = "pin", "key"
    else:
        key_name, lock_name = "key", "lock"
    # Every field through ``repeats``: the agent and a carried key repeat too while the agent
    # waits, and equal fields of consecutive frames then are one object (the validator groups
    # frames by their fields' identity).
    return make_frame({
        "walls": repeats.parse("walls", raw.get("walls"), _blocks),
        "objects": repeats.parse("objects", raw.get("objects"), _sprites),
        "agent": repeats.parse("agent", raw.get("agent"), _one_sprite),
        "home": repeats.parse("home", raw.get("home"), _one_sprite),
        "fuse_walls": repeats.parse("fuse_walls", raw.get("fuse_walls"), _blocks),
        "key": repeats.parse(key_name, raw.get(key_name), _sprites),
        "lock": repeats.parse(lock_name, raw.get(lock_name), _sprites),
        "blocking": repeats.parse("blocking", raw.get("blocking"), _blocks),
        "size": repeats.parse("size", size, _size),
    })


def _next_frame(raw: Any, previous_raw: Any, previous: Frame | None,
                repeats: _Repeats) -> Frame:
    """The frame of ``raw``, reusing the previous one when the raw frames are equal (the agent
    waits: ~half of a trial) or differ only in the agent (it walks)."""
    if previous is not None and type(raw) is dict and type(previous_raw) is dict:
        if raw == previous_raw:
            return previous
        if raw.keys() == previous_raw.keys() and all(
                raw[k] is previous_raw[k] or raw[k] == previous_raw[k]
                for k in raw if k != "agent"):
            fields = dict(previous.__dict__)
            fields["agent"] = repeats.parse("agent", raw.get("agent"), _one_sprite)
            return make_frame(fields)
    return _frame(raw, repeats)


def _size(raw: list, key: str) -> tuple[Any, Any]:
    return raw[0], raw[1]


def _flatten_frames(entry: Any, depth: int = 0) -> list[Any]:
    """The frames of one top-level entry, unwrapping extra list levels around them."""
    if isinstance(entry, dict):
        return [entry]
    if not isinstance(entry, list) or depth > MAX_NESTING:
        raise _Bad(f"is a {type(entry).__name__}, not a list of frame dicts")
    if all(isinstance(item, dict) for item in entry):
        return entry
    out: list[Any] = []
    for item in entry:  # anything neither list nor dict is kept: _frame names it with its index
        out.extend(_flatten_frames(item, depth + 1) if isinstance(item, list) else [item])
    return out


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


def _read_json(path: Path) -> Any:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise DataFileError(path, f"cannot be read ({exc.strerror})") from None
    if size > MAX_FILE_BYTES:
        raise DataFileError(path, f"is {size} bytes, over the {MAX_FILE_BYTES}-byte limit for one "
                                  "episode file (raise socialbench.bib.io.MAX_FILE_BYTES if real)")
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


def _fill_missing(trial: list[Frame], field_name: str) -> int:
    """Fill a sprite missing from a trial's first frames from its first frame that has it."""
    empty = (None, ())
    first = next((i for i, f in enumerate(trial) if getattr(f, field_name) not in empty), None)
    if not first:  # None: never present; 0: present from the start
        return 0
    value = getattr(trial[first], field_name)
    for i in range(first):
        trial[i] = replace(trial[i], **{field_name: value})
    return first


def episode_name(path: Path) -> str:
    """``000010loe.json`` -> ``000010lo`` (the pair's shared name)."""
    stem = Path(path).stem
    return stem[:-1] if stem[-1:] in ("e", "u") else stem


def expected_from_name(path: Path) -> bool | None:
    """True for ``*e.json``, False for ``*u.json``, None otherwise."""
    suffix = Path(path).stem[-1:]
    return {"e": True, "u": False}.get(suffix)


def load_episode(path: Path | str, *, fill_missing: bool = True) -> Episode:
    """Read one episode file (ours or released) into a typed :class:`Episode`.

    ``expected`` comes from the ``e``/``u`` suffix, ``task`` from the parent folder when it is
    one of the task folders. ``fill_missing=False`` keeps frames without an agent as
    ``agent=None`` instead of filling them in.
    """
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, list):
        raise DataFileError(path, f"top level is a {type(data).__name__}, not a list of trials")
    if len(data) > MAX_TOP_LEVEL:
        raise DataFileError(path, f"has {len(data)} top-level entries, over the limit of "
                                  f"{MAX_TOP_LEVEL} (9 trials expected)")
    normalised: list[str] = []
    raw_trials = []
    for t, entry in enumerate(data):
        try:
            frames = _flatten_frames(entry)
        except _Bad as exc:
            raise DataFileError(path, f"trial {t} {exc}") from None
        if len(frames) > MAX_FRAMES_PER_TRIAL:
            raise DataFileError(path, f"trial {t} has {len(frames)} frames, over the limit of "
                                      f"{MAX_FRAMES_PER_TRIAL}")
        if frames is not entry and entry:
            normalised.append(f"trial {t}: frames unwrapped from nested lists")
        if frames:
            raw_trials.append(frames)
        else:
            normalised.append(f"top-level entry {t}: empty, dropped")
    if len(raw_trials) < N_TRIALS:
        raise DataFileError(path, f"has {len(raw_trials)} non-empty trials, expected {N_TRIALS}")
    if len(raw_trials) > N_TRIALS:
        normalised.append(f"{len(raw_trials) - N_TRIALS} trials after the 9th dropped")
        raw_trials = raw_trials[:N_TRIALS]

    repeats = _Repeats()
    trials = []
    conventions = set()
    for t, raw_frames in enumerate(raw_trials):
        frames: list[Frame] = []
        previous: Any = None
        for f, raw in enumerate(raw_frames):
            try:
                frames.append(_next_frame(raw, previous, frames[-1] if frames else None,
                                          repeats))
            except _Bad as exc:
                raise DataFileError(path, f"trial {t} frame {f}: {exc}") from None
            previous = raw
            if "pin" in raw:
                conventions.add("pin")
            elif "key" in raw or "lock" in raw:
                conventions.add("key-lock")
        if fill_missing:
            for field_name in ("agent", "objects"):
                if n := _fill_missing(frames, field_name):
                    normalised.append(f"trial {t}: {field_name} filled into frames 0-{n - 1}")
        trials.append(Trial(frames))

    meta: dict[str, Any] = {"path": str(path), "convention": "/".join(sorted(conventions))}
    if normalised:
        meta["normalised"] = normalised
    task = path.parent.name if path.parent.name in TASK_FOLDERS else None
    return Episode(trials=trials, name=episode_name(path), task=task,
                   expected=expected_from_name(path), meta=meta)


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------
def _num(v: float) -> int | float:
    """Whole numbers as JSON ints (as in the released files), others as floats."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    f = float(v)
    return int(f) if f.is_integer() else f


def _num_text(v: float) -> str:
    """``json.dumps(_num(v))``, with a shortcut for plain ints (most coordinates)."""
    if type(v) is int:
        return str(v)
    return json.dumps(_num(v))


def _sprite_json(s: Sprite) -> list:
    return [[_num(s.x), _num(s.y)], _num(s.half), s.shape, [_num(c) for c in s.color]]


def _blocks_json(blocks: tuple[Block, ...]) -> list:
    return [[[_num(b.x), _num(b.y)], [_num(b.width), _num(b.height)]] for b in blocks]


def frame_to_dict(frame: Frame) -> dict[str, Any]:
    """The released per-frame dict, keys in the released order, newer pin/key convention.

    A missing home or agent (``None``) leaves its key out.
    """
    out: dict[str, Any] = {
        "size": [_num(frame.size[0]), _num(frame.size[1])],
        "walls": _blocks_json(frame.walls),
        "fuse_walls": _blocks_json(frame.fuse_walls),
        "pin": [_sprite_json(s) for s in frame.key],
        "key": [_sprite_json(s) for s in frame.lock],
        "objects": [_sprite_json(s) for s in frame.objects],
        "blocking": _blocks_json(frame.blocking),
    }
    if frame.home is not None:
        out["home"] = _sprite_json(frame.home)
    if frame.agent is not None:
        out["agent"] = _sprite_json(frame.agent)
    return out


def episode_to_json(episode: Episode) -> str:
    """The episode as released-format JSON text (see :func:`episodes_to_json`)."""
    return episodes_to_json([episode])[0]


def episodes_to_json(episodes: Sequence[Episode]) -> list[str]:
    """Each episode as released-format JSON text.

    Byte-for-byte the released files' formatting (Python ``json.dumps`` defaults: ``", "`` and
    ``": "`` separators, no trailing newline), so a released file read and written back is
    identical to the original; equal to :func:`episode_to_json_reference` (``json.dumps`` of
    :func:`frame_to_dict` per frame), only faster: see :class:`_JsonPieces`.
    """
    encode = _TrialBytes()
    return [b"".join(map(encode, layout)).decode() for layout in _file_layouts(episodes)]


def _file_layouts(episodes: Sequence[Episode]) -> list[list[bytes | Trial]]:
    """Each episode's file as its pieces: ``[``, ``[``, trial, ``]``, ``, [``, trial, ``]``,
    ..., ``]``; a trial stands for its text (:class:`_TrialBytes`). A ~2 MB file is never
    joined into one text: its pieces are written in turn."""
    layouts = []
    for episode in episodes:
        layout: list[bytes | Trial] = [b"["]
        for k, trial in enumerate(episode.trials):
            layout += (b", [" if k else b"[", trial, b"]")
        layout.append(b"]")
        layouts.append(layout)
    return layouts


class _TrialBytes:
    """A layout piece's bytes; each distinct trial (a pair shares its familiarization) is
    encoded once. The trials stay referenced by their episodes, so their ids are not reused."""

    def __init__(self) -> None:
        self._pieces = _JsonPieces()
        self._encoded: dict[int, bytes | memoryview] = {}

    def __call__(self, item: bytes | Trial) -> bytes | memoryview:
        if not isinstance(item, Trial):
            return item
        data = self._encoded.get(id(item))
        if data is None:
            data = self._encoded[id(item)] = self._pieces.trial_bytes(item)
        return data


class _JsonPieces:
    """Serialises each distinct object once and splices frames from the pieces.

    A trial repeats the same wall, object and home tuples in every frame, generated trials
    repeat whole Frame objects while the agent waits, and a pair shares its familiarization
    Trial objects. Pieces are keyed by object identity; every keyed object is kept referenced
    (``_alive``), so an id is never reused while the cache lives.
    """

    def __init__(self) -> None:
        self._text: dict[int, str] = {}  # id(value) -> JSON text (blocks, sprites, frames)
        self._tails: dict[tuple, str] = {}  # a sprite's text after its position, by its look
        self._prefixes: dict[tuple[int, ...], str] = {}  # a frame's text before its agent
        self._alive: list[object] = []

    def _keep(self, value: object, text: str) -> str:
        self._text[id(value)] = text
        self._alive.append(value)
        return text

    def blocks(self, value: tuple[Block, ...]) -> str:
        text = self._text.get(id(value))
        if text is None:
            if all(type(v) is int for b in value for v in (b.x, b.y, b.width, b.height)):
                # Whole numbers (every generated block): formatted directly, as json would.
                text = "[" + ", ".join([f"[[{b.x}, {b.y}], [{b.width}, {b.height}]]"
                                        for b in value]) + "]"
            else:
                text = json.dumps(_blocks_json(value))
            self._keep(value, text)
        return text

    def sprite(self, value: Sprite) -> str:
        text = self._text.get(id(value))
        if text is None:
            look = (value.half, value.shape, value.color)
            tail = self._tails.get(look)
            if tail is None:  # '6, "./shapes/...png", [r, g, b]]'
                tail = self._tails[look] = json.dumps(
                    [_num(value.half), value.shape, [_num(c) for c in value.color]])[1:]
            text = self._keep(value, f"[[{_num_text(value.x)}, {_num_text(value.y)}], {tail}")
        return text

    def sprites(self, value: tuple[Sprite, ...]) -> str:
        text = self._text.get(id(value))
        if text is None:
            text = self._keep(value, "[" + ", ".join(self.sprite(s) for s in value) + "]")
        return text

    def _prefix(self, frame: Frame) -> str:
        """The frame's text up to (not including) its agent."""
        ids = (id(frame.size), id(frame.walls), id(frame.fuse_walls), id(frame.key),
               id(frame.lock), id(frame.objects), id(frame.blocking), id(frame.home))
        prefix = self._prefixes.get(ids)
        if prefix is None:
            size = frame.size
            parts = [f'{{"size": {json.dumps([_num(size[0]), _num(size[1])])}',
                     f'"walls": {self.blocks(frame.walls)}',
                     f'"fuse_walls": {self.blocks(frame.fuse_walls)}',
                     f'"pin": {self.sprites(frame.key)}', f'"key": {self.sprites(frame.lock)}',
                     f'"objects": {self.sprites(frame.objects)}',
                     f'"blocking": {self.blocks(frame.blocking)}']
            if frame.home is not None:
                parts.append(f'"home": {self.sprite(frame.home)}')
            prefix = self._prefixes[ids] = ", ".join(parts)
            self._alive.append(frame)  # keeps the parts whose ids key the prefix
        return prefix

    def frame(self, frame: Frame) -> str:
        text = self._text.get(id(frame))
        if text is None:
            prefix = self._prefix(frame)
            if frame.agent is not None:
                text = f'{prefix}, "agent": {self.sprite(frame.agent)}}}'
            else:
                text = prefix + "}"
            self._keep(frame, text)
        return text

    def _run_pieces(self, run: Run) -> tuple[bytes, bytes]:
        """The run's frame text as a fixed head and a %-format of the rest: the head is the
        text up to the agent's corner, the format takes the corner's (x, y). When the key moves
        with the agent the head is empty and the format takes the key's corner, then the
        agent's."""
        template = run.template
        assert template.agent is not None

        def literal(text: str) -> str:
            return text.replace("%", "%%")

        def tail(sprite: Sprite) -> str:  # '6, "./...png", [r, g, b]]': all after the corner
            return literal(self.sprite(sprite).split("], ", 1)[1])

        agent = "%d, %d], " + tail(template.agent) + "}"
        if run.key_offset is None:
            return (self._prefix(template) + ', "agent": [[').encode(), agent.encode()
        # "pin" (the key) comes between "fuse_walls" and "key" (the lock).
        size = template.size
        parts = [f'"key": {self.sprites(template.lock)}',
                 f'"objects": {self.sprites(template.objects)}',
                 f'"blocking": {self.blocks(template.blocking)}']
        if template.home is not None:
            parts.append(f'"home": {self.sprite(template.home)}')
        before = (f'{{"size": {json.dumps([_num(size[0]), _num(size[1])])}, '
                  f'"walls": {self.blocks(template.walls)}, '
                  f'"fuse_walls": {self.blocks(template.fuse_walls)}, ')
        form = (literal(before) + '"pin": [[[%d, %d], ' + tail(template.key[0]) + "], "
                + literal(", ".join(parts)) + ', "agent": [[' + agent)
        return b"", form.encode()

    def trial_bytes(self, trial: Trial) -> bytes | memoryview:
        """The trial's frames' text, comma-separated, without the enclosing brackets, encoded.

        A trial given as runs is spliced in bytes: each frame is its run's head (one shared
        object; see :meth:`_run_pieces`) and its few formatted bytes, all joined once.
        """
        if trial.runs is None:
            return self.frames_text(trial).encode()
        parts: list[bytes] = []
        for run in trial.runs:
            head, form = self._run_pieces(run)
            xy = run.xy
            if run.key_offset is not None:
                xy = np.hstack([xy + np.asarray(run.key_offset), xy])
            rows = xy.tolist()
            frames = [head] * (2 * len(rows))
            frames[1::2] = map((form + b", ").__mod__, map(tuple, rows))
            parts += frames
        return memoryview(b"".join(parts))[:-2]  # the last frame's ", " left out

    def frames_text(self, trial: Trial) -> str:
        """A trial given as frames: its frames' text, comma-separated, without the brackets.

        Each distinct Frame object is serialised once (a trial repeats them while the agent
        waits), then the frames are spliced by identity in C (map), not a Python loop."""
        frames = trial.frames
        by_id = {id(f): f for f in frames}
        texts = {key: self.frame(f) for key, f in by_id.items()}
        return ", ".join(map(texts.__getitem__, map(id, frames)))


def episode_to_json_reference(episode: Episode) -> str:
    """The plain (slow) serialisation :func:`episode_to_json` must equal byte for byte."""
    return json.dumps([[frame_to_dict(f) for f in trial.frames] for trial in episode.trials])


def dump_episode(episode: Episode, path: Path) -> None:
    """Write the episode's JSON file atomically (a temporary name, then a rename)."""
    dump_episodes([(episode, Path(path))])


def dump_episodes(items: Sequence[tuple[Episode, Path]]) -> list[str]:
    """Write several episodes' JSON files (e.g. a pair, serialising their shared trials once),
    each atomically; return each file's SHA-256 (hex), hashed from the bytes as they are written
    (so the generation runner need not read the files back)."""
    return [digest for _, digest in write_episodes(items)]


def write_episodes(items: Sequence[tuple[Episode, Path]], *,
                   atomic: bool = True) -> list[tuple[int, str]]:
    """:func:`dump_episodes`, returning each file's size and SHA-256.

    ``atomic=False`` writes each file under its own name directly (for a private staging
    folder, whose files are moved into place only when complete); missing folders are made.
    """
    paths = [Path(path) for _, path in items]
    targets = [path.with_name(f".{path.name}.part") if atomic else path for path in paths]
    try:
        written = _write_side_by_side([episode for episode, _ in items], targets)
        if atomic:
            for target, path in zip(targets, paths, strict=True):
                os.replace(target, path)
    finally:
        if atomic:
            for target in targets:
                target.unlink(missing_ok=True)
    return written


def _write_side_by_side(episodes: Sequence[Episode],
                        targets: Sequence[Path]) -> list[tuple[int, str]]:
    """Write the episodes' files together, trial by trial, each file's size and SHA-256.

    Each distinct trial (a pair shares its familiarization) is encoded once and then hashed and
    written to every file that has it while its bytes are still in the processor's cache; chunks
    all files share from their start are hashed once.
    """
    encode = _TrialBytes()
    layouts = _file_layouts(episodes)
    common = hashlib.sha256()
    digests: list[Any] | None = None  # per file, once the files' pieces differ
    sizes = [0] * len(targets)
    with contextlib.ExitStack() as stack:
        handles = [stack.enter_context(open(_create(target), "wb", buffering=0))
                   for target in targets]
        for position in range(max((len(layout) for layout in layouts), default=0)):
            items = [layout[position] if position < len(layout) else None
                     for layout in layouts]
            if digests is None and any(item is not items[0] for item in items):
                digests = [common.copy() for _ in targets]  # from here on, hashed apart
            for i, item in enumerate(items):
                if item is None:
                    continue
                data = encode(item)
                if digests is not None:
                    digests[i].update(data)
                elif i == 0:
                    common.update(data)
                sizes[i] += _write_all(handles[i], data)
    final = digests if digests is not None else [common] * len(targets)
    return [(size, digest.hexdigest()) for size, digest in zip(sizes, final, strict=True)]


def _write_all(handle: Any, data: bytes | memoryview) -> int:
    view = memoryview(data)
    size = len(view)
    while view:  # an unbuffered write may write less than it was given
        view = view[handle.write(view):]
    return size


def write_chunks(path: Path, chunks: Sequence[bytes | memoryview]) -> int:
    """Write the chunks as the file ``path`` (its folder made if missing); return its size."""
    with open(_create(path), "wb", buffering=0) as handle:  # chunks go straight to the file
        return sum(_write_all(handle, chunk) for chunk in chunks)


def _create(path: Path) -> int:
    """A new (or emptied) file's descriptor; its folder is made only when missing (tried first:
    it is almost always there, and each mkdir is a system call)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
    try:
        return os.open(path, flags, 0o666)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, flags, 0o666)


# --------------------------------------------------------------------------------------------
# Dataset roots
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EpisodePair:
    """The files of one episode: its expected file and, in evaluation sets, its unexpected one."""

    task: str | None
    name: str
    expected: Path | None
    unexpected: Path | None


def _json_files(root: Path) -> list[Path]:
    """Episode files under root: from the manifest when there is one, else by walking.

    Names starting with ``.`` or ``_`` (staging, journals, ``_meta/`` audit files) are skipped.
    """
    if (root / MANIFEST_NAME).exists():
        rels = list(load_manifest(root)["files"])
    else:
        rels = [p.relative_to(root).as_posix() for p in root.rglob("*.json")]
    return [safe_join(root, rel) for rel in sorted(rels)
            if rel.endswith(".json") and rel != MANIFEST_NAME
            and not any(part[:1] in (".", "_") for part in Path(rel).parts)]


def find_pairs(root: Path | str) -> list[EpisodePair]:
    """Every episode under a dataset root (ours or the released layout), sorted by task, name.

    Files are grouped by folder and shared name (``<task>/<name>e.json`` + ``<name>u.json``);
    ``task`` is the folder's name when it is a task folder (or the root's, for a task folder
    given as root), else None.
    """
    root = Path(root)
    if not root.is_dir():
        raise UserError(f"{root} is not a folder: give the root of a BIB dataset")
    groups: dict[tuple[Path, str], dict[bool | None, Path]] = {}
    for path in _json_files(root):
        groups.setdefault((path.parent, episode_name(path)), {})[expected_from_name(path)] = path
    pairs = []
    for (folder, name), files in groups.items():
        task = folder.name if folder.name in TASK_FOLDERS else None
        if None in files:  # a file without an e/u suffix is an episode on its own
            pairs.append(EpisodePair(task, name, files[None], None))
        if True in files or False in files:
            pairs.append(EpisodePair(task, name, files.get(True), files.get(False)))
    return sorted(pairs, key=lambda p: (p.task or "", str(p.expected or p.unexpected)))


def iter_episodes(root: Path | str) -> Iterator[tuple[EpisodePair, Episode | None,
                                                      Episode | None]]:
    """Each pair under root with its loaded expected and unexpected episodes (None if absent)."""
    for pair in find_pairs(root):
        e = load_episode(pair.expected) if pair.expected else None
        u = load_episode(pair.unexpected) if pair.unexpected else None
        yield pair, e, u

"""Reading BIB episode files (ours and the released ones) into typed episodes.

Reading normalises the quirks some released files have (bib spec): frames nested in extra
lists are flattened; empty top-level entries are dropped and, of more than 9 trials, the first 9
are kept; an agent (or objects) missing from the first frames of a trial is filled in from the
trial's first frame that has one. What was changed is listed in ``Episode.meta["normalised"]``.

Files from elsewhere are bounded before they are trusted: at most ``MAX_FILE_BYTES`` bytes
(:mod:`~socialbench.bib.io.fast_json`), ``MAX_TOP_LEVEL`` top-level entries and
``MAX_FRAMES_PER_TRIAL`` frames per trial. Any problem is a one-line :class:`DataFileError`
naming the file and the place (trial and frame count from 0).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, overload

from socialbench.bib.io.fast_json import MAX_NESTING, read_json
from socialbench.bib.io.layout import (
    TASK_FOLDERS,
    EpisodePair,
    episode_name,
    expected_from_name,
    find_pairs,
)
from socialbench.bib.schema import (
    FRAME_SIZE,
    N_TRIALS,
    Block,
    Episode,
    Frame,
    Sprite,
    Trial,
)
from socialbench.core.errors import DataFileError

MAX_TOP_LEVEL = 64  # top-level entries accepted before normalising (9 trials expected)
MAX_FRAMES_PER_TRIAL = 2_000  # released trials are 136-160 frames (bib spec)
MAX_HALF = 100  # px: an icon's half-side (released: 6 and 9); bounds the glyph a renderer draws
SPRITE_FORM = "[[x, y], s, path, [r, g, b]]"
BLOCK_FORM = "[[x, y], [w, h]]"


class _Bad(Exception):
    """A structural problem inside a frame; turned into a DataFileError with the place."""


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
    return Frame(
        walls=repeats.parse("walls", raw.get("walls"), _blocks),
        objects=repeats.parse("objects", raw.get("objects"), _sprites),
        agent=repeats.parse("agent", raw.get("agent"), _one_sprite),
        home=repeats.parse("home", raw.get("home"), _one_sprite),
        fuse_walls=repeats.parse("fuse_walls", raw.get("fuse_walls"), _blocks),
        key=repeats.parse(key_name, raw.get(key_name), _sprites),
        lock=repeats.parse(lock_name, raw.get(lock_name), _sprites),
        blocking=repeats.parse("blocking", raw.get("blocking"), _blocks),
        size=repeats.parse("size", size, _size),
    )


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
            return replace(previous,
                           agent=repeats.parse("agent", raw.get("agent"), _one_sprite))
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


def load_episode(path: Path | str, *, fill_missing: bool = True) -> Episode:
    """Read one episode file (ours or released) into a typed :class:`Episode`.

    ``expected`` comes from the ``e``/``u`` suffix, ``task`` from the parent folder when it is
    one of the task folders. ``fill_missing=False`` keeps frames without an agent as
    ``agent=None`` instead of filling them in.
    """
    path = Path(path)
    data = read_json(path)
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


def iter_episodes(root: Path | str) -> Iterator[tuple[EpisodePair, Episode | None,
                                                      Episode | None]]:
    """Each pair under root with its loaded expected and unexpected episodes (None if absent)."""
    for pair in find_pairs(root):
        e = load_episode(pair.expected) if pair.expected else None
        u = load_episode(pair.unexpected) if pair.unexpected else None
        yield pair, e, u


class EpisodeFiles(Sequence[Episode]):
    """Episode files read one at a time when indexed (a training set does not fit in memory)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)

    def __len__(self) -> int:
        return len(self.paths)

    @overload
    def __getitem__(self, index: int) -> Episode: ...

    @overload
    def __getitem__(self, index: slice) -> EpisodeFiles: ...

    def __getitem__(self, index: int | slice) -> Episode | EpisodeFiles:
        if isinstance(index, slice):
            return EpisodeFiles(self.paths[index])
        return load_episode(self.paths[index])

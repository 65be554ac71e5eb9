"""Episodes -> the released JSON text, byte for byte.

The released files' formatting is Python's ``json.dumps`` defaults (``", "`` and ``": "``
separators, no trailing newline), keys in the released order with the newer pin/key
convention, so a released file read and written back is identical to the original.
:func:`episode_to_json_reference` is that plain serialisation; :func:`episodes_to_json` gives
the same bytes faster by serialising each distinct object once (:class:`_JsonPieces`): a trial
repeats its walls in every frame, and a pair shares its familiarization trials.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from socialbench.bib.schema import Block, Episode, Frame, Run, Sprite, Trial

FRAME_KEYS = ("size", "walls", "fuse_walls", "pin", "key", "objects", "blocking", "home",
              "agent")  # the released per-frame key order


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
    encode = TrialBytes()
    return [b"".join(map(encode, layout)).decode() for layout in file_layouts(episodes)]


def file_layouts(episodes: Sequence[Episode]) -> list[list[bytes | Trial]]:
    """Each episode's file as its pieces: ``[``, ``[``, trial, ``]``, ``, [``, trial, ``]``,
    ..., ``]``; a trial stands for its text (:class:`TrialBytes`). A ~2 MB file is never
    joined into one text: its pieces are written in turn."""
    layouts = []
    for episode in episodes:
        layout: list[bytes | Trial] = [b"["]
        for k, trial in enumerate(episode.trials):
            layout += (b", [" if k else b"[", trial, b"]")
        layout.append(b"]")
        layouts.append(layout)
    return layouts


class TrialBytes:
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

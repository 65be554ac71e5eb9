"""Typed BIB episodes: what readers produce, generators build and observers consume.

Coordinates are the released files' pixels: origin bottom-left, y up, 200 x 200 px, 20-px cells
(a cell's column is ``x // 20``; its row from the top is ``(200 - y) // 20 - 1`` for a
bottom-left corner ``y``). Names follow meaning, not the released keys: the released newer format
calls the key ``pin`` and the lock ``key`` (the older one ``key`` and ``lock``); the reader maps
both onto :attr:`Frame.key` and :attr:`Frame.lock`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

CELL = 20  # px per grid cell (bib spec: walls are [[x, y], [20, 20]])
GRID = 10  # cells per side, border ring included (bib spec: 8 x 8 interior)
FRAME_SIZE = (200, 200)  # px (bib paper: 200 x 200 videos)
FPS = 25  # bib paper
N_FAMILIARIZATION = 8  # bib paper: 8 familiarization trials, then 1 test trial
N_TRIALS = N_FAMILIARIZATION + 1


@dataclass(frozen=True)
class Block:
    """A wall or barrier cell: bottom-left corner and size in px (``[[x, y], [w, h]]``)."""

    x: int
    y: int
    width: int = CELL
    height: int = CELL

    @property
    def cell(self) -> tuple[int, int]:
        """(column, row-from-bottom) of the cell this block's bottom-left corner is in."""
        return int(self.x // CELL), int(self.y // CELL)


@dataclass(frozen=True)
class Sprite:
    """An icon: objects, the agent, home, key, lock (``[[x, y], half, image_path, [r, g, b]]``)."""

    x: float
    y: float
    half: float
    shape: str
    color: tuple[int, int, int]

    @property
    def center(self) -> tuple[float, float]:
        return self.x + self.half, self.y + self.half

    @property
    def cell(self) -> tuple[int, int]:
        """(column, row-from-bottom) of the cell holding the icon's centre."""
        cx, cy = self.center
        return int(cx // CELL), int(cy // CELL)

    @property
    def name(self) -> str:
        """The shape's short name: ``./shapes/train/objects/heart.png`` -> ``heart``."""
        return self.shape.rsplit("/", 1)[-1].removesuffix(".png")


@dataclass(frozen=True)
class Frame:
    """One video frame's state, as in one per-frame dict of the released JSON."""

    walls: tuple[Block, ...]
    objects: tuple[Sprite, ...]
    agent: Sprite | None
    home: Sprite | None = None
    fuse_walls: tuple[Block, ...] = ()
    key: tuple[Sprite, ...] = ()
    lock: tuple[Sprite, ...] = ()
    blocking: tuple[Block, ...] = ()
    size: tuple[int, int] = FRAME_SIZE


@dataclass(frozen=True, eq=False)
class Run:
    """Consecutive frames that differ only in where the agent is (and a key it carries).

    Frame ``i`` of the run is ``template`` with the agent's bottom-left corner at ``xy[i]``;
    with ``key_offset``, the carried key's corner is the agent's plus that offset. Generators
    build trials as runs: a trial is then a few templates and an integer array instead of
    hundreds of Frame objects, which writers and validators use as they are.
    """

    template: Frame  # the run's first frame (it has an agent)
    xy: np.ndarray  # (frames, 2) int64: the agent's bottom-left corner in each frame
    key_offset: tuple[int, int] | None = None

    def __len__(self) -> int:
        return len(self.xy)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Run):
            return NotImplemented
        return (self.template == other.template and self.key_offset == other.key_offset
                and np.array_equal(self.xy, other.xy))

    __hash__ = None  # type: ignore[assignment]  # holds an array: not hashable

    def frame(self, i: int) -> Frame:
        """Frame ``i`` of the run (a new object)."""
        x, y = self.xy[i].tolist()
        return self._moved(x, y)

    def frames(self) -> list[Frame]:
        """The run's frames; frames in equal states are one object, which the video draws
        once (drawing and encoding a video ~9 % faster: benchmarks/bib_data_model.py)."""
        by_xy: dict[tuple[int, int], Frame] = {}
        out = []
        for x, y in self.xy.tolist():
            frame = by_xy.get((x, y))
            if frame is None:
                frame = by_xy[(x, y)] = self._moved(x, y)
            out.append(frame)
        return out

    def _moved(self, x: int, y: int) -> Frame:
        """The template with the agent's corner at (x, y) (and a carried key with it)."""
        agent = self.template.agent
        assert agent is not None
        changes = {"agent": Sprite(x, y, agent.half, agent.shape, agent.color)}
        if self.key_offset is not None:
            key = self.template.key[0]
            dx, dy = self.key_offset
            changes["key"] = (Sprite(x + dx, y + dy, key.half, key.shape, key.color),)
        return replace(self.template, **changes)


class Trial:
    """One trial: the frames from the agent leaving home to holding at its goal.

    Built from a list of frames (readers, hand-made trials) or from :class:`Run` s
    (generators). ``frames`` always works: for a trial built from runs it makes the frames on
    first use, and from then on that list is the trial (it may be edited) and ``runs`` is None.
    """

    __slots__ = ("_frames", "_runs", "_length")

    def __init__(self, frames: list[Frame] | None = None, *,
                 runs: Sequence[Run] | None = None) -> None:
        if (frames is None) == (runs is None):
            raise TypeError("Trial needs frames or runs (exactly one of them)")
        self._frames = frames
        self._runs = tuple(runs) if runs is not None else None
        self._length = sum(len(r) for r in self._runs) if self._runs is not None else 0

    @property
    def frames(self) -> list[Frame]:
        if self._frames is None:
            frames: list[Frame] = []
            for run in self._runs or ():
                frames += run.frames()
            self._frames, self._runs = frames, None
        return self._frames

    @property
    def runs(self) -> tuple[Run, ...] | None:
        """The compact form while the trial has not been expanded into frames, else None."""
        return self._runs

    def __len__(self) -> int:
        return self._length if self._runs is not None else len(self.frames)

    def iter_frames(self) -> Iterator[Frame]:
        """The frames, one by one, without expanding a trial built from runs for good."""
        if self._runs is None:
            yield from self.frames
        else:
            for run in self._runs:
                yield from run.frames()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trial):
            return NotImplemented
        if self is other:
            return True
        if len(self) != len(other):
            return False
        if self._runs is not None and other._runs is not None and self._runs == other._runs:
            return True
        return all(a == b for a, b in zip(self.iter_frames(), other.iter_frames(), strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        form = f"{len(self._runs)} runs" if self._runs is not None else "frames"
        return f"Trial({len(self)} frames as {form})"

    @property
    def agent_path(self) -> list[tuple[float, float] | None]:
        """The agent's centre in each frame (None where a file omits the agent)."""
        return [f.agent.center if f.agent is not None else None for f in self.frames]


@dataclass
class Episode:
    """Eight familiarization trials and one test trial, from one ``*e.json`` / ``*u.json`` file.

    ``expected`` is True for ``e`` files, False for ``u`` files, None when unknown (a file
    whose name does not say). ``task`` is the sub-evaluation or training task folder name.
    """

    trials: list[Trial]
    name: str = ""
    task: str | None = None
    expected: bool | None = None
    meta: dict = field(default_factory=dict)

    @property
    def familiarization(self) -> list[Trial]:
        return self.trials[:N_FAMILIARIZATION]

    @property
    def test(self) -> Trial:
        return self.trials[N_FAMILIARIZATION]

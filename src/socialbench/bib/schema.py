"""Typed BIB episodes: what readers produce, generators build and observers consume.

Coordinates are the released files' pixels: origin bottom-left, y up, 200 x 200 px, 20-px cells
(a cell's column is ``x // 20``; its row from the top is ``(200 - y) // 20 - 1`` for a
bottom-left corner ``y``). Names follow meaning, not the released keys: the released newer format
calls the key ``pin`` and the lock ``key`` (the older one ``key`` and ``lock``); the reader maps
both onto :attr:`Frame.key` and :attr:`Frame.lock`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass
class Trial:
    """One trial: the frames from the agent leaving home to holding at its goal."""

    frames: list[Frame]

    def __len__(self) -> int:
        return len(self.frames)

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

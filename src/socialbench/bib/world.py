"""The BIB grid world: layouts (walls, free cells, jittered icons) and their conversion to frames.

A 10 x 10 grid of 20-px cells; the outer ring is wall, so the 8 x 8 interior (cells 1..8 on each
axis) is where everything happens (bib spec). Cells are ``(column, row-from-bottom)``; pixels
are the released files' (origin bottom-left, y up). A :class:`Layout` is what stays fixed during
one trial; the task recipes in :mod:`socialbench.bib.tasks` make layouts, and
:mod:`socialbench.bib.tasks.base` turns a layout plus the agent's route into a typed trial.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from socialbench.bib import style
from socialbench.bib.schema import CELL, GRID
from socialbench.bib.shapes import HOME_PATH, KEY_PATH, LOCK_PATH, ShapeSet
from socialbench.core.grid_planning import distances_from, flood, segment_clear

Cell = tuple[int, int]
Point = tuple[float, float]

INTERIOR = tuple((c, r) for r in range(1, GRID - 1) for c in range(1, GRID - 1))
AGENT_HALF = 6  # bib spec: the agent's entry has s = 6 (12-px icon)
OBJECT_HALF = 9  # bib spec: objects 9 -> 18 px
HOME_HALF = 6  # bib real samples: home has the agent's size, under its start
KEY_HALF = 6  # ours: the released key/lock sizes are not in the samples
LOCK_HALF = 8  # ours
HOME_COLOR = (255, 105, 180)  # bib spec: pink home
KEY_COLOR = (255, 215, 0)  # ours
LOCK_COLOR = (139, 69, 19)  # ours
# Off-centre placement of icons in their cell, in px, in the tidy style (style.TIDY): an icon's
# centre within 4 px of its cell's centre, so the agent (half-side 6) standing on any placement
# stays inside its free cell. The released style reaches farther (:func:`place`).
JITTER_PX = 4
# Icon colours of the tidy style (ours); none is pink (home), black (walls), green (barrier) or
# white (background). The released style uses style.RELEASED_*_COLORS.
PALETTE: tuple[tuple[int, int, int], ...] = (
    (245, 222, 179), (0, 255, 255), (0, 0, 128), (255, 0, 0), (0, 0, 255), (255, 165, 0),
    (128, 0, 128), (165, 42, 42), (128, 128, 128), (255, 255, 0), (0, 128, 128),
    (255, 0, 255), (70, 130, 180), (210, 105, 30), (128, 128, 0), (220, 20, 60),
)


def border_cells() -> list[Cell]:
    """The ring in the released order: left column, bottom row, right column, top row.

    Real samples: left ``y = 0..160``, bottom ``x = 0..180``, right ``y = 20..160``, top
    ``x = 0..180`` (so ``(0, 0)`` appears twice, as released).
    """
    left = [(0, r) for r in range(GRID - 1)]
    bottom = [(c, 0) for c in range(GRID)]
    right = [(GRID - 1, r) for r in range(1, GRID - 1)]
    top = [(c, GRID - 1) for c in range(GRID)]
    return left + bottom + right + top


BORDER = tuple(border_cells())


@dataclass(frozen=True)
class Icon:
    """A placed icon: centre in px (integers), half-side, image path and colour."""

    centre: tuple[int, int]
    half: int
    path: str
    color: tuple[int, int, int]

    @property
    def cell(self) -> Cell:
        return self.centre[0] // CELL, self.centre[1] // CELL

    def at(self, centre: tuple[int, int]) -> Icon:
        return replace(self, centre=centre)


@dataclass(frozen=True)
class Layout:
    """What one trial shows besides the moving agent (and the carried key)."""

    walls: tuple[Cell, ...]  # random interior walls, in sampling order (the ring is added)
    home: tuple[int, int]  # the agent's start centre
    agent: Icon
    objects: tuple[Icon, ...] = ()
    fuse: tuple[Cell, ...] = ()  # the green removable barrier
    key: Icon | None = None
    lock: Icon | None = None

    def blocked(self, *, with_fuse: bool = True) -> np.ndarray:
        """``blocked[col, row]``: walls (ring included) and, optionally, the barrier."""
        return blocked_grid((*self.walls, *self.fuse) if with_fuse else self.walls)


_RING = np.zeros((GRID, GRID), dtype=bool)
_RING[[0, -1], :] = True
_RING[:, [0, -1]] = True
_RING.setflags(write=False)  # copied by every blocked grid (copying is cheaper than building)


def blocked_grid(cells: Iterable[Cell]) -> np.ndarray:
    """``blocked[col, row]``: the border ring and ``cells``."""
    grid = _RING.copy()
    for c in cells:
        grid[c] = True
    return grid


def cell_of(p: Point) -> Cell:
    return int(p[0] // CELL), int(p[1] // CELL)


def centre_of(c: Cell) -> tuple[int, int]:
    return c[0] * CELL + CELL // 2, c[1] * CELL + CELL // 2


def jittered(rng: np.random.Generator, c: Cell, jitter: int = JITTER_PX) -> tuple[int, int]:
    """A pixel centre in cell ``c``, off its centre by at most ``jitter`` px per axis."""
    x, y = centre_of(c)
    dx, dy = rng.integers(-jitter, jitter + 1, size=2)
    return int(x + dx), int(y + dy)


def place(rng: np.random.Generator, c: Cell, blocked: np.ndarray, half: int) -> tuple[int, int]:
    """A pixel centre for an icon of half-side ``half`` in free cell ``c``, in the current style.

    Tidy: :func:`jittered` (``blocked`` and ``half`` unused, the earlier draws exactly).
    Released: off the cell's centre by -reach..reach-1 px per axis (the real files' offsets span
    -10..9: a centre stays in its cell), uniformly among the offsets whose square overlaps no
    blocked cell (real icons never overlap a wall), so the agent can still reach it.
    """
    look = style.current()
    if look.name == style.TIDY.name:
        return jittered(rng, c)
    reach = look.home_reach if half <= HOME_HALF else look.object_reach  # home, key: small
    room = CELL // 2 - half  # px the square can move before leaving its cell
    # Per axis, the offsets that keep the square out of a blocked side neighbour.
    low = [-room if blocked[c[0] - (k == 0), c[1] - (k == 1)] else -reach for k in (0, 1)]
    high = [room if blocked[c[0] + (k == 0), c[1] + (k == 1)] else reach - 1 for k in (0, 1)]
    dx, dy = (int(v) for v in rng.integers(low, np.add(high, 1)))
    sx, sy = (1 if dx > 0 else -1), (1 if dy > 0 else -1)
    if abs(dx) > room and abs(dy) > room and blocked[c[0] + sx, c[1] + sy]:
        # Leaning into a blocked diagonal neighbour: the smaller lean gives way.
        if abs(dx) < abs(dy):
            dx = sx * room
        else:
            dy = sy * room
    x, y = centre_of(c)
    return x + dx, y + dy


def cells_under(centre: tuple[int, int], half: int) -> list[Cell]:
    """The cells a square of half-side ``half`` at ``centre`` overlaps (touching is not
    overlapping), its own cell first."""
    own = cell_of(centre)
    cols = range((centre[0] - half) // CELL, (centre[0] + half - 1) // CELL + 1)
    rows = range((centre[1] - half) // CELL, (centre[1] + half - 1) // CELL + 1)
    return [own, *((c, r) for c in cols for r in rows if (c, r) != own)]


def within_reach(home: Cell, blocked: np.ndarray, cells: Sequence[Cell], *,
                 start: Point | None = None) -> list[Cell]:
    """``cells`` the agent's walk from ``home`` takes about a real trial's time to (released
    style: :data:`REACH_CELLS` from home as the crow flies, and a path of at most
    :data:`REACH_PATH_CELLS`); all of them in the tidy style.

    Straight-line distance, not path cost, picks them: a band of path cost holds more cells
    along the axes than off them, and the walks it gives step along an axis more often than the
    real ones do (``benchmarks/bib_scene_stats.py``, steps column). Where the style asks
    (``view_slopes``, the released default), only those :func:`in_view` of ``start`` (the
    agent's start in px; default ``home``'s centre) when there are any."""
    if style.current().trial_frames is None:
        return list(cells)
    cost = _path_costs(np.ascontiguousarray(blocked, dtype=bool).tobytes(), home)
    low, high = REACH_CELLS
    reached = [c for c in cells if cost.get(c, math.inf) <= REACH_PATH_CELLS
               and low <= math.dist(c, home) <= high]
    if style.current().view_slopes is None:
        return reached
    return [c for c in reached if in_view(home, blocked, c, start)] or reached


def in_view(home: Cell, blocked: np.ndarray, c: Cell, start: Point | None = None) -> bool:
    """Whether the agent at ``start`` (default: ``home``'s centre) sees cell ``c``'s centre at a
    slant: its square moves there in a straight line touching no wall, and the line's slope
    (minor over major axis) lies in the style's ``view_slopes``.

    Why (docs/bib.md, "The agent's steps"): the real agent walks straight to its goal in 18 of
    30 trials, at slopes of 0.05-0.56, so 45 % of its 2-px steps run along an axis and 44 %
    slant. Objects drawn anywhere a walk's length away are hidden behind walls more often at a
    slant than along a row, column or diagonal (a slanted sweep crosses more cells): two walks
    in three then turn along corridors, and the straight ones mostly follow a row or column
    (56 % axis steps, 30 % slanted). Drawn in view at a slant, they walk straight about as often
    as the real ones and step in the real mix. The band is fitted to that mix (0.2-0.7 from the
    start to the cell's centre; the object's offset in its cell spreads the walk's own slope).
    """
    low, high = style.current().view_slopes or (0.0, 1.0)
    a = start if start is not None else centre_of(home)
    b = centre_of(c)
    minor, major = sorted((abs(b[0] - a[0]), abs(b[1] - a[1])))
    if not low * major <= minor <= high * major:
        return False
    return segment_clear(blocked, a, b, AGENT_HALF, CELL)


def path_cost(blocked: np.ndarray, start: Cell, goal: Cell) -> float:
    """The 8-connected path cost in cells from ``start`` to ``goal`` (inf when unreachable)."""
    cost = _path_costs(np.ascontiguousarray(blocked, dtype=bool).tobytes(), start)
    return cost.get(goal, math.inf)


@lru_cache(maxsize=256)
def _path_costs(grid: bytes, home: Cell) -> dict[Cell, float]:
    """:func:`distances_from` per blocked grid and start (cached, read only: a task asks for
    the same start's costs on the same walls for every trial)."""
    return distances_from(np.frombuffer(grid, dtype=bool).reshape(GRID, GRID), home)


# Cells from home to an object's cell that give a real trial's 21-45 moving frames at 2 px a
# frame (42-90 px walked, plus up to 12.5 px short of the centre and the offsets); trials that
# still come out shorter or longer are redrawn by the task.
REACH_CELLS = (2.5, 4.5)
REACH_PATH_CELLS = 5.5


def free_cells(blocked: np.ndarray, exclude: Iterable[Cell] = ()) -> list[Cell]:
    """Interior cells that are not blocked nor excluded, in a fixed order."""
    skip = set(exclude)
    grid = blocked.tolist()  # plain lists: numpy indexing per cell costs more than the test
    return [c for c in INTERIOR if not grid[c[0]][c[1]] and c not in skip]


def pick(rng: np.random.Generator, cells: Sequence[Cell]) -> Cell:
    if not cells:
        raise Resample("no free cell left")
    return cells[int(rng.integers(len(cells)))]


def connected(blocked: np.ndarray) -> bool:
    """True when every free cell can reach every other (axis moves suffice without corners)."""
    return _connected(_free_bits(blocked))


# Cell sets as bits of an int, cell (c, r) at bit c * GRID + r, for flood fills.
def _bit(c: Cell) -> int:
    return 1 << (c[0] * GRID + c[1])


_INTERIOR_BITS = sum(_bit(c) for c in INTERIOR)


def _free_bits(blocked: np.ndarray) -> int:
    """The free interior cells of a ``GRID x GRID`` blocked grid, as bits."""
    bits = np.packbits(~blocked.ravel(), bitorder="little").tobytes()
    return int.from_bytes(bits, "little") & _INTERIOR_BITS


def _connected(free: int) -> bool:
    """True when the interior cells in ``free`` form one 4-connected region (not none). Only
    interior bits are ever set: the ring keeps a flood from wrapping across an edge."""
    return bool(free) and flood(free, free & -free, GRID) == free


def random_walls(rng: np.random.Generator, count: int, keep_free: Iterable[Cell] = (),
                 base: np.ndarray | None = None) -> tuple[Cell, ...]:
    """``count`` random interior wall cells leaving the free space connected.

    Cells in ``keep_free`` stay free; ``base`` (a blocked grid) marks cells already walled.
    Cells that would cut the free space in two are skipped, so fewer may come back.
    """
    grid = base if base is not None else blocked_grid(())
    free = _free_bits(grid)
    keep = set(keep_free)
    candidates = [c for c in free_cells(grid) if c not in keep]
    order = rng.permutation(len(candidates))
    walls: list[Cell] = []
    for i in order:
        if len(walls) >= count:
            break
        c = candidates[int(i)]
        if _connected(free & ~_bit(c)):
            walls.append(c)
            free &= ~_bit(c)
    return tuple(walls)


def ring(c: Cell) -> list[Cell]:
    """The interior cells among the 8 around ``c``, in a fixed order."""
    out = []
    for dy in (1, 0, -1):
        for dx in (-1, 0, 1):
            n = (c[0] + dx, c[1] + dy)
            if (dx or dy) and 1 <= n[0] <= GRID - 2 and 1 <= n[1] <= GRID - 2:
                out.append(n)
    return out


class Resample(Exception):  # noqa: N818 - a signal, not an error
    """A sampled layout breaks a design constraint: draw again (the next attempt's seed)."""


@dataclass(frozen=True)
class Looks:
    """The shapes and colours of one episode: all distinct within it."""

    objects: tuple[tuple[str, tuple[int, int, int]], ...]  # (image path, colour)
    agents: tuple[tuple[str, tuple[int, int, int]], ...]


def sample_looks(rng: np.random.Generator, shapes: ShapeSet, n_objects: int,
                 n_agents: int = 1) -> Looks:
    """Distinct object shapes, distinct agent shapes, and distinct colours for all of them.

    Released style: objects and agents from their own named palettes (style module); tidy: one
    shared palette."""
    obj = rng.choice(len(shapes.objects), size=n_objects, replace=False)
    ags = rng.choice(len(shapes.agents), size=n_agents, replace=False)
    if style.current().released_colors:
        objs = rng.choice(len(style.RELEASED_OBJECT_COLORS), size=n_objects, replace=False)
        agts = rng.choice(len(style.RELEASED_AGENT_COLORS), size=n_agents, replace=False)
        colours = [*(style.RELEASED_OBJECT_COLORS[int(i)] for i in objs),
                   *(style.RELEASED_AGENT_COLORS[int(i)] for i in agts)]
    else:
        cols = rng.choice(len(PALETTE), size=n_objects + n_agents, replace=False)
        colours = [PALETTE[int(i)] for i in cols]
    return Looks(
        objects=tuple((shapes.object_path(shapes.objects[int(i)]), colours[k])
                      for k, i in enumerate(obj)),
        agents=tuple((shapes.agent_path(shapes.agents[int(i)]), colours[n_objects + k])
                     for k, i in enumerate(ags)),
    )


def agent_icon(look: tuple[str, tuple[int, int, int]], centre: tuple[int, int]) -> Icon:
    return Icon(centre, AGENT_HALF, look[0], look[1])


def object_icon(look: tuple[str, tuple[int, int, int]], centre: tuple[int, int]) -> Icon:
    return Icon(centre, OBJECT_HALF, look[0], look[1])


def home_icon(centre: tuple[int, int]) -> Icon:
    return Icon(centre, HOME_HALF, HOME_PATH, HOME_COLOR)


def key_icon(centre: tuple[int, int]) -> Icon:
    return Icon(centre, KEY_HALF, KEY_PATH, KEY_COLOR)


def lock_icon(centre: tuple[int, int]) -> Icon:
    return Icon(centre, LOCK_HALF, LOCK_PATH, LOCK_COLOR)


def near(c: Cell, radius: int, blocked: np.ndarray, exclude: Iterable[Cell] = ()) -> list[Cell]:
    """Free interior cells within Chebyshev distance ``radius`` of ``c`` (``c`` included)."""
    return _unblocked(_within(c, radius, True), blocked, exclude)


def far(c: Cell, radius: int, blocked: np.ndarray, exclude: Iterable[Cell] = ()) -> list[Cell]:
    """Free interior cells at Chebyshev distance ``radius`` or more from ``c``."""
    return _unblocked(_within(c, radius, False), blocked, exclude)


@lru_cache(maxsize=4096)
def _within(c: Cell, radius: int, inside: bool) -> tuple[Cell, ...]:
    """Interior cells, in order, at Chebyshev distance <= ``radius`` from ``c`` (``inside``)
    or >= ``radius`` (not ``inside``): the same few centres and radii recur (cached)."""
    dist = [max(abs(n[0] - c[0]), abs(n[1] - c[1])) for n in INTERIOR]
    return tuple(n for n, d in zip(INTERIOR, dist, strict=True)
                 if (d <= radius if inside else d >= radius))


def _unblocked(cells: Iterable[Cell], blocked: np.ndarray, exclude: Iterable[Cell]) -> list[Cell]:
    skip = set(exclude)
    grid = blocked.tolist()  # plain lists: numpy indexing per cell costs more than the test
    return [n for n in cells if not grid[n[0]][n[1]] and n not in skip]


def wall_count(rng: np.random.Generator, low: int = 4, high: int = 12, *, taken: int = 0) -> int:
    """How many random interior walls a layout gets.

    Tidy: ``low``-``high``. Released: the real files' 8-16 interior wall cells, less ``taken``
    (interior walls a task has already placed, e.g. the efficiency barrier)."""
    released = style.current().walls
    if released is not None:
        low, high = max(0, released[0] - taken), max(0, released[1] - taken)
    return int(rng.integers(low, high + 1))

"""Shortest paths on a grid of square cells, and their any-angle smoothing.

The grid is a boolean array ``blocked[col, row]`` (True = wall). Moves go to the 8 neighbours;
an axis move costs 1 and a diagonal sqrt(2) (BIB paper: 8 actions; a published BIB
re-implementation: A* over 8 directions, diagonal cost sqrt(2)). A diagonal move is allowed only
when both cells it passes between are free, so a path never cuts a wall's corner.

:func:`smooth` then replaces runs of waypoints by straight segments wherever a square of a given
half-side, swept along the segment, overlaps no wall: an agent moving along the result never
touches a wall, and the result is never longer than the cell path it came from.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

Cell = tuple[int, int]
Point = tuple[float, float]

SQRT2 = math.sqrt(2.0)
_MOVES: tuple[tuple[int, int, float], ...] = (
    (1, 0, 1.0), (-1, 0, 1.0), (0, 1, 1.0), (0, -1, 1.0),
    (1, 1, SQRT2), (1, -1, SQRT2), (-1, 1, SQRT2), (-1, -1, SQRT2),
)


def _octile(a: Cell, b: Cell) -> float:
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return max(dx, dy) + (SQRT2 - 1.0) * min(dx, dy)


def _free(blocked: np.ndarray, c: Cell) -> bool:
    return 0 <= c[0] < blocked.shape[0] and 0 <= c[1] < blocked.shape[1] and not blocked[c]


def neighbours(blocked: np.ndarray, c: Cell) -> list[tuple[Cell, float]]:
    """The cells one move from ``c`` (no corner cutting) with the move's cost."""
    out = []
    for dx, dy, cost in _MOVES:
        n = (c[0] + dx, c[1] + dy)
        if not _free(blocked, n):
            continue
        if dx and dy and not (_free(blocked, (c[0] + dx, c[1])) and
                              _free(blocked, (c[0], c[1] + dy))):
            continue
        out.append((n, cost))
    return out


@lru_cache(maxsize=512)
def _graph(key: bytes, shape: tuple[int, int]) -> dict[Cell, tuple[tuple[Cell, float], ...]]:
    """Every free cell's legal moves, for one grid (cached: trials re-plan on the same walls)."""
    blocked = np.frombuffer(key, dtype=bool).reshape(shape)
    # Free-ness of every cell with a blocked rim, so a move's cells need no bounds check; the
    # same moves, in the same order, as :func:`neighbours` (a plain list: numpy indexing per
    # cell costs more than the lookups themselves).
    free = np.pad(~blocked, 1).tolist()
    moves: dict[Cell, tuple[tuple[Cell, float], ...]] = {}
    for x, y in zip(*np.nonzero(~blocked), strict=True):
        x, y = int(x), int(y)
        fx, fy = x + 1, y + 1  # indices into the padded grid
        moves[(x, y)] = tuple(
            ((x + dx, y + dy), cost) for dx, dy, cost in _MOVES
            if free[fx + dx][fy + dy] and (not (dx and dy) or (free[fx + dx][fy]
                                                               and free[fx][fy + dy])))
    return moves


def graph(blocked: np.ndarray) -> dict[Cell, tuple[tuple[Cell, float], ...]]:
    grid = np.ascontiguousarray(blocked, dtype=bool)
    return _graph(grid.tobytes(), grid.shape)


@lru_cache(maxsize=512)
def _steps(key: bytes, shape: tuple[int, int]) -> tuple[tuple[tuple[int, float], ...], ...]:
    """Every cell's legal moves as (index offset, cost), for :func:`astar` (cached per grid).

    Cells are indices into the grid padded by a blocked rim, ``(x + 1) * (h + 2) + (y + 1)``:
    index order is ``(x, y)`` order, so A*'s heap ties break exactly as with cell tuples. A
    cell's moves depend only on which of its 8 neighbours are free, so one numpy pass gives
    each cell an 8-bit code of its legal moves (bit k: ``_MOVES[k]``) and a table shared by
    all grids turns codes into moves, in :func:`neighbours`' order.
    """
    free = np.pad(~np.frombuffer(key, dtype=bool).reshape(shape), 1).ravel()
    need, table = _move_layout(shape)
    # A move is legal when its cell is free and so are the cells it needs free.
    legal = free[need].all(axis=0) & free
    codes = np.packbits(legal, axis=0, bitorder="little")[0]
    return tuple(map(table.__getitem__, codes.tolist()))


@lru_cache(maxsize=8)
def _move_layout(shape: tuple[int, int]) -> tuple[np.ndarray, tuple]:
    """For a grid shape: the padded-grid indices each move needs free, ``need[3, 8, cells]``
    (its target, and the two cells a diagonal passes between; an axis move repeats its
    target), and for each 8-bit code its moves as (index offset, cost), in ``_MOVES`` order.
    Indices off the padded grid are clipped: only rim cells have them, and a rim cell is
    never free."""
    stride = shape[1] + 2
    cells = np.arange((shape[0] + 2) * stride)
    offsets = [[dx * stride + dy, dx * stride, dy] if dx and dy else [dx * stride + dy] * 3
               for dx, dy, _ in _MOVES]
    need = np.clip(cells[None, None, :] + np.array(offsets).T[:, :, None], 0, len(cells) - 1)
    table = tuple(tuple((dx * stride + dy, cost) for bit, (dx, dy, cost) in enumerate(_MOVES)
                        if code >> bit & 1) for code in range(256))
    return need, table


@lru_cache(maxsize=1024)
def _octile_to(goal: Cell, shape: tuple[int, int]) -> tuple[float, ...]:
    """:func:`_octile` from every padded-grid index to ``goal`` (the same floats, cached)."""
    return tuple(_octile((x - 1, y - 1), goal)
                 for x in range(shape[0] + 2) for y in range(shape[1] + 2))


def astar(blocked: np.ndarray, start: Cell, goal: Cell) -> list[Cell] | None:
    """A shortest 8-connected cell path from ``start`` to ``goal`` (both included), or None.

    Ties are broken by the cells' coordinates, so the same grid always gives the same path.
    """
    if not (_free(blocked, start) and _free(blocked, goal)):
        return None
    grid = np.ascontiguousarray(blocked, dtype=bool)
    steps = _steps(grid.tobytes(), grid.shape)
    heuristic = _octile_to(goal, grid.shape)
    stride = grid.shape[1] + 2
    source = (start[0] + 1) * stride + start[1] + 1
    target = (goal[0] + 1) * stride + goal[1] + 1
    # Flat lists over padded-grid indices instead of dicts and sets of tuples: same search.
    best = [math.inf] * len(steps)
    best[source] = 0.0
    parent = [-1] * len(steps)
    closed = [False] * len(steps)
    heap: list[tuple[float, float, int]] = [(heuristic[source], 0.0, source)]
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        _, g, cell = pop(heap)
        if closed[cell]:
            continue
        if cell == target:
            path = [cell]
            while parent[cell] >= 0:
                cell = parent[cell]
                path.append(cell)
            return [(c // stride - 1, c % stride - 1) for c in reversed(path)]
        closed[cell] = True
        for offset, cost in steps[cell]:
            nxt = cell + offset
            ng = g + cost
            if ng < best[nxt] - 1e-9:
                best[nxt] = ng
                parent[nxt] = cell
                push(heap, (ng + heuristic[nxt], ng, nxt))
    return None


def reachable(blocked: np.ndarray, start: Cell, goal: Cell) -> bool:
    """Whether :func:`astar` finds a path, without searching for a shortest one.

    A legal diagonal move has both cells beside it free, so two axis moves can replace it: the
    cells A* reaches are those joined by axis moves, which a flood fill over bits finds.
    """
    if not (_free(blocked, start) and _free(blocked, goal)):
        return False
    grid = np.ascontiguousarray(blocked, dtype=bool)
    stride = grid.shape[1] + 2
    region = flood(_free_bits(grid.tobytes(), grid.shape),
                   1 << ((start[0] + 1) * stride + start[1] + 1), stride)
    return bool(region >> ((goal[0] + 1) * stride + goal[1] + 1) & 1)


@lru_cache(maxsize=512)
def _free_bits(key: bytes, shape: tuple[int, int]) -> int:
    """A grid's free cells as bits, at their padded-grid indices (a blocked rim: no flood
    wraps around an edge). Cached: recipes check several legs on one grid."""
    free = np.pad(~np.frombuffer(key, dtype=bool).reshape(shape), 1)
    return int.from_bytes(np.packbits(free.ravel(), bitorder="little").tobytes(), "little")


def flood(free: int, seed: int, stride: int) -> int:
    """The cells of ``free`` joined to ``seed`` by axis moves; cell sets are bits, ``stride``
    apart per column. A whole front moves per step (shifts by 1 and by ``stride``): the caller
    keeps a blocked rim out of ``free`` so no shift carries a cell across a grid edge."""
    region = seed & free
    while True:
        grown = (region | region << 1 | region >> 1 | region << stride | region >> stride) & free
        if grown == region:
            return region
        region = grown


def distances_from(blocked: np.ndarray, start: Cell) -> dict[Cell, float]:
    """Shortest 8-connected path cost from ``start`` to every reachable cell (Dijkstra)."""
    if not _free(blocked, start):
        return {}
    moves = graph(blocked)
    dist = {start: 0.0}
    heap = [(0.0, start)]
    while heap:
        d, cell = heapq.heappop(heap)
        if d > dist[cell] + 1e-9:
            continue
        for nxt, cost in moves[cell]:
            if d + cost < dist.get(nxt, math.inf) - 1e-9:
                dist[nxt] = d + cost
                heapq.heappush(heap, (d + cost, nxt))
    return dist


def cell_path_cost(path: Sequence[Cell]) -> float:
    """The 8-connected cost of a cell path (1 per axis move, sqrt(2) per diagonal)."""
    return sum(SQRT2 if (a[0] != b[0] and a[1] != b[1]) else 1.0
               for a, b in zip(path, path[1:], strict=False))


def polyline_length(points: Sequence[Point]) -> float:
    return sum(math.dist(a, b) for a, b in zip(points, points[1:], strict=False))


def segment_clear(blocked: np.ndarray, a: Point, b: Point, half: float, cell: float) -> bool:
    """True when a square of half-side ``half`` moved from ``a`` to ``b`` overlaps no wall.

    Points are pixel centres; cell ``(i, j)`` covers ``[i*cell, (i+1)*cell) x [j*cell, ...)``.
    The swept square overlaps a wall exactly when the segment enters the wall's rectangle grown
    by ``half`` on every side (touching its edge is allowed).
    """
    return _clear(_columns(blocked), blocked.shape[1], a, b, half, cell)


def _columns(blocked: np.ndarray) -> tuple[int, ...]:
    """Each column of a blocked grid as bits (row ``j`` at bit ``j``)."""
    grid = np.ascontiguousarray(blocked, dtype=bool)
    return _columns_of(grid.tobytes(), grid.shape)


@lru_cache(maxsize=512)
def _columns_of(key: bytes, shape: tuple[int, int]) -> tuple[int, ...]:
    """:func:`_columns` per grid (cached: a grid is smoothed on for several legs)."""
    packed = np.packbits(np.frombuffer(key, dtype=bool).reshape(shape), axis=1,
                         bitorder="little")
    return tuple(int.from_bytes(column.tobytes(), "little") for column in packed)


def _clear(columns: Sequence[int], height: int, a: Point, b: Point, half: float,
           cell: float) -> bool:
    """:func:`segment_clear` on :func:`_columns` of a grid ``height`` rows high, with
    :func:`segment_enters_box`'s slab test inlined (the same float operations): smoothing
    calls it thousands of times."""
    lo_i = max(int((min(a[0], b[0]) - half) // cell), 0)
    hi_i = min(int((max(a[0], b[0]) + half) // cell), len(columns) - 1)
    lo_j = max(int((min(a[1], b[1]) - half) // cell), 0)
    hi_j = min(int((max(a[1], b[1]) + half) // cell), height - 1)
    if lo_i > hi_i or lo_j > hi_j:
        return True
    window = (2 << hi_j) - (1 << lo_j)  # bits lo_j..hi_j
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    for i in range(lo_i, hi_i + 1):
        walls = columns[i] & window
        if not walls:
            continue
        # The x slab is the same for a whole column of boxes.
        x0, x1 = i * cell - half, (i + 1) * cell + half
        if abs(dx) <= 0.0:
            if not x0 < ax < x1:
                continue
            t_lo, t_hi = 0.0, 1.0
        else:
            t0, t1 = (x0 - ax) / dx, (x1 - ax) / dx
            if t0 > t1:
                t0, t1 = t1, t0
            t_lo, t_hi = max(0.0, t0), min(1.0, t1)
            if t_hi - t_lo <= 1e-9:
                continue
        while walls:
            j = (walls & -walls).bit_length() - 1  # the lowest wall left
            walls &= walls - 1
            y0, y1 = j * cell - half, (j + 1) * cell + half
            if abs(dy) <= 0.0:
                if y0 < ay < y1:
                    return False
                continue
            t0, t1 = (y0 - ay) / dy, (y1 - ay) / dy
            if t0 > t1:
                t0, t1 = t1, t0
            if min(t_hi, t1) - max(t_lo, t0) > 1e-9:
                return False
    return True


def segment_enters_box(a: Point, dx: float, dy: float,
                       x0: float, x1: float, y0: float, y1: float, *,
                       parallel_eps: float = 0.0, min_overlap: float = 1e-9) -> bool:
    """Slab test: does ``a + t*(dx, dy)``, t in [0, 1], meet the open box's interior?

    A direction component within ``parallel_eps`` of 0 counts as parallel to that slab; a
    crossing shorter than ``min_overlap`` (in t) counts as grazing, not entering.
    """
    t_lo, t_hi = 0.0, 1.0
    for start, delta, lo, hi in ((a[0], dx, x0, x1), (a[1], dy, y0, y1)):
        if abs(delta) <= parallel_eps:
            if not lo < start < hi:
                return False
            continue
        t0, t1 = (lo - start) / delta, (hi - start) / delta
        if t0 > t1:
            t0, t1 = t1, t0
        t_lo, t_hi = max(t_lo, t0), min(t_hi, t1)
        if t_hi - t_lo <= min_overlap:
            return False
    return True


def smooth(points: Sequence[Point], blocked: np.ndarray, half: float,
           cell: float) -> list[Point]:
    """Greedy any-angle shortening: from each kept point, jump to the farthest visible one.

    ``points`` must itself be wall-free segment by segment (a cell-centre path is); the result
    keeps the first and last point and only straight segments that pass :func:`segment_clear`.
    """
    pts = list(points)
    if len(pts) <= 2:
        return pts
    columns, height = _columns(blocked), blocked.shape[1]
    out = [pts[0]]
    i = 0
    while i < len(pts) - 1:
        j = len(pts) - 1
        while j > i + 1 and not _clear(columns, height, pts[i], pts[j], half, cell):
            j -= 1
        out.append(pts[j])
        i = j
    return out


def cell_of(point: Point, cell: float) -> Cell:
    return int(point[0] // cell), int(point[1] // cell)


def cell_centre(c: Cell, cell: float) -> Point:
    return c[0] * cell + cell / 2, c[1] * cell + cell / 2


def plan_points(blocked: np.ndarray, start: Point, goal: Point, *, half: float,
                cell: float) -> list[Point] | None:
    """The smoothed waypoints (start and goal included) of a shortest path between two pixels.

    The path runs through the centres of a shortest cell path from ``start``'s cell to
    ``goal``'s cell; both pixels must lie in free cells, far enough inside that a square of
    half-side ``half`` around them touches no wall. None when the goal cannot be reached.
    """
    cells = astar(blocked, cell_of(start, cell), cell_of(goal, cell))
    if cells is None:
        return None
    # Through every cell's centre, the start's and goal's too: the pixels sit off-centre, and a
    # hop from them straight to the next cell could clip a wall. Smoothing drops what is not
    # needed.
    raw = [start, *(cell_centre(c, cell) for c in cells), goal]
    return _dedupe(smooth(_dedupe(raw), blocked, half, cell))


def _dedupe(points: Sequence[Point]) -> list[Point]:
    out: list[Point] = []
    for p in points:
        if not out or out[-1] != p:
            out.append(p)
    return out

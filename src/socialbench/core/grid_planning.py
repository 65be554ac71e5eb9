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


def astar(blocked: np.ndarray, start: Cell, goal: Cell) -> list[Cell] | None:
    """A shortest 8-connected cell path from ``start`` to ``goal`` (both included), or None.

    Ties are broken by the cells' coordinates, so the same grid always gives the same path.
    """
    if not (_free(blocked, start) and _free(blocked, goal)):
        return None
    moves = graph(blocked)
    best = {start: 0.0}
    parent: dict[Cell, Cell] = {}
    heap: list[tuple[float, float, Cell]] = [(_octile(start, goal), 0.0, start)]
    closed: set[Cell] = set()
    while heap:
        _, g, cell = heapq.heappop(heap)
        if cell in closed:
            continue
        if cell == goal:
            path = [cell]
            while cell in parent:
                cell = parent[cell]
                path.append(cell)
            return path[::-1]
        closed.add(cell)
        for nxt, cost in moves[cell]:
            ng = g + cost
            if ng < best.get(nxt, math.inf) - 1e-9:
                best[nxt] = ng
                parent[nxt] = cell
                heapq.heappush(heap, (ng + _octile(nxt, goal), ng, nxt))
    return None


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
    lo_i = max(int((min(a[0], b[0]) - half) // cell), 0)
    hi_i = min(int((max(a[0], b[0]) + half) // cell), blocked.shape[0] - 1)
    lo_j = max(int((min(a[1], b[1]) - half) // cell), 0)
    hi_j = min(int((max(a[1], b[1]) + half) // cell), blocked.shape[1] - 1)
    if lo_i > hi_i or lo_j > hi_j:
        return True
    window = blocked[lo_i:hi_i + 1, lo_j:hi_j + 1]
    if not window.any():
        return True
    dx, dy = b[0] - a[0], b[1] - a[1]
    for i, j in zip(*np.nonzero(window), strict=True):
        x0, x1 = (lo_i + i) * cell - half, (lo_i + i + 1) * cell + half
        y0, y1 = (lo_j + j) * cell - half, (lo_j + j + 1) * cell + half
        if segment_enters_box(a, dx, dy, x0, x1, y0, y1):
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
    out = [pts[0]]
    i = 0
    while i < len(pts) - 1:
        j = len(pts) - 1
        while j > i + 1 and not segment_clear(blocked, pts[i], pts[j], half, cell):
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

"""BIPaCK's planner: the least-cost path over a :class:`Terrain`, walking or jumping.

Our documented equivalent of the paper's RRT*: a graph over the height field's walkable cells
with walking edges (16 neighbours: lifting only up ramps) and jump edges (16 directions, 0.3-2.0 m,
only over something: a wall, a chasm, or onto a platform). A jump may pass over walls and chasms
but lands only on a walkable cell, never on a wall's top or in a chasm. Every edge carries its
horizontal length and the height it lifts the agent (a jump: the highest surface under it above
the take-off, a clearance and a hop), so the cost under a hypothesis ``w_v`` is
``length + w_v * lift`` (agent spec: C = f_horizontal + w_v f_vertical) and one Dijkstra search
per ``w_v`` gives the exact least-cost path on the graph. On these scenes the graph is exact up to
the grid (0.1 m) where RRT* is only asymptotically optimal, and it costs milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from socialbench.observers.agent.bipack.terrain import CHASM, STEP, WALL, Terrain

JUMP_CLEARANCE = 0.05  # the agent's bottom clears what it jumps over by this much (metres)
HOP = 0.05  # every jump lifts the agent at least this much, so needless jumps cost
MAX_JUMP_HEIGHT = 0.65  # the highest wall the agent's impulse can clear (physics prior)
MAX_CLIMB = 0.85  # the highest top it can jump onto (a platform)
JUMP_DIRECTIONS = 16
JUMP_LENGTHS = np.arange(0.3, 2.01, 0.1)
REACH = 0.35  # the agent reaches a goal when its centre is this close (horizontally)

_WALK = [(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1),
         (2, 1), (1, 2), (-1, 2), (-2, 1), (-2, -1), (-1, -2), (1, -2), (2, -1)]


@dataclass(frozen=True)
class Graph:
    """Edges over the terrain's cells (flat indices): lengths and lifts kept apart."""

    terrain: Terrain
    src: np.ndarray
    dst: np.ndarray
    length: np.ndarray
    lift: np.ndarray
    jump: np.ndarray  # bool per edge

    def edge_ids(self) -> csr_matrix:
        """Edge index + 1 by (source, destination) cell."""
        n = self.terrain.height.size
        return csr_matrix((np.arange(1, self.src.size + 1), (self.src, self.dst)), shape=(n, n))

    def weights(self, w_v: float) -> csr_matrix:
        n = self.terrain.height.size
        return csr_matrix((self.length + w_v * self.lift + 1e-9, (self.src, self.dst)),
                          shape=(n, n))


def build_graph(terrain: Terrain) -> Graph:
    """Walking and jumping edges between the terrain's walkable cells."""
    h, ok = terrain.height, terrain.walkable
    nx, ny = h.shape
    index = np.arange(h.size).reshape(h.shape)
    parts: list[tuple[np.ndarray, ...]] = []
    for dx, dy in _WALK:
        a, b = _shifted_pairs(nx, ny, dx, dy)
        both = ok[a] & ok[b]
        if dx and dy and abs(dx) + abs(dy) == 3:  # a knight's move passes two cells between
            m1 = (a[0] + np.sign(dx) * (abs(dx) == 2), a[1] + np.sign(dy) * (abs(dy) == 2))
            both &= ok[m1]
        dh = h[b] - h[a]
        step = np.hypot(dx, dy)
        good = both & (np.abs(dh) <= STEP * step)
        n_good = int(good.sum())
        parts.append((index[a][good], index[b][good], np.full(n_good, step * terrain.cell),
                      np.maximum(dh[good], 0.0), np.zeros(n_good, bool)))
    walk_offsets = set(_WALK)
    for offset, samples in _jump_offsets(terrain.cell):
        if offset in walk_offsets:
            continue
        parts.append(_jump_edges(terrain, index, offset, samples))
    src, dst, length, lift, jump = (np.concatenate(p) for p in zip(*parts, strict=True))
    return Graph(terrain, src, dst, length, lift, jump)


def _shifted_pairs(nx: int, ny: int, dx: int, dy: int) -> tuple[tuple[np.ndarray, np.ndarray],
                                                                 tuple[np.ndarray, np.ndarray]]:
    """Index pairs (a, a + (dx, dy)) of every cell whose shifted partner lies in the grid."""
    xs = np.arange(max(0, -dx), min(nx, nx - dx))
    ys = np.arange(max(0, -dy), min(ny, ny - dy))
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    return (gx.ravel(), gy.ravel()), (gx.ravel() + dx, gy.ravel() + dy)


def _jump_offsets(cell: float) -> list[tuple[tuple[int, int], np.ndarray]]:
    """Distinct cell offsets of the jumps, each with the cell offsets its line passes over."""
    seen: dict[tuple[int, int], np.ndarray] = {}
    for k in range(JUMP_DIRECTIONS):
        angle = 2 * np.pi * k / JUMP_DIRECTIONS
        for length in JUMP_LENGTHS:
            end = np.rint(length * np.array([np.cos(angle), np.sin(angle)]) / cell).astype(int)
            key = (int(end[0]), int(end[1]))
            if key in seen:
                continue
            n = max(2, int(np.ceil(np.hypot(*end) * 2)))
            frac = np.linspace(0.0, 1.0, n + 1)[1:-1]
            seen[key] = np.unique(np.rint(frac[:, None] * end[None]).astype(int), axis=0)
    return list(seen.items())


def _jump_edges(terrain: Terrain, index: np.ndarray, offset: tuple[int, int],
                samples: np.ndarray) -> tuple[np.ndarray, ...]:
    h, ok, kind = terrain.height, terrain.walkable, terrain.kind
    nx, ny = h.shape
    a, b = _shifted_pairs(nx, ny, *offset)
    both = ok[a] & ok[b]
    a = (a[0][both], a[1][both])
    b = (b[0][both], b[1][both])
    h0 = h[a]
    under = np.stack([h[a[0] + sx, a[1] + sy] for sx, sy in samples], axis=1)
    over_kind = np.stack([kind[a[0] + sx, a[1] + sy] for sx, sy in samples], axis=1)
    peak = np.maximum(under.max(axis=1), h[b]) - h0
    crosses = ((peak > STEP) | (under.min(axis=1) < h0 - STEP)
               | (over_kind == WALL).any(axis=1) | (over_kind == CHASM).any(axis=1))
    over_wall = np.where(over_kind == WALL, under, -np.inf).max(axis=1) - h0
    good = crosses & (over_wall <= MAX_JUMP_HEIGHT) & (h[b] - h0 <= MAX_CLIMB)
    n = int(good.sum())
    length = np.hypot(*offset) * terrain.cell
    lift = np.maximum(peak[good], 0.0) + JUMP_CLEARANCE + HOP
    return (index[a][good], index[b][good], np.full(n, length), lift, np.ones(n, bool))


@dataclass(frozen=True)
class Plan:
    """A least-cost path: cell indices (flat), whether each step is a jump, its cost terms."""

    cells: np.ndarray
    jumps: np.ndarray  # (len(cells) - 1,) bool: the step into cell k+1 is a jump
    lifts: np.ndarray  # (len(cells) - 1,)
    horizontal: float
    vertical: float


def plan_paths(graph: Graph, start_xy: np.ndarray, goals_xyz: dict[int, np.ndarray],
               w_v: float, tolerance: float = 0.03) -> dict[int, list[Plan]]:
    """The least-cost plans from ``start_xy`` to each goal (empty where none reaches it): the
    cheapest, and when another way (e.g. round the other end of a wall) costs at most
    ``tolerance`` more, the cheapest path through the cell of such a way farthest from the
    first path too (RRT*'s samples would show both)."""
    terrain = graph.terrain
    start = _nearest_walkable(terrain, start_xy)
    weights = graph.weights(w_v)
    dist, pred = dijkstra(weights, indices=start, return_predecessors=True)
    plans: dict[int, list[Plan]] = {}
    for goal, xyz in goals_xyz.items():
        target = _goal_cell(terrain, xyz, dist)
        if target is None:
            plans[goal] = []
            continue
        best = _backtrack(graph, pred, start, target)
        plans[goal] = [best]
        back, back_pred = dijkstra(weights.T, indices=target, return_predecessors=True)
        through = dist + back
        near = np.flatnonzero(through <= dist[target] * (1 + tolerance) + 1e-6)
        if near.size == 0:
            continue
        points = terrain.point(np.stack(np.unravel_index(near, terrain.height.shape), 1))
        on_best = terrain.point(np.stack(np.unravel_index(best.cells, terrain.height.shape), 1))
        gap = np.min(np.linalg.norm(points[:, None] - on_best[None], axis=2), axis=1)
        if gap.max() < 0.5:  # no other way: only the first path's neighbours
            continue
        via = int(near[int(np.argmax(gap))])
        first = _backtrack(graph, pred, start, via)
        second = _backtrack(graph, back_pred, target, via, reverse=True)
        plans[goal].append(_join(first, second))
    return plans


def _join(a: Plan, b: Plan) -> Plan:
    return Plan(np.concatenate([a.cells, b.cells[1:]]), np.concatenate([a.jumps, b.jumps]),
                np.concatenate([a.lifts, b.lifts]), a.horizontal + b.horizontal,
                a.vertical + b.vertical)


def _nearest_walkable(terrain: Terrain, xy: np.ndarray) -> int:
    cells = np.argwhere(terrain.walkable)
    if cells.size == 0:
        raise ValueError("no walkable ground in the scene")
    d = np.hypot(*(terrain.point(cells) - np.asarray(xy)[:2]).T)
    i, j = cells[int(np.argmin(d))]
    return int(i * terrain.height.shape[1] + j)


def _goal_cell(terrain: Terrain, xyz: np.ndarray, dist: np.ndarray) -> int | None:
    """The cheapest reachable walkable cell within reach of the goal, at the goal's level."""
    cells = np.argwhere(terrain.walkable)
    d = np.hypot(*(terrain.point(cells) - np.asarray(xyz)[:2]).T)
    level = terrain.height[cells[:, 0], cells[:, 1]]
    near = (d <= REACH) & (np.abs(level - (xyz[2] - 0.1)) <= 0.15)
    if not near.any():  # a goal on a narrow top: the nearest cells at any level
        near = d <= d.min() + terrain.cell
    flat = cells[near, 0] * terrain.height.shape[1] + cells[near, 1]
    costs = dist[flat] + 1e-3 * d[near]
    best = int(np.argmin(costs))
    return None if not np.isfinite(costs[best]) else int(flat[best])


def _backtrack(graph: Graph, pred: np.ndarray, start: int, target: int,
               reverse: bool = False) -> Plan:
    """The path from ``start`` to ``target`` in a search from ``start``. With ``reverse``,
    ``pred`` comes from a search from ``start`` over reversed edges, so the path runs from
    ``target`` to ``start``."""
    path = [target]
    while path[-1] != start:
        path.append(int(pred[path[-1]]))
    cells = np.array(path if reverse else path[::-1], int)
    # each step's edge (one edge joins a pair of cells: jump offsets skip walking ones)
    edges = graph.edge_ids()[cells[:-1], cells[1:]].A1.astype(int) - 1
    lifts = graph.lift[edges]
    return Plan(cells, graph.jump[edges], lifts, float(graph.length[edges].sum()),
                float(lifts.sum()))

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

import functools
from dataclasses import dataclass

import numpy as np
from scipy import ndimage
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from socialbench.observers.agent.bipack.terrain import CHASM, STEP, WALL, Terrain

JUMP_CLEARANCE = 0.05  # the agent's bottom clears what it jumps over by this much (metres)
GRAVITY = 9.81  # agent spec
JUMP_SPEED_H = 1.3  # agent spec: the jump's horizontal speed (the slowest here)
MAX_SPEED_H = 3.0  # m/s, ours: the fastest horizontal launch (a physics prior)
BODY_RADIUS = 0.1  # the agent's half width (agent spec: 0.2 m primitives)
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
    hump: np.ndarray  # a jump's parabola height over the straight take-off-landing line

    @functools.cached_property
    def edge_ids(self) -> csr_matrix:
        """Edge index + 1 by (source, destination) cell (built once: every backtrack reads it)."""
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
                      np.maximum(dh[good], 0.0), np.zeros(n_good, bool), np.zeros(n_good)))
    walk_offsets = set(_WALK)
    # what the agent's body (0.1 m either side of its centre line) passes over
    r = max(1, int(round(BODY_RADIUS / terrain.cell)))
    disk = np.hypot(*np.mgrid[-r:r + 1, -r:r + 1]) <= r + 1e-9
    under_body = ndimage.maximum_filter(h, footprint=disk, mode="nearest")
    for offset, samples in _jump_offsets(terrain.cell):
        if offset in walk_offsets:
            continue
        parts.append(_jump_edges(terrain, index, offset, samples, under_body))
    src, dst, length, lift, jump, hump = (np.concatenate(p) for p in zip(*parts, strict=True))
    return Graph(terrain, src, dst, length, lift, jump, hump)


def _shifted_pairs(nx: int, ny: int, dx: int, dy: int) -> tuple[tuple[np.ndarray, np.ndarray],
                                                                 tuple[np.ndarray, np.ndarray]]:
    """Index pairs (a, a + (dx, dy)) of every cell whose shifted partner lies in the grid."""
    xs = np.arange(max(0, -dx), min(nx, nx - dx))
    ys = np.arange(max(0, -dy), min(ny, ny - dy))
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    return (gx.ravel(), gy.ravel()), (gx.ravel() + dx, gy.ravel() + dy)


@functools.lru_cache(maxsize=4)  # the same for every video of a grid
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
            cells = np.unique(np.rint(frac[:, None] * end[None]).astype(int), axis=0)
            inner = ~((cells == 0).all(axis=1) | (cells == end).all(axis=1))
            if inner.any():  # the cells strictly between take-off and landing
                seen[key] = cells[inner]
    return list(seen.items())


def _jump_edges(terrain: Terrain, index: np.ndarray, offset: tuple[int, int],
                samples: np.ndarray, under_body: np.ndarray) -> tuple[np.ndarray, ...]:
    """Jumps along one cell offset: ballistic arcs clearing what lies under the agent's body.

    A jump of length L at horizontal speed v is a parabola of height H = g (L / v)^2 / 8 over
    the line from take-off to landing. The agent takes the least H that clears every surface
    under its path by JUMP_CLEARANCE (the least vertical launch force), at a horizontal speed
    between JUMP_SPEED_H and MAX_SPEED_H. Its vertical effort is the arc's apex above the
    take-off and its horizontal effort its length. (Charging L x v / JUMP_SPEED_H instead, so
    that long fast jumps cost more, fitted scenario 3's short jumps better but broke scenario 4's
    cost comparisons on our data: see docs/agent_observers.md.)
    """
    h, ok, kind = terrain.height, terrain.walkable, terrain.kind
    nx, ny = h.shape
    a, b = _shifted_pairs(nx, ny, *offset)
    both = ok[a] & ok[b]
    a = (a[0][both], a[1][both])
    b = (b[0][both], b[1][both])
    h0, h1 = h[a], h[b]
    # the cells under the line, per pair (rows) and sample (columns)
    rows, cols = a[0][:, None] + samples[None, :, 0], a[1][:, None] + samples[None, :, 1]
    under, over_kind = under_body[rows, cols], kind[rows, cols]
    # only jumps over something: a wall, a chasm, a rise or a drop (most pairs cross nothing,
    # so they are dropped before the arcs are worked out)
    crosses = (((over_kind == WALL) | (over_kind == CHASM)).any(axis=1)
               | (np.maximum(under.max(axis=1), h1) - h0 > STEP)
               | (under.min(axis=1) < h0 - STEP))
    if terrain.overhead is not None:  # no jumping into a lintel
        crosses &= ~terrain.overhead[rows, cols].any(axis=1)
    a, b = (a[0][crosses], a[1][crosses]), (b[0][crosses], b[1][crosses])
    h0, h1 = h0[crosses], h1[crosses]
    under, over_kind = under[crosses], over_kind[crosses]
    # over a chasm the agent's bottom stays above its take-off floor (it clears the far lip)
    under = np.where(over_kind == CHASM, np.maximum(under, h0[:, None]), under)
    off = np.array(offset, float)
    frac = np.clip(samples @ off / (off @ off), 0.02, 0.98)[None]
    line = h0[:, None] + frac * (h1 - h0)[:, None]
    over_wall = np.where(over_kind == WALL, under, -np.inf).max(axis=1) - h0
    length = np.hypot(*offset) * terrain.cell
    need = ((under + JUMP_CLEARANCE - line) / (4 * frac * (1 - frac))).max(axis=1)
    hump = np.maximum(need, GRAVITY * (length / MAX_SPEED_H) ** 2 / 8)
    good = ((over_wall <= MAX_JUMP_HEIGHT) & (h1 - h0 <= MAX_CLIMB)
            & (need <= GRAVITY * (length / JUMP_SPEED_H) ** 2 / 8))
    hump, rise = hump[good], (h1 - h0)[good]
    # the apex above the take-off: the highest point of rise * s + 4 hump s (1 - s)
    s_top = np.clip(0.5 + rise / (8 * np.maximum(hump, 1e-9)), 0.0, 1.0)
    lift = np.maximum(rise * s_top + 4 * hump * s_top * (1 - s_top), 0.0)
    n = int(good.sum())
    return (index[a][good], index[b][good], np.full(n, length), lift, np.ones(n, bool), hump)


@dataclass(frozen=True)
class Plan:
    """A least-cost path: cell indices (flat), whether each step is a jump, its cost terms."""

    cells: np.ndarray
    jumps: np.ndarray  # (len(cells) - 1,) bool: the step into cell k+1 is a jump
    lifts: np.ndarray  # (len(cells) - 1,)
    humps: np.ndarray  # (len(cells) - 1,): a jump's parabola height (0 when walking)
    horizontal: float
    vertical: float


def plan_paths(graph: Graph, start_xy: np.ndarray, goals_xyz: dict[int, np.ndarray],
               w_v: float, tolerance: float = 0.2) -> dict[int, list[Plan]]:
    """The least-cost plans from ``start_xy`` to each goal (empty where none reaches it): the
    cheapest and, when another way past a wall (round its other end, or over it instead of
    round it) costs at most ``tolerance`` more, the cheapest such way too: RRT*'s sampled
    trajectories would show both, and the observed path is compared with the nearer."""
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
        points = terrain.point(np.stack(np.unravel_index(near, terrain.height.shape), 1))
        on_best = terrain.point(np.stack(np.unravel_index(best.cells, terrain.height.shape), 1))
        gap = np.min(np.linalg.norm(points[:, None] - on_best[None], axis=2), axis=1)
        for via in near[np.argsort(-gap)][:8]:  # the farthest candidates first
            first = _backtrack(graph, pred, start, int(via))
            other = _join(first, _backtrack(graph, back_pred, target, int(via), reverse=True))
            if _encloses_wall(terrain, best.cells, other.cells):
                plans[goal].append(other)
                break
    return plans


def _encloses_wall(terrain: Terrain, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether the loop made of path ``a`` and path ``b`` reversed goes round a wall's cell:
    then ``b`` is another way past it, not a bend of the same way."""
    walls = np.argwhere(terrain.kind == WALL)
    if walls.size == 0:
        return False
    loop = terrain.point(np.stack(np.unravel_index(np.concatenate([a, b[::-1]]),
                                                   terrain.height.shape), 1))
    pts = terrain.point(walls)
    x0, y0 = loop[:, 0], loop[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    # even-odd rule: count the loop's edges a ray towards +x from each cell crosses
    straddle = (y0[None] > pts[:, 1:2]) != (y1[None] > pts[:, 1:2])
    with np.errstate(divide="ignore", invalid="ignore"):
        cross_x = x0[None] + (pts[:, 1:2] - y0[None]) * (x1 - x0)[None] / (y1 - y0)[None]
    inside = (straddle & (pts[:, 0:1] < cross_x)).sum(axis=1) % 2 == 1
    return bool(inside.any())


def _join(a: Plan, b: Plan) -> Plan:
    return Plan(np.concatenate([a.cells, b.cells[1:]]), np.concatenate([a.jumps, b.jumps]),
                np.concatenate([a.lifts, b.lifts]), np.concatenate([a.humps, b.humps]),
                a.horizontal + b.horizontal, a.vertical + b.vertical)


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
    edges = graph.edge_ids[cells[:-1], cells[1:]].A1.astype(int) - 1
    lifts = graph.lift[edges]
    return Plan(cells, graph.jump[edges], lifts, graph.hump[edges],
                float(graph.length[edges].sum()), float(lifts.sum()))

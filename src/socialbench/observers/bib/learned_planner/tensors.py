"""A BIB trial as the arrays the learned planner reads (NumPy; no learned values yet).

Everything here is geometry the observer can see in a trial's states: per *situation* (a
distinct state of the green barrier) the cell channels the cost network reads; the *maps* the
planner solves (a situation and a target point: an object, the key or the lock); the agent's
path as steps between waypoints one cell apart (``views.view_trial``), each with the
candidate steps it competes with (the observed step turned to ``DIRECTIONS`` directions);
and the *queries*: points whose cost-to-go on a map the planner must read. Which object the
agent wants and how costly a cell is are left to the model (``model.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from socialbench.bib.schema import CELL, GRID, Trial
from socialbench.observers.bib.views import TrialView, view_trial

DIRECTIONS = 16  # candidate step directions (the observed one first)
TOUCH_PX = 14.0  # the agent stops touching its goal: centres 7-12.5 px apart (bib spec)
HELD_PX = 14.0  # the key's centre this close to the agent's: carried (agent 6 + key ~6 px)
AGENT_HALF = 5.5  # px: the agent's square (s = 6) less half a pixel, checked along a step
SWEEP = (0.25, 0.5, 0.75, 1.0)  # where along a candidate step its square is checked
PAD = GRID + 2  # grids carry a one-cell frame so that neighbour lookups never leave them
CHANNELS = ("wall", "barrier", "home", "object")  # what the cost network sees of a cell
NONE = -1  # an absent map or query
FAR_CELLS = 1e4  # "no straight line to the target" (finite: no inf * 0 in gradients)
_ANGLES = 2 * np.pi * np.arange(DIRECTIONS) / DIRECTIONS
_ROT = np.stack([np.stack([np.cos(_ANGLES), -np.sin(_ANGLES)], 1),
                 np.stack([np.sin(_ANGLES), np.cos(_ANGLES)], 1)], 1)  # (K, 2, 2)
_CORNERS = np.asarray([(dx, dy) for dx in (-AGENT_HALF, AGENT_HALF)
                       for dy in (-AGENT_HALF, AGENT_HALF)])
_NEIGHBOURS = np.asarray([(di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1)])


def flat_cell(points: np.ndarray) -> np.ndarray:
    """Index into a flattened padded grid of the cell holding each pixel point (clamped)."""
    i = np.clip(np.floor(points[..., 0] / CELL).astype(np.int64) + 1, 0, PAD - 1)
    j = np.clip(np.floor(points[..., 1] / CELL).astype(np.int64) + 1, 0, PAD - 1)
    return i * PAD + j


def neighbourhood(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 3x3 cells around each point (flat padded indices, (..., 9)) and the distance in
    cells from the point to each of their centres."""
    i = np.clip(np.floor(points[..., 0] / CELL).astype(np.int64) + 1, 1, GRID)
    j = np.clip(np.floor(points[..., 1] / CELL).astype(np.int64) + 1, 1, GRID)
    ni = i[..., None] + _NEIGHBOURS[:, 0]
    nj = j[..., None] + _NEIGHBOURS[:, 1]
    dx = points[..., 0:1] - (ni - 0.5) * CELL
    dy = points[..., 1:2] - (nj - 0.5) * CELL
    return ni * PAD + nj, np.hypot(dx, dy) / CELL


@dataclass
class TrialArrays:
    """One trial's arrays (see the module docstring); shapes in the comments."""

    channels: np.ndarray  # (S, C, PAD, PAD) float32 cell channels per situation
    map_situation: np.ndarray  # (M,) situation of each map
    map_target: np.ndarray  # (M, 2) target point (px)
    query_map: np.ndarray  # (Q,) map each query reads
    query_point: np.ndarray  # (Q, 2) the point (px)
    query_cells: np.ndarray  # (Q, 9) flat cells around each query point
    query_dist: np.ndarray  # (Q, 9) cells from the point to their centres
    query_own: np.ndarray  # (Q,) flat cell holding the point
    query_straight: np.ndarray  # (Q,) cells to the map's target if in its cell, else inf
    step_length: np.ndarray  # (n,) observed step length (cells)
    step_sweep: np.ndarray  # (n, K, len(SWEEP) * 4) flat cells the candidate squares cross
    step_end: np.ndarray  # (n,) flat cell of the observed step's end (its sweep check)
    # per step and goal object: the queries of the candidates' ends (K) and of the start (1)
    goal_queries: np.ndarray  # (n, G, K + 1)
    key_queries: np.ndarray  # (n, K + 1) heading for the key (NONE rows: not an option)
    lock_queries: np.ndarray  # (n, K + 1) heading for the lock with the key
    key_to_lock: np.ndarray  # (n,) query: the lock's cost-to-go at the key
    lock_to_goal: np.ndarray  # (n, G) queries: each goal's cost-to-go at the lock, barrier gone
    prior_queries: np.ndarray  # (G,) each goal's cost-to-go at the start (reachability)
    shapes: list[str]  # each goal object's shape name
    agent: str  # the agent's identity (its image name)
    touching: np.ndarray  # (G,) bool: the agent ends touching this object
    n_steps: int = field(default=0)


class _Builder:
    """Deduplicates situations, maps and queries while one trial's arrays are built."""

    def __init__(self, view: TrialView) -> None:
        self.view = view
        self.situations: dict[bytes, int] = {}
        self.channels: list[np.ndarray] = []
        self.maps: dict[tuple[int, float, float], int] = {}
        self.map_rows: list[tuple[int, float, float]] = []
        self.queries: list[tuple[int, float, float]] = []

    def situation(self, barrier: np.ndarray) -> int:
        key = barrier.tobytes()
        if key not in self.situations:
            self.situations[key] = len(self.channels)
            self.channels.append(_cell_channels(self.view, barrier))
        return self.situations[key]

    def map(self, situation: int, target: tuple[float, float]) -> int:
        key = (situation, float(target[0]), float(target[1]))
        if key not in self.maps:
            self.maps[key] = len(self.map_rows)
            self.map_rows.append(key)
        return self.maps[key]

    def query(self, map_index: int, points: np.ndarray) -> np.ndarray:
        points = np.atleast_2d(points)
        first = len(self.queries)
        self.queries += [(map_index, float(x), float(y)) for x, y in points]
        return np.arange(first, first + len(points))


def _cell_channels(view: TrialView, barrier: np.ndarray) -> np.ndarray:
    out = np.zeros((len(CHANNELS), PAD, PAD), dtype=np.float32)
    out[0] = np.pad(view.walls, 1, constant_values=True)
    out[1, 1:-1, 1:-1] = barrier
    col, row = (int(v // CELL) for v in view.start)
    out[2, col + 1, row + 1] = 1.0
    for thing in view.objects:
        c, r = (int(v // CELL) for v in thing.centre)
        out[3, c + 1, r + 1] = 1.0
    return out


def candidates(p: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Each observed step ``v`` from ``p`` turned to every direction: (n, K, 2) end points."""
    return p[:, None, :] + np.einsum("kab,nb->nka", _ROT, v)


def trial_arrays(trial: Trial | TrialView) -> TrialArrays:
    """Build a trial's arrays from its states."""
    view = trial if isinstance(trial, TrialView) else view_trial(trial)
    b = _Builder(view)
    no_barrier = np.zeros_like(view.walls)
    key_opens = view.key is not None and view.lock is not None
    prior_situation = b.situation(no_barrier if key_opens else view.fuse)
    prior_queries = np.asarray([b.query(b.map(prior_situation, o.centre), view.start)[0]
                                for o in view.objects], dtype=np.int64)
    p = view.waypoints[:-1]
    v = np.diff(view.waypoints, axis=0)
    n, g_count = len(v), len(view.objects)
    ends = candidates(p, v)  # (n, K, 2)
    both = np.concatenate([ends, p[:, None, :]], axis=1)  # (n, K + 1, 2)
    goal_q = np.full((n, g_count, DIRECTIONS + 1), NONE, dtype=np.int64)
    key_q = np.full((n, DIRECTIONS + 1), NONE, dtype=np.int64)
    lock_q = np.full((n, DIRECTIONS + 1), NONE, dtype=np.int64)
    key_to_lock = np.full(n, NONE, dtype=np.int64)
    lock_to_goal = np.full((n, g_count), NONE, dtype=np.int64)
    free = b.situation(no_barrier)
    for s in range(n):
        # the key in the lock opens the barrier: from then on it no longer stands (it fades)
        opened = key_opens and view.lock_at[s] is None
        here = b.situation(no_barrier if opened else view.fuse_at[s])
        for g, goal in enumerate(view.objects):
            goal_q[s, g] = b.query(b.map(here, goal.centre), both[s])
        key, lock = view.key_at[s], view.lock_at[s]
        if lock is None:
            continue
        for g, goal in enumerate(view.objects):
            lock_to_goal[s, g] = b.query(b.map(free, goal.centre), np.asarray(lock))[0]
        carried = key is not None and np.hypot(*(np.asarray(key) - p[s])) <= HELD_PX
        if key is not None and not carried:
            key_q[s] = b.query(b.map(here, key), both[s])
            key_to_lock[s] = b.query(b.map(here, lock), np.asarray(key))[0]
        elif carried:
            lock_q[s] = b.query(b.map(here, lock), both[s])
    centres = (ends[:, :, None, None, :] - p[:, None, None, None, :])
    sweep = (p[:, None, None, None, :] + np.asarray(SWEEP)[None, None, :, None, None] * centres
             + _CORNERS[None, None, None, :, :])  # (n, K, samples, corners, 2)
    end = np.asarray(view.end)
    touching = np.asarray([np.hypot(*(np.asarray(o.centre) - end)) <= TOUCH_PX
                           for o in view.objects], dtype=bool)
    rows = np.asarray(b.map_rows, dtype=np.float64).reshape(-1, 3)
    queries = np.asarray(b.queries, dtype=np.float64).reshape(-1, 3)
    q_map = queries[:, 0].astype(np.int64)
    q_point = queries[:, 1:]
    q_cells, q_dist = neighbourhood(q_point)
    target = rows[q_map, 1:] if len(rows) else np.zeros((0, 2))
    same = flat_cell(q_point) == flat_cell(target)
    straight = np.where(same, np.hypot(*(q_point - target).T) / CELL, FAR_CELLS)
    return TrialArrays(
        channels=np.stack(b.channels), map_situation=rows[:, 0].astype(np.int64),
        map_target=rows[:, 1:].astype(np.float32), query_map=q_map,
        query_point=q_point.astype(np.float32), query_cells=q_cells,
        query_dist=q_dist.astype(np.float32), query_own=flat_cell(q_point),
        query_straight=straight.astype(np.float32),
        step_length=(np.hypot(v[:, 0], v[:, 1]) / CELL).astype(np.float32),
        step_sweep=flat_cell(sweep).reshape(n, DIRECTIONS, len(SWEEP) * len(_CORNERS)),
        step_end=flat_cell(p + v), goal_queries=goal_q, key_queries=key_q,
        lock_queries=lock_q, key_to_lock=key_to_lock, lock_to_goal=lock_to_goal,
        prior_queries=prior_queries, shapes=[o.shape for o in view.objects], agent=view.agent,
        touching=touching, n_steps=n)

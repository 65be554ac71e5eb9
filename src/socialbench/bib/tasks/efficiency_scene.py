"""The scene the three efficiency sub-tasks share (BIB paper sec. 2.5).

A fixed start, one object that stays in one region, a few random walls and a black barrier of
6-14 cells (bib spec) across the straight line from the start to the object: a bar of 3-7 cells,
2 cells thick, perpendicular to the line's major axis. A rational agent goes around it. The
design requires the detour to matter: in every familiarization trial the path around the barrier
is at least one cell longer than the shortest path without it, else the layout is redrawn.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from socialbench.bib.schema import CELL, GRID, N_FAMILIARIZATION
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks.base import plan
from socialbench.bib.world import (
    HOME_HALF,
    OBJECT_HALF,
    Layout,
    Resample,
    agent_icon,
    blocked_grid,
    far,
    free_cells,
    near,
    object_icon,
    pick,
    place,
    random_walls,
    sample_looks,
    wall_count,
)
from socialbench.core.grid_planning import polyline_length

MIN_DETOUR_PX = CELL  # ours: the barrier must lengthen the path by at least one cell
BAR_LENGTH = (3, 7)  # cells; x 2 thick = 6-14 barrier cells (bib spec)


@dataclass
class EfficiencyScene:
    """Familiarization layouts (with the barrier), their efficient routes, and the barrier."""

    fam: list[Layout]
    routes: list[list[tuple[float, float]]]
    barrier: tuple[tuple[int, int], ...]
    looks_agent: tuple
    detours: list[float]

    def without_barrier(self, layout: Layout) -> Layout:
        return replace(layout, walls=tuple(c for c in layout.walls if c not in self.barrier))


def _barrier(rng: np.random.Generator, home: tuple[int, int],
             goal: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    (hx, hy), (gx, gy) = home, goal
    mx, my = (hx + gx) // 2, (hy + gy) // 2
    length = int(rng.integers(BAR_LENGTH[0], BAR_LENGTH[1] + 1))
    lo = int(rng.integers(-(length - 1), 1))  # where the bar starts relative to the midpoint
    cells = []
    for k in range(lo, lo + length):
        for t in (0, 1):
            # Bar across the major axis of the start -> goal line.
            c = (mx + t, my + k) if abs(gx - hx) >= abs(gy - hy) else (mx + k, my + t)
            if 1 <= c[0] <= GRID - 2 and 1 <= c[1] <= GRID - 2:
                cells.append(c)
    return tuple(dict.fromkeys(cells))


def sample(rng: np.random.Generator, shapes: ShapeSet) -> EfficiencyScene:
    looks = sample_looks(rng, shapes, n_objects=1)
    empty = Layout((), (0, 0), agent_icon(looks.agents[0], (0, 0))).blocked()
    home_cell = pick(rng, free_cells(empty))
    goal_region = pick(rng, far(home_cell, 4, empty))
    barrier = _barrier(rng, home_cell, goal_region)
    if home_cell in barrier or goal_region in barrier or len(barrier) < 6:
        raise Resample("barrier on the start or the goal")
    base = Layout(barrier, (0, 0), agent_icon(looks.agents[0], (0, 0))).blocked()
    # Tidy: 0-3 random walls; released: as many as make the real files' 8-16 with the barrier.
    walls = (*barrier, *random_walls(rng, wall_count(rng, 0, 3, taken=len(barrier)), base=base,
                                     keep_free=[home_cell, goal_region]))
    home = place(rng, home_cell, blocked_grid(walls), HOME_HALF)
    agent = agent_icon(looks.agents[0], home)
    blocked = Layout(walls, home, agent).blocked()
    fam, routes, detours = [], [], []
    for _ in range(N_FAMILIARIZATION):
        cell = pick(rng, near(goal_region, 1, blocked, exclude=[home_cell]))
        layout = Layout(walls, home, agent, (object_icon(looks.objects[0],
                                                         place(rng, cell, blocked, OBJECT_HALF)),))
        route = plan(layout, home, layout.objects[0].centre)
        free = Layout(tuple(c for c in walls if c not in barrier), home, agent, layout.objects)
        direct = plan(free, home, layout.objects[0].centre)
        detour = polyline_length(route) - polyline_length(direct)
        if detour < MIN_DETOUR_PX:
            raise Resample("the barrier does not lengthen the path")
        fam.append(layout)
        routes.append(route)
        detours.append(detour)
    return EfficiencyScene(fam, routes, barrier, looks.agents[0], detours)

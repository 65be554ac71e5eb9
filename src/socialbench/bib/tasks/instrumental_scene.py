"""The scene the three instrumental-action sub-tasks share (BIB paper sec. 2.4).

A fixed start and goal object; the goal is enclosed by a green removable barrier (the free cells
among its 8 neighbours; walls and the border close the rest). Each familiarization trial, and
the test, puts the key and the lock in new free cells outside the barrier (so no test trial is a
copy of a familiarization trial); the agent fetches the key, carries it to the lock, the barrier
disappears, and it goes to the object.

:func:`gapped` opens one side of the barrier (the up-to-3 cells on that side), so the barrier no
longer blocks the goal: the inconsequential barrier.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from socialbench.bib.schema import N_FAMILIARIZATION
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks.base import Walk, instrumental
from socialbench.bib.world import (
    HOME_HALF,
    KEY_HALF,
    LOCK_HALF,
    OBJECT_HALF,
    Layout,
    Resample,
    agent_icon,
    blocked_grid,
    cell_of,
    far,
    free_cells,
    key_icon,
    lock_icon,
    object_icon,
    pick,
    place,
    random_walls,
    ring,
    sample_looks,
    wall_count,
)
from socialbench.core.grid_planning import reachable

SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))


@dataclass
class InstrumentalScene:
    base: Layout  # start, goal and barrier; no key or lock yet
    fam: list[Layout]
    walks: list[Walk]

    def test_layout(self, rng: np.random.Generator) -> Layout:
        """The test's layout: the familiar start, goal and barrier; key and lock placed anew."""
        return place_key_lock(rng, self.base)

    @property
    def trials(self) -> list:
        return [w.trial for w in self.walks]


def gapped(rng: np.random.Generator, layout: Layout) -> Layout:
    """The layout with one side of the goal's barrier removed, the goal then reachable."""
    goal = layout.objects[0].cell
    order = rng.permutation(len(SIDES))
    for i in order:
        dx, dy = SIDES[int(i)]
        opened = tuple(c for c in layout.fuse
                       if (c[0] - goal[0]) * dx + (c[1] - goal[1]) * dy != 1)
        candidate = replace(layout, fuse=opened)
        if opened != layout.fuse and reachable(candidate.blocked(), cell_of(layout.home), goal):
            return candidate
    raise Resample("no side of the barrier opens onto the start")


def place_key_lock(rng: np.random.Generator, layout: Layout) -> Layout:
    """Key and lock in distinct free cells outside the barrier, reachable from the start."""
    blocked = layout.blocked()
    taken = [cell_of(layout.home), layout.objects[0].cell]
    key_cell = pick(rng, far(cell_of(layout.home), 1, blocked, exclude=taken))
    lock_cell = pick(rng, far(key_cell, 2, blocked, exclude=[*taken, key_cell]))
    placed = replace(layout, key=key_icon(place(rng, key_cell, blocked, KEY_HALF)),
                     lock=lock_icon(place(rng, lock_cell, blocked, LOCK_HALF)))
    # Exactly when planning these legs would fail, without planning them (the walk plans the
    # key's leg anyway; the lock's is walked from the key, not from home).
    home = cell_of(placed.home)
    if not (reachable(blocked, home, cell_of(placed.key.centre))
            and reachable(blocked, home, cell_of(placed.lock.centre))):
        raise Resample("goal unreachable")
    return placed


def sample(rng: np.random.Generator, shapes: ShapeSet) -> InstrumentalScene:
    looks = sample_looks(rng, shapes, n_objects=1)
    goal_cell = pick(rng, free_cells(Layout((), (0, 0), agent_icon(looks.agents[0], (0, 0)))
                                     .blocked()))
    fence = ring(goal_cell)
    walls = random_walls(rng, wall_count(rng, 2, 6), keep_free=[goal_cell, *fence])
    blocked = Layout(walls, (0, 0), agent_icon(looks.agents[0], (0, 0))).blocked()
    home_cell = pick(rng, far(goal_cell, 3, blocked))
    home = place(rng, home_cell, blocked, HOME_HALF)
    fuse = tuple(c for c in fence if not blocked[c])
    # The goal's square stays clear of its barrier too.
    goal = place(rng, goal_cell, blocked_grid((*walls, *fuse)), OBJECT_HALF)
    base = Layout(walls, home, agent_icon(looks.agents[0], home),
                  (object_icon(looks.objects[0], goal),), fuse=fuse)
    if reachable(base.blocked(), home_cell, goal_cell):
        raise Resample("the barrier does not enclose the goal")
    fam = [place_key_lock(rng, base) for _ in range(N_FAMILIARIZATION)]
    return InstrumentalScene(base, fam, [instrumental(layout, 0) for layout in fam])

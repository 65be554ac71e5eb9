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

from socialbench.bib import style
from socialbench.bib.schema import N_FAMILIARIZATION
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks.base import Walk, instrumental
from socialbench.bib.tasks.trial_draws import redrawn
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
    path_cost,
    pick,
    place,
    random_walls,
    ring,
    sample_looks,
    wall_count,
    within_reach,
)
from socialbench.core.grid_planning import reachable

Cell = tuple[int, int]
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


# Released style (ours): the walk by key and lock is at least this many cells (path cost, walls
# only) longer than the walk straight to the goal, so key and lock never lie on the direct route
# (there the no-barrier test's two walks would last the same: bib paper, fetching the key takes
# longer). Three, not fewer: the fetching walk stops short of the key and of the lock (up to
# 12.5 px each) and cuts corners; with 3 cells its test is 15 frames or more longer on 150
# generated pairs. A familiarization trial longer than MAX_TRIAL_FRAMES is drawn again (three
# real walks of at most 45 moving frames, the barrier's 24, 31 at home and 84 holding: 274).
DETOUR_CELLS = 3.0
MAX_TRIAL_FRAMES = 300


def place_key_lock(rng: np.random.Generator, layout: Layout) -> Layout:
    """Key and lock in distinct free cells outside the barrier, reachable from the start.

    Released style: the key a real trial's walk from the start and the lock one from the key
    (:func:`~socialbench.bib.world.within_reach`), never on the direct route to the goal
    (:data:`DETOUR_CELLS`); a draw that breaks either is drawn again."""
    if style.current().trial_frames is None:
        return _placed(rng, layout, *_tidy_cells(rng, layout))
    return redrawn(lambda: _placed(rng, layout, *_released_cells(rng, layout)))


def _tidy_cells(rng: np.random.Generator, layout: Layout) -> tuple[Cell, Cell]:
    """The earlier draw: key anywhere off the start, lock 2 cells or more from the key."""
    blocked = layout.blocked()
    taken = [cell_of(layout.home), layout.objects[0].cell]
    key_cell = pick(rng, far(cell_of(layout.home), 1, blocked, exclude=taken))
    return key_cell, pick(rng, far(key_cell, 2, blocked, exclude=[*taken, key_cell]))


def _released_cells(rng: np.random.Generator, layout: Layout) -> tuple[Cell, Cell]:
    blocked = layout.blocked()
    start, goal = cell_of(layout.home), layout.objects[0].cell
    taken = [start, goal]
    key_cell = pick(rng, within_reach(start, blocked, far(start, 1, blocked, exclude=taken),
                                      start=layout.home))
    lock_cell = pick(rng, within_reach(key_cell, blocked,
                                       far(key_cell, 2, blocked, exclude=[*taken, key_cell])))
    walls_only = layout.blocked(with_fuse=False)
    legs = path_cost(walls_only, start, key_cell) + path_cost(walls_only, key_cell, lock_cell)
    if legs + path_cost(walls_only, lock_cell, goal) < path_cost(walls_only, start, goal) \
            + DETOUR_CELLS:
        raise Resample("key and lock on the direct route")
    return key_cell, lock_cell


def _placed(rng: np.random.Generator, layout: Layout, key_cell: Cell, lock_cell: Cell) -> Layout:
    blocked = layout.blocked()
    placed = replace(layout, key=key_icon(place(rng, key_cell, blocked, KEY_HALF)),
                     lock=lock_icon(place(rng, lock_cell, blocked, LOCK_HALF)))
    # Exactly when planning these legs would fail, without planning them (the walk plans the
    # key's leg anyway; the lock's is walked from the key, not from home).
    home = cell_of(placed.home)
    if not (reachable(blocked, home, cell_of(placed.key.centre))
            and reachable(blocked, home, cell_of(placed.lock.centre))):
        raise Resample("goal unreachable")
    return placed


def _familiarization(rng: np.random.Generator, base: Layout) -> tuple[list[Layout], list[Walk]]:
    """The familiarization trials' layouts and walks. Released style: one trial at a time, drawn
    again while longer than :data:`MAX_TRIAL_FRAMES`. Tidy: the earlier order of draws (every
    key and lock, then the walks)."""
    if style.current().trial_frames is None:
        fam = [place_key_lock(rng, base) for _ in range(N_FAMILIARIZATION)]
        return fam, [instrumental(layout, 0) for layout in fam]

    def make() -> tuple[Layout, Walk]:
        layout = place_key_lock(rng, base)
        return layout, instrumental(layout, 0)

    drawn = [redrawn(make, lambda made: len(made[1].trial) <= MAX_TRIAL_FRAMES)
             for _ in range(N_FAMILIARIZATION)]
    return [layout for layout, _ in drawn], [walk for _, walk in drawn]


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
    return InstrumentalScene(base, *_familiarization(rng, base))

"""Agent-blocked instrumental action (background training, expected only) (BIB paper sec. 3).

All 9 trials: the agent starts confined to a 2 x 2-cell room closed by a green removable barrier,
with the key and the lock inside; it fetches the key, inserts it into the lock, the barrier
disappears and it goes to the object, placed anew each trial outside. Teaches that the green
barrier blocks and how key and lock remove it. Training folder: ``instrumental_action``.
"""

from __future__ import annotations

import numpy as np

from socialbench.bib import style
from socialbench.bib.schema import GRID, N_TRIALS
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks.base import Built, Recipe, Walk, instrumental
from socialbench.bib.tasks.trial_draws import redrawn
from socialbench.bib.world import (
    HOME_HALF,
    KEY_HALF,
    LOCK_HALF,
    OBJECT_HALF,
    Icon,
    Layout,
    Resample,
    agent_icon,
    far,
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


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    looks = sample_looks(rng, shapes, n_objects=1)
    x0, y0 = (int(v) for v in rng.integers(1, GRID - 2, size=2))  # room's bottom-left cell
    room = [(x0, y0), (x0 + 1, y0), (x0, y0 + 1), (x0 + 1, y0 + 1)]
    fence = sorted({n for c in room for n in ring(c)} - set(room))
    walls = random_walls(rng, wall_count(rng, 2, 8), keep_free=[*room, *fence])
    order = rng.permutation(4)
    home_cell, key_cell, lock_cell = (room[int(i)] for i in order[:3])
    closed = Layout(walls, (0, 0), agent_icon(looks.agents[0], (0, 0)), fuse=tuple(fence))
    blocked = closed.blocked()  # icons stay clear of the walls and of the room's barrier
    home = place(rng, home_cell, blocked, HOME_HALF)
    agent = agent_icon(looks.agents[0], home)
    outside = far(home_cell, 2, blocked, exclude=room)

    def trial() -> Walk:
        goal = object_icon(looks.objects[0], place(rng, pick(rng, outside), blocked, OBJECT_HALF))
        key = key_icon(place(rng, key_cell, blocked, KEY_HALF))
        lock = lock_icon(place(rng, lock_cell, blocked, LOCK_HALF))
        # Released style: off-centre icons in the small room may meet; such a trial is drawn
        # again (the tidy style keeps its earlier draws, where key and lock may touch).
        released = style.current().trial_frames is not None
        if released and (_overlap(key, lock) or _overlap(key, agent) or _overlap(lock, agent)):
            raise Resample("key, lock and start overlap in the room")
        return instrumental(Layout(walls, home, agent, (goal,), fuse=tuple(fence), key=key,
                                   lock=lock), 0)

    walks = [redrawn(trial) for _ in range(N_TRIALS)]
    if not walks:
        raise Resample("no trial")
    return Built([w.trial for w in walks], None, {
        "design": {"room": [list(c) for c in room], "barrier_cells": len(fence)},
        "audit": {"path_mean": float(np.mean([w.length for w in walks]))}})


def _overlap(a: Icon, b: Icon) -> bool:
    """Whether two icons' squares overlap (touching is not overlapping)."""
    reach = a.half + b.half
    return abs(a.centre[0] - b.centre[0]) < reach and abs(a.centre[1] - b.centre[1]) < reach


RECIPE = Recipe("instrumental_action", "ab", "train", build)

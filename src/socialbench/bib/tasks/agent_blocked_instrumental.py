"""Agent-blocked instrumental action (background training, expected only) (BIB paper sec. 3).

All 9 trials: the agent starts confined to a 2 x 2-cell room closed by a green removable barrier,
with the key and the lock inside; it fetches the key, inserts it into the lock, the barrier
disappears and it goes to the object, placed anew each trial outside. Teaches that the green
barrier blocks and how key and lock remove it. Training folder: ``instrumental_action``.
"""

from __future__ import annotations

import numpy as np

from socialbench.bib.schema import GRID, N_TRIALS
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks.base import Built, Recipe, instrumental
from socialbench.bib.world import (
    Layout,
    Resample,
    agent_icon,
    far,
    jittered,
    key_icon,
    lock_icon,
    object_icon,
    pick,
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
    home = jittered(rng, home_cell)
    agent = agent_icon(looks.agents[0], home)
    base = Layout(walls, home, agent, fuse=tuple(fence))
    outside = far(home_cell, 2, base.blocked(), exclude=room)
    walks = []
    for _ in range(N_TRIALS):
        layout = Layout(walls, home, agent,
                        (object_icon(looks.objects[0], jittered(rng, pick(rng, outside))),),
                        fuse=tuple(fence), key=key_icon(jittered(rng, key_cell)),
                        lock=lock_icon(jittered(rng, lock_cell)))
        walks.append(instrumental(layout, 0))
    if not walks:
        raise Resample("no trial")
    return Built([w.trial for w in walks], None, {
        "design": {"room": [list(c) for c in room], "barrier_cells": len(fence)},
        "audit": {"path_mean": float(np.mean([w.length for w in walks]))}})


RECIPE = Recipe("instrumental_action", "ab", "train", build)

"""Single object (background training, expected only) (BIB paper sec. 3).

All 9 trials: fixed walls and start; one object at a new random place each trial; the agent
takes its efficient path to it. Teaches how trials start and end, how agents move, and how walls
shape paths.
"""

from __future__ import annotations

import numpy as np

from socialbench.bib.schema import N_TRIALS
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks.base import Built, Recipe, go
from socialbench.bib.world import (
    HOME_HALF,
    OBJECT_HALF,
    Layout,
    agent_icon,
    far,
    free_cells,
    object_icon,
    pick,
    place,
    random_walls,
    sample_looks,
    wall_count,
)


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    looks = sample_looks(rng, shapes, n_objects=1)
    walls = random_walls(rng, wall_count(rng))
    blocked = Layout(walls, (0, 0), agent_icon(looks.agents[0], (0, 0))).blocked()
    home_cell = pick(rng, free_cells(blocked))
    home = place(rng, home_cell, blocked, HOME_HALF)
    agent = agent_icon(looks.agents[0], home)
    walks = []
    for _ in range(N_TRIALS):
        cell = pick(rng, far(home_cell, 1, blocked))
        goal = object_icon(looks.objects[0], place(rng, cell, blocked, OBJECT_HALF))
        walks.append(go(Layout(walls, home, agent, (goal,)), 0))
    return Built([w.trial for w in walks], None, {
        "design": {"object": looks.objects[0][0]},
        "audit": {"path_test": walks[-1].length,
                  "path_mean": float(np.mean([w.length for w in walks]))}})


RECIPE = Recipe("single_object", "so", "train", build)

"""No-navigation preference (background training, expected only) (BIB paper sec. 3).

All 9 trials: two objects right next to the agent's start (in two of its free neighbouring
cells, chosen anew each trial), and the agent always approaches the same one. Teaches that agents
have preferences without training navigation. Training folder: ``preference``.
"""

from __future__ import annotations

import numpy as np

from socialbench.bib.schema import N_TRIALS
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks.base import Built, Recipe, go
from socialbench.bib.world import (
    Layout,
    Resample,
    agent_icon,
    free_cells,
    jittered,
    object_icon,
    random_walls,
    ring,
    sample_looks,
    wall_count,
)


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    looks = sample_looks(rng, shapes, n_objects=2)  # objects[0] is the preferred one
    walls = random_walls(rng, wall_count(rng))
    blocked = Layout(walls, (0, 0), agent_icon(looks.agents[0], (0, 0))).blocked()
    cells = free_cells(blocked)
    home_cell = cells[int(rng.integers(len(cells)))]
    home = jittered(rng, home_cell)
    agent = agent_icon(looks.agents[0], home)
    # Axis neighbours only: a diagonal neighbour can be cut off by two walls.
    next_to = [c for c in ring(home_cell) if not blocked[c]
               and (c[0] == home_cell[0] or c[1] == home_cell[1])]
    if len(next_to) < 2:
        raise Resample("fewer than two free cells next to the start")
    walks = []
    for _ in range(N_TRIALS):
        a, b = rng.choice(len(next_to), size=2, replace=False)
        objects = tuple(object_icon(look, jittered(rng, next_to[int(i)]))
                        for look, i in zip(looks.objects, (a, b), strict=True))
        walks.append(go(Layout(walls, home, agent, objects), 0))
    return Built([w.trial for w in walks], None, {
        "design": {"preferred": looks.objects[0][0], "other": looks.objects[1][0]},
        "audit": {"path_mean": float(np.mean([w.length for w in walks]))}})


RECIPE = Recipe("preference", "np", "train", build)

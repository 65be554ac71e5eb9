"""No-preference multi-agent (background training, expected only) (BIB paper sec. 3).

All 9 trials: one object right next to the start (a free neighbouring cell, chosen anew each
trial); at a random trial (2nd to 9th) a new agent takes the first one's place for all the
remaining trials. Teaches that several agents can appear across trials. Training folder:
``multi_agent``.
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
    looks = sample_looks(rng, shapes, n_objects=1, n_agents=2)
    walls = random_walls(rng, wall_count(rng))
    blocked = Layout(walls, (0, 0), agent_icon(looks.agents[0], (0, 0))).blocked()
    cells = free_cells(blocked)
    home_cell = cells[int(rng.integers(len(cells)))]
    home = jittered(rng, home_cell)
    next_to = [c for c in ring(home_cell) if not blocked[c]
               and (c[0] == home_cell[0] or c[1] == home_cell[1])]
    if not next_to:
        raise Resample("no free cell next to the start")
    switch = int(rng.integers(1, N_TRIALS))  # first trial shown with the new agent
    walks = []
    for t in range(N_TRIALS):
        agent = agent_icon(looks.agents[0 if t < switch else 1], home)
        cell = next_to[int(rng.integers(len(next_to)))]
        objects = (object_icon(looks.objects[0], jittered(rng, cell)),)
        walks.append(go(Layout(walls, home, agent, objects), 0))
    return Built([w.trial for w in walks], None, {
        "design": {"first_agent": looks.agents[0][0], "new_agent": looks.agents[1][0],
                   "switch_trial": switch},
        "audit": {"switch_trial": float(switch),
                  "path_mean": float(np.mean([w.length for w in walks]))}})


RECIPE = Recipe("multi_agent", "nm", "train", build)

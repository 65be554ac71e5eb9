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
from socialbench.bib.tasks.base import Built, Recipe, Walk, go
from socialbench.bib.tasks.trial_draws import redrawn
from socialbench.bib.world import (
    HOME_HALF,
    OBJECT_HALF,
    Layout,
    Resample,
    agent_icon,
    free_cells,
    object_icon,
    place,
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
    home = place(rng, home_cell, blocked, HOME_HALF)
    next_to = [c for c in ring(home_cell) if not blocked[c]
               and (c[0] == home_cell[0] or c[1] == home_cell[1])]
    if not next_to:
        raise Resample("no free cell next to the start")
    switch = int(rng.integers(1, N_TRIALS))  # first trial shown with the new agent

    def trial(t: int) -> Walk:
        agent = agent_icon(looks.agents[0 if t < switch else 1], home)
        cell = next_to[int(rng.integers(len(next_to)))]
        objects = (object_icon(looks.objects[0], place(rng, cell, blocked, OBJECT_HALF)),)
        return go(Layout(walls, home, agent, objects), 0)

    # Released style: an off-centre object the agent would touch from the start is redrawn.
    walks = [redrawn(lambda t=t: trial(t)) for t in range(N_TRIALS)]
    return Built([w.trial for w in walks], None, {
        "design": {"first_agent": looks.agents[0][0], "new_agent": looks.agents[1][0],
                   "switch_trial": switch},
        "audit": {"switch_trial": float(switch),
                  "path_mean": float(np.mean([w.length for w in walks]))}})


RECIPE = Recipe("multi_agent", "nm", "train", build)

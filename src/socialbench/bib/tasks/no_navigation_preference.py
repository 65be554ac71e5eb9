"""No-navigation preference (background training, expected only) (BIB paper sec. 3).

All 9 trials: two objects right next to the agent's start (in two of its free neighbouring
cells on opposite sides of it, chosen anew each trial, so the objects are 2 cells apart and never
overlap), and the agent always approaches the same one. Teaches that agents
have preferences without training navigation. Training folder: ``preference``.
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
    looks = sample_looks(rng, shapes, n_objects=2)  # objects[0] is the preferred one
    walls = random_walls(rng, wall_count(rng))
    blocked = Layout(walls, (0, 0), agent_icon(looks.agents[0], (0, 0))).blocked()
    cells = free_cells(blocked)
    home_cell = cells[int(rng.integers(len(cells)))]
    home = place(rng, home_cell, blocked, HOME_HALF)
    agent = agent_icon(looks.agents[0], home)
    # Axis neighbours only: a diagonal neighbour can be cut off by two walls.
    next_to = [c for c in ring(home_cell) if not blocked[c]
               and (c[0] == home_cell[0] or c[1] == home_cell[1])]
    # The two objects sit on opposite sides of the start (2 cells apart): two neighbours at a
    # right angle are diagonal to each other, close enough for the icons to overlap.
    opposite = [(a, b) for a in next_to for b in next_to
                if max(abs(a[0] - b[0]), abs(a[1] - b[1])) >= 2]
    if not opposite:
        raise Resample("no two free cells on opposite sides of the start")

    def trial() -> Walk:
        pair = opposite[int(rng.integers(len(opposite)))]
        objects = tuple(object_icon(look, place(rng, c, blocked, OBJECT_HALF))
                        for look, c in zip(looks.objects, pair, strict=True))
        return go(Layout(walls, home, agent, objects), 0)

    # Released style: icons off-centre as in the real files, so an object can sit against
    # the start; such a trial (the agent would start touching it) is drawn again.
    walks = [redrawn(trial) for _ in range(N_TRIALS)]
    return Built([w.trial for w in walks], None, {
        "design": {"preferred": looks.objects[0][0], "other": looks.objects[1][0]},
        "audit": {"path_mean": float(np.mean([w.length for w in walks]))}})


RECIPE = Recipe("preference", "np", "train", build)

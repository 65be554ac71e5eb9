"""Multi-agent (evaluation): are preferences bound to the agent that showed them? (sec. 2.2)

Familiarization: a fixed start; every trial a new random maze and two objects at widely varying
places; the agent always goes to its preferred object.
Test: one familiarization trial's walls with the two objects' places swapped; both test trials
follow the identical path and differ only in the agent's shape. Two pair kinds alternate
(even index / odd index):

* ``preferred``: expected = the familiar agent goes to the preferred object; unexpected = a new
  agent goes to it (no expectation about the new agent, so "less expected");
* ``other``: expected = a new agent goes to the non-preferred object; unexpected = the familiar
  agent goes to the non-preferred object.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from socialbench.bib import style
from socialbench.bib.schema import N_FAMILIARIZATION
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks.base import Built, Recipe, go
from socialbench.bib.tasks.trial_draws import drawn_trials
from socialbench.bib.world import (
    HOME_HALF,
    OBJECT_HALF,
    Layout,
    Resample,
    agent_icon,
    blocked_grid,
    cells_under,
    far,
    free_cells,
    in_view,
    object_icon,
    pick,
    place,
    random_walls,
    sample_looks,
    wall_count,
    within_reach,
)

OBJECT_SPREAD = 3  # cells: the two objects are at least this far apart (Chebyshev), ours


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    looks = sample_looks(rng, shapes, n_objects=2, n_agents=2)  # agents[1] appears at test only
    home_cell = pick(rng, free_cells(Layout((), (0, 0), agent_icon(looks.agents[0], (0, 0)))
                                     .blocked()))
    home = place(rng, home_cell, blocked_grid(()), HOME_HALF)
    familiar = agent_icon(looks.agents[0], home)
    stranger = agent_icon(looks.agents[1], home)

    look = style.current()

    def draw() -> Layout:
        # The maze keeps free every cell the (released: far off-centre) home overlaps.
        walls = random_walls(rng, wall_count(rng), keep_free=cells_under(home, HOME_HALF))
        blocked = Layout(walls, home, familiar).blocked()
        # Released style: both objects within a real trial's walk of the start.
        pair = _pair_in_view(rng, home_cell, home, blocked) if look.paired_view else None
        if pair is not None:
            a, b = pair
        else:
            a = pick(rng, within_reach(home_cell, blocked, far(home_cell, 2, blocked),
                                       start=home))
            b = pick(rng, within_reach(home_cell, blocked, far(a, OBJECT_SPREAD, blocked,
                                                               exclude=[home_cell]), start=home))
            if look.paired_view and rng.integers(2):  # either object gets the first draw
                a, b = b, a
        objects = tuple(object_icon(look, place(rng, c, blocked, OBJECT_HALF))
                        for look, c in zip(looks.objects, (a, b), strict=True))
        return Layout(walls, home, familiar, objects)

    fam, walks = drawn_trials(draw)

    shown = int(rng.integers(N_FAMILIARIZATION))
    old = fam[shown].objects
    swapped = Layout(fam[shown].walls, home, familiar,
                     (old[0].at(old[1].centre), old[1].at(old[0].centre)))
    kind = "preferred" if index % 2 == 0 else "other"
    goal = 0 if kind == "preferred" else 1
    path = go(swapped, goal)
    by_familiar = path.trial
    by_stranger = go(replace(swapped, agent=stranger), goal).trial
    e, u = (by_familiar, by_stranger) if kind == "preferred" else (by_stranger, by_familiar)
    if not all(style.fits_real_length(len(t)) for t in (*(w.trial for w in walks), e)):
        raise Resample("a trial is shorter or longer than the real ones")
    fam_trials = [w.trial for w in walks]
    return Built(
        expected=[*fam_trials, e],
        unexpected=[*fam_trials, u],
        meta={
            "design": {"kind": kind, "preferred": looks.objects[0][0],
                       "familiar_agent": looks.agents[0][0], "new_agent": looks.agents[1][0],
                       "test_goal": "preferred" if goal == 0 else "other",
                       "e_agent": "familiar" if kind == "preferred" else "new",
                       "u_agent": "new" if kind == "preferred" else "familiar",
                       "test_layout_from_trial": shown},
            "audit": {"dist_preferred": float(np.mean([math.dist(home, f.objects[0].centre)
                                                       for f in fam])),
                      "dist_other": float(np.mean([math.dist(home, f.objects[1].centre)
                                                   for f in fam])),
                      "path_e": path.length, "path_u": path.length,
                      "kind_preferred": float(kind == "preferred")},
        },
    )


def _pair_in_view(rng: np.random.Generator, home_cell: tuple[int, int], home: tuple[float, float],
                  blocked: np.ndarray) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Two cells a walk's length from the start, both in view of it at a slant and at least
    :data:`OBJECT_SPREAD` apart, the pair and its order drawn uniformly; None if there are none.

    Drawn one after the other, the preferred object first, the other (at least 3 cells from
    it) was in view in a third of the trials against three quarters for the preferred one, so
    the test's walk to the other object's place turned more than the familiarization walks to
    the preferred one (docs/bib.md, "Audit"). Such a pair exists in about a third of the draws;
    elsewhere the two are drawn one after the other and which object is drawn first is a coin.
    """
    seen = [c for c in within_reach(home_cell, blocked, far(home_cell, 2, blocked), start=home)
            if in_view(home_cell, blocked, c, home)]
    pairs = [(a, b) for a in seen for b in seen
             if max(abs(a[0] - b[0]), abs(a[1] - b[1])) >= OBJECT_SPREAD]
    return pairs[int(rng.integers(len(pairs)))] if pairs else None


RECIPE = Recipe("multi_agent", "ma", "eval", build)

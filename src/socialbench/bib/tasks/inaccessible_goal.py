"""Inaccessible goal (evaluation): do obstacles explain a change of goal? (BIB paper sec. 2.3)

Familiarization: fixed walls and start; two objects at widely varying places; the agent always
goes to its preferred object.
Test: two new object places. Expected: the preferred object is walled in on all sides by black
walls and the agent goes to the other object. Unexpected: no extra walls (both objects reachable)
and the agent still goes to the other object. The two tests differ only in the walls around the
preferred object: the agent walks the identical path in both (layouts where the enclosure would
change that path are redrawn).
"""

from __future__ import annotations

import math

import numpy as np

from socialbench.bib import style
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks.base import Built, Recipe, follow, go, plan
from socialbench.bib.tasks.trial_draws import drawn_trials
from socialbench.bib.world import (
    HOME_HALF,
    OBJECT_HALF,
    Layout,
    Resample,
    agent_icon,
    blocked_grid,
    far,
    free_cells,
    object_icon,
    pick,
    place,
    random_walls,
    ring,
    sample_looks,
    wall_count,
    within_reach,
)


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    looks = sample_looks(rng, shapes, n_objects=2)  # objects[0] is the preferred one
    walls = random_walls(rng, wall_count(rng, 3, 8))
    blocked = Layout(walls, (0, 0), agent_icon(looks.agents[0], (0, 0))).blocked()
    home_cell = pick(rng, free_cells(blocked))
    home = place(rng, home_cell, blocked, HOME_HALF)
    agent = agent_icon(looks.agents[0], home)

    def draw() -> Layout:
        # Released style: the goal within a real trial's walk of the start.
        a = pick(rng, within_reach(home_cell, blocked, far(home_cell, 2, blocked), start=home))
        b = pick(rng, far(a, 3, blocked, exclude=[home_cell]))
        objects = tuple(object_icon(look, place(rng, c, blocked, OBJECT_HALF))
                        for look, c in zip(looks.objects, (a, b), strict=True))
        return Layout(walls, home, agent, objects)

    fam, walks = drawn_trials(draw)
    used = {o.cell for layout in fam for o in layout.objects}

    # Test: new places (not used in familiarization when the grid allows), the preferred one
    # away from the start so walls can close around it.
    fresh = [c for c in far(home_cell, 2, blocked) if c not in used] or far(home_cell, 2, blocked)
    pref_cell = pick(rng, fresh)
    enclosure = [c for c in ring(pref_cell) if not blocked[c]]
    other_cell = pick(rng, within_reach(home_cell, blocked, far(
        home_cell, 2, blocked, exclude=[pref_cell, *enclosure]), start=home))
    if home_cell in enclosure:
        raise Resample("start inside the enclosure")
    # The preferred object's square stays clear of its enclosure (placed as if walled in).
    objects = (object_icon(looks.objects[0],
                           place(rng, pref_cell, blocked_grid((*walls, *enclosure)), OBJECT_HALF)),
               object_icon(looks.objects[1], place(rng, other_cell, blocked, OBJECT_HALF)))
    open_test = Layout(walls, home, agent, objects)
    walled_test = Layout((*walls, *enclosure), home, agent, objects)
    route = plan(open_test, home, objects[1].centre)
    if route != plan(walled_test, home, objects[1].centre):
        raise Resample("the enclosure changes the path to the other object")
    test_e, test_u = follow(walled_test, route, 1), follow(open_test, route, 1)
    to_pref = go(open_test, 0)
    if not all(style.fits_real_length(len(w.trial)) for w in (*walks, test_e, test_u)):
        raise Resample("a trial is shorter or longer than the real ones")
    fam_trials = [w.trial for w in walks]
    return Built(
        expected=[*fam_trials, test_e.trial],
        unexpected=[*fam_trials, test_u.trial],
        meta={
            "design": {"preferred": looks.objects[0][0], "other": looks.objects[1][0],
                       "enclosure_cells": [list(c) for c in enclosure],
                       "e_goal": "other (preferred walled in)", "u_goal": "other (both open)"},
            "audit": {"dist_preferred": float(np.mean([math.dist(home, f.objects[0].centre)
                                                       for f in fam])),
                      "dist_other": float(np.mean([math.dist(home, f.objects[1].centre)
                                                   for f in fam])),
                      "test_path_preferred": to_pref.length, "path_e": test_e.length,
                      "path_u": test_u.length,
                      "test_other_closer": float(test_u.length < to_pref.length)},
        },
    )


RECIPE = Recipe("inaccessible_goal", "ig", "eval", build)

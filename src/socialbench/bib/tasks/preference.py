"""Preference (evaluation): is the agent's goal an object, not a place? (BIB paper sec. 2.1)

Familiarization: 8 trials with fixed walls and a fixed start; two objects, each staying in its own
region (a 3 x 3-cell neighbourhood, so within ~2 cells) across trials; the agent always goes to
the same one, its preferred object. The two objects are always at least 2 cells apart (their icons
never overlap; the agent touches only its goal, on its way or at its end).
Test: one familiarization trial's layout with the two objects' places swapped. Expected: the agent
goes to the preferred object at its new place. Unexpected: it goes to the non-preferred object at
the preferred one's old place (the familiar path). The two tests' first frames are identical.
Control: the preferred object is not systematically closer (paper: "preferred objects are not
consistently closer or farther from the agent"; audit: ``dist_preferred`` vs ``dist_other``,
``e_shorter``). In the released style whether the expected test's walk is the shorter one is
split evenly over the task's episodes (:mod:`.counterbalance`: one of every two consecutive
episodes each way), both by its planned length and by its frames, so an observer that picks the
nearer object or the shorter video scores exactly chance; a layout that falls the other way (or
ties) is redrawn. In the tidy style and ``released-v3`` which region holds the preferred object
is a fair coin per episode.
"""

from __future__ import annotations

import math

import numpy as np

from socialbench.bib import style
from socialbench.bib.schema import N_FAMILIARIZATION
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks import counterbalance
from socialbench.bib.tasks.base import Built, Recipe, Walk, go
from socialbench.bib.tasks.trial_draws import drawn_trials
from socialbench.bib.world import (
    HOME_HALF,
    OBJECT_HALF,
    Layout,
    Resample,
    agent_icon,
    far,
    free_cells,
    near,
    object_icon,
    pick,
    place,
    random_walls,
    ring,
    sample_looks,
    wall_count,
    within_reach,
)
from socialbench.core.grid_planning import polyline_length


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    looks = sample_looks(rng, shapes, n_objects=2)  # objects[0] is the preferred one
    walls = random_walls(rng, wall_count(rng))
    base = Layout(walls, (0, 0), agent_icon(looks.agents[0], (0, 0)))
    blocked = base.blocked()
    look = style.current()  # released: regions near the start (real trial lengths), wider
    home_cell = pick(rng, free_cells(blocked))
    home = place(rng, home_cell, blocked, HOME_HALF)
    region_a = pick(rng, within_reach(home_cell, blocked, far(home_cell, 2, blocked),
                                       start=home))
    region_b = pick(rng, within_reach(home_cell, blocked, far(region_a, look.region_gap, blocked,
                                                              exclude=[home_cell]), start=home))
    if max(abs(region_b[0] - home_cell[0]), abs(region_b[1] - home_cell[1])) < 2:
        raise Resample("second region too close to the start")
    regions = [region_a, region_b] if rng.integers(2) == 0 else [region_b, region_a]
    agent = agent_icon(looks.agents[0], home)

    def draw() -> Layout:
        cells: list[tuple[int, int]] = []
        for region in regions:
            # Objects at least 2 cells apart (Chebyshev): adjacent cells let the 18-px icons
            # overlap and the agent touch both (observers' bug report).
            apart = [n for c in cells for n in ring(c)]
            cells.append(pick(rng, within_reach(home_cell, blocked, near(
                region, look.region_radius, blocked, exclude=[home_cell, *cells, *apart]),
                start=home)))
        objects = tuple(object_icon(looked, place(rng, c, blocked, OBJECT_HALF))
                        for looked, c in zip(looks.objects, cells, strict=True))
        return Layout(walls, home, agent, objects)

    fam, walks = drawn_trials(draw)

    shown = int(rng.integers(N_FAMILIARIZATION))
    old = fam[shown].objects
    swapped = Layout(walls, home, agent, (old[0].at(old[1].centre), old[1].at(old[0].centre)))
    test_e, test_u = go(swapped, 0), go(swapped, 1)
    if not all(style.fits_real_length(len(w.trial)) for w in (*walks, test_e, test_u)):
        raise Resample("a trial is shorter or longer than the real ones")
    if look.counterbalanced:
        _check_side(test_e, test_u, e_shorter=counterbalance.side(index) == 0)
    fam_trials = [w.trial for w in walks]
    pref_dist = [math.dist(home, f.objects[0].centre) for f in fam]
    other_dist = [math.dist(home, f.objects[1].centre) for f in fam]
    return Built(
        expected=[*fam_trials, test_e.trial],
        unexpected=[*fam_trials, test_u.trial],
        meta={
            "design": {"preferred": looks.objects[0][0], "other": looks.objects[1][0],
                       "test_layout_from_trial": shown, "e_goal": "preferred",
                       "u_goal": "other"},
            "audit": {"dist_preferred": float(np.mean(pref_dist)),
                      "dist_other": float(np.mean(other_dist)),
                      "path_e": test_e.length, "path_u": test_u.length,
                      "e_shorter": float(test_e.length < test_u.length)},
        },
    )


def _check_side(test_e: Walk, test_u: Walk, e_shorter: bool) -> None:
    """:class:`Resample` unless the expected walk is the shorter (``e_shorter``) or the longer
    one, both in planned length (what a nearest-object observer reads) and in frames (what a
    duration observer reads)."""
    by_length = polyline_length(test_e.waypoints[0]) - polyline_length(test_u.waypoints[0])
    by_frames = len(test_e.trial) - len(test_u.trial)
    sign = -1 if e_shorter else 1
    if by_length * sign <= 0 or by_frames * sign <= 0:
        raise Resample("the expected walk is not on its counterbalanced side")


RECIPE = Recipe("preference", "lo", "eval", build)  # "lo": the released samples' code

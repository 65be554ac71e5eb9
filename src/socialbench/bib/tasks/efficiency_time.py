"""Efficiency, time control (evaluation): efficiency, not duration (BIB paper sec. 2.5, Fig. 13).

Familiarization: as in the path control, a rational agent goes around a black barrier.
Test: one familiarization trial's layout with the barrier removed. Expected: the straight,
efficient path. Unexpected: the familiar, now-inefficient path. Unlike the path control, both
take the same time: the expected agent walks slower (at most 2 px a frame, as every agent), so
its moving frames match the unexpected one's and the test trials have equal length.
"""

from __future__ import annotations

import numpy as np

from socialbench.bib import motion
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks import efficiency_scene
from socialbench.bib.tasks.base import Built, Recipe, Walk, follow, plan
from socialbench.bib.world import Layout


def _walk_in_frames(layout: Layout, route: list, frames: int) -> Walk:
    """The walk along ``route`` whose length is ``frames``: search the slower speed."""
    lo, hi = 0.05, motion.STEP_PX
    best = follow(layout, route, 0, step=hi)
    for _ in range(30):  # bisection on the step; the frame count falls as the step grows
        mid = (lo + hi) / 2
        walk = follow(layout, route, 0, step=mid)
        if abs(len(walk.trial) - frames) < abs(len(best.trial) - frames):
            best = walk
        if len(walk.trial) == frames:
            return walk
        lo, hi = (mid, hi) if len(walk.trial) > frames else (lo, mid)
    return best


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    scene = efficiency_scene.sample(rng, shapes)
    fam = [follow(layout, route, 0).trial for layout, route in zip(scene.fam, scene.routes,
                                                                   strict=True)]
    shown = int(rng.integers(len(scene.fam)))
    test_layout = scene.without_barrier(scene.fam[shown])
    test_u = follow(test_layout, scene.routes[shown], 0)
    direct = plan(test_layout, test_layout.home, test_layout.objects[0].centre)
    test_e = _walk_in_frames(test_layout, direct, len(test_u.trial))
    return Built(
        expected=[*fam, test_e.trial],
        unexpected=[*fam, test_u.trial],
        meta={
            "design": {"barrier_cells": [list(c) for c in scene.barrier],
                       "test_layout_from_trial": shown,
                       "e_path": "efficient (straight), slowed to the same duration",
                       "u_path": "familiar detour"},
            "audit": {"barrier_cells": float(len(scene.barrier)),
                      "fam_detour": float(np.mean(scene.detours)),
                      "path_e": test_e.length, "path_u": test_u.length,
                      "frames_e": float(len(test_e.trial)), "frames_u": float(len(test_u.trial))},
        },
    )


RECIPE = Recipe("efficiency_time", "et", "eval", build)

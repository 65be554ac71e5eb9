"""Efficiency, path control (evaluation): does the agent act efficiently? (BIB paper sec. 2.5)

Familiarization: a rational agent takes the efficient path around a black barrier to one object
(fixed start, the object in one region; see :mod:`.efficiency_scene`).
Test: one familiarization trial's layout with the barrier removed. Expected: the agent takes the
now-efficient straight path. Unexpected: it repeats the familiar path around where the barrier
was, now inefficient. The tests differ only in the path (same first frame).
"""

from __future__ import annotations

import numpy as np

from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks import efficiency_scene
from socialbench.bib.tasks.base import Built, Recipe, follow, go


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    scene = efficiency_scene.sample(rng, shapes)
    fam = [follow(layout, route, 0).trial for layout, route in zip(scene.fam, scene.routes,
                                                                   strict=True)]
    shown = int(rng.integers(len(scene.fam)))
    test_layout = scene.without_barrier(scene.fam[shown])
    test_e = go(test_layout, 0)
    test_u = follow(test_layout, scene.routes[shown], 0)
    return Built(
        expected=[*fam, test_e.trial],
        unexpected=[*fam, test_u.trial],
        meta={
            "design": {"barrier_cells": [list(c) for c in scene.barrier],
                       "test_layout_from_trial": shown, "e_path": "efficient (straight)",
                       "u_path": "familiar detour"},
            "audit": {"barrier_cells": float(len(scene.barrier)),
                      "fam_detour": float(np.mean(scene.detours)),
                      "path_e": test_e.length, "path_u": test_u.length,
                      "frames_e": float(len(test_e.trial)), "frames_u": float(len(test_u.trial))},
        },
    )


RECIPE = Recipe("efficiency_path", "ep", "eval", build)

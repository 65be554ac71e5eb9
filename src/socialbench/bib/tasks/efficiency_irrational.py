"""Efficiency, irrational agent (evaluation): no expectation from an irrational agent (sec. 2.5).

The two videos differ only in familiarization; the test is identical.
Expected (``e``): an IRRATIONAL familiarization - the agent takes the same detour paths as a
rational agent would around a barrier, but the barrier is not there (every trial the barrier is
gone and a varying half of the other walls too), so it is inefficient from the start and no
expectation of efficiency can form.
Unexpected (``u``): the RATIONAL familiarization - the barrier is there and the paths go around it.
Test (both): one familiarization layout without the barrier; the agent takes the familiar,
inefficient path. Surprising only after the rational familiarization (bib spec).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks import efficiency_scene
from socialbench.bib.tasks.base import Built, Recipe, follow

WALL_KEEP_P = 0.5  # ours: each non-barrier wall stays in an irrational trial with this chance


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    scene = efficiency_scene.sample(rng, shapes)
    rational = [follow(layout, route, 0).trial
                for layout, route in zip(scene.fam, scene.routes, strict=True)]
    irrational = []
    for layout, route in zip(scene.fam, scene.routes, strict=True):
        kept = tuple(c for c in layout.walls
                     if c not in scene.barrier and rng.random() < WALL_KEEP_P)
        irrational.append(follow(replace(layout, walls=kept), route, 0).trial)
    shown = int(rng.integers(len(scene.fam)))
    test = follow(scene.without_barrier(scene.fam[shown]), scene.routes[shown], 0)
    return Built(
        expected=[*irrational, test.trial],
        unexpected=[*rational, test.trial],
        meta={
            "design": {"barrier_cells": [list(c) for c in scene.barrier],
                       "test_layout_from_trial": shown,
                       "e_familiarization": "irrational (no barrier)",
                       "u_familiarization": "rational (around the barrier)",
                       "test": "familiar inefficient path, identical in e and u"},
            "audit": {"barrier_cells": float(len(scene.barrier)),
                      "fam_detour": float(np.mean(scene.detours)),
                      "path_e": test.length, "path_u": test.length},
        },
    )


RECIPE = Recipe("efficiency_irrational", "ei", "eval", build)

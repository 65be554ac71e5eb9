"""Instrumental action, inconsequential barrier (evaluation) (BIB paper sec. 2.4).

Familiarization: as in every instrumental sub-task, the key opens the green barrier that encloses
the goal object (see :mod:`.instrumental_scene`).
Test: the familiar start and object, key and lock at new places, and the barrier with one side
open, so it no longer blocks the object. Expected: the agent walks around the barrier straight
to the object. Unexpected: it fetches the key and unlocks the (useless) barrier first. The tests
differ only in the path.
"""

from __future__ import annotations

import numpy as np

from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks import instrumental_scene
from socialbench.bib.tasks.base import Built, Recipe, go, instrumental


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    scene = instrumental_scene.sample(rng, shapes)
    layout = instrumental_scene.gapped(rng, scene.test_layout(rng))
    test_e, test_u = go(layout, 0), instrumental(layout, 0)
    return Built(
        expected=[*scene.trials, test_e.trial],
        unexpected=[*scene.trials, test_u.trial],
        meta={
            "design": {"test_barrier": "open on one side", "e_path": "direct to the object",
                       "u_path": "key, lock, then the object",
                       "barrier_cells": len(layout.fuse)},
            "audit": {"path_e": test_e.length, "path_u": test_u.length,
                      "frames_e": float(len(test_e.trial)), "frames_u": float(len(test_u.trial))},
        },
    )


RECIPE = Recipe("instrumental_inconsequential_barrier", "ii", "eval", build)

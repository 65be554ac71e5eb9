"""Instrumental action, blocking barrier (evaluation) (BIB paper sec. 2.4).

Familiarization: as in every instrumental sub-task, the key opens the green barrier that encloses
the goal object (see :mod:`.instrumental_scene`).
Test: the familiar start and object, key and lock at new places. In both outcomes the agent
fetches the key, unlocks the barrier and goes to the object, along the identical path.
Expected: the barrier encloses the object (the key is needed). Unexpected: the barrier has one
side open, so it does not block (the key was not needed). The tests differ only in the barrier's
cells: the agent's track is the same frame for frame.
"""

from __future__ import annotations

import numpy as np

from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks import instrumental_scene
from socialbench.bib.tasks.base import Built, Recipe, instrumental


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    scene = instrumental_scene.sample(rng, shapes)
    closed = scene.test_layout(rng)
    opened = instrumental_scene.gapped(rng, closed)
    test_e = instrumental(closed, 0)
    # The same legs as the blocking test (planned with the full barrier), so only the barrier
    # differs between the two videos.
    test_u = instrumental(opened, 0, key_route=test_e.waypoints[0],
                          lock_route=test_e.waypoints[1])
    return Built(
        expected=[*scene.trials, test_e.trial],
        unexpected=[*scene.trials, test_u.trial],
        meta={
            "design": {"e_barrier": "encloses the object", "u_barrier": "open on one side",
                       "path": "key, lock, then the object (both)"},
            "audit": {"path_e": test_e.length, "path_u": test_u.length,
                      "barrier_cells_e": float(len(closed.fuse)),
                      "barrier_cells_u": float(len(opened.fuse))},
        },
    )


RECIPE = Recipe("instrumental_blocking_barrier", "ib", "eval", build)

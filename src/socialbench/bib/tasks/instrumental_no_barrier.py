"""Instrumental action, no barrier (evaluation): is the key a means to an end? (sec. 2.4)

Familiarization: the goal object is enclosed by a green removable barrier; the agent fetches the
key, inserts it into the lock, the barrier disappears and it goes to the object
(see :mod:`.instrumental_scene`).
Test: the familiar start and object, without any barrier; key and lock at new places. Expected: the
agent goes straight to the object. Unexpected: it goes to the key, then the lock, then the object,
as in familiarization. The tests differ only in the path.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks import instrumental_scene
from socialbench.bib.tasks.base import Built, Recipe, go, instrumental


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    scene = instrumental_scene.sample(rng, shapes)
    layout = replace(scene.test_layout(rng), fuse=())
    test_e, test_u = go(layout, 0), instrumental(layout, 0)
    return Built(
        expected=[*scene.trials, test_e.trial],
        unexpected=[*scene.trials, test_u.trial],
        meta={
            "design": {"test_barrier": "none", "e_path": "direct to the object",
                       "u_path": "key, lock, then the object"},
            "audit": {"path_e": test_e.length, "path_u": test_u.length,
                      "frames_e": float(len(test_e.trial)), "frames_u": float(len(test_u.trial))},
        },
    )


RECIPE = Recipe("instrumental_no_barrier", "in", "eval", build)

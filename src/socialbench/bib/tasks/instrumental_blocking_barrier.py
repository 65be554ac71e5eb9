"""Instrumental action, blocking barrier (evaluation) (BIB paper sec. 2.4).

Familiarization: as in every instrumental sub-task, the key opens the green barrier that encloses
the goal object (see :mod:`.instrumental_scene`).
Test: the familiar start and object, key and lock at new places. In both outcomes the agent
fetches the key, unlocks the barrier and goes to the object, along the identical path.
Expected: the barrier still encloses the object (the key is needed). Unexpected: the barrier
does not block (the key was not needed). Both test barriers are the familiar one less one cell
(:func:`one_cell_less`): a cell whose removal leaves it blocking (a corner: no agent passes
diagonally between two barrier cells) in the expected test, one whose removal opens it (a
side's middle) in the unexpected test. So neither test repeats the familiar barrier and both
differ from it by one cell: how new the scene looks says nothing about the answer (the paper's
design implies no such cue). The tests differ only in the barrier's cells: the agent's track
is the same frame for frame.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks import instrumental_scene
from socialbench.bib.tasks.base import Built, Recipe, instrumental
from socialbench.bib.world import Layout, Resample, cell_of
from socialbench.core.grid_planning import reachable


def one_cell_less(rng: np.random.Generator, layout: Layout, *, blocks: bool) -> Layout:
    """The layout with one barrier cell removed, drawn among those after whose removal the
    barrier still blocks the goal from the start (``blocks``) or no longer does."""
    home, goal = cell_of(layout.home), layout.objects[0].cell
    fits = []
    for cell in layout.fuse:
        candidate = replace(layout, fuse=tuple(c for c in layout.fuse if c != cell))
        if reachable(candidate.blocked(), home, goal) != blocks:
            fits.append(candidate)
    if not fits:
        raise Resample("no barrier cell leaves it " + ("blocking" if blocks else "open"))
    return fits[int(rng.integers(len(fits)))]


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    scene = instrumental_scene.sample(rng, shapes)
    closed = scene.test_layout(rng)
    blocking = one_cell_less(rng, closed, blocks=True)
    opened = one_cell_less(rng, closed, blocks=False)
    # Both tests walk the legs planned around the full familiar barrier, so only the barrier
    # differs between the two videos (neither walk crosses a cell the other's barrier keeps).
    legs = instrumental(closed, 0).waypoints
    test_e = instrumental(blocking, 0, key_route=legs[0], lock_route=legs[1])
    test_u = instrumental(opened, 0, key_route=legs[0], lock_route=legs[1])
    return Built(
        expected=[*scene.trials, test_e.trial],
        unexpected=[*scene.trials, test_u.trial],
        meta={
            "design": {"e_barrier": "encloses the object (the familiar barrier less a cell)",
                       "u_barrier": "open (the familiar barrier less a cell)",
                       "e_removed_cell": _removed(closed, blocking),
                       "u_removed_cell": _removed(closed, opened),
                       "path": "key, lock, then the object (both)"},
            "audit": {"path_e": test_e.length, "path_u": test_u.length,
                      "barrier_cells_e": float(len(blocking.fuse)),
                      "barrier_cells_u": float(len(opened.fuse))},
        },
    )


def _removed(full: Layout, less: Layout) -> list[int]:
    return list(next(c for c in full.fuse if c not in less.fuse))


RECIPE = Recipe("instrumental_blocking_barrier", "ib", "eval", build)

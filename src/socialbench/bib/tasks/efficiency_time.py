"""Efficiency, time control (evaluation): efficiency, not duration (BIB paper sec. 2.5, Fig. 13).

Familiarization: as in the path control, a rational agent goes around a black barrier.
Test: one familiarization trial's layout with the barrier removed. Expected: the straight,
efficient path. Unexpected: the familiar, now-inefficient path. Unlike the path control, both
take the same time (the paper, Fig. 13: "the time taken by the agent to reach the goal in the
expected and unexpected cases is the same"), so the test trials have equal length.

The paper does not say how the shorter path is made to last as long. Every agent walks at the
released 2 px a frame on its step's larger axis, which is also the most the released files
allow (2 px per axis per frame, bib spec), so the unexpected agent cannot go faster: the
expected one must take longer over its straight path. How (``--time-control``):

* ``slow`` (default): it walks slower, evenly (about half speed; the step searched so that its
  moving frames match the unexpected walk's);
* ``pauses``: it walks at the usual speed with still frames spread evenly between its steps.

Either way its average speed is lower than the unexpected agent's: that is the design's (equal
times over unequal paths), and the path control, where both walk at the usual speed, is the
paper's own check against it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from socialbench.bib import motion
from socialbench.bib.schema import Trial
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.tasks import efficiency_scene
from socialbench.bib.tasks.base import Built, Recipe, Walk, follow, plan
from socialbench.bib.world import Layout
from socialbench.core.errors import UserError

TIME_CONTROLS = ("slow", "pauses")
DEFAULT_TIME_CONTROL = "slow"
# Set for the duration of one episode's build (:func:`using`), so the recipe keeps its signature.
_TIME_CONTROL: ContextVar[str] = ContextVar("bib_time_control", default=DEFAULT_TIME_CONTROL)


def check_time_control(name: str) -> str:
    if name not in TIME_CONTROLS:
        raise UserError(f"unknown --time-control {name!r}; choose one of "
                        f"{', '.join(TIME_CONTROLS)}")
    return name


@contextmanager
def using(time_control: str) -> Iterator[None]:
    """Build the time control's expected walk this way (``slow`` or ``pauses``) meanwhile."""
    token = _TIME_CONTROL.set(check_time_control(time_control))
    try:
        yield
    finally:
        _TIME_CONTROL.reset(token)


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


def walking(trial: Trial) -> tuple[float, int]:
    """The agent's median step over the frames it moves (px, larger axis) and the frames it
    stands still between leaving home and arriving: what the two time controls trade."""
    path = np.asarray([f.agent.center for f in trial.iter_frames()], dtype=float)
    steps = np.abs(np.diff(path, axis=0)).max(axis=1)
    moving = np.flatnonzero(steps > 0)
    if not len(moving):
        return 0.0, 0
    underway = steps[moving[0]:moving[-1] + 1]
    return float(np.median(steps[moving])), int((underway == 0).sum())


def build(rng: np.random.Generator, shapes: ShapeSet, index: int) -> Built:
    scene = efficiency_scene.sample(rng, shapes)
    fam = [follow(layout, route, 0).trial for layout, route in zip(scene.fam, scene.routes,
                                                                   strict=True)]
    shown = int(rng.integers(len(scene.fam)))
    test_layout = scene.without_barrier(scene.fam[shown])
    test_u = follow(test_layout, scene.routes[shown], 0)
    direct = plan(test_layout, test_layout.home, test_layout.objects[0].centre)
    control = _TIME_CONTROL.get()
    if control == "pauses":
        test_e = follow(test_layout, direct, 0, frames=len(test_u.trial))
    else:
        test_e = _walk_in_frames(test_layout, direct, len(test_u.trial))
    step_e, still_e = walking(test_e.trial)
    return Built(
        expected=[*fam, test_e.trial],
        unexpected=[*fam, test_u.trial],
        meta={
            "design": {"barrier_cells": [list(c) for c in scene.barrier],
                       "test_layout_from_trial": shown,
                       "e_path": "efficient (straight), " + (
                           "paused to the same duration" if control == "pauses" else
                           "slowed to the same duration"),
                       "u_path": "familiar detour"},
            "audit": {"barrier_cells": float(len(scene.barrier)),
                      "fam_detour": float(np.mean(scene.detours)),
                      "path_e": test_e.length, "path_u": test_u.length,
                      "frames_e": float(len(test_e.trial)), "frames_u": float(len(test_u.trial)),
                      "step_e": step_e, "still_frames_e": float(still_e)},
        },
    )


RECIPE = Recipe("efficiency_time", "et", "eval", build)

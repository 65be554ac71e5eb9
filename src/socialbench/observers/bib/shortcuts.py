"""Shortcut observers: simple heuristics that audit BIB for cues a model could exploit.

Each predicts a path for the test trial from one heuristic and rates every waypoint of the
observed test path by its distance (in cells) from that predicted path; the video's surprise is
the largest deviation (or the mean, ``--reduce mean``). None of them reasons about goals,
preferences or rationality, so each should fall to chance (or below) on the sub-evaluations
that BIB designed against it; scoring far above chance there means the generated data leaks the
cue. Which sub-evaluations defeat which shortcut:

========================  =================================================================
observer                  predicts the agent goes ... / is defeated by
========================  =================================================================
``shortcut-nearest``      to the object with the shortest path from its start /
                          preference, multi-agent (BIB controls: the preferred object is not
                          consistently the closer one)
``shortcut-location``     to where it ended in familiarization / preference (the test swaps
                          the objects: going to the old place is the unexpected outcome),
                          multi-agent (objects at widely varying places)
``shortcut-path``         along the familiarization path nearest its start / efficiency path
                          and time control (the familiar path is the unexpected one), preference
``shortcut-direct``       straight to its familiar goal object, ignoring any green barrier /
                          instrumental blocking barrier (both outcomes fetch the key)
``shortcut-key``          to the key, then the lock, then the goal whenever a green barrier
                          exists / instrumental inconsequential barrier (the barrier exists but
                          does not block: fetching the key is the unexpected outcome)
========================  =================================================================

Every one of them scores exactly 50% on efficiency-irrational (its two test trials are
identical: ties count half).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from socialbench.bib.schema import CELL, Trial
from socialbench.core.grid_planning import plan_points, polyline_length
from socialbench.observers.bib.views import Thing, TrialView, view_trial
from socialbench.voe.observer import EpisodeView, Observer
from socialbench.voe.registry import register_observer

AGENT_HALF = 6.0  # px, the agent's half-side (bib spec: agent s = 6)


def deviation(points: np.ndarray, polyline: np.ndarray) -> np.ndarray:
    """Distance (in cells) from each point to the nearest point of a polyline."""
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    line = np.asarray(polyline, dtype=float).reshape(-1, 2)
    if len(line) == 1:
        return np.hypot(*(points - line[0]).T) / CELL
    a, b = line[:-1], line[1:]
    ab = b - a
    length2 = np.maximum((ab ** 2).sum(axis=1), 1e-12)
    ap = points[:, None, :] - a[None, :, :]
    t = np.clip((ap * ab[None]).sum(axis=2) / length2[None], 0.0, 1.0)
    nearest = a[None] + t[..., None] * ab[None]
    return np.sqrt(((points[:, None, :] - nearest) ** 2).sum(axis=2)).min(axis=1) / CELL


def plan(blocked: np.ndarray, start: tuple[float, float],
         goal: tuple[float, float]) -> list[tuple[float, float]] | None:
    """Smoothed shortest path between two pixels (the shared planner), None if unreachable."""
    col, row = int(goal[0] // CELL), int(goal[1] // CELL)
    if blocked[col, row]:  # a target drawn over a wall cell (a lock in a barrier): reach its edge
        blocked = blocked.copy()
        blocked[col, row] = False
    start_cell = int(start[0] // CELL), int(start[1] // CELL)
    if blocked[start_cell]:
        blocked = blocked.copy()
        blocked[start_cell] = False
    return plan_points(blocked, start, goal, half=AGENT_HALF, cell=CELL)


def plan_or_line(blocked: np.ndarray, start: tuple[float, float],
                 goal: tuple[float, float]) -> list[tuple[float, float]]:
    return plan(blocked, start, goal) or [tuple(start), tuple(goal)]


def familiar_goal_shape(familiarization: list[TrialView], agent: str) -> str | None:
    """The object shape this agent ended at most often in familiarization (any agent if new)."""
    counts = Counter(v.objects[v.reached()].shape for v in familiarization
                     if v.objects and v.agent == agent)
    if not counts:
        counts = Counter(v.objects[v.reached()].shape for v in familiarization if v.objects)
    return counts.most_common(1)[0][0] if counts else None


def goal_object(familiarization: list[TrialView], test: TrialView) -> Thing | None:
    """The test object of the familiar goal shape; else the object nearest the agent."""
    if not test.objects:
        return None
    shape = familiar_goal_shape(familiarization, test.agent)
    for thing in test.objects:
        if thing.shape == shape:
            return thing
    start = np.asarray(test.start)
    return min(test.objects, key=lambda o: float(np.hypot(*(np.asarray(o.centre) - start))))


class ShortcutObserver(Observer[EpisodeView[Trial]]):
    """Base: surprise per waypoint = its distance (cells) from :meth:`predict`'s path."""

    benchmark = "bib"

    def predict(self, familiarization: list[TrialView], test: TrialView) -> np.ndarray:
        raise NotImplementedError

    def surprise_per_step(self, episode: EpisodeView[Trial]) -> np.ndarray:
        familiarization = [view_trial(t) for t in episode.familiarization]
        test = view_trial(episode.test)
        predicted = self.predict(familiarization, test)
        return deviation(test.waypoints[1:] if len(test.waypoints) > 1 else test.waypoints,
                         predicted)


@register_observer("bib", "shortcut-nearest")
class NearestObject(ShortcutObserver):
    """Predicts the agent goes to the object with the shortest path from its start."""

    name = "shortcut-nearest"

    def predict(self, familiarization: list[TrialView], test: TrialView) -> np.ndarray:
        blocked = test.walls | test.fuse
        best, best_len = None, math.inf
        for thing in test.objects:
            points = plan(blocked, test.start, thing.centre)
            length = polyline_length(points) if points else math.inf
            if length < best_len:
                best, best_len = points, length
        if best is None:  # nothing reachable: straight to the closest object, if any
            if not test.objects:
                return np.asarray([test.start])
            start = np.asarray(test.start)
            target = min(test.objects, key=lambda o: np.hypot(*(np.asarray(o.centre) - start)))
            best = [test.start, target.centre]
        return np.asarray(best)


@register_observer("bib", "shortcut-location")
class FamiliarLocation(ShortcutObserver):
    """Predicts the agent goes where it ended in familiarization (the median end point)."""

    name = "shortcut-location"

    def predict(self, familiarization: list[TrialView], test: TrialView) -> np.ndarray:
        ends = np.asarray([v.end for v in familiarization]) if familiarization else \
            np.asarray([test.start])
        target = tuple(float(x) for x in np.median(ends, axis=0))
        return np.asarray(plan_or_line(test.walls | test.fuse, test.start, target))


@register_observer("bib", "shortcut-path")
class FamiliarPath(ShortcutObserver):
    """Predicts the agent repeats the familiarization path that started nearest its start."""

    name = "shortcut-path"

    def predict(self, familiarization: list[TrialView], test: TrialView) -> np.ndarray:
        if not familiarization:
            return np.asarray([test.start])
        start = np.asarray(test.start)
        gaps = [float(np.hypot(*(np.asarray(v.start) - start))) for v in familiarization]
        nearest = min(range(len(gaps)), key=lambda i: (gaps[i], -i))  # ties: the latest trial
        return familiarization[nearest].path


@register_observer("bib", "shortcut-direct")
class DirectToGoal(ShortcutObserver):
    """Predicts the agent goes straight to its familiar goal object, through any green barrier."""

    name = "shortcut-direct"

    def predict(self, familiarization: list[TrialView], test: TrialView) -> np.ndarray:
        goal = goal_object(familiarization, test)
        if goal is None:
            return np.asarray([test.start])
        return np.asarray(plan_or_line(test.walls, test.start, goal.centre))


@register_observer("bib", "shortcut-key")
class KeyWhenBarrier(ShortcutObserver):
    """Predicts key -> lock -> goal whenever a green barrier exists, else straight to the goal."""

    name = "shortcut-key"

    def predict(self, familiarization: list[TrialView], test: TrialView) -> np.ndarray:
        goal = goal_object(familiarization, test)
        end = goal.centre if goal else test.start
        if not test.fuse.any() or test.key is None:
            return np.asarray(plan_or_line(test.walls, test.start, end))
        blocked = test.walls | test.fuse
        legs = [test.start, test.key.centre] + ([test.lock.centre] if test.lock else [])
        points: list[tuple[float, float]] = [test.start]
        for a, b in zip(legs, legs[1:], strict=False):
            points += plan_or_line(blocked, a, b)[1:]
        points += plan_or_line(test.walls, points[-1], end)[1:]
        return np.asarray(points)


SHORTCUTS: tuple[str, ...] = ("shortcut-nearest", "shortcut-location", "shortcut-path",
                              "shortcut-direct", "shortcut-key")

# The sub-evaluations BIB built to defeat each shortcut (bib paper, section 3; the table above),
# and efficiency_irrational, whose two test trials are identical (every shortcut ties).
DEFEATED_ON: dict[str, tuple[str, ...]] = {
    "shortcut-nearest": ("preference", "multi_agent", "efficiency_irrational"),
    "shortcut-location": ("preference", "multi_agent", "efficiency_irrational"),
    "shortcut-path": ("efficiency_path", "efficiency_time", "preference",
                      "efficiency_irrational"),
    "shortcut-direct": ("instrumental_blocking_barrier", "multi_agent", "efficiency_irrational"),
    "shortcut-key": ("instrumental_inconsequential_barrier", "efficiency_irrational"),
}
# Defeated on average only: which object is nearer is drawn at random (bib spec), so the
# shortcut is right on about half of the pairs, not on none.
BY_CHANCE = frozenset({("shortcut-nearest", "preference")})


def designed_ceiling(observer: str, task: str, pairs: int) -> float | None:
    """The relative accuracy a shortcut must not exceed on a sub-evaluation built against it
    (None: not built against it): chance, plus, where the design defeats it on average only,
    the one-sided 97.5 % sampling margin of ``pairs`` pairs."""
    if task not in DEFEATED_ON.get(observer, ()):
        return None
    if (observer, task) in BY_CHANCE:
        return 0.5 + 1.96 * math.sqrt(0.25 / max(pairs, 1))
    return 0.5

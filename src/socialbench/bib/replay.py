"""The real released trials walked again by our planner and motion, on their own layouts.

Each distinct trial of the real samples gives its walls, the agent's start (frame 0) and its
goal (the object it ends at); :func:`replay` plans and walks that route as the generator does
(:func:`socialbench.bib.tasks.base.plan`, :func:`socialbench.bib.motion.walk`) and compares the
two tracks: identical frame for frame, or the same route up to where the first of the two stops.

Why the second measure: the real agent does not stop at one centre distance from its goal.
On the samples its last moving frame is 7.0-12.5 px from the goal's centre and the frame before
9.0-14.8 px (:func:`stop_distances`): a walk that stops at 12.5 px in one trial goes on past
9.0 px in another, so what decides is something the files do not hold (the icons' drawn shapes,
it seems; the released images were never published). Our fixed 12.5-px touch (bib spec) then
ends some walks a frame or more before the real one.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from socialbench.bib import motion, scene_stats
from socialbench.bib.schema import CELL
from socialbench.bib.world import AGENT_HALF, blocked_grid
from socialbench.core.grid_planning import plan_points

Point = tuple[float, float]
Planner = Callable[[np.ndarray, Point, Point], list[Point]]


@dataclass(frozen=True)
class RealTrial:
    """One distinct trial of the real samples: where it came from, its walls and its walk."""

    name: str  # file stem, e.g. "000010loe"
    index: int  # trial index in the file
    walls: frozenset[tuple[int, int]]  # wall cells, border included
    track: np.ndarray  # (frames, 2) agent centres
    goal: tuple[int, int]  # centre of the object the agent ends nearest
    goal_shape: str  # that object's image path


def real_trials(root: Path) -> Iterator[RealTrial]:
    """The samples' distinct trials (a pair's shared familiarization trials once), in file
    order. Read as plain JSON: the released files are small and trusted here."""
    seen: set[tuple[str, int, tuple[int, int]]] = set()
    for path in sorted(root.glob("*.json")):
        for index, frames in enumerate(json.loads(path.read_text())[:9]):
            track = np.array([[f["agent"][0][0] + f["agent"][1], f["agent"][0][1] + f["agent"][1]]
                              for f in frames], dtype=np.int64)
            key = (path.stem[:-1], index, tuple(int(v) for v in track[-1]))
            if key in seen:
                continue
            seen.add(key)
            first = frames[0]
            objects = [((o[0][0] + o[1], o[0][1] + o[1]), o[2]) for o in first["objects"]]
            goal, shape = min(objects, key=lambda o: float(np.hypot(*(track[-1] - o[0]))))
            walls = frozenset((w[0][0] // CELL, w[0][1] // CELL) for w in first["walls"])
            yield RealTrial(path.stem, index, walls, track, goal, shape)


def planned(blocked: np.ndarray, start: Point, goal: Point) -> list[Point]:
    """The generator's route (A* over 8 directions, then any-angle smoothing)."""
    points = plan_points(blocked, start, goal, half=AGENT_HALF, cell=CELL)
    if points is None:
        raise ValueError("goal unreachable")
    return points


def replay(trial: RealTrial, planner: Planner = planned,
           turn_first: float | None = motion.TURN_STEP_PX) -> np.ndarray:
    """Our track for the real trial's start, walls and goal (``turn_first``: the released
    style's 1-px step at turns; None for the earlier motion)."""
    start = tuple(float(v) for v in trial.track[0])
    waypoints = planner(blocked_grid(trial.walls), start, tuple(map(float, trial.goal)))
    moves = motion.walk(waypoints, goal=trial.goal, turn_first=turn_first)
    return motion.trial_track(start, [moves])


def same_route(real: np.ndarray, ours: np.ndarray) -> bool:
    """Whether the two tracks agree frame for frame until the first of them stops (its last
    step, which lands wherever the stop rule says, excluded)."""
    moving = min(len(real), len(ours)) - motion.HOLD_FRAMES
    return bool(np.array_equal(real[:moving], ours[:moving]))


def step_shares(tracks: list[np.ndarray]) -> dict[tuple[int, int], float]:
    """Share of the agent's moves by sorted (|dx|, |dy|), over all ``tracks``."""
    return scene_stats.step_shares(sum((scene_stats.displacements(t) for t in tracks),
                                       Counter()))


def stop_distances(trial: RealTrial) -> tuple[float, float]:
    """The agent's centre distance to its goal on its last moving frame and the one before."""
    moving = trial.track[: len(trial.track) - (motion.HOLD_FRAMES - 1)]
    gaps = np.hypot(*(moving[-2:] - np.asarray(trial.goal)).T)
    return float(gaps[1]), float(gaps[0])

"""BIPaCK's predicted paths where the agent spec says how the agent moves: a jump takes off with
the body just short of the lip and flies at its launch speed, a detour turns past the wall's end
about 0.3 m clear level with each of its faces, a doorway is walked on its middle line, and the
walk stops 0.24 m from the goal."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dtaidistance")

from socialbench.observers.agent.bipack.planner import build_graph, plan_paths  # noqa: E402
from socialbench.observers.agent.bipack.terrain import build_terrain  # noqa: E402
from socialbench.observers.agent.bipack.trajectory import (  # noqa: E402
    GOAL_STOP,
    WALK_SPEED,
    predicted_path,
)
from tests.observers.test_bipack import scene  # noqa: E402

FPS = 35
SPACING = WALK_SPEED / FPS  # metres a walking agent covers between two frames


def predicted(tracks, w_v: float, agent=(-1.5, 0.0), goal=(1.5, 0.0, 0.1)) -> np.ndarray:
    terrain = build_terrain(tracks)
    plan = plan_paths(build_graph(terrain), np.array(agent), {3: np.array(goal)}, w_v)[3][0]
    start = np.array([*agent, goal[2]])
    return predicted_path(terrain, plan, start, 0.1, SPACING, np.array(goal))


def passes(path: np.ndarray, xy: tuple[float, float], within: float = 0.02) -> bool:
    return bool(np.hypot(*(path[:, :2] - np.array(xy)).T).min() <= within)


def test_a_chasm_jump_takes_off_just_short_of_the_lip_on_the_exact_edges():
    # lips at x = -0.44 and 0.44 (between grid cells): the agent's front reaches the near lip
    # as it takes off and its back clears the far one as it lands, as the generator's agent does
    raised = [("floor", (-1.72, 0.0, 0.15), (2.56, 4.0, 0.3)),
              ("floor", (1.72, 0.0, 0.15), (2.56, 4.0, 0.3))]
    path = predicted(scene(*raised, agent=(-1.5, 0.0, 0.4), goal=(1.5, 0.0, 0.4)), 1.0,
                     goal=(1.5, 0.0, 0.4))
    flying = np.flatnonzero(path[:, 2] > 0.4 + 1e-6)
    take_off, landing = path[flying[0] - 1, 0], path[flying[-1] + 1, 0]
    assert -0.44 - 0.1 - 0.1 <= take_off <= -0.44 - 0.1 + 1e-6
    assert 0.44 + 0.1 - 1e-6 <= landing <= 0.44 + 0.1 + 0.1
    # in flight it covers more ground per frame than walking: the arc has the frames it lasts
    steps = np.hypot(*np.diff(path[flying[0] - 1:flying[-1] + 2, :2], axis=0).T)
    assert steps.mean() > 1.2 * SPACING


def test_a_detour_turns_past_the_walls_end_level_with_both_faces():
    # a wall too tall to jump, 1.2 m long: round its end at y = +-0.6, 0.4 m out (centre to
    # wall: the spec's 0.3 m clearance and the agent's half width), at x = -0.1 then x = 0.1
    wall = ("obstacle", (0.0, 0.0, 0.45), (0.2, 1.2, 0.9))
    path = predicted(scene(wall), 1.0)
    side = np.sign(path[np.argmax(np.abs(path[:, 1])), 1])
    assert passes(path, (-0.1, side * 1.0)) and passes(path, (0.1, side * 1.0))
    assert np.abs(path[:, 1]).max() <= 1.0 + 1e-6  # never wider than that


def test_a_doorway_is_walked_through_on_its_middle_line():
    # the doorway off the lane (centred at y = 0.5): the agent turns into it 0.3 m before the
    # wall and out of it 0.3 m after
    sides = [("obstacle", (0.0, y, 0.35), (0.1, 2.65, 0.7)) for y in (-1.175, 2.175)]
    lintel = ("obstacle", (0.0, 0.5, 0.6), (0.1, 0.7, 0.2))
    path = predicted(scene(*sides, lintel), 10.0)
    assert passes(path, (-0.35, 0.5)) and passes(path, (0.35, 0.5))


def test_the_walk_stops_within_reach_of_the_goal():
    path = predicted(scene(("obstacle", (0.0, 0.0, 0.45), (0.2, 1.2, 0.9))), 1.0)
    gap = np.hypot(*(path[:, :2] - np.array([1.5, 0.0])).T)
    assert gap[-1] == pytest.approx(GOAL_STOP, abs=0.01) and gap.min() >= GOAL_STOP - 0.01

"""BIPaCK: the rebuilt scene, the planner (jumps over walls and chasms, never onto them;
detours when jumping costs more), the curve fill of occluded stretches, the inference, the
calibration file and the evaluate command."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("dtaidistance")

from socialbench.observers.agent.bipack.evidence import W_V, VideoEvidence  # noqa: E402
from socialbench.observers.agent.bipack.inference import expected_distance  # noqa: E402
from socialbench.observers.agent.bipack.planner import build_graph, plan_paths  # noqa: E402
from socialbench.observers.agent.bipack.terrain import (  # noqa: E402
    CHASM,
    LANDABLE,
    WALL,
    build_terrain,
)
from socialbench.observers.agent.bipack.trajectory import fill_occluded  # noqa: E402
from socialbench.observers.agent.tracks import VideoTracks  # noqa: E402

AGENT_AT, GOAL_AT = (-1.5, 0.0, 0.1), (1.5, 0.0, 0.1)


def scene(*boxes: tuple[str, tuple[float, float, float], tuple[float, float, float]],
          agent=AGENT_AT, goal=GOAL_AT) -> VideoTracks:
    """A one-frame scene: the room's floor, an agent, a goal and boxes (class, centre, size)."""
    rows = [("floor", (0.0, 0.0, -0.05), (12.0, 12.0, 0.1)), ("agent", agent, (0.2,) * 3),
            ("goal", goal, (0.2,) * 3), *boxes]
    centres = np.array([[c for _, c, _ in rows]], float)
    sizes = np.array([s for _, _, s in rows], float)
    return VideoTracks(ids=np.arange(len(rows)), classes=tuple(r[0] for r in rows),
                       shapes=("box",) * len(rows),
                       labels=np.array([0, 9, 3] + [10] * len(boxes)), sizes=sizes,
                       centres=centres, half=sizes[None] / 2, yaw=np.zeros((1, len(rows))),
                       visible=np.ones((1, len(rows)), bool), fps=35)


def plan(tracks: VideoTracks, w_v: float):
    terrain = build_terrain(tracks)
    graph = build_graph(terrain)
    plans = plan_paths(graph, np.array(AGENT_AT), {3: np.array(GOAL_AT)}, w_v)
    return terrain, graph, plans[3][0]


def cells_kind(terrain, cells):
    ij = np.unravel_index(cells, terrain.height.shape)
    return terrain.kind[ij]


def test_jumps_land_only_where_the_agent_can_stand():
    wall = ("obstacle", (0.0, 0.0, 0.2), (0.2, 6.0, 0.4))
    platform = ("obstacle", (0.0, 1.5, 0.25), (0.7, 0.7, 0.5))
    terrain = build_terrain(scene(wall, platform))
    graph = build_graph(terrain)
    assert graph.jump.any()
    landing = cells_kind(terrain, graph.dst[graph.jump])
    assert np.isin(landing, LANDABLE).all() and not np.isin(landing, (WALL, CHASM)).any()
    ij = np.unravel_index(graph.dst[graph.jump], terrain.height.shape)
    assert terrain.walkable[ij].all()
    # some jumps land on the platform's top (0.5 m up), none on the wall's
    assert (terrain.height[ij] > 0.45).any()


def test_a_wall_too_long_to_walk_round_is_jumped_and_never_stood_on():
    terrain, _, path = plan(scene(("obstacle", (0.0, 0.0, 0.15), (0.2, 9.0, 0.3))), w_v=0.5)
    assert path.jumps.sum() == 1
    assert not np.isin(cells_kind(terrain, path.cells), (WALL, CHASM)).any()


def test_a_chasm_is_jumped_never_entered():
    raised = [("floor", (-1.6, 0.0, 0.15), (2.4, 4.0, 0.3)),
              ("floor", (1.6, 0.0, 0.15), (2.4, 4.0, 0.3))]  # a 0.8 m gap between them
    tracks = scene(*raised, agent=(-1.5, 0.0, 0.4), goal=(1.5, 0.0, 0.4))
    terrain = build_terrain(tracks)
    assert (terrain.kind == CHASM).any()
    graph = build_graph(terrain)
    path = plan_paths(graph, np.array([-1.5, 0.0]), {3: np.array([1.5, 0.0, 0.4])}, 1.0)[3][0]
    assert path.jumps.sum() == 1
    assert not np.isin(cells_kind(terrain, path.cells), (WALL, CHASM)).any()


def test_it_walks_round_a_short_wall_when_jumping_costs_more():
    wall = ("obstacle", (0.0, 0.0, 0.25), (0.2, 1.0, 0.5))
    _, _, cheap_jump = plan(scene(wall), w_v=0.1)
    _, _, dear_jump = plan(scene(wall), w_v=10.0)
    assert cheap_jump.jumps.sum() == 1 and cheap_jump.horizontal < dear_jump.horizontal
    assert dear_jump.jumps.sum() == 0 and dear_jump.vertical == 0.0


def test_a_tall_wall_is_never_jumped():
    _, graph, path = plan(scene(("obstacle", (0.0, 0.0, 0.45), (0.2, 1.0, 0.9))), w_v=0.1)
    assert path.jumps.sum() == 0


def test_an_occluded_stretch_is_filled_by_a_second_order_curve():
    t = np.arange(60, dtype=float)
    truth = np.column_stack([0.03 * t, 0.5 - 0.001 * (t - 30) ** 2, np.full(60, 0.1)])
    visible = np.ones(60, bool)
    visible[20:40] = False
    observed = truth.copy()
    observed[~visible] = np.nan
    np.testing.assert_allclose(fill_occluded(observed, visible), truth, atol=1e-9)


def test_a_corner_walked_unseen_is_rounded_inside_never_overshot():
    # walking up-right to a corner at (1, 1), then down-right: the middle 20 frames unseen
    t = np.arange(41, dtype=float)
    x = 0.05 * t
    y = np.where(t <= 20, 0.05 * t, 2.0 - 0.05 * t)
    truth = np.column_stack([x, y, np.full(41, 0.1)])
    visible = np.ones(41, bool)
    visible[10:31] = False
    filled = fill_occluded(np.where(visible[:, None], truth, np.nan), visible)
    assert filled[visible].tolist() == truth[visible].tolist()
    assert filled[:, 1].max() <= 1.0 + 1e-9  # never past the corner
    assert filled[20, 1] > 0.6  # but bent toward it, not cut straight across (y = 0.5)


def test_a_doorway_under_a_lintel_is_walked_through():
    # a wall across the lane with a 0.7 m doorway at y = 0 under a lintel 0.5 m up
    sides = [("obstacle", (0.0, y, 0.35), (0.1, 2.65, 0.7)) for y in (-1.675, 1.675)]
    lintel = ("obstacle", (0.0, 0.0, 0.6), (0.1, 0.7, 0.2))
    terrain, _, path = plan(scene(*sides, lintel), w_v=10.0)
    assert path.jumps.sum() == 0 and path.horizontal < 3.3  # straight through, no detour
    assert terrain.overhead.any()


def test_a_bridge_flush_with_the_raised_floor_is_walked_across():
    raised = [("floor", (-1.6, 0.0, 0.15), (2.4, 4.0, 0.3)),
              ("floor", (1.6, 0.0, 0.15), (2.4, 4.0, 0.3))]  # a 0.8 m chasm
    bridge = ("obstacle", (0.0, 0.0, 0.25), (0.8, 0.5, 0.1))
    tracks = scene(*raised, bridge, agent=(-1.5, 0.0, 0.4), goal=(1.5, 0.0, 0.4))
    terrain = build_terrain(tracks)
    path = plan_paths(build_graph(terrain), np.array([-1.5, 0.0]),
                      {3: np.array([1.5, 0.0, 0.4])}, 1.0)[3][0]
    assert path.jumps.sum() == 0 and path.vertical == 0.0


def test_a_chasm_jump_keeps_the_body_above_the_lips():
    raised = [("floor", (-1.6, 0.0, 0.15), (2.4, 4.0, 0.3)),
              ("floor", (1.6, 0.0, 0.15), (2.4, 4.0, 0.3))]
    tracks = scene(*raised, agent=(-1.5, 0.0, 0.4), goal=(1.5, 0.0, 0.4))
    graph = build_graph(build_terrain(tracks))
    path = plan_paths(graph, np.array([-1.5, 0.0]), {3: np.array([1.5, 0.0, 0.4])}, 1.0)[3][0]
    assert path.vertical >= 0.05  # an arc over the 0.8 m gap, not a skim across it


def evidence(goals, cost, distance, stay=50.0) -> VideoEvidence:
    n = len(W_V)
    return VideoEvidence(tuple(goals), np.tile(np.array(cost, float), (n, 1)),
                         np.tile(np.array(distance, float), (n, 1)), stay)


def test_the_goal_preferred_in_familiarization_makes_the_other_surprising():
    uniform = np.full(len(W_V), -np.log(len(W_V)))
    # familiarization: both goals cost the same; the agent went to goal 1 (close to its path)
    fam = [evidence((1, 2), (2.0, 2.0), (1.0, 40.0))]
    to_preferred = evidence((1, 2), (2.0, 2.0), (1.0, 40.0))
    to_other = evidence((1, 2), (2.0, 2.0), (40.0, 1.0))
    assert (expected_distance(fam, to_preferred, uniform)
            < expected_distance(fam, to_other, uniform))
    # without the familiarization update, the two test videos look alike
    assert (expected_distance(fam, to_preferred, uniform, use_familiarization=False)
            == pytest.approx(expected_distance(fam, to_other, uniform,
                                               use_familiarization=False)))


def test_calibration_file_round_trips_and_bad_files_are_one_line_errors(tmp_path):
    from socialbench.core.errors import DataFileError
    from socialbench.observers.agent.bipack.observer import BipackObserver

    observer = BipackObserver(log_prior=np.log(np.arange(1, 7) / 21))
    observer.save(tmp_path / "b.json")
    np.testing.assert_allclose(BipackObserver.load(tmp_path / "b.json").log_prior,
                               observer.log_prior)
    (tmp_path / "bad.json").write_text(json.dumps({"format": "x"}))
    with pytest.raises(DataFileError, match="bad.json"):
        BipackObserver.load(tmp_path / "bad.json")


def test_an_occluder_that_may_hide_a_constraint_explains_a_costly_path():
    """Familiarization: the agent took a path costing 3.5 behind a standing occluder, where the
    seen scene offers a 2.4 straight walk (the path is 20 away from it). Either nothing is hidden
    (then the detour is wasteful) or a hidden constraint made it the efficient way: the second
    says the reward is worth at least 3.5, so at test a revealed wall that costs 3.5 to pass
    (the same path, close to its prediction) is less surprising than one revealing nothing."""
    from dataclasses import replace

    uniform = np.full(len(W_V), -np.log(len(W_V)))
    seen = evidence((1,), (2.4,), (20.0,))
    fam = [replace(seen, hidden_cost=np.full(len(W_V), 3.5), reached=0)]
    wall_revealed = evidence((1,), (3.5,), (2.0,))
    nothing_revealed = evidence((1,), (2.4,), (20.0,))
    assert (expected_distance(fam, wall_revealed, uniform)
            < expected_distance(fam, nothing_revealed, uniform))
    # without the hidden-constraint hypothesis, a reward between 2.4 and 3.5 is as likely as
    # any: the revealed wall would often make the agent give up, a worse fit
    assert (expected_distance(fam, wall_revealed, uniform)
            < expected_distance([seen], wall_revealed, uniform))

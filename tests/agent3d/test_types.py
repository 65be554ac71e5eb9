"""Every AGENT trial type: what differs between expected and surprising, and what must not."""

from __future__ import annotations

import numpy as np
import pytest

from socialbench.agent3d.generate import make_trial
from socialbench.agent3d.layout.constants import AGENT_ID, OCCLUDER_ID
from socialbench.agent3d.scenarios import RECIPES
from socialbench.agent3d.schema import TRIAL_TYPES, Trial, Video

_CACHE: dict[tuple[str, int], Trial] = {}


def trial(trial_type: str, index: int = 0) -> Trial:
    key = (trial_type, index)
    if key not in _CACHE:
        _CACHE[key] = make_trial(trial_type, "test", index, seed=1234 + index)
    return _CACHE[key]


def notes(video: Video) -> dict:
    return video.config.annotations


def walls(video: Video) -> list:
    return [e for e in video.config.entities if e.name.startswith("wall_")]


def chasm_floors(video: Video) -> int:
    return sum(e.name.startswith("raised_floor") for e in video.config.entities)


def end(video: Video) -> np.ndarray:
    return np.asarray(video.track(AGENT_ID)[-1])


def test_every_type_has_a_documented_recipe():
    assert sorted(RECIPES) == sorted(TRIAL_TYPES)
    for function in RECIPES.values():
        doc = function.__doc__ or ""
        assert "Expected" in doc and "Surprising" in doc


@pytest.mark.parametrize("trial_type", TRIAL_TYPES)
def test_structure_shared_by_every_type(trial_type):
    t = trial(trial_type)
    assert len(t.familiarization) == (4 if t.scenario == 4 else 1)
    assert t.surprising is not None
    for video in (*t.familiarization, t.expected, t.surprising):
        assert video.config.trial_type == trial_type
        assert 5.6 - 0.05 <= len(video.frames) / 35 < 25.2  # seconds: AGENT's are 5.6-25.2
        assert notes(video)["ghost_ids"] == [] or (video is t.surprising and trial_type == "2.5")
    # the two test videos start the agent at the same place with the same goal objects
    e, s = t.expected, t.surprising
    assert np.allclose(e.track(AGENT_ID)[0], s.track(AGENT_ID)[0])
    goals = lambda v: sorted((g.label, g.position) for g in v.config.entities if g.kind == "goal")  # noqa: E731
    assert goals(e) == goals(s)


@pytest.mark.parametrize("trial_type", ["1.1", "1.2", "1.3", "1.4"])
def test_goal_preferences(trial_type):
    t = trial(trial_type, index=1)  # odd index: the objects swap sides at test
    (fam,), e, s = t.familiarization, t.expected, t.surprising
    preferred = notes(fam)["preferred_goal_id"]
    other = next(int(k) for k in notes(fam)["rewards"] if int(k) != preferred)
    assert notes(fam)["goal_id"] == preferred == notes(e)["goal_id"]
    assert notes(s)["goal_id"] == other
    x = lambda v, key: next(g.position[0] for g in v.config.entities if g.id == key)  # noqa: E731
    assert notes(e)["swapped"] and np.sign(x(fam, preferred)) == -np.sign(x(e, preferred))
    for video, goal in ((e, preferred), (s, other)):  # the agent ends at the goal it pursued
        assert abs(end(video)[0] - x(video, goal)) < 0.4
    fam_costs, test_costs = notes(fam)["goal_costs"], notes(e)["goal_costs"]
    fam_gap = fam_costs[str(preferred)] - fam_costs[str(other)]
    test_gap = test_costs[str(preferred)] - test_costs[str(other)]
    equal_fam = trial_type in ("1.1", "1.2")  # paper: 1.1/1.2 equal effort in familiarization
    assert (abs(fam_gap) < 1e-6) if equal_fam else fam_gap > 0
    assert (abs(test_gap) < 1e-6) if trial_type in ("1.1", "1.3") else test_gap < 0


def test_goal_preferences_keeps_sides_on_even_indices():
    t = trial("1.1", index=0)
    assert not notes(t.expected)["swapped"]


def test_2_1_obstacle_removed():
    t = trial("2.1")
    fam, e, s = t.familiarization[0], t.expected, t.surprising
    assert walls(fam) or chasm_floors(fam) > 1
    assert not walls(e) and chasm_floors(e) <= 1 and e.config.entities == s.config.entities
    assert notes(e)["plan"]["path"] == "straight"
    assert notes(s)["plan"]["jumps"] == notes(fam)["plan"]["jumps"]  # the familiar path again
    assert notes(s)["plan"]["horizontal"] == notes(fam)["plan"]["horizontal"]


def test_2_2_obstacle_moved_out_of_the_way():
    t = trial("2.2")
    fam, e, s = t.familiarization[0], t.expected, t.surprising
    assert len(walls(e)) == len(walls(fam)) == 1
    assert walls(e)[0].size == walls(fam)[0].size and walls(e)[0].position != walls(fam)[0].position
    assert notes(e)["plan"]["path"] == "straight"
    assert notes(s)["plan"]["path"] == notes(fam)["plan"]["path"] + " (replayed)"


def test_2_3_smaller_obstacle_costs_less():
    t = trial("2.3")
    fam, e, s = t.familiarization[0], t.expected, t.surprising
    assert notes(e)["plan"]["cost"] < notes(fam)["plan"]["cost"]
    assert notes(s)["plan"]["jumps"] == notes(fam)["plan"]["jumps"]
    assert e.config.entities == s.config.entities


def test_2_4_door_or_bridge_is_used():
    t = trial("2.4")
    assert notes(t.expected)["plan"]["path"] in ("through_door", "cross_bridge")
    assert "replayed" in notes(t.surprising)["plan"]["path"]


def test_a_doorway_lintel_always_rests_on_two_posts():
    """No floating lintel: every doorway of 2.4 (and 3.2) leaves a post on each side."""
    from socialbench.agent3d.layout.constants import MIN_POST
    from socialbench.agent3d.layout.geometry import Wall

    with pytest.raises(ValueError, match="post shorter"):
        Wall(x=0.0, y=0.0, height=0.6, thickness=0.2, length=0.7, door_y=0.0).boxes()
    doors = 0
    for trial_type, index in [("2.4", k) for k in range(12)] + [("3.2", k) for k in range(4)]:
        t = make_trial(trial_type, "test", index, seed=77 + index)
        for video in (t.expected, t.surprising):
            boxes = walls(video)
            lintels = [w for w in boxes if w.position[2] - w.size[2] / 2 > 0.01]
            for lintel in lintels:
                wall = lintel.name.split("_")[1]
                posts = [w for w in boxes if w.name.split("_")[1] == wall and w is not lintel]
                assert len(posts) == 2 and min(p.size[1] for p in posts) >= MIN_POST - 1e-6
                doors += 1
    assert doors >= 4  # the sample holds doorways to check


def test_2_5_surprising_passes_through_the_wall():
    t = trial("2.5")
    fam, e, s = t.familiarization[0], t.expected, t.surprising
    assert notes(fam)["plan"]["path"] == "jump_wall"
    assert notes(e)["plan"]["path"] == "around_wall" and notes(e)["ghost_ids"] == []
    wall = walls(s)[0]
    assert notes(s)["ghost_ids"] == [w.id for w in walls(s)] and wall.size[2] == 0.7
    # the familiar jump's track passes inside the 0.7 m wall's box
    track = np.asarray(s.track(AGENT_ID))
    inside = (np.abs(track[:, 0] - wall.position[0]) < wall.size[0] / 2) & \
        (track[:, 2] < wall.position[2] + wall.size[2] / 2)
    assert inside.any()


@pytest.mark.parametrize("trial_type", ["3.1", "3.2"])
def test_unobserved_constraints(trial_type):
    t = trial(trial_type)
    fam, e, s = t.familiarization[0], t.expected, t.surprising
    # the same path in every video, up to the moment the occluder falls
    cut = notes(e)["occluder_falls_at_frame"]
    fam_track, e_track = np.asarray(fam.track(AGENT_ID)), np.asarray(e.track(AGENT_ID))
    s_track = np.asarray(s.track(AGENT_ID))
    assert np.allclose(fam_track[:cut], e_track[:cut], atol=1e-3)
    assert np.allclose(e_track[:cut], s_track[:cut], atol=0.02)
    # the occluder stands through familiarization and falls at test
    tilt = lambda v: abs(v.frames[-1][[x.id for x in v.frames[-1]].index(OCCLUDER_ID)]  # noqa: E731
                         .orientation[0])
    assert tilt(fam) < 1e-3 and tilt(e) > 0.3 and tilt(s) > 0.3
    assert walls(fam) == walls(e)
    if trial_type == "3.1":
        assert walls(s) == []  # nothing behind the occluder
    else:
        smaller = walls(s)
        assert smaller and (max(w.size[2] for w in smaller) < walls(e)[0].size[2]
                            or len(smaller) > len(walls(e)))  # lower, or a doorway


@pytest.mark.parametrize("trial_type", ["4.1", "4.2"])
def test_cost_reward_trade_offs(trial_type):
    t = trial(trial_type)
    fam = t.familiarization
    preferred = notes(fam[0])["preferred_goal_id"]
    rewards = {int(k): v for k, v in notes(fam[0])["rewards"].items()}
    other = next(k for k in rewards if k != preferred)
    assert rewards[preferred] > rewards[other]
    assert [notes(v)["gave_up"] for v in fam] == [False, True, False, True]
    assert [notes(v)["goal_id"] for v in fam] == [preferred, None, other, None]
    costs = [notes(v)["goal_costs"] for v in fam]
    medium, hard = costs[0][str(preferred)], costs[1][str(preferred)]
    easy, medium2 = costs[2][str(other)], costs[3][str(other)]
    assert easy < rewards[other] < medium2 and medium < rewards[preferred] < hard
    assert notes(t.expected)["goal_id"] == preferred and notes(t.surprising)["goal_id"] == other
    test_costs = notes(t.expected)["goal_costs"]
    if trial_type == "4.1":
        assert test_costs[str(preferred)] == pytest.approx(test_costs[str(other)])
    else:
        assert test_costs[str(preferred)] < test_costs[str(other)]
    # a giving-up agent stays near where it started
    gave_up = np.asarray(fam[1].track(AGENT_ID))
    assert np.linalg.norm(gave_up[-1, :2] - gave_up[0, :2]) < 0.05


def test_extended_shapes_use_the_unseen_goal_set():
    t = make_trial("1.1", "test", 0, seed=99, extended=True)
    shapes = {e.shape for e in t.expected.config.entities if e.kind == "goal"}
    assert shapes <= {"pyramid", "bowl", "cylinder", "octahedron"} and len(shapes) == 2


def test_room_has_walls_and_one_floor_and_wall_look_per_trial():
    from socialbench.agent3d.layout import constants, placement

    t = trial("2.1")
    videos = [*t.familiarization, t.expected, t.surprising]
    rooms = {tuple(sorted(notes(v)["room"].items())) for v in videos}
    assert len(rooms) == 1  # one room per trial
    look = dict(next(iter(rooms)))
    floor_colors, wall_colors = dict(constants.FLOOR_LOOKS), dict(constants.WALL_LOOKS)
    assert len(floor_colors) == 8 and len(wall_colors) == 3  # AGENT paper: 8 floors, 3 walls
    for video in videos:
        room = [e for e in video.config.entities if e.kind == "room"]
        floor = next(e for e in video.config.entities if e.name == "floor")
        assert len(room) == 4 and {e.rgba for e in room} == {wall_colors[look["wall"]]}
        assert floor.size[:2] == (12.0, 12.0)  # agent spec: a 12 x 12 m room
        xs = sorted(e.position[0] for e in room)
        assert xs[0] < -6 and xs[-1] > 6  # the walls enclose the 12 m floor
    # the looks vary between trials
    from socialbench.core.seeding import rng_for
    assert len({placement.sample_room(rng_for(s, "room")) for s in range(20)}) > 5


def test_scenario_1_tests_may_have_a_0_9_m_wall_walked_round():
    from socialbench.agent3d.layout import constants, placement
    from socialbench.agent3d.planning import efficient_plan

    rng = np.random.default_rng(0)
    heights = {placement.level_spec(rng, "wall", 4, True, tall_walls=True)[1] for _ in range(40)}
    assert heights == {0.6, 0.9}  # agent spec: 0.9 m walls in some scenario-1 tests
    assert {placement.level_spec(rng, "wall", 4, True)[1] for _ in range(20)} == {0.6}
    layout = placement.two_goal_layout(rng, [("sphere", 1), ("cone", 5)], "cube", (1, 1, 1, 1))
    layout = placement.place(layout, constants.TWO_GOAL_OBSTACLE_X, ("wall", 0.9, 0.2))
    plan = efficient_plan(layout, layout.goals[1].key)
    assert plan.path == "around_wall" and not plan.jumps  # too tall to jump: walked round
    t = make_trial("1.2", "test", 0, seed=2)  # a generated trial that draws one
    e, s = t.expected, t.surprising
    assert 0.9 in {w.size[2] for w in walls(e)}
    assert notes(e)["plan"]["path"] == "jump_wall" and notes(s)["plan"]["path"] == "around_wall"

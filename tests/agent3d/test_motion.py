"""AGENT motion and planning: the physics the agent moves by and the paths it chooses."""

from __future__ import annotations

import contextlib
import itertools
import math

import numpy as np
import pytest

from socialbench.agent3d import planning
from socialbench.agent3d.layout import constants, geometry, placement
from socialbench.agent3d.layout.geometry import Chasm, Occluder
from socialbench.agent3d.motion import (
    GAZE_STEP_DEG,
    WALK_SPEED,
    Mover,
    Simulation,
    Step,
)
from socialbench.agent3d.planning import W_V, candidate_plans, choose_goal, efficient_plan


def _layout(shape: str = "cube", direction: int = 1) -> geometry.Layout:
    rng = np.random.default_rng(0)
    layout = placement.one_goal_layout(rng, "sphere", 1, shape, (1, 1, 1, 1), direction=direction)
    return layout.with_changes(row=0.0)


def _run(layout: geometry.Layout, plan: planning.Plan, ghosts: tuple[int, ...] = ()):
    config = layout.config(2, "2.1", "familiarization", 0, {})
    floors = [e.id for e in config.entities if e.kind == "floor"]
    with Simulation(config, constants.AGENT_ID, ghosts=ghosts, floors=floors) as sim:
        Mover(sim).run([*plan.steps, Step("settle", seconds=0.3)])
        track = np.array(sim.video().track(constants.AGENT_ID))
        return sim, track


def test_long_wall_is_jumped_in_physics_without_touching_it():
    layout = _layout()
    layout = layout.with_changes(walls=[placement.wall_across(-0.12, 0.0, 0.4, 0.4, 3.0)])
    plan = efficient_plan(layout, constants.FIRST_GOAL_ID)
    assert plan.path == "jump_wall"
    sim, track = _run(layout, plan)
    assert sim.penetration < 0.005  # never inside the wall
    over = track[np.abs(track[:, 0] + 0.12) < 0.2 + 0.1]  # the agent above the wall's footprint
    assert over[:, 2].min() - 0.1 > 0.4  # its bottom passes above the 0.4 m top
    assert track[-1, 0] > 1.08 - 0.3  # and it reaches the goal


def test_a_jump_sized_for_a_lower_wall_hits_a_taller_one():
    low = _layout().with_changes(walls=[placement.wall_across(-0.12, 0.0, 0.1, 0.2, 3.0)])
    plan = efficient_plan(low, constants.FIRST_GOAL_ID)
    tall = low.with_changes(walls=[placement.wall_across(-0.12, 0.0, 0.5, 0.2, 3.0)])
    config = tall.config(2, "2.1", "familiarization", 0, {})
    with Simulation(config, constants.AGENT_ID, floors=[constants.FIRST_FLOOR_ID]) as sim:
        with contextlib.suppress(Exception):  # stuck against the wall: that is the point
            Mover(sim).run(plan.steps)
        assert sim.penetrated is not None or sim.position()[0] < -0.12


def test_walks_at_about_1_3_m_per_s_and_gaze_turns_2_degrees_per_frame():
    layout = _layout()
    plan = efficient_plan(layout, constants.FIRST_GOAL_ID)
    assert plan.path == "straight"
    config = layout.config(2, "2.1", "familiarization", 0, {})
    with Simulation(config, constants.AGENT_ID) as sim:
        Mover(sim).run([Step("look", sweep=30.0), *plan.steps])
        video = sim.video()
    speeds = [math.hypot(*next(s for s in f if s.id == 1).velocity[:2]) for f in video.frames]
    assert abs(max(speeds) - WALK_SPEED) < 0.05
    yaws = [2 * math.atan2(next(s for s in f if s.id == 1).orientation[2],
                           next(s for s in f if s.id == 1).orientation[3]) for f in video.frames]
    steps = [abs((b - a + math.pi) % (2 * math.pi) - math.pi) for a, b in itertools.pairwise(yaws)]
    assert max(steps) <= math.radians(GAZE_STEP_DEG) + 1e-3
    assert sum(s > math.radians(1.5) for s in steps) >= 20  # it did look around


def test_cost_is_horizontal_plus_weighted_vertical():
    layout = _layout()
    straight = efficient_plan(layout, constants.FIRST_GOAL_ID)
    assert straight.horizontal == pytest.approx(1.08 - (-1.32))
    assert straight.cost == pytest.approx(2.4)
    walled = layout.with_changes(walls=[placement.wall_across(-0.12, 0.0, 0.3, 0.2, 3.0)])
    jump = efficient_plan(walled, constants.FIRST_GOAL_ID)
    assert jump.vertical == pytest.approx(jump.jumps[0].apex)
    assert jump.cost == pytest.approx(jump.horizontal + W_V * jump.vertical)


@pytest.mark.parametrize(("height", "length", "path"), [
    (0.4, 3.0, "jump_wall"),  # a long wall forces a jump (agent spec)
    (0.7, 3.0, "around_wall"),  # a 0.7 m wall forces a detour (agent spec)
    (0.3, 0.6, "around_wall"),  # a short wall is cheaper to walk round
])
def test_efficient_path_is_computed_from_costs(height, length, path):
    layout = _layout().with_changes(walls=[placement.wall_across(-0.12, 0.0, height, 0.2, length)])
    plans = candidate_plans(layout, constants.FIRST_GOAL_ID)
    assert plans[0].path == path
    assert plans == sorted(plans, key=lambda plan: plan.cost)
    if height > planning.MAX_CLEAR_HEIGHT:
        assert all(plan.path != "jump_wall" for plan in plans)


def test_door_bridge_and_occluder_change_the_choice():
    layout = _layout()
    door = layout.with_changes(walls=[placement.wall_across(-0.12, 0.0, 0.6, 0.2, 3.0, door=True)])
    assert efficient_plan(door, constants.FIRST_GOAL_ID).path == "through_door"
    chasm = layout.with_changes(chasms=[Chasm(x=-0.12, width=0.88)])
    assert efficient_plan(chasm, constants.FIRST_GOAL_ID).path == "jump_chasm"
    bridge = layout.with_changes(chasms=[Chasm(x=-0.12, width=0.88, bridge_y=0.0)])
    assert efficient_plan(bridge, constants.FIRST_GOAL_ID).path == "cross_bridge"
    # a tall wall reaching 0.55 m toward the camera, an occluder in front: only the far detour
    wall = placement.wall_across(-0.12, 0.0, 0.7, 0.2, 1.1, offset=0.0)
    hidden = layout.with_changes(walls=[wall], occluder=Occluder(x=-0.12, y=-0.8, width=1.4))
    detours = [p.steps[0].target[1] for p in candidate_plans(hidden, constants.FIRST_GOAL_ID)]
    assert detours and all(y > 0 for y in detours)


def test_bridge_is_walked_and_chasm_jumped_in_physics():
    layout = _layout("sphere").with_changes(chasms=[Chasm(x=-0.12, width=1.13)])
    sim, track = _run(layout, efficient_plan(layout, constants.FIRST_GOAL_ID))
    assert track[:, 2].min() > constants.RAISED_FLOOR  # never fell into the gap
    assert track[-1, 0] > 0.7
    bridged = layout.with_changes(chasms=[Chasm(x=-0.12, width=1.13, bridge_y=0.0)])
    sim, track = _run(bridged, efficient_plan(bridged, constants.FIRST_GOAL_ID))
    assert track[:, 2].max() < constants.RAISED_FLOOR + 0.12  # walked: no jump
    assert track[-1, 0] > 0.7


def test_agent_gives_up_when_no_reward_covers_the_cost():
    layout = _layout()
    cost = efficient_plan(layout, constants.FIRST_GOAL_ID).cost
    assert choose_goal(layout, {constants.FIRST_GOAL_ID: cost - 0.1}).goal is None
    goal = constants.FIRST_GOAL_ID
    assert choose_goal(layout, {goal: cost + 0.1}).goal == goal


def test_ghost_wall_lets_the_agent_through():
    low = _layout().with_changes(walls=[placement.wall_across(-0.12, 0.0, 0.1, 0.2, 3.0)])
    plan = efficient_plan(low, constants.FIRST_GOAL_ID)
    tall = low.with_changes(walls=[placement.wall_across(-0.12, 0.0, 0.7, 0.2, 3.0)])
    wall_ids = tuple(e.id for e in tall.entities() if e.name.startswith("wall_"))
    sim, track = _run(tall, plan, ghosts=wall_ids)
    assert sim.penetration == 0.0 and track[-1, 0] > 0.7  # through it, to the goal


@pytest.mark.parametrize("shape", ["cube", "sphere", "cone"])
def test_platform_is_jumped_onto_and_ramp_climbed_in_physics(shape):
    base = _layout(shape)
    for kind, path in (("platform", "onto_platform"), ("ramp", "up_ramp")):
        layout = placement.place(base, -0.12, (kind, 0.5))
        goal = layout.goal(constants.FIRST_GOAL_ID)
        assert goal.platform == 0 and layout.goal_xyz(goal.key)[2] > 0.5
        plan = efficient_plan(layout, constants.FIRST_GOAL_ID)
        assert plan.path == path and plan.vertical >= 0.5
        sim, track = _run(layout, plan)
        assert sim.penetration < 0.015
        assert track[-1, 2] == pytest.approx(0.5 + 0.1, abs=0.01)  # upright on the top
        assert abs(track[-1, 0] - goal.x) < 0.3


@pytest.mark.parametrize("kept_shapes", [512, 0])  # 0: the client is reset after each video
def test_a_reused_physics_client_gives_the_numbers_of_a_fresh_one(monkeypatch, kept_shapes):
    """A video's client is handed to the next one emptied body by body, its collision shapes
    kept (or, past a bound on them, reset): the numbers are those of a fresh client."""
    from socialbench.agent3d import bodies

    monkeypatch.setattr(bodies, "_MAX_KEPT_SHAPES", kept_shapes)
    layout = _layout().with_changes(walls=[placement.wall_across(-0.12, 0.0, 0.3, 0.2, 3.0)])
    plan = planning.efficient_plan(layout, constants.FIRST_GOAL_ID)
    assert plan.jumps  # a jump: contacts, impulse, landing
    other = _layout("cone").with_changes(walls=[placement.wall_across(0.1, 0.0, 0.6, 0.3, 3.0)])
    _run(other, planning.efficient_plan(other, constants.FIRST_GOAL_ID))  # other bodies first
    reused = [_run(layout, plan)[1] for _ in range(2)]  # the second runs on the first's client
    monkeypatch.setattr(bodies, "_MAX_IDLE", 0)
    monkeypatch.setattr(bodies, "_IDLE_CLIENTS", [])
    fresh = _run(layout, plan)[1]
    assert np.array_equal(reused[0], fresh) and np.array_equal(reused[1], fresh)


def test_a_wall_the_agent_passed_through_stops_it_in_the_next_video(monkeypatch):
    """Type 2.5's surprising video lets the agent through a wall by a collision filter, which
    PyBullet keeps beyond the bodies: the client is reset after that video, so the next one on
    it meets the wall (the numbers of a fresh client)."""
    from socialbench.agent3d import bodies

    low = _layout().with_changes(walls=[placement.wall_across(-0.12, 0.0, 0.1, 0.2, 3.0)])
    plan = efficient_plan(low, constants.FIRST_GOAL_ID)
    tall = low.with_changes(walls=[placement.wall_across(-0.12, 0.0, 0.6, 0.2, 3.0)])
    config = tall.config(2, "2.1", "familiarization", 0, {})
    wall = next(e.id for e in config.entities if e.kind == "obstacle")

    def run(ghosts: tuple[int, ...]) -> np.ndarray:
        with Simulation(config, constants.AGENT_ID, ghosts=ghosts,
                        floors=[constants.FIRST_FLOOR_ID]) as sim:
            with contextlib.suppress(Exception):  # stuck against the wall
                Mover(sim).run(plan.steps)
            return np.array(sim.video().track(constants.AGENT_ID))

    through = run((wall,))
    after = run(())  # on the client the ghost run gave back
    monkeypatch.setattr(bodies, "_MAX_IDLE", 0)
    monkeypatch.setattr(bodies, "_IDLE_CLIENTS", [])
    fresh = run(())
    assert through[-1, 0] > 0.5 and after[-1, 0] < -0.12  # through the wall; stopped by it
    assert np.array_equal(after, fresh)



def test_an_overlap_past_its_limit_fails_the_video_in_the_frame_it_happens():
    """A jump's landing sinks into the floor: with a limit below that depth the frame in which
    the overlap passes it raises, and the video stops there (a running max: it could only
    fail at its end)."""
    from socialbench.agent3d.motion import MotionError

    layout = _layout().with_changes(walls=[placement.wall_across(-0.12, 0.0, 0.4, 0.4, 3.0)])
    plan = efficient_plan(layout, constants.FIRST_GOAL_ID)
    config = layout.config(2, "2.1", "familiarization", 0, {})
    floors = [constants.FIRST_FLOOR_ID]
    with Simulation(config, constants.AGENT_ID, floors=floors) as sim:
        Mover(sim).run(plan.steps)
        sank, whole = sim.floor_penetration, len(sim.frames)
    assert sank > 0
    with Simulation(config, constants.AGENT_ID, floors=floors,
                    max_floor_penetration=sank / 2) as sim:
        with pytest.raises(MotionError, match="sank"):
            Mover(sim).run(plan.steps)
        assert sank / 2 < sim.floor_penetration <= sank
        assert len(sim.frames) < whole


def test_the_room_walls_are_recorded_at_their_poses_without_being_simulated(monkeypatch):
    """The room's walls, 6 m out, are left out of the physics (speed): each frame still lists
    every entity of the config, the walls at the state PyBullet gives a static body built
    there, and the agent's track is the one of a world that has them."""
    from socialbench.agent3d.bodies import build_scene, physics_client, read_state
    from socialbench.agent3d.motion import simulated_entities

    layout = _layout().with_changes(walls=[placement.wall_across(-0.12, 0.0, 0.3, 0.2, 3.0)])
    plan = planning.efficient_plan(layout, constants.FIRST_GOAL_ID)
    config = layout.config(2, "2.1", "familiarization", 0, {})
    rooms = [e for e in config.entities if e.kind == "room"]
    assert len(rooms) == 4 and not any(e.kind == "room" for e in simulated_entities(config))
    sim, track = _run(layout, plan)
    frame = sim.frames[-1]
    assert [s.id for s in frame] == [e.id for e in config.entities]
    with physics_client() as client:
        ids = build_scene(config, client, visual=False)
        built = {e.id: read_state(client, e.id, ids[e.id]) for e in rooms}
    assert all(s == built[s.id] for s in frame if s.id in built)
    from socialbench.agent3d import motion

    monkeypatch.setattr(motion, "UNBUILT_KINDS", ())  # the walls simulated, as before
    walled, walled_track = _run(layout, plan)
    assert plan.jumps and np.array_equal(track, walled_track)
    assert walled.frames[-1] == frame

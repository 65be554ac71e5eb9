"""AGENT jumps: a jump's height says how high (or wide) the obstacle is, with a modest clearance.

The least-effort jump at 1.3 m/s or faster horizontally (agent spec: BIPaCK's planner jumps at
1.3 m/s) takes off where its arc passes JUMP_MARGIN (5 cm) above the obstacle; in physics the
agent's bottom passes 2-15 cm above a wall's top (the margin, give or take the stop a few mm
off the take-off point), never touching it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from socialbench.agent3d.jumps import JUMP_SPEED_H, JumpProblem, height_at, solve
from socialbench.agent3d.layout import constants, placement
from socialbench.agent3d.layout.geometry import Chasm
from socialbench.agent3d.motion import Mover, Simulation, Step
from socialbench.agent3d.planning import JUMP_MARGIN, RADIUS, efficient_plan

SOLVED_CLEARANCE = (JUMP_MARGIN - 1e-9, JUMP_MARGIN + 0.01)  # the arc's lowest point over it
PHYSICS_CLEARANCE = (0.02, 0.15)  # what the simulated agent's bottom keeps (metres)


def _layout():
    rng = np.random.default_rng(0)
    layout = placement.one_goal_layout(rng, "sphere", 1, "cube", (1, 1, 1, 1), direction=1)
    return layout.with_changes(row=0.0)


def _wall(height: float, thickness: float = 0.1):
    return _layout().with_changes(walls=[placement.wall_across(-0.12, 0.0, height, thickness,
                                                               3.0)])


def _jump_of(layout):
    plan = efficient_plan(layout, constants.FIRST_GOAL_ID)
    assert plan.jumps, plan.path
    return plan, plan.jumps[0]


def test_the_least_effort_jump_clears_by_the_margin_and_cannot_be_cheaper():
    problem = JumpProblem(clears=((-RADIUS, 0.4), (0.1 + RADIUS, 0.4)), land_from=0.35,
                          land_to=0.8, rise=0.0, takeoff_from=0.15, takeoff_to=1.0,
                          margin=JUMP_MARGIN)
    launch = solve(problem)
    assert SOLVED_CLEARANCE[0] <= launch.clearance <= SOLVED_CLEARANCE[1]
    assert launch.speed_h >= JUMP_SPEED_H - 1e-9
    cost = launch.speed_h ** 2 + launch.speed_v ** 2

    def feasible(distance: float, vh: float, vz: float) -> bool:
        high = all(height_at(distance + x, vh, vz) >= h + JUMP_MARGIN for x, h in problem.clears)
        down_after = height_at(distance + problem.land_from, vh, vz) >= 0.0
        down_before = height_at(distance + problem.land_to, vh, vz) <= 0.0
        return high and down_after and down_before

    assert feasible(launch.distance, launch.speed_h, launch.speed_v + 1e-9)
    # no jump on a coarse grid of take-offs and launch speeds is cheaper by more than the grid
    for distance, vh, vz in itertools.product(np.linspace(0.15, 1.0, 18),
                                              np.linspace(1.3, 4.0, 28), np.linspace(1, 5, 41)):
        if vh * vh + vz * vz < cost - 0.05:
            assert not feasible(distance, vh, vz)


@pytest.mark.parametrize("thickness", [0.1, 0.5])
def test_apex_rises_with_wall_height_and_clearance_stays_at_the_margin(thickness):
    apexes = []
    for height in (0.1, 0.2, 0.3, 0.4, 0.6):
        plan, jump = _jump_of(_wall(height, thickness))
        assert plan.path == "jump_wall"
        apexes.append(jump.apex)
        assert SOLVED_CLEARANCE[0] <= jump.launch.clearance <= SOLVED_CLEARANCE[1]
        # the centre's peak is the wall's top plus the margin plus the arc's bend over the wall:
        # never the old near-vertical leap (1.37 m over a 0.6 m wall)
        assert jump.apex + RADIUS < height + JUMP_MARGIN + 0.4
        assert jump.launch.speed_h >= JUMP_SPEED_H - 1e-9
        takeoff_gap = -0.12 - thickness / 2 - (jump.takeoff[0] + RADIUS)
        assert takeoff_gap > 0.1  # a run-up, not a hop at the wall's foot
    assert apexes == sorted(apexes) and apexes[-1] - apexes[0] > 0.45


def test_apex_and_speed_rise_with_chasm_width():
    apexes, speeds = [], []
    for width in (0.38, 0.6, 0.88, 1.13, 1.38):
        plan, jump = _jump_of(_layout().with_changes(chasms=[Chasm(x=-0.12, width=width)]))
        assert plan.path == "jump_chasm"
        apexes.append(jump.apex)
        speeds.append(jump.launch.speed_h)
        assert SOLVED_CLEARANCE[0] <= jump.launch.clearance <= SOLVED_CLEARANCE[1]
        assert jump.apex < 0.5  # a long jump, not a high one
    assert apexes == sorted(apexes) and speeds == sorted(speeds)


def test_apex_rises_with_platform_height():
    apexes = []
    for height in (0.2, 0.5, 0.8):
        layout = placement.place(_layout(), -0.12, ("platform", height))
        plan, jump = _jump_of(layout)
        assert plan.path == "onto_platform"
        apexes.append(jump.apex - height)  # above the platform's top
        assert SOLVED_CLEARANCE[0] <= jump.launch.clearance <= SOLVED_CLEARANCE[1]
    assert all(0.0 < a < 0.15 for a in apexes)


@pytest.mark.parametrize("height", [0.2, 0.6])
def test_simulated_jump_clears_the_wall_by_a_modest_margin(height):
    layout = _wall(height)
    plan, jump = _jump_of(layout)
    config = layout.config(2, "2.1", "familiarization", 0, {})
    with Simulation(config, constants.AGENT_ID, floors=[constants.FIRST_FLOOR_ID]) as sim:
        Mover(sim).run([*plan.steps, Step("settle", seconds=0.2)])
        track = np.array(sim.video().track(constants.AGENT_ID))
        assert sim.penetration < 0.005  # never inside the wall
    over = track[np.abs(track[:, 0] + 0.12) < 0.05 + RADIUS]  # above the wall's footprint
    clearance = over[:, 2].min() - RADIUS - height
    assert PHYSICS_CLEARANCE[0] <= clearance <= PHYSICS_CLEARANCE[1]
    peak = track[:, 2].max()
    assert peak == pytest.approx(jump.apex + RADIUS, abs=0.03)

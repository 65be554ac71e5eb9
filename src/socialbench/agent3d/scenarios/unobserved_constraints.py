"""Scenario 3, Unobserved constraints: an agent's costly action implies a hidden obstacle.

Every trial has one familiarization video in a one-goal scene: a wall stands across the lane
behind an occluder (a thin upright panel between it and the camera), so the middle of the
agent's path is hidden; the agent jumps the wall, or walks round its far end (the occluder
blocks the near one), a curved path either way. Both test videos show the same motion script
as familiarization; once the agent stands at its goal the occluder is knocked over toward the
camera, revealing what was behind it. *Expected*: the wall that made the path efficient.
"""

from __future__ import annotations

from dataclasses import replace

from socialbench.agent3d.layout import constants, placement
from socialbench.agent3d.layout.geometry import Layout, Occluder
from socialbench.agent3d.layout.placement import pick
from socialbench.agent3d.planning import Plan, efficient_plan
from socialbench.agent3d.scenarios.common import Context, RecipeError, replay, simulate
from socialbench.agent3d.scenarios.registry import TrialVideos, recipe

SCENARIO = 3
NEAR_OVERHANG = 0.55  # ours: the wall reaches this far toward the camera past the lane
OCCLUDER_MARGIN = 1.2  # ours: the panel is this much wider than the wall (take-off to landing)
MIN_SAVING = 0.1  # ours: a revealed smaller obstacle must make the path this much wasteful


def _familiar(ctx: Context) -> tuple[Layout, Plan]:
    agent_shape, agent_color, looks = placement.sample_looks(ctx.rng, 1, ctx.extended)
    (shape, code), = looks
    base = placement.one_goal_layout(ctx.rng, shape, code, agent_shape, agent_color)
    x = placement.middle_x(base)
    if ctx.rng.random() < 0.5:  # the agent jumps: a long wall
        height = float(pick(ctx.rng, (0.3, 0.4, 0.6)))
        length = float(pick(ctx.rng, constants.LONG_WALL_LENGTHS))
    else:  # the agent walks round: a wall too tall to jump
        height = constants.DETOUR_WALL_HEIGHT
        length = float(pick(ctx.rng, constants.WALL_LENGTHS[:3]))
    thickness = float(pick(ctx.rng, constants.WALL_THICKNESSES))
    wall = placement.wall_across(x, base.row, height, thickness, length,
                                 offset=length / 2 - NEAR_OVERHANG)
    near = wall.y - length / 2
    occluder = Occluder(x=x, y=near - constants.OCCLUDER_GAP, width=thickness + OCCLUDER_MARGIN)
    layout = base.with_changes(walls=[wall], occluder=occluder)
    return layout, efficient_plan(layout, constants.FIRST_GOAL_ID)


def _trial(ctx: Context, familiar: Layout, plan: Plan, revealed: Layout | None) -> TrialVideos:
    sweep = ctx.sweep()
    falling = familiar.with_changes(occluder=replace(familiar.occluder, falls=True))
    fam = simulate(ctx, familiar, plan, "familiarization", sweep)
    expected = simulate(ctx, falling, plan, "expected", sweep, occluder_falls=True)
    surprising = None
    if ctx.surprising and revealed is not None:
        revealed = revealed.with_changes(occluder=falling.occluder)
        surprising = simulate(ctx, revealed, replay(plan), "surprising", sweep,
                              occluder_falls=True)
    return TrialVideos([fam], expected, surprising)


@recipe("3.1")
def nothing_behind(ctx: Context) -> TrialVideos:
    """3.1 No barrier in the surprising video.

    Familiarization: behind the occluder, the agent jumps a wall or walks round it.
    Expected: the occluder falls and reveals the wall. Surprising: the same path, and the
    occluder falls to reveal nothing behind it.
    """
    familiar, plan = _familiar(ctx)
    return _trial(ctx, familiar, plan, familiar.with_changes(walls=[]))


@recipe("3.2")
def smaller_barrier(ctx: Context) -> TrialVideos:
    """3.2 Inefficient path in the surprising situation.

    Familiarization: behind the occluder, the agent jumps a wall or walks round it.
    Expected: the occluder falls and reveals the wall. Surprising: the same path, and the
    occluder falls to reveal a smaller wall (lower: it could have jumped lower, or jumped
    instead of walking round) or the wall with a doorway on the lane (it could have walked
    through).
    """
    familiar, plan = _familiar(ctx)
    wall = familiar.walls[0]
    if ctx.rng.random() < 0.5 and wall.height in constants.DOOR_WALL_HEIGHTS:
        smaller = replace(wall, door_y=familiar.row)
    else:
        lower = [h for h in constants.WALL_HEIGHTS if h <= min(wall.height - 0.2, 0.3) + 1e-9]
        smaller = replace(wall, height=float(pick(ctx.rng, lower)))
    revealed = familiar.with_changes(walls=[smaller])
    if efficient_plan(revealed, constants.FIRST_GOAL_ID).cost > plan.cost - MIN_SAVING:
        raise RecipeError("the revealed obstacle does not make the path inefficient")
    return _trial(ctx, familiar, plan, revealed)

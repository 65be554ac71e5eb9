"""Scenario 2, Action efficiency: a rational agent takes the efficient path its constraints allow.

Every trial has one familiarization video: in a one-goal scene, the agent takes the efficient
path over or around a constraint (a wall it jumps or walks around, or a chasm it jumps). The
test scene changes the constraint. The *expected* test video shows the path that is efficient
in the new scene (planned afresh); the *surprising* one replays the familiar path, the same
motion script, in the changed scene. Agent, goal and their positions stay the same.
"""

from __future__ import annotations

from dataclasses import replace

from socialbench.agent3d.layout import constants, placement
from socialbench.agent3d.layout.geometry import Chasm, Layout
from socialbench.agent3d.layout.placement import pick
from socialbench.agent3d.planning import efficient_plan
from socialbench.agent3d.scenarios.common import (
    Context,
    RecipeError,
    Shot,
    replay,
    simulate_shots,
)
from socialbench.agent3d.scenarios.registry import TrialVideos, recipe

SCENARIO = 2
MIN_SAVING = 0.1  # ours: the expected path must be cheaper than the replay by this much


def _base(ctx: Context) -> Layout:
    agent_shape, agent_color, looks = placement.sample_looks(ctx.rng, 1, ctx.extended)
    (shape, code), = looks
    return placement.one_goal_layout(ctx.rng, shape, code, agent_shape, agent_color)


def _jump_wall(ctx: Context, layout: Layout, heights: tuple = constants.WALL_HEIGHTS) -> Layout:
    """A long wall across the lane (the agent jumps it: walking round costs more)."""
    wall = placement.wall_across(placement.middle_x(layout), layout.row,
                                 float(pick(ctx.rng, heights)),
                                 float(pick(ctx.rng, constants.WALL_THICKNESSES)),
                                 float(pick(ctx.rng, constants.LONG_WALL_LENGTHS)))
    return layout.with_changes(walls=[wall])


def _detour_wall(ctx: Context, layout: Layout) -> Layout:
    """A 0.7 m wall, too tall to jump: the agent walks round its nearer end."""
    wall = placement.wall_across(placement.middle_x(layout), layout.row,
                                 constants.DETOUR_WALL_HEIGHT,
                                 float(pick(ctx.rng, constants.WALL_THICKNESSES)),
                                 float(pick(ctx.rng, constants.WALL_LENGTHS)),
                                 offset=float(ctx.rng.uniform(-0.3, 0.3)))
    return layout.with_changes(walls=[wall])


def _chasm(ctx: Context, layout: Layout, widths: tuple = constants.CHASM_WIDTHS_ONE_GOAL) -> Layout:
    chasm = Chasm(x=placement.middle_x(layout), width=float(pick(ctx.rng, widths)))
    return layout.with_changes(chasms=[chasm], raised=True)


def _trial(ctx: Context, familiar: Layout, test: Layout, ghosts: tuple[int, ...] = ()
           ) -> TrialVideos:
    """Familiarization in ``familiar``; expected = efficient in ``test``; surprising = replay.

    The replayed path must cost more than the expected one (except in 2.5, where it is not a
    feasible path at all: it goes through the ``ghosts``)."""
    fam_plan = efficient_plan(familiar, constants.FIRST_GOAL_ID)
    test_plan = efficient_plan(test, constants.FIRST_GOAL_ID)
    if not ghosts and fam_plan.cost < test_plan.cost + MIN_SAVING:
        raise RecipeError("the test scene does not make a more efficient path")
    sweep = ctx.sweep()
    shots = [Shot(familiar, fam_plan, "familiarization"), Shot(test, test_plan, "expected")]
    if ctx.surprising:
        shots.append(Shot(test, replay(fam_plan), "surprising", ghosts))
    fam, expected, *surprising = simulate_shots(ctx, shots, sweep)
    return TrialVideos([fam], expected, surprising[0] if surprising else None)


@recipe("2.1")
def obstacle_removed(ctx: Context) -> TrialVideos:
    """2.1 No obstacle in test.

    Familiarization: the agent jumps a wall or a chasm, or walks round a tall wall, to its goal.
    Test: the obstacle is gone (a chasm's raised floor stays, without the gap).
    Expected: walks straight to the goal. Surprising: repeats the jump or the detour.
    """
    base = _base(ctx)
    kind = pick(ctx.rng, ("jump", "detour", "chasm"))
    if kind == "chasm":
        familiar = _chasm(ctx, base)
        return _trial(ctx, familiar, familiar.with_changes(chasms=[], raised=True))
    familiar = _jump_wall(ctx, base) if kind == "jump" else _detour_wall(ctx, base)
    return _trial(ctx, familiar, familiar.with_changes(walls=[]))


@recipe("2.2")
def obstacle_moved(ctx: Context) -> TrialVideos:
    """2.2 Obstacle out of the way in test.

    Familiarization: the agent jumps a long wall or walks round a tall one.
    Test: the same wall, slid along its length until it no longer blocks the lane.
    Expected: walks straight to the goal. Surprising: repeats the jump or the detour.
    """
    base = _base(ctx)
    familiar = _jump_wall(ctx, base) if ctx.rng.random() < 0.5 else _detour_wall(ctx, base)
    wall = familiar.walls[0]
    side = float(pick(ctx.rng, (-1.0, 1.0)))
    detour = efficient_plan(familiar, constants.FIRST_GOAL_ID).steps[0].target
    if detour is not None and abs(detour[1] - familiar.row) > 1e-6:
        side = -1.0 if detour[1] > familiar.row else 1.0  # slide it away from the detour
    moved = replace(wall, y=familiar.row + side * (wall.length / 2 + 0.6))
    return _trial(ctx, familiar, familiar.with_changes(walls=[moved]))


@recipe("2.3")
def smaller_obstacle(ctx: Context) -> TrialVideos:
    """2.3 A smaller obstacle in test.

    Familiarization: the agent jumps a long wall (0.3-0.6 m) or a wide chasm, or walks round a
    long, tall wall. Test: a lower wall, a narrower chasm, or a shorter tall wall.
    Expected: the smaller effort (a lower or shorter jump, a shorter detour).
    Surprising: the familiar jump or detour, now bigger than needed.
    """
    base = _base(ctx)
    kind = pick(ctx.rng, ("jump", "chasm", "detour"))
    if kind == "jump":
        familiar = _jump_wall(ctx, base, heights=(0.3, 0.4, 0.6))
        wall = familiar.walls[0]
        lower = [h for h in constants.WALL_HEIGHTS if h <= wall.height - 0.2 + 1e-9]
        test_wall = replace(wall, height=float(pick(ctx.rng, lower)))
        return _trial(ctx, familiar, familiar.with_changes(walls=[test_wall]))
    if kind == "chasm":
        familiar = _chasm(ctx, base, widths=constants.CHASM_WIDTHS_ONE_GOAL[2:])
        chasm = familiar.chasms[0]
        narrower = [w for w in constants.CHASM_WIDTHS_ONE_GOAL if w <= chasm.width - 0.45]
        test_chasm = Chasm(x=chasm.x, width=float(pick(ctx.rng, narrower)))
        return _trial(ctx, familiar, familiar.with_changes(chasms=[test_chasm]))
    wall = placement.wall_across(placement.middle_x(base), base.row, constants.DETOUR_WALL_HEIGHT,
                                 float(pick(ctx.rng, constants.WALL_THICKNESSES)),
                                 float(pick(ctx.rng, constants.WALL_LENGTHS[2:])))
    familiar = base.with_changes(walls=[wall])
    shorter = [v for v in constants.WALL_LENGTHS if v <= wall.length - 0.5]
    test_wall = replace(wall, length=float(pick(ctx.rng, shorter)))
    return _trial(ctx, familiar, familiar.with_changes(walls=[test_wall]))


@recipe("2.4")
def different_obstacle(ctx: Context) -> TrialVideos:
    """2.4 A different type of obstacle in test.

    Familiarization: the agent walks round (or jumps) a wall, or jumps a chasm.
    Test: the wall has a doorway on the lane, or the chasm a bridge on the lane.
    Expected: walks through the doorway or over the bridge. Surprising: the familiar detour or
    jump.
    """
    base = _base(ctx)
    if ctx.rng.random() < 0.5:
        familiar = _chasm(ctx, base)
        chasm = familiar.chasms[0]
        bridged = Chasm(x=chasm.x, width=chasm.width, bridge_y=familiar.row)
        return _trial(ctx, familiar, familiar.with_changes(chasms=[bridged]))
    height = float(pick(ctx.rng, constants.DOOR_WALL_HEIGHTS))
    # long enough for the doorway and a post on each side to hold its lintel
    lengths = [v for v in (*constants.WALL_LENGTHS, *constants.LONG_WALL_LENGTHS)
               if v >= constants.DOOR_WIDTH + 2 * constants.MIN_POST]
    wall = placement.wall_across(placement.middle_x(base), base.row, height,
                                 float(pick(ctx.rng, constants.WALL_THICKNESSES)),
                                 float(pick(ctx.rng, lengths)))
    familiar = base.with_changes(walls=[wall])
    door = placement.wall_across(wall.x, base.row, height, wall.thickness, wall.length, door=True)
    return _trial(ctx, familiar, familiar.with_changes(walls=[door]))


@recipe("2.5")
def path_violates_solidity(ctx: Context) -> TrialVideos:
    """2.5 The familiar path violates solidity in test.

    Familiarization: the agent jumps a low, long wall (0.1-0.4 m).
    Test: the wall is 0.7 m tall, too tall to jump. Expected: the agent walks round it.
    Surprising: the familiar jump, which now passes through the wall (the only video in the
    benchmark where the agent goes through a solid object: ``ghost_ids`` names the wall).
    """
    familiar = _jump_wall(ctx, _base(ctx), heights=(0.1, 0.2, 0.3, 0.4))
    wall = familiar.walls[0]
    taller = replace(wall, height=constants.DETOUR_WALL_HEIGHT,
                     length=float(pick(ctx.rng, constants.WALL_LENGTHS[2:])))
    test = familiar.with_changes(walls=[taller])
    if efficient_plan(familiar, constants.FIRST_GOAL_ID).path != "jump_wall":
        raise RecipeError("the familiar path must jump the wall")
    wall_ids = tuple(e.id for e in test.entities() if e.name.startswith("wall_"))
    return _trial(ctx, familiar, test, ghosts=wall_ids)

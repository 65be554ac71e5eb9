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

import numpy as np

from socialbench.agent3d.layout import constants, placement
from socialbench.agent3d.layout.geometry import Layout, Occluder, Wall
from socialbench.agent3d.layout.placement import pick
from socialbench.agent3d.planning import Plan, efficient_plan
from socialbench.agent3d.render import LIGHT_DIRECTION
from socialbench.agent3d.scenarios.common import Context, RecipeError, replay, simulate
from socialbench.agent3d.scenarios.registry import TrialVideos, recipe
from socialbench.agent3d.schema import Video
from socialbench.agent3d.visibility import VideoVisibility, occlusion, video_visibility

SCENARIO = 3
NEAR_OVERHANG = 0.55  # ours: the wall reaches this far toward the camera past the lane
OCCLUDER_MARGIN = 0.04  # m, ours: the panel covers the wall's picture with this to spare
MIN_SAVING = 0.1  # ours: a revealed smaller obstacle must make the path this much wasteful
# ours, the pictures' design (AGENT paper: the occluder hides the middle of the path while "it
# is clear that the agent is deviating from a straight path"): a familiarization video is
# resampled unless, seen from the scene's camera, it shows the agent in this share of the
# frames in which it moves, this share of every jump, and every goal at least this much
MIN_AGENT_SHOWN = 0.6
# a jump mostly hidden leaves its height to guesswork: at 0.2 the turned view of 3.2's doorway
# trials (its wider panel) let BIPaCK from the states order only 10 of 15 doorway pairs right,
# at 0.35 all (docs/agent.md, "Scenario 3: what is hidden")
MIN_JUMP_SHOWN = 0.35
MIN_GOAL_SHOWN = 0.5


def occluder_for(layout: Layout, wall: Wall, gap: float = constants.OCCLUDER_GAP) -> Occluder:
    """The panel that hides ``wall`` from the layout's camera: standing ``gap`` in front of the
    wall's near end, just wide and tall enough that every ray from the camera to the wall, its
    drop shadow, and an agent walking on the lane across the wall's place, passes through its
    front face (``OCCLUDER_MARGIN`` to spare). So it hides the obstacle, anything the obstacle would
    hide, and the middle of the path (AGENT paper), and no more of the lane than that needs."""
    camera = layout.camera(SCENARIO)
    eye = np.asarray(camera.position, dtype=float)
    centre_y = wall.y - wall.length / 2 - gap
    face = centre_y - constants.OCCLUDER_THICKNESS / 2
    corners = np.array([(wall.x + a * wall.thickness / 2, wall.y + b * wall.length / 2,
                         layout.floor + c * wall.height)
                        for a in (-1, 1) for b in (-1, 1) for c in (0, 1)])
    # the wall's drop shadow on the floor (render.LIGHT_DIRECTION points at the light)
    light = np.asarray(LIGHT_DIRECTION, dtype=float)
    shadow = corners - ((corners[:, 2] - layout.floor) / light[2])[:, None] * light
    lane = np.array([(wall.x, layout.row, layout.floor + constants.AGENT_SIZE)])
    corners = np.concatenate([corners, shadow, lane])
    if face <= eye[1] + 0.1 or corners[:, 1].min() <= face + 0.01:
        raise RecipeError("the occluder cannot stand between the camera and the wall's shadow")
    along = (face - eye[1]) / (corners[:, 1] - eye[1])  # every corner lies beyond the face
    hits = eye + along[:, None] * (corners - eye)
    x0, x1 = hits[:, 0].min() - OCCLUDER_MARGIN, hits[:, 0].max() + OCCLUDER_MARGIN
    top = hits[:, 2].max() + OCCLUDER_MARGIN - layout.floor
    return Occluder(x=round((x0 + x1) / 2, 4), y=round(centre_y, 4), width=round(x1 - x0, 4),
                    height=round(top, 4))


def _familiar(ctx: Context) -> tuple[Layout, Plan]:
    agent_shape, agent_color, looks = placement.sample_looks(ctx.rng, 1, ctx.extended)
    (shape, code), = looks
    base = placement.one_goal_layout(ctx.rng, shape, code, agent_shape, agent_color)
    x = placement.middle_x(base)
    # the agent jumps a low wall or walks round its far end (the occluder blocks the near
    # one), whichever costs less: a longer wall makes the jump the cheaper; a wall too tall
    # to jump is walked round
    if ctx.rng.random() < 0.5:
        height = float(pick(ctx.rng, (0.3, 0.4, 0.6)))
        length = float(pick(ctx.rng, constants.WALL_LENGTHS[3:]))  # long: jumping is cheaper
        thickness = float(pick(ctx.rng, constants.WALL_THICKNESSES))
    else:  # thin: the walk round a thicker wall's far end hides the agent too long (ours)
        height = constants.DETOUR_WALL_HEIGHT
        length = float(pick(ctx.rng, constants.WALL_LENGTHS[:3]))
        thickness = constants.WALL_THICKNESSES[0]
    wall = placement.wall_across(x, base.row, height, thickness, length,
                                 offset=length / 2 - NEAR_OVERHANG)
    layout = base.with_changes(walls=[wall], occluder=occluder_for(base, wall))
    return layout, efficient_plan(layout, constants.FIRST_GOAL_ID)


def picture_problems(video: Video, visibility: VideoVisibility) -> list[str]:
    """What a scenario-3 video (its ground truth) shows against the design: the agent in at
    least ``MIN_AGENT_SHOWN`` of its moving frames yet hidden in some, at least
    ``MIN_JUMP_SHOWN`` of every jump, every goal at least ``MIN_GOAL_SHOWN`` in every frame,
    and nothing of the wall before the occluder falls. Empty: as designed."""
    seen = occlusion(video, visibility)
    problems = []
    if not MIN_AGENT_SHOWN <= seen.agent_moving < 1:
        problems.append(f"the agent shows in {seen.agent_moving:.0%} of the frames in which it "
                        f"moves (the occluder should hide the middle of its path, at most "
                        f"{1 - MIN_AGENT_SHOWN:.0%})")
    for k, (frames, shown) in enumerate(seen.jumps):
        if shown < MIN_JUMP_SHOWN * frames:
            problems.append(f"jump {k + 1} shows in {shown} of its {frames} frames (at least "
                            f"{MIN_JUMP_SHOWN:.0%} should)")
    if seen.goal_least < MIN_GOAL_SHOWN:
        problems.append(f"a goal shows only {seen.goal_least:.0%} of itself in some frame (at "
                        f"least {MIN_GOAL_SHOWN:.0%} throughout)")
    if seen.obstacle_before_reveal:
        problems.append(f"{seen.obstacle_before_reveal} pixels of the hidden wall show before "
                        f"the occluder falls")
    return problems


def check_pictures(video: Video) -> None:
    """Resample (RecipeError) a familiarization video whose pictures miss the design."""
    problems = picture_problems(video, video_visibility(video))
    if problems:
        raise RecipeError(problems[0])


def _trial(ctx: Context, familiar: Layout, plan: Plan, revealed: Layout | None) -> TrialVideos:
    sweep = ctx.sweep()
    falling = familiar.with_changes(occluder=replace(familiar.occluder, falls=True))
    fam = simulate(ctx, familiar, plan, "familiarization", sweep)
    check_pictures(fam)
    expected = simulate(ctx, falling, plan, "expected", sweep, occluder_falls=True)
    check_fall(expected)
    surprising = None
    if ctx.surprising and revealed is not None:
        revealed = revealed.with_changes(occluder=falling.occluder)
        surprising = simulate(ctx, revealed, replay(plan), "surprising", sweep,
                              occluder_falls=True)
        check_fall(surprising)
    return TrialVideos([fam], expected, surprising)


def check_fall(video: Video) -> None:
    """Resample (RecipeError) a test video whose falling occluder hides the goal: until it
    falls the test videos show what familiarization shows (``check_pictures``)."""
    start = video.config.annotations["occluder_falls_at_frame"]
    seen = video_visibility(video)  # the whole video: the writer asks for it again
    least = min((float(seen.fraction(s.id)[start:].min()) for s in video.config.entities
                 if s.kind == "goal"), default=1.0)
    if least < MIN_GOAL_SHOWN:
        raise RecipeError(f"the falling occluder hides the goal ({least:.0%} shows)")


@recipe("3.1")
def nothing_behind(ctx: Context) -> TrialVideos:
    """3.1 No barrier in the surprising video.

    Familiarization: behind the occluder, the agent jumps a wall or walks round it.
    Expected: the occluder falls and reveals the wall. Surprising: the same path, and the
    occluder falls to reveal nothing behind it.
    """
    familiar, plan = _familiar(ctx)
    return _trial(ctx, familiar, plan, familiar.with_changes(walls=[]))


def _door_view(familiar: Layout, wall: Wall) -> tuple[Layout, Wall]:
    """A doorway trial's scene as filmed: the camera turned ``CAMERA_YAW_ONE_GOAL_DEG``, as
    scenario 2's is, so that the revealed doorway shows as an opening (looking along +y the
    wall is seen end-on, the doorway behind its near post), from the goal's side (the panel,
    knocked over toward the camera, then falls clear of the line to the goal); the wall at
    the thinnest (through a thick wall the opening is a tunnel seen from its side, which
    reads as a solid face); the occluder laid out for that view. Every other trial keeps the
    frontal camera, whose occluder hides less of the jumps (docs/agent.md)."""
    goal_side = 1.0 if familiar.goals[0].x > familiar.agent_x else -1.0
    base = familiar.with_changes(walls=[], occluder=None,
                                 camera_yaw_deg=-goal_side * constants.CAMERA_YAW_ONE_GOAL_DEG)
    wall = replace(wall, thickness=constants.WALL_THICKNESSES[0])
    return base.with_changes(walls=[wall], occluder=occluder_for(base, wall)), wall


@recipe("3.2")
def smaller_barrier(ctx: Context) -> TrialVideos:
    """3.2 Inefficient path in the surprising situation.

    Familiarization: behind the occluder, the agent jumps a wall or walks round it.
    Expected: the occluder falls and reveals the wall. Surprising: the same path, and the
    occluder falls to reveal a smaller wall (lower: it could have jumped lower, or jumped
    instead of walking round) or the wall with a doorway on the lane (it could have walked
    through). A doorway trial is filmed turned, so that the doorway shows (``_door_view``).
    """
    familiar, plan = _familiar(ctx)
    wall = familiar.walls[0]
    # a doorway on the lane, inside the wall's length with a post on each side (the occluder
    # hides no more than the wall)
    fits = wall.leaves_posts(familiar.row)
    if ctx.rng.random() < 0.5 and wall.height in constants.DOOR_WALL_HEIGHTS and fits:
        familiar, wall = _door_view(familiar, wall)
        plan = efficient_plan(familiar, constants.FIRST_GOAL_ID)
        smaller = replace(wall, door_y=familiar.row)
    else:
        lower = [h for h in constants.WALL_HEIGHTS if h <= min(wall.height - 0.2, 0.3) + 1e-9]
        smaller = replace(wall, height=float(pick(ctx.rng, lower)))
    revealed = familiar.with_changes(walls=[smaller])
    if efficient_plan(revealed, constants.FIRST_GOAL_ID).cost > plan.cost - MIN_SAVING:
        raise RecipeError("the revealed obstacle does not make the path inefficient")
    return _trial(ctx, familiar, plan, revealed)

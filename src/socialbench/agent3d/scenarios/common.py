"""What every AGENT recipe shares: the trial context, simulating one video, replaying a path.

A recipe samples layouts, asks ``planning`` what the agent does, and simulates each video
(:func:`simulate`; :func:`simulate_shots` for a trial's videos at once, the likeliest to fail
first). Recipes raise :class:`RecipeError` (or ``MotionError`` comes up from the physics)
when a sample does not make the trial its type needs; the generator then resamples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from socialbench.agent3d.framing import MIN_AGENT_PIXELS, REFERENCE_SIDE
from socialbench.agent3d.layout.cameras import agent_pixels_at
from socialbench.agent3d.layout.constants import (
    AGENT_ID,
    CAMERA_DETOUR_PITCH_MAX_DEG,
    CAMERA_DETOUR_PITCH_STEP_DEG,
    CAMERA_PITCH_DEG,
    OCCLUDER_HEIGHT,
    OCCLUDER_ID,
)
from socialbench.agent3d.layout.geometry import Layout
from socialbench.agent3d.motion import FPS, MotionError, Mover, Simulation
from socialbench.agent3d.physics import p
from socialbench.agent3d.planning import NoPathError, Plan, efficient_plan
from socialbench.agent3d.scenarios.balance import Balance
from socialbench.agent3d.schema import Video

LOOK_SWEEP_DEG = (54.0, 120.0)  # ours: how far the agent looks left/right at the start
OCCLUDER_PUSH = 12.0  # N, ours: knocks the 2 kg occluder over toward the camera
OCCLUDER_FALL_SECONDS = 1.6  # ours: the fall and the revealed scene, after the agent arrives
MAX_PENETRATION = 0.01  # m: deeper contact than this counts as passing through (ours)
MAX_LANDING_PENETRATION = 0.02  # m: a fast landing sinks in for a step (validate.py agrees)
TEST_VIDEOS = ("expected", "surprising")


class RecipeError(RuntimeError):
    """A sampled scene does not give the trial its type needs: resample."""


@dataclass
class Context:
    """What a recipe needs: its randomness, type, and whether to make the surprising video."""

    rng: np.random.Generator
    scenario: int
    trial_type: str
    seed: int
    surprising: bool = True  # test split only
    extended: bool = False  # goals from the unseen-shape set
    index: int = 0  # the trial's index in its split (recipes alternate variants by it)
    room: tuple[int, int] = (0, 0)  # the trial's (floor look, wall look): placement.sample_room
    balance: Balance = field(default_factory=Balance)  # how cues relate to the answer
    notes: dict = field(default_factory=dict)  # trial-level annotations for every video

    def sweep(self) -> float:
        low, high = LOOK_SWEEP_DEG
        return float(2 * round(self.rng.uniform(low, high) / 2))  # whole 2-degree gaze steps


def efficient_plans(layout: Layout) -> dict[int, Plan | None]:
    """The efficient plan to each goal of a scene, by goal key in order (None: unreachable)."""
    plans: dict[int, Plan | None] = {}
    for goal in sorted(layout.goals, key=lambda g: g.key):
        try:
            plans[goal.key] = efficient_plan(layout, goal.key)
        except NoPathError:
            plans[goal.key] = None
    return plans


def goal_costs(layout: Layout) -> dict[str, float | None]:
    """Efficient path cost to each goal of a scene (None: unreachable), for the annotations."""
    return {str(key): None if plan is None else round(plan.cost, 5)
            for key, plan in efficient_plans(layout).items()}


def replay(plan: Plan) -> Plan:
    """The same motion script, to be run in another scene (surprising videos)."""
    return Plan(path=f"{plan.path} (replayed)", goal=plan.goal, steps=plan.steps,
                horizontal=plan.horizontal, vertical=plan.vertical)


def simulate(ctx: Context, layout: Layout, plan: Plan, video: str, sweep: float,
             ghosts: tuple[int, ...] = (), occluder_falls: bool = False,
             extra: dict | None = None) -> Video:
    """Simulate one video: look around, carry out the plan (or give up), settle.

    The config's annotations record what the agent does (``goal_id``, ``gave_up``, ``plan``: path
    type, cost terms, jumps), ``goal_costs`` (the efficient cost to each goal in this scene),
    ``ghost_ids`` and the trial's notes (rewards, preferred goal, swapped sides).

    ``ghosts``: entity ids the agent passes through (type 2.5's surprising video only); any other
    overlap deeper than ``MAX_PENETRATION`` is a failed sample. ``occluder_falls``: after the
    agent arrives, the occluder is pushed over toward the camera and the scene revealed.
    """
    layout = layout.with_changes(room=ctx.room)  # every video of a trial: the same room
    notes = {"agent_id": AGENT_ID, "goal_id": plan.goal, "gave_up": plan.goal is None,
             "plan": plan.summary(), "goal_costs": goal_costs(layout),
             "look_sweep_deg": sweep, "ghost_ids": list(ghosts), "room": layout.room_looks(),
             **ctx.notes, **(extra or {})}
    config = layout.config(ctx.scenario, ctx.trial_type, video, ctx.seed, notes)
    fall_below = layout.floor - 0.05 if layout.chasms else None
    floors = tuple(e.id for e in config.entities if e.kind == "floor")
    with Simulation(config, AGENT_ID, ghosts=ghosts, floors=floors,
                    max_penetration=MAX_PENETRATION,
                    max_floor_penetration=MAX_LANDING_PENETRATION) as sim:
        mover = Mover(sim, fall_below=fall_below)
        mover.run(plan.video_steps(sweep))  # the video lasts as long as its motion
        if occluder_falls:
            config.annotations["occluder_falls_at_frame"] = len(sim.frames)
            _knock_over(sim)
        if sim.floor_penetration > MAX_LANDING_PENETRATION:
            raise MotionError(f"agent sank {sim.floor_penetration:.3f} m into the floor")
        if sim.penetration > MAX_PENETRATION:
            name = next(e.name for e in config.entities
                        if sim.ids.get(e.id) == sim.penetrated)
            raise MotionError(f"agent overlapped {name} by {sim.penetration:.3f} m")
        return sim.video()


@dataclass(frozen=True)
class Shot:
    """One video of a trial to simulate: :func:`simulate`'s scene, plan and video name."""

    layout: Layout
    plan: Plan
    video: str
    ghosts: tuple[int, ...] = ()


def _failure_risk(plan: Plan) -> int:
    """How likely a plan's video is to fail its sample, lowest first: a walk up a ramp (a cube
    agent sticks at the top in about half of them), a jump (a hard landing sinks in), the rest."""
    if plan.path.startswith("up_ramp"):
        return 0
    return 1 if plan.jumps else 2


def simulate_shots(ctx: Context, shots: Sequence[Shot], sweep: float) -> list[Video]:
    """Simulate a trial's videos, the likeliest to fail first; returned in ``shots``' order.

    Each camera also frames its video's detours (:func:`detour_points`; the test pair's
    together) where that leaves the agent large enough to read. The order is for speed only:
    each video is its own simulation (a fresh physics world) and draws nothing from
    ``ctx.rng``, so the order changes no file; a sample that fails does so before the videos
    that would have worked are simulated for nothing."""
    order = sorted(range(len(shots)), key=lambda k: (_failure_risk(shots[k].plan), k))
    test_shots = [s for s in shots if s.video in TEST_VIDEOS]
    tests = tuple(sorted(set(detour_points(test_shots)).union(
        *(scene_detour_points(s.layout) for s in test_shots))))
    layouts = []
    for shot in shots:
        points = tests if shot.video in TEST_VIDEOS else detour_points([shot])
        layouts.append(_detour_framed(shot.layout, points, ctx.scenario) if points
                       else shot.layout)
    videos: dict[int, Video] = {}
    for k in order:
        shot = shots[k]
        videos[k] = simulate(ctx, layouts[k], shot.plan, shot.video, sweep, ghosts=shot.ghosts)
    return [videos[k] for k in range(len(shots))]


def detour_points(shots: Sequence[Shot]) -> tuple[tuple[float, float], ...]:
    """The waypoints off the lane of the shots' paths (walking round a wall's end), for the
    camera to keep in view: a detour can pass nearer the camera than the lane. A
    familiarization video frames its own; the expected and surprising videos frame both of
    theirs together, and those of the efficient path to every goal of their scenes
    (:func:`scene_detour_points`), so they share one camera whichever of them detours, and the
    training split's camera (no surprising video) frames what the test split's would."""
    points: set[tuple[float, float]] = set()
    for shot in shots:
        points |= _off_lane(shot.plan, shot.layout)
    return tuple(sorted(points))


def scene_detour_points(layout: Layout) -> set[tuple[float, float]]:
    """The detour waypoints of the efficient path to each goal of a scene: where its obstacles
    make an agent walk, whichever goal it heads for. Framing them makes the camera a property
    of the scene, not of the path the agent takes (which would tell where it goes)."""
    return set().union(*(_off_lane(plan, layout) for plan in efficient_plans(layout).values()
                         if plan is not None))


def _off_lane(plan: Plan, layout: Layout) -> set[tuple[float, float]]:
    """The plan's walk waypoints off the layout's lane (the lane read only if there are any)."""
    return {(float(step.target[0]), float(step.target[1])) for step in plan.steps
            if step.kind == "walk" and step.target is not None
            and abs(step.target[1] - layout.row) > 1e-6}


def _detour_framed(lane: Layout, points: tuple[tuple[float, float], ...],
                   scenario: int) -> Layout:
    """The layout whose camera also frames the detour ``points``: at the default pitch, or
    looking down more steeply (up to ``CAMERA_DETOUR_PITCH_MAX_DEG``) where that is what keeps
    the agent (at its start) ``MIN_AGENT_PIXELS`` across. Where no pitch does, the lane's
    framing, rather than drawing the sample again (which would drop such walks from the data)."""
    def pixels(layout: Layout) -> float:
        return agent_pixels_at(layout.camera(scenario), layout.agent_xyz(), REFERENCE_SIDE)

    least = min(MIN_AGENT_PIXELS, pixels(lane) - 1e-9)  # never smaller than the lane's framing
    pitch = CAMERA_PITCH_DEG
    while pitch <= CAMERA_DETOUR_PITCH_MAX_DEG + 1e-9:
        framed = lane.with_changes(path_points=points, camera_pitch_deg=pitch)
        if pixels(framed) >= least:
            return framed
        pitch += CAMERA_DETOUR_PITCH_STEP_DEG
    return lane


def _knock_over(sim: Simulation) -> None:
    body = sim.ids[OCCLUDER_ID]
    position = p.getBasePositionAndOrientation(body, physicsClientId=sim.client)[0]
    top = (position[0], position[1], position[2] + OCCLUDER_HEIGHT / 2)
    pushes = 0

    def push() -> None:
        nonlocal pushes
        if pushes < 2:  # a short shove (2 frames) at the top edge, toward the camera (-y)
            p.applyExternalForce(body, -1, (0.0, -OCCLUDER_PUSH, 0.0), top, p.WORLD_FRAME,
                                 physicsClientId=sim.client)
            pushes += 1

    for _ in range(int(OCCLUDER_FALL_SECONDS * FPS)):
        sim.frame(push)

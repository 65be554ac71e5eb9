"""The fixed camera of an AGENT scene: ours (framing the lane) or the released generator's.

``ours`` (the default) stands in front of the lane and looks down at ``CAMERA_PITCH_DEG``,
along +y, or turned ``CAMERA_YAW_ONE_GOAL_DEG`` toward +x in scenario 2 (so a wall across the
lane shows its face and a doorway in it, as from the released one-goal camera), as near as lets
a square frame at 53 degrees hold the lane's x span (the agent's and goals' slots) and every
goal object, raised or not, and the agent at every detour waypoint the lane's framing leaves
out (a walk round a wall's end can pass nearer the camera than the lane: the camera steps
back, keeping its aim, and a caller may ask for a steeper pitch; it never slides toward one
side, which would point at the goal whose path detours), with ``CAMERA_MARGIN`` to spare. It
depends only on the scenario, the scene's kind (one or two goals), its lane (row), floor
height, where its goal objects stand (a goal on a platform is nearer the camera), the detour
waypoints of the video (of both test videos together, with those of the efficient path to
each goal: ``scenarios.common.detour_points``) and the pitch and yaw its layout asks for (a
steeper pitch for a detour, a turn for 3.2's doorway), which a trial's expected and surprising
videos share: they are filmed identically, and the camera says nothing about the obstacles or
the path that tell them apart (familiarization videos with other goal heights or their own
detours may be framed apart). ``released`` is the released generator's fixed camera (agent
spec), raised with a raised floor: it films two-goal scenes nearly frontally from low (the
agent ~9 px across at 200 x 200) and one-goal scenes obliquely from one side (9-16 px by row
and side), so it is kept as an option, not the default.

Choose one with ``camera_style("released")`` around the code that builds a trial's layouts.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from socialbench.agent3d.layout.constants import (
    AGENT_SIZE,
    CAMERA_MARGIN,
    CAMERA_PITCH_DEG,
    CAMERA_STYLES,
    CAMERA_YAW_ONE_GOAL_DEG,
    GOAL_SIZE,
    ONE_GOAL_SLOTS,
    RELEASED_ONE_GOAL_CAMERA,
    RELEASED_TWO_GOAL_CAMERA,
    TWO_GOAL_GOAL_X,
)
from socialbench.agent3d.schema import Camera
from socialbench.core.errors import UserError

FOV_DEG = 53.0  # agent spec: camera FOV 53 degrees (both cameras)
AIM_AHEAD = 0.3  # m, ours: aim a little in front of the lane: near-side detours keep in view
_STYLE: ContextVar[str] = ContextVar("agent3d_camera_style", default="ours")


@contextmanager
def camera_style(style: str) -> Iterator[None]:
    """Build layouts' cameras in ``style`` (``ours`` or ``released``) inside this block."""
    check_style(style)
    token = _STYLE.set(style)
    try:
        yield
    finally:
        _STYLE.reset(token)


def check_style(style: str) -> None:
    """Refuse an unknown camera style in one line."""
    if style not in CAMERA_STYLES:
        raise UserError(f"unknown camera {style!r}; use {' or '.join(CAMERA_STYLES)}")


def current_style() -> str:
    return _STYLE.get()


def scene_camera(two_goals: bool, row: float, floor: float,
                 goals: Sequence[tuple[float, float, float]] = (),
                 style: str | None = None, turned: bool = False,
                 path_points: Sequence[tuple[float, float]] = (),
                 pitch_deg: float = CAMERA_PITCH_DEG, yaw_deg: float | None = None) -> Camera:
    """The camera of a scene (``style`` None: the current ``camera_style``); ``goals`` are the
    goal objects' centres, so that one raised on a platform stays whole in the frame;
    ``turned``: a one-goal scene filmed turned ``CAMERA_YAW_ONE_GOAL_DEG`` toward +x;
    ``path_points``: floor points (x, y) off the lane that the agent's centre passes (a
    detour's waypoints), kept in the frame with the agent's body round them; ``pitch_deg``:
    how steeply ours looks down; ``yaw_deg``: a one-goal scene's turn toward +x, instead of
    ``turned``'s."""
    style = style or current_style()
    if style == "released":
        return released_camera(two_goals, floor)
    yaw = 0.0 if two_goals else yaw_deg if yaw_deg is not None \
        else CAMERA_YAW_ONE_GOAL_DEG if turned else 0.0
    agents = [(x, y, floor + AGENT_SIZE / 2) for x, y in path_points]
    return lane_camera(lane_span(two_goals), row, floor, goals, pitch_deg=pitch_deg, yaw_deg=yaw,
                       agents=agents)


def agent_pixels_at(camera: Camera, point: Sequence[float], side: int) -> float:
    """How many pixels of a ``side`` x ``side`` frame the agent spans standing at ``point``:
    its size over its depth along the camera's axis (a sphere's outline; cubes and cones show
    more)."""
    eye = np.asarray(camera.position, dtype=float)
    forward = np.asarray(camera.target, dtype=float) - eye
    depth = float((np.asarray(point, dtype=float) - eye) @ forward / np.linalg.norm(forward))
    return AGENT_SIZE / depth * side / (2 * math.tan(math.radians(camera.fov_deg) / 2))


def released_camera(two_goals: bool, floor: float) -> Camera:
    """The released generator's fixed camera, raised with a raised floor (agent spec)."""
    eye, target = RELEASED_TWO_GOAL_CAMERA if two_goals else RELEASED_ONE_GOAL_CAMERA
    return Camera(position=(eye[0], eye[1], eye[2] + floor),
                  target=(target[0], target[1], target[2] + floor), fov_deg=FOV_DEG)


def lane_span(two_goals: bool) -> tuple[float, float]:
    """The x span of a scene's agent and goal slots (object sides included)."""
    if two_goals:
        return -TWO_GOAL_GOAL_X - GOAL_SIZE / 2, TWO_GOAL_GOAL_X + GOAL_SIZE / 2
    return ONE_GOAL_SLOTS[0] - GOAL_SIZE / 2, ONE_GOAL_SLOTS[-1] + GOAL_SIZE / 2


def lane_camera(span: tuple[float, float], row: float, floor: float,
                goals: Sequence[tuple[float, float, float]] = (),
                pitch_deg: float = CAMERA_PITCH_DEG, margin: float = CAMERA_MARGIN,
                yaw_deg: float = 0.0,
                agents: Sequence[tuple[float, float, float]] = ()) -> Camera:
    """A camera in front of the lane (looking along +y turned ``yaw_deg`` toward +x, down at
    ``pitch_deg``), as near as lets a square frame hold the lane's x ``span`` (objects on the
    floor), every goal box (centres ``goals``) and the agent's box at each of ``agents``
    (centres), each with ``margin`` on either side (a raised goal is nearer the camera, so it
    needs more room than the floor does; a platform itself may reach past the frame's edge)."""
    pitch, yaw = math.radians(pitch_deg), math.radians(yaw_deg)
    forward = np.array([math.sin(yaw) * math.cos(pitch), math.cos(yaw) * math.cos(pitch),
                        -math.sin(pitch)])
    right = np.array([math.cos(yaw), 0.0 - math.sin(yaw), 0.0])  # +0.0 at yaw 0, as before
    up = np.cross(right, forward)
    target = np.array([(span[0] + span[1]) / 2, row - AIM_AHEAD, floor])
    half = GOAL_SIZE / 2
    # what must fit: objects on the floor anywhere along the span, every goal box, and the
    # agent at each detour waypoint with the margin all round (it brakes a little past a
    # waypoint; the camera steps back for one the lane's frame leaves out)
    boxes = [((x, row, floor + half), 0.0, half) for x in span] + \
        [(g, half, half) for g in goals] + \
        [(a, AGENT_SIZE / 2, AGENT_SIZE / 2 + margin) for a in agents]  # (centre, reach, half)
    corners = np.array([(cx + sx * (reach + margin), cy + sy * size, cz + sz * size)
                        for (cx, cy, cz), reach, size in boxes
                        for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    slope = math.tan(math.radians(FOV_DEG / 2))
    # the least distance back from the target at which every corner is inside the frame:
    # |sideways| <= slope * depth and |upward| <= slope * depth, depth growing with ``back``
    offsets = corners - target
    sideways, upward, ahead = offsets @ right, offsets @ up, offsets @ forward
    back = float(np.max(np.maximum(np.abs(sideways), np.abs(upward)) / slope - ahead))
    eye = target - back * forward
    return Camera(position=tuple(round(float(v), 5) + 0.0 for v in eye),  # type: ignore[arg-type]
                  target=tuple(round(float(v), 5) + 0.0 for v in target),  # type: ignore[arg-type]
                  fov_deg=FOV_DEG)

"""The fixed camera of an AGENT scene: ours (framing the lane) or the released generator's.

``ours`` (the default) stands in front of the lane and looks down at ``CAMERA_PITCH_DEG``,
as far back as needed for the lane's x span (the agent's and goals' slots, with
``CAMERA_MARGIN``) to fill the width of a square frame at 53 degrees. It depends only on the
scene's kind (one or two goals), its lane (row) and floor height, which every video of a
trial shares, so expected and surprising videos are filmed identically and the camera says
nothing about the obstacles. ``released`` is the released generator's fixed camera (agent
spec), raised with a raised floor; it films two-goal scenes nearly frontally from low and cuts
one-goal goals at the image's edge, so it is kept as an option, not the default.

Choose one with ``camera_style("released")`` around the code that builds a trial's layouts.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from socialbench.agent3d.layout.constants import (
    CAMERA_MARGIN,
    CAMERA_PITCH_DEG,
    CAMERA_STYLES,
    GOAL_SIZE,
    ONE_GOAL_SLOTS,
    RELEASED_ONE_GOAL_CAMERA,
    RELEASED_TWO_GOAL_CAMERA,
    TWO_GOAL_GOAL_X,
)
from socialbench.agent3d.schema import Camera
from socialbench.core.errors import UserError

FOV_DEG = 53.0  # agent spec: camera FOV 53 degrees (both cameras)
AIM_AHEAD = 0.15  # m, ours: aim a little in front of the lane (near-side detours stay in view)
_STYLE: ContextVar[str] = ContextVar("agent3d_camera_style", default="ours")


@contextmanager
def camera_style(style: str) -> Iterator[None]:
    """Build layouts' cameras in ``style`` (``ours`` or ``released``) inside this block."""
    if style not in CAMERA_STYLES:
        raise UserError(f"unknown camera {style!r}; use {' or '.join(CAMERA_STYLES)}")
    token = _STYLE.set(style)
    try:
        yield
    finally:
        _STYLE.reset(token)


def current_style() -> str:
    return _STYLE.get()


def scene_camera(two_goals: bool, row: float, floor: float, style: str | None = None) -> Camera:
    """The camera of a scene (``style`` None: the current ``camera_style``)."""
    style = style or current_style()
    if style == "released":
        return released_camera(two_goals, floor)
    return lane_camera(lane_span(two_goals), row, floor)


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
                pitch_deg: float = CAMERA_PITCH_DEG, margin: float = CAMERA_MARGIN) -> Camera:
    """A camera in front of the lane (looking along +y, down at ``pitch_deg``) whose square
    frame's width, at the lane's depth, is ``span`` plus ``margin`` on each side."""
    pitch = math.radians(pitch_deg)
    half_width = (span[1] - span[0]) / 2 + margin
    lane_depth = half_width / math.tan(math.radians(FOV_DEG / 2))
    forward = (0.0, math.cos(pitch), -math.sin(pitch))
    target = ((span[0] + span[1]) / 2, row - AIM_AHEAD, floor)
    # the lane (at half the agent's height) lies lane_depth along the view from the eye
    lane_offset = AIM_AHEAD * forward[1] - GOAL_SIZE / 2 * forward[2]
    back = lane_depth - lane_offset
    eye = tuple(round(t - back * f, 5) + 0.0 for t, f in zip(target, forward, strict=True))
    return Camera(position=eye, target=tuple(round(t, 5) + 0.0 for t in target),  # type: ignore[arg-type]
                  fov_deg=FOV_DEG)

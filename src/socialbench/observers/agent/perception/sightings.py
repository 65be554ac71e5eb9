"""What a segmenter hands to box fitting: the static things of a video (each one's world points
and the frames that show it) and, per frame, the points of what moves (the agent, a falling
occluder), with the floor's level and the scene without what moves (the background)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

THING_HEIGHT = 0.02  # m above the floor: a pixel this high belongs to a body, not the floor
MIN_VISIBLE_PIXELS = 6  # as the generator's visibility: an entity shows with 6 pixels


@dataclass(frozen=True)
class StaticThing:
    cls: str  # goal, obstacle, occluder or agent (an agent that never moves)
    code: int  # goal colour code 1-8, else 0
    points: np.ndarray  # (N, 3) world points
    visible: np.ndarray  # (T,) bool


@dataclass(frozen=True)
class VideoSightings:
    static: list[StaticThing]
    agent: list[np.ndarray | None]  # per frame (N, 3) points, None when unseen
    occluder: list[np.ndarray | None]  # per frame, for an occluder that moves
    floor_z: float
    background: np.ndarray  # (H, W, 3) world points of the scene without what moves
    background_valid: np.ndarray  # (H, W)
    forward: np.ndarray  # the camera's viewing direction
    eye: np.ndarray  # the camera's position
    pixel_angle: float  # radians a pixel spans (a surface point stands for that much more)
    fps: int

    @property
    def frames(self) -> int:
        return len(self.agent)

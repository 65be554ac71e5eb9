"""Typed AGENT trials: what the generator simulates, the writer saves, readers load, observers read.

Coordinates are PyBullet's: metres, z up, right-handed; quaternions are (x, y, z, w). (TDW, which
made the released AGENT data, is y up: the released-layout reader converts.) Sizes are full
extents along the body's own x, y, z axes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]

FPS = 35  # AGENT paper: videos at 35 fps
SCENARIOS = {
    1: "scenario_1_goal_preferences",
    2: "scenario_2_action_efficiency",
    3: "scenario_3_unobserved_constraints",
    4: "scenario_4_cost_reward_trade_offs",
}  # agent spec: released folder names
TRIAL_TYPES = ("1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3", "2.4", "2.5", "3.1", "3.2",
               "4.1", "4.2")  # AGENT paper: 13 trial types

# Entity labels of the states-only release (agent spec): 1-8 goal colour codes, then these.
AGENT_LABEL = 9
OBSTACLE_LABEL = 10
OCCLUDER_LABEL = 11

EntityKind = Literal["agent", "goal", "obstacle", "occluder", "floor", "room"]  # room: its walls
VideoKind = Literal["familiarization", "expected", "surprising"]


@dataclass(frozen=True)
class EntitySpec:
    """One body of the scene as generated: enough to rebuild it exactly.

    ``shape``: box, sphere, cone, cylinder, pyramid, bowl, octahedron, ramp (a wedge).
    ``label``: the release's entity label (1-8 goal colour code, 9 agent, 10 obstacle, 11 occluder).
    """

    id: int
    name: str
    kind: EntityKind
    shape: str
    size: Vec3
    position: Vec3
    orientation: Quat = (0.0, 0.0, 0.0, 1.0)
    label: int = OBSTACLE_LABEL
    rgba: tuple[float, float, float, float] = (0.5, 0.5, 0.5, 1.0)
    static: bool = True
    mass: float = 0.0


@dataclass(frozen=True)
class Camera:
    position: Vec3
    target: Vec3
    fov_deg: float = 53.0  # agent spec: camera FOV 53 degrees
    up: Vec3 = (0.0, 0.0, 1.0)


@dataclass
class SceneConfig:
    """``scene_config.json``: the parameters one video was generated from."""

    scenario: int
    trial_type: str
    video: VideoKind
    entities: list[EntitySpec]
    camera: Camera
    seed: int = 0
    fps: int = FPS
    annotations: dict = field(default_factory=dict)  # goal id, path type, gave up, ...


@dataclass(frozen=True)
class EntityState:
    """One entity in one frame (``state_info.json``)."""

    id: int
    position: Vec3
    orientation: Quat
    velocity: Vec3 = (0.0, 0.0, 0.0)
    angular_velocity: Vec3 = (0.0, 0.0, 0.0)


@dataclass
class Video:
    """One video: its scene and the states of every entity in every frame."""

    config: SceneConfig
    frames: list[list[EntityState]]

    def track(self, entity_id: int) -> list[Vec3]:
        """The positions of one entity over the video."""
        return [next(s.position for s in frame if s.id == entity_id) for frame in self.frames]


@dataclass
class Trial:
    """Familiarization videos (1, or 4 in scenario 4), an expected test and, in the test split,
    a surprising test that shares the familiarization videos."""

    scenario: int
    trial_type: str
    split: Literal["train", "validation", "test"]
    index: int
    familiarization: list[Video]
    expected: Video
    surprising: Video | None = None


@dataclass(frozen=True)
class VideoStates:
    """What one video shows: its bodies, the camera, the frame rate and every body's state in
    every frame. No label: which test video it is, the trial type and the annotations stay
    with the :class:`Episode` or in ``_meta/``."""

    entities: tuple[EntitySpec, ...]
    camera: Camera
    fps: int
    frames: list[list[EntityState]]

    @classmethod
    def of(cls, video: Video) -> VideoStates:
        return cls(tuple(video.config.entities), video.config.camera, video.config.fps,
                   video.frames)


@dataclass
class Episode:
    """An AGENT test as the VOE protocol takes it, like a BIB episode: the familiarization
    videos, then one test video. ``name`` (the trial's folder), ``task`` (its type) and
    ``expected`` (the test video is the expected one) are for the evaluation loop; an observer
    is handed the trials alone."""

    trials: list[VideoStates]
    name: str = ""
    task: str | None = None
    expected: bool | None = None

"""The parts of an AGENT scene and the :class:`Layout` that holds them (one video's scene)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from socialbench.agent3d.layout.cameras import scene_camera
from socialbench.agent3d.layout.constants import (
    AGENT_ID,
    AGENT_SIZE,
    BRIDGE_WIDTH,
    CAMERA_PITCH_DEG,
    CAMERA_TURNED_SCENARIOS,
    CHASM_BOTTOM_COLOR,
    DOOR_WIDTH,
    FIRST_FLOOR_ID,
    FIRST_OBSTACLE_ID,
    FIRST_ROOM_WALL_ID,
    FLOOR_LABEL,
    FLOOR_LOOKS,
    GOAL_COLORS,
    GOAL_SIZE,
    LINTEL_FRACTION,
    MIN_POST,
    OBSTACLE_COLORS,
    OCCLUDER_COLOR,
    OCCLUDER_HEIGHT,
    OCCLUDER_ID,
    OCCLUDER_THICKNESS,
    PLATFORM_TOP,
    RAISED_FLOOR,
    RAISED_HALF_DEPTH,
    RAMP_SLOPE,
    ROOM_SIZE,
    ROOM_WALL_HEIGHT,
    ROOM_WALL_THICKNESS,
    WALL_LOOKS,
)
from socialbench.agent3d.schema import (
    AGENT_LABEL,
    OBSTACLE_LABEL,
    OCCLUDER_LABEL,
    Camera,
    EntitySpec,
    SceneConfig,
)


def body_shape(shape: str) -> str:
    """Our shape names -> the bodies' (the agent spec says 'cube', PyBullet 'box')."""
    return "box" if shape == "cube" else shape


@dataclass(frozen=True)
class Wall:
    """A box across the lane: ``length`` along y, ``thickness`` along x; optional doorway."""

    x: float
    y: float
    height: float
    thickness: float
    length: float
    door_y: float | None = None  # centre of a 0.7 m doorway, if the wall has one

    @property
    def door_height(self) -> float:
        return (1.0 - LINTEL_FRACTION) * self.height

    def boxes(self) -> list[tuple[tuple[float, float, float], tuple[float, float, float]]]:
        """(centre relative to the floor, size) of the wall's boxes: one, or posts + lintel."""
        if self.door_y is None:
            return [((self.x, self.y, self.height / 2),
                     (self.thickness, self.length, self.height))]
        low, high = self.y - self.length / 2, self.y + self.length / 2
        d0, d1 = self.door_y - DOOR_WIDTH / 2, self.door_y + DOOR_WIDTH / 2
        if not self.leaves_posts(self.door_y):  # a lintel must not float
            raise ValueError(f"a {DOOR_WIDTH} m doorway at y = {self.door_y} leaves the "
                             f"{self.length} m wall a post shorter than {MIN_POST} m")
        boxes = [((self.x, (a + b) / 2, self.height / 2), (self.thickness, b - a, self.height))
                 for a, b in ((low, d0), (d1, high))]
        lintel = self.height - self.door_height
        boxes.append(((self.x, self.door_y, self.door_height + lintel / 2),
                      (self.thickness, DOOR_WIDTH, lintel)))
        return boxes

    def leaves_posts(self, door_y: float) -> bool:
        """Whether a doorway centred at ``door_y`` leaves a post of at least ``MIN_POST`` on
        each side, for its lintel to rest on."""
        reach = DOOR_WIDTH / 2 + MIN_POST
        return self.y - self.length / 2 <= door_y - reach + 1e-9 and \
            door_y + reach <= self.y + self.length / 2 + 1e-9

    def blocks(self, row: float, margin: float = AGENT_SIZE / 2) -> bool:
        """Whether the wall stands across the lane at ``row``."""
        return abs(row - self.y) < self.length / 2 + margin


@dataclass(frozen=True)
class Chasm:
    """A gap in the raised floor across the lane, ``width`` along x; optional bridge at y."""

    x: float
    width: float
    bridge_y: float | None = None

    @property
    def edges(self) -> tuple[float, float]:
        return self.x - self.width / 2, self.x + self.width / 2


@dataclass(frozen=True)
class Platform:
    """A 0.7 x 0.7 platform a goal stands on; ``ramp`` = side (-1: -x, +1: +x) of a ramp, or 0."""

    x: float
    y: float
    height: float
    ramp: int = 0

    @property
    def ramp_run(self) -> float:
        return self.height / RAMP_SLOPE


@dataclass(frozen=True)
class Occluder:
    """A thin upright panel between the camera and a hidden obstacle (scenario 3)."""

    x: float
    y: float
    width: float
    falls: bool = False  # knocked over at the end of a test video
    height: float = OCCLUDER_HEIGHT  # scenario 3 sizes it to hide the wall from the camera


@dataclass(frozen=True)
class Goal:
    """A goal object: ``code`` is its colour code (1-8, the release's label); ``key`` its id."""

    key: int
    x: float
    shape: str
    code: int
    platform: int | None = None  # index into Layout.platforms when it stands on one


@dataclass
class Layout:
    """One video's scene in planner terms; ``config()`` makes its entities."""

    row: float
    agent_x: float
    agent_shape: str
    agent_color: tuple[float, float, float, float]
    goals: list[Goal]
    two_goals: bool
    walls: list[Wall] = field(default_factory=list)
    chasms: list[Chasm] = field(default_factory=list)
    platforms: list[Platform] = field(default_factory=list)
    occluder: Occluder | None = None
    raised: bool = False  # walkable floor on boxes (chasm scenes, kept across a trial's videos)
    obstacle_color: tuple[float, float, float, float] = OBSTACLE_COLORS[0]
    agent_yaw: float = 0.0
    room: tuple[int, int] = (0, 0)  # (floor look, wall look): indices into FLOOR_LOOKS, WALL_LOOKS
    # floor points (x, y) off the lane that the agent passes in some video of the trial (its
    # detours' waypoints), kept in the camera's view: the same in every video of a trial
    path_points: tuple[tuple[float, float], ...] = ()
    camera_pitch_deg: float = CAMERA_PITCH_DEG  # steeper only to frame a detour (cameras.py)
    # a one-goal scene's camera turned this far toward +x (cameras.py); None: as its scenario
    camera_yaw_deg: float | None = None

    @property
    def room_centre_y(self) -> float:
        """The room is centred on TDW's origin, which is ours too (``constants.tdw_point``)."""
        return 0.0

    def room_looks(self) -> dict[str, str]:
        """The room's appearance, by name (recorded in ``scene_config.json``)."""
        return {"floor": FLOOR_LOOKS[self.room[0]][0], "wall": WALL_LOOKS[self.room[1]][0]}

    @property
    def floor(self) -> float:
        """Height of the walkable floor."""
        return RAISED_FLOOR if self.raised or self.chasms else 0.0

    def goal(self, key: int) -> Goal:
        return next(g for g in self.goals if g.key == key)

    def goal_xyz(self, key: int) -> tuple[float, float, float]:
        goal = self.goal(key)
        base = self.floor
        if goal.platform is not None:
            base += self.platforms[goal.platform].height
        return (goal.x, self.row, base + GOAL_SIZE / 2)

    def agent_xyz(self) -> tuple[float, float, float]:
        return (self.agent_x, self.row, self.floor + AGENT_SIZE / 2 + 1e-3)

    def with_changes(self, **changes: object) -> Layout:
        return replace(self, **changes)

    def solid_footprints(self) -> list[tuple[float, float, float, float, float]]:
        """(x0, y0, x1, y1, top height above the floor) of everything the agent cannot walk
        through: walls (a doorway's posts), platforms, ramps and the occluder."""
        boxes = []
        for wall in self.walls:
            for (cx, cy, cz), (sx, sy, sz) in wall.boxes():
                if cz - sz / 2 < AGENT_SIZE + 0.02:  # the lintel is above the agent
                    boxes.append((cx - sx / 2, cy - sy / 2, cx + sx / 2, cy + sy / 2, cz + sz / 2))
        for platform in self.platforms:
            half = PLATFORM_TOP / 2
            boxes.append((platform.x - half, platform.y - half, platform.x + half,
                          platform.y + half, platform.height))
        if self.occluder is not None:
            o = self.occluder
            boxes.append((o.x - o.width / 2, o.y - OCCLUDER_THICKNESS / 2, o.x + o.width / 2,
                          o.y + OCCLUDER_THICKNESS / 2, o.height))
        return boxes

    # ---------------------------------------------------------------- entities
    def entities(self) -> list[EntitySpec]:
        """Every body of the scene, in a fixed order (same layout -> same ids and bodies)."""
        out: list[EntitySpec] = [EntitySpec(
            id=AGENT_ID, name="agent", kind="agent", shape=body_shape(self.agent_shape),
            size=(AGENT_SIZE,) * 3, position=self.agent_xyz(),
            orientation=_yaw_quat(self.agent_yaw), label=AGENT_LABEL, rgba=self.agent_color,
            static=False, mass=1.0)]  # agent spec: mass 1
        for goal in sorted(self.goals, key=lambda g: g.key):
            out.append(EntitySpec(
                id=goal.key, name=f"goal_{goal.code}", kind="goal",
                shape=body_shape(goal.shape), size=(GOAL_SIZE,) * 3,
                position=self.goal_xyz(goal.key), label=goal.code,
                rgba=GOAL_COLORS[goal.code - 1]))
        next_id = FIRST_OBSTACLE_ID
        base = self.floor
        for w, wall in enumerate(self.walls):
            for b, ((cx, cy, cz), size) in enumerate(wall.boxes()):
                out.append(EntitySpec(id=next_id, name=f"wall_{w}_{b}", kind="obstacle",
                                      shape="box", size=size, position=(cx, cy, base + cz),
                                      label=OBSTACLE_LABEL, rgba=self.obstacle_color))
                next_id += 1
        for k, platform in enumerate(self.platforms):
            out.append(EntitySpec(
                id=next_id, name=f"platform_{k}", kind="obstacle", shape="box",
                size=(PLATFORM_TOP, PLATFORM_TOP, platform.height),
                position=(platform.x, platform.y, base + platform.height / 2),
                label=OBSTACLE_LABEL, rgba=self.obstacle_color))
            next_id += 1
            if platform.ramp:
                run = platform.ramp_run
                centre = platform.x + platform.ramp * (PLATFORM_TOP / 2 + run / 2)
                # the wedge is high at +x: turn it round when the ramp is on the +x side
                out.append(EntitySpec(
                    id=next_id, name=f"ramp_{k}", kind="obstacle", shape="ramp",
                    size=(run, PLATFORM_TOP, platform.height),
                    position=(centre, platform.y, base + platform.height / 2),
                    orientation=_yaw_quat(0.0 if platform.ramp < 0 else math.pi),
                    label=OBSTACLE_LABEL, rgba=self.obstacle_color))
                next_id += 1
        for k, chasm in enumerate(self.chasms):
            if chasm.bridge_y is not None:
                out.append(EntitySpec(
                    id=next_id, name=f"bridge_{k}", kind="obstacle", shape="box",
                    size=(chasm.width, BRIDGE_WIDTH, 0.1),
                    position=(chasm.x, chasm.bridge_y, base - 0.05),
                    label=OBSTACLE_LABEL, rgba=self.obstacle_color))
                next_id += 1
        if self.occluder is not None:
            o = self.occluder
            out.append(EntitySpec(
                id=OCCLUDER_ID, name="occluder", kind="occluder", shape="box",
                size=(o.width, OCCLUDER_THICKNESS, o.height),
                position=(o.x, o.y, base + o.height / 2 + 1e-3), label=OCCLUDER_LABEL,
                rgba=OCCLUDER_COLOR, static=not o.falls, mass=2.0 if o.falls else 0.0))
        out.extend(self._floor_entities())
        return out

    def _floor_entities(self) -> list[EntitySpec]:
        floor_color = FLOOR_LOOKS[self.room[0]][1]
        floors = [EntitySpec(id=FIRST_FLOOR_ID, name="floor", kind="floor", shape="box",
                             size=(ROOM_SIZE, ROOM_SIZE, 0.1),
                             position=(0.0, self.room_centre_y, -0.05), label=FLOOR_LABEL,
                             rgba=CHASM_BOTTOM_COLOR if self.floor else floor_color)]
        floors.extend(self._room_walls())
        if not self.floor:
            return floors
        left = -3.0
        pieces = []
        for chasm in sorted(self.chasms, key=lambda c: c.x):
            x0, x1 = chasm.edges
            pieces.append((left, x0))
            left = x1
        pieces.append((left, 3.0))
        for k, (x0, x1) in enumerate(pieces):
            floors.append(EntitySpec(
                id=FIRST_FLOOR_ID + 1 + k, name=f"raised_floor_{k}", kind="floor", shape="box",
                size=(x1 - x0, 2 * RAISED_HALF_DEPTH, RAISED_FLOOR),
                position=((x0 + x1) / 2, self.row, RAISED_FLOOR / 2), label=FLOOR_LABEL,
                rgba=floor_color))
        return floors

    def _room_walls(self) -> list[EntitySpec]:
        """The four walls of the 12 x 12 m room (the camera sees the back one, +y)."""
        half, t, h = ROOM_SIZE / 2, ROOM_WALL_THICKNESS, ROOM_WALL_HEIGHT
        cy, color = self.room_centre_y, WALL_LOOKS[self.room[1]][1]
        walls = (("back", (0.0, cy + half + t / 2), (ROOM_SIZE + 2 * t, t)),
                 ("front", (0.0, cy - half - t / 2), (ROOM_SIZE + 2 * t, t)),
                 ("left", (-half - t / 2, cy), (t, ROOM_SIZE)),
                 ("right", (half + t / 2, cy), (t, ROOM_SIZE)))
        return [EntitySpec(id=FIRST_ROOM_WALL_ID + k, name=f"room_wall_{name}", kind="room",
                           shape="box", size=(sx, sy, h), position=(x, y, h / 2),
                           label=FLOOR_LABEL, rgba=color)
                for k, (name, (x, y), (sx, sy)) in enumerate(walls)]

    def camera(self, scenario: int) -> Camera:
        """The scene's fixed camera (``layout/cameras.py``: ours by default, or the released
        generator's); it depends on the scenario, the lane, the floor, the goals, the detour
        waypoints it frames (``path_points``) and the pitch and yaw asked for
        (``camera_pitch_deg``, ``camera_yaw_deg``), never on obstacles."""
        return scene_camera(self.two_goals, self.row, self.floor,
                            [self.goal_xyz(goal.key) for goal in self.goals],
                            turned=scenario in CAMERA_TURNED_SCENARIOS,
                            yaw_deg=self.camera_yaw_deg,
                            path_points=self.path_points, pitch_deg=self.camera_pitch_deg)

    def config(self, scenario: int, trial_type: str, video: str, seed: int,
               annotations: dict) -> SceneConfig:
        return SceneConfig(scenario=scenario, trial_type=trial_type, video=video,  # type: ignore[arg-type]
                           entities=self.entities(), camera=self.camera(scenario), seed=seed,
                           annotations=annotations)


def _yaw_quat(yaw: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, round(math.sin(yaw / 2), 6) + 0.0, round(math.cos(yaw / 2), 6) + 0.0)

"""AGENT scene layouts: obstacle geometry, sizes and colours, and their PyBullet entities.

A :class:`Layout` is one video's physical scene in planner terms (the agent's lane, goals,
walls, chasms, platforms, an occluder); :meth:`Layout.config` turns it into the
``SceneConfig`` the simulation, the files and the renderer use. Scenario recipes only choose
layouts; planning reads their geometry; nothing here simulates.

Geometry (PyBullet, z up): the agent walks along a *lane*, the x axis at ``y = row``; the camera
looks from -y, so the motion runs left-right in the image. One-goal scenes put the agent, the
obstacle and the goal in three slots along the lane; two-goal scenes put the agent in the middle,
an obstacle on each side and the goals beyond (agent spec, "Layout and camera"). A chasm raises
the walkable floor on boxes with a gap across the lane; the camera rises with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from socialbench.agent3d.schema import (
    AGENT_LABEL,
    OBSTACLE_LABEL,
    OCCLUDER_LABEL,
    Camera,
    EntitySpec,
    SceneConfig,
)

# --- sizes (agent spec, "Obstacles (metres)")
AGENT_SIZE = 0.2  # agent spec: 0.2 m primitive
GOAL_SIZE = 0.2  # ours: goal objects the agent's size
WALL_HEIGHTS = (0.1, 0.2, 0.3, 0.4, 0.6)  # agent spec: wall heights (0.7 listed below)
DETOUR_WALL_HEIGHT = 0.7  # agent spec: 0.7 tall to force a detour
TALL_TEST_WALL_HEIGHT = 0.9  # agent spec: "0.9 in some scenario-1 tests" (the hardest walls)
WALL_THICKNESSES = (0.1, 0.2, 0.4, 0.5)  # agent spec
WALL_LENGTHS = (0.6, 0.7, 1.1, 1.6, 2.1)  # agent spec
LONG_WALL_LENGTHS = (2.8, 3.0)  # agent spec: 2.8/3.0 long to force a jump
DOOR_WIDTH = 0.7  # agent spec: a 0.7 m opening
LINTEL_FRACTION = 0.3  # agent spec: lintel at 0.3 x wall height
DOOR_WALL_HEIGHTS = (0.6, 0.7)  # ours: the opening (0.7 x height) must let the 0.2 m agent pass
PLATFORM_HEIGHTS = (0.2, 0.5, 0.8)  # agent spec: ramp / platform heights
PLATFORM_TOP = 0.7  # agent spec: 0.7 x 0.7 top
RAMP_SLOPE = 0.5  # ours: rise over run of a ramp (27 degrees): 0.8 m needs a 1.6 m ramp
CHASM_WIDTHS_ONE_GOAL = (0.38, 0.6, 0.88, 1.13, 1.38)  # agent spec: one-goal scenes
CHASM_WIDTHS_TWO_GOALS = (0.3, 0.5, 0.7)  # agent spec: two-goal scenes
BRIDGE_WIDTH = 0.6  # agent spec: bridge 0.6 m (its width across the lane: ours)
RAISED_FLOOR = 0.3  # ours: height of the walkable floor in chasm scenes
RAISED_HALF_DEPTH = 2.0  # ours: the raised floor spans row +- 2 m, so a chasm cannot be skirted
OCCLUDER_HEIGHT = 1.1  # ours: tall enough to hide the walls behind it from the camera
OCCLUDER_THICKNESS = 0.05  # agent spec: a thin panel
OCCLUDER_GAP = 0.25  # ours: how far in front of the hidden obstacle the panel stands

# --- positions (agent spec, "Layout and camera"). TDW is y up; we map TDW (x, y, z) to
# (x, -(z - z_mid), y): TDW's x stays our x, its rows (z) become our y measured away from the
# camera from the middle row z_mid, its height (y) our z.
ONE_GOAL_SLOTS = (-1.32, -0.12, 1.08)  # agent spec: x in {1.08, -0.12, -1.32}
TWO_GOAL_AGENT_X = 0.0  # agent spec: agent at x = 0
TWO_GOAL_OBSTACLE_X = 0.83  # agent spec: obstacles at x = +-0.83
TWO_GOAL_GOAL_X = 1.66  # agent spec: goals at x = +-1.66


def _tdw_rows(rows_z: tuple[float, ...], z_mid: float) -> tuple[float, ...]:
    return tuple(round(-(z - z_mid), 3) + 0.0 for z in rows_z)


def _tdw_camera(position: tuple[float, float, float], pitch_deg: float, yaw_deg: float,
                z_mid: float) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """(eye, a point 3 m along the view) of a TDW camera (Unity Euler angles: pitch down,
    yaw about y from +z) in our frame."""
    pitch, yaw = math.radians(pitch_deg), math.radians(yaw_deg)
    forward = (math.cos(pitch) * math.sin(yaw), -math.sin(pitch), math.cos(pitch) * math.cos(yaw))
    eye = (position[0], -(position[2] - z_mid), position[1])
    look = (forward[0], -forward[2], forward[1])
    return eye, tuple(round(e + 3.0 * d, 5) for e, d in zip(eye, look, strict=True))


ONE_GOAL_Z_MID = -2.466  # agent spec: one-goal rows z {-2.795, -2.466, -1.917}
TWO_GOAL_Z_MID = -3.806  # agent spec: two-goal rows z {-4.355, -3.806, -3.257}
ONE_GOAL_ROWS = _tdw_rows((-2.795, -2.466, -1.917), ONE_GOAL_Z_MID)
TWO_GOAL_ROWS = _tdw_rows((-4.355, -3.806, -3.257), TWO_GOAL_Z_MID)
# agent spec: one-goal camera at (1, 1.45, 0.69), rotation (23.06, -154.9, 0) degrees;
# two-goal camera at (0, 1.678, 1.168), rotation (14.45, 180, 0)
ONE_GOAL_CAMERA = _tdw_camera((1.0, 1.45, 0.69), 23.06, -154.9, ONE_GOAL_Z_MID)
TWO_GOAL_CAMERA = _tdw_camera((0.0, 1.678, 1.168), 14.45, 180.0, TWO_GOAL_Z_MID)

# --- looks (agent spec: 8 goal colours in two sets of four; labels 1-8 are the colour codes)
GOAL_COLORS = (
    (0.90, 0.12, 0.12, 1.0), (0.12, 0.70, 0.20, 1.0), (0.15, 0.30, 0.95, 1.0),
    (0.95, 0.85, 0.10, 1.0),  # set A: red, green, blue, yellow (codes 1-4)
    (0.60, 0.20, 0.80, 1.0), (1.00, 0.55, 0.05, 1.0), (0.10, 0.85, 0.85, 1.0),
    (1.00, 0.45, 0.70, 1.0),  # set B: purple, orange, cyan, pink (codes 5-8)
)
AGENT_SHAPES = ("cube", "sphere", "cone")  # agent spec: agents are cubes, spheres or cones
EXTENDED_GOAL_SHAPES = ("pyramid", "bowl", "cylinder", "octahedron")  # agent spec: unseen shapes
AGENT_COLORS = ((0.85, 0.85, 0.85, 1.0), (0.25, 0.25, 0.25, 1.0), (0.55, 0.40, 0.25, 1.0))
OBSTACLE_COLORS = ((0.55, 0.55, 0.60, 1.0), (0.45, 0.50, 0.45, 1.0), (0.60, 0.52, 0.45, 1.0))
OCCLUDER_COLOR = (0.75, 0.62, 0.42, 1.0)
CHASM_BOTTOM_COLOR = (0.35, 0.33, 0.30, 1.0)  # the floor under a raised one: gaps look deep

# --- the room (agent spec: "a 12 x 12 m empty room"; AGENT paper, Sec. 3: "the texture of the
# floor (out of 8 types), the texture of the background wall (out of 3 types)"). TDW's textures
# are not available here: each variant is a solid colour, named after the material it stands
# for (ours). Drawn once per trial, so the videos of a trial share their room.
ROOM_SIZE = 12.0  # agent spec: 12 x 12 m room
ROOM_WALL_HEIGHT = 4.0  # ours: reaches above the top of both cameras' views (3.2 m at most)
ROOM_WALL_THICKNESS = 0.1  # ours
FLOOR_LOOKS = (
    ("light_oak", (0.80, 0.68, 0.50, 1.0)), ("dark_walnut", (0.45, 0.32, 0.22, 1.0)),
    ("grey_concrete", (0.62, 0.62, 0.60, 1.0)), ("sand_tile", (0.86, 0.80, 0.66, 1.0)),
    ("slate", (0.38, 0.42, 0.46, 1.0)), ("terracotta", (0.72, 0.45, 0.33, 1.0)),
    ("white_marble", (0.88, 0.88, 0.86, 1.0)), ("green_carpet", (0.42, 0.52, 0.40, 1.0)),
)  # AGENT paper: 8 floor types
WALL_LOOKS = (
    ("cream_plaster", (0.93, 0.90, 0.82, 1.0)), ("blue_paint", (0.62, 0.72, 0.82, 1.0)),
    ("brick", (0.66, 0.38, 0.32, 1.0)),
)  # AGENT paper: 3 background wall types
FLOOR_COLOR = FLOOR_LOOKS[0][1]  # the default look (layouts built outside a trial)

# entity ids, stable across the videos of a trial (goals keep their id when they swap sides)
AGENT_ID = 1
FIRST_GOAL_ID = 2
FIRST_OBSTACLE_ID = 10
OCCLUDER_ID = 30
FIRST_FLOOR_ID = 40
FIRST_ROOM_WALL_ID = 50
FLOOR_LABEL = 0  # ours: the floor and the room's walls are not entity classes of the release


def builder_shape(shape: str) -> str:
    """Our shape names -> scene_builder's (the agent spec says 'cube', PyBullet 'box')."""
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
        boxes = []
        for a, b in ((low, d0), (d1, high)):
            if b - a > 1e-6:
                boxes.append(((self.x, (a + b) / 2, self.height / 2),
                              (self.thickness, b - a, self.height)))
        lintel = self.height - self.door_height
        boxes.append(((self.x, self.door_y, self.door_height + lintel / 2),
                      (self.thickness, DOOR_WIDTH, lintel)))
        return boxes

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

    @property
    def room_centre_y(self) -> float:
        """The room is centred on TDW's origin, which our layout frame shifts to y = z_mid."""
        return TWO_GOAL_Z_MID if self.two_goals else ONE_GOAL_Z_MID

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
                          o.y + OCCLUDER_THICKNESS / 2, OCCLUDER_HEIGHT))
        return boxes

    # ---------------------------------------------------------------- entities
    def entities(self) -> list[EntitySpec]:
        """Every body of the scene, in a fixed order (same layout -> same ids and bodies)."""
        out: list[EntitySpec] = [EntitySpec(
            id=AGENT_ID, name="agent", kind="agent", shape=builder_shape(self.agent_shape),
            size=(AGENT_SIZE,) * 3, position=self.agent_xyz(),
            orientation=_yaw_quat(self.agent_yaw), label=AGENT_LABEL, rgba=self.agent_color,
            static=False, mass=1.0)]  # agent spec: mass 1
        for goal in sorted(self.goals, key=lambda g: g.key):
            out.append(EntitySpec(
                id=goal.key, name=f"goal_{goal.code}", kind="goal",
                shape=builder_shape(goal.shape), size=(GOAL_SIZE,) * 3,
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
                size=(o.width, OCCLUDER_THICKNESS, OCCLUDER_HEIGHT),
                position=(o.x, o.y, base + OCCLUDER_HEIGHT / 2 + 1e-3), label=OCCLUDER_LABEL,
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

    def camera(self) -> Camera:
        """The released generator's fixed camera (rows vary, the camera does not), raised with
        a raised floor (agent spec)."""
        eye, target = TWO_GOAL_CAMERA if self.two_goals else ONE_GOAL_CAMERA
        lift = self.floor
        return Camera(position=(eye[0], eye[1], eye[2] + lift),
                      target=(target[0], target[1], target[2] + lift))

    def config(self, scenario: int, trial_type: str, video: str, seed: int,
               annotations: dict) -> SceneConfig:
        return SceneConfig(scenario=scenario, trial_type=trial_type, video=video,  # type: ignore[arg-type]
                           entities=self.entities(), camera=self.camera(), seed=seed,
                           annotations=annotations)


def _yaw_quat(yaw: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, round(math.sin(yaw / 2), 6) + 0.0, round(math.cos(yaw / 2), 6) + 0.0)


# ------------------------------------------------------------------------------- sampling


def sample_room(rng: np.random.Generator) -> tuple[int, int]:
    """A trial's room: one of the 8 floor looks and one of the 3 wall looks (AGENT paper)."""
    return int(rng.integers(len(FLOOR_LOOKS))), int(rng.integers(len(WALL_LOOKS)))


def pick(rng: np.random.Generator, options: tuple | list) -> object:
    """One element of ``options`` (by index, so tuples of tuples work)."""
    return options[int(rng.integers(len(options)))]


def sample_looks(rng: np.random.Generator, goals: int,
                 extended: bool = False) -> tuple[str, tuple, list[tuple[str, int]]]:
    """(agent shape, agent colour, [(goal shape, colour code)] * goals).

    Basic goal shapes are the two agent shapes the agent is not (agent spec); with ``extended``
    they come from the unseen set. Two goals take colours from different sets of four.
    """
    agent_shape = str(pick(rng, AGENT_SHAPES))
    pool = list(EXTENDED_GOAL_SHAPES) if extended else [s for s in AGENT_SHAPES
                                                         if s != agent_shape]
    shapes = [pool[int(i)] for i in rng.permutation(len(pool))[:goals]]
    sets = [int(s) for s in rng.permutation(2)]
    codes = [1 + 4 * sets[k % 2] + int(rng.integers(4)) for k in range(goals)]
    return agent_shape, pick(rng, AGENT_COLORS), list(zip(shapes, codes, strict=True))


def one_goal_layout(rng: np.random.Generator, shape: str, code: int, agent_shape: str,
                    agent_color: tuple, direction: int | None = None) -> Layout:
    """Agent in an outer slot, goal in the other, the middle slot left for an obstacle."""
    direction = direction if direction is not None else int(pick(rng, (-1, 1)))
    start, end = (ONE_GOAL_SLOTS[0], ONE_GOAL_SLOTS[2])
    if direction < 0:
        start, end = end, start
    return Layout(row=float(pick(rng, ONE_GOAL_ROWS)), agent_x=start, agent_shape=agent_shape,
                  agent_color=agent_color, goals=[Goal(FIRST_GOAL_ID, end, shape, code)],
                  two_goals=False, obstacle_color=pick(rng, OBSTACLE_COLORS),
                  agent_yaw=0.0 if direction > 0 else math.pi)


def middle_x(layout: Layout) -> float:
    """The obstacle slot of a one-goal layout."""
    return ONE_GOAL_SLOTS[1]


def two_goal_layout(rng: np.random.Generator, looks: list[tuple[str, int]], agent_shape: str,
                    agent_color: tuple, sides: tuple[int, int] = (-1, 1)) -> Layout:
    """Agent at x = 0; goal k (id FIRST_GOAL_ID + k) at x = sides[k] * 1.66."""
    goals = [Goal(FIRST_GOAL_ID + k, sides[k] * TWO_GOAL_GOAL_X, shape, code)
             for k, (shape, code) in enumerate(looks)]
    return Layout(row=float(pick(rng, TWO_GOAL_ROWS)), agent_x=TWO_GOAL_AGENT_X,
                  agent_shape=agent_shape, agent_color=agent_color, goals=goals, two_goals=True,
                  obstacle_color=pick(rng, OBSTACLE_COLORS), agent_yaw=-math.pi / 2)


def wall_across(x: float, row: float, height: float, thickness: float, length: float,
                offset: float = 0.0, door: bool = False) -> Wall:
    """A wall across the lane at ``x``; ``offset`` slides it along y (its centre at row+offset)."""
    return Wall(x=x, y=row + offset, height=height, thickness=thickness, length=length,
                door_y=row if door else None)


# An obstacle "kind and size" a recipe picks before placing it: ("wall", height, thickness),
# ("chasm", width), ("platform", height) / ("ramp", height) under the goal, or None (nothing).
# Difficulty levels 1 (easy) .. 4 (hardest) order each kind for scenarios 1 and 4 (ours, from
# the spec's sizes; two levels may share a size: recipes check the costs they need).
ObstacleSpec = tuple | None
OBSTACLE_KINDS = ("wall", "chasm", "platform", "ramp")
LEVELS = {
    ("wall", False): ((0.1,), (0.2, 0.3), (0.4,), (0.6,)),
    ("wall", True): ((0.1,), (0.2, 0.3), (0.4,), (0.6,)),
    ("chasm", False): ((0.38,), (0.6, 0.88), (1.13,), (1.38,)),
    ("chasm", True): ((0.3,), (0.5,), (0.7,), (0.7,)),
    ("platform", False): ((0.2,), (0.2, 0.5), (0.5,), (0.8,)),
    ("platform", True): ((0.2,), (0.2, 0.5), (0.5,), (0.8,)),
    ("ramp", False): ((0.2,), (0.2, 0.5), (0.5,), (0.8,)),
    ("ramp", True): ((0.2,), (0.2,), (0.5,), (0.5,)),  # a 0.8 m ramp would reach the agent
}
GOAL_INSET = 0.5  # ours: a goal on a platform stands this far past the platform's near edge


def level_spec(rng: np.random.Generator, kind: str, level: int, two_goals: bool,
               tall_walls: bool = False) -> ObstacleSpec:
    """An obstacle of difficulty ``level`` (0 = none, 1 easy .. 4 hardest) of one kind.

    ``tall_walls`` (scenario-1 tests): the hardest wall may also be 0.9 m, too tall to jump,
    so the agent walks round its far end (agent spec: "0.9 in some scenario-1 tests")."""
    if level == 0:
        return None
    sizes = LEVELS[(kind, two_goals)][level - 1]
    if tall_walls and kind == "wall" and level == len(LEVELS[(kind, two_goals)]):
        sizes = (*sizes, TALL_TEST_WALL_HEIGHT)
    size = float(pick(rng, sizes))
    if kind == "wall":
        thickness = float(pick(rng, WALL_THICKNESSES[:3] if two_goals else WALL_THICKNESSES))
        return ("wall", size, thickness)
    return (kind, size)


def place(layout: Layout, x: float, spec: ObstacleSpec) -> Layout:
    """The layout with one more obstacle on the lane: a long wall or a chasm across it at
    ``x``, or a platform (with a ramp toward the agent, for "ramp") under the goal beyond x."""
    if spec is None:
        return layout
    if spec[0] == "wall":
        wall = wall_across(x, layout.row, spec[1], spec[2], LONG_WALL_LENGTHS[-1])
        return layout.with_changes(walls=[*layout.walls, wall])
    if spec[0] == "chasm":
        return layout.with_changes(chasms=[*layout.chasms, Chasm(x=x, width=spec[1])],
                                   raised=True)
    s = 1 if x > layout.agent_x else -1
    goal = next(g for g in layout.goals if (g.x - layout.agent_x) * s > 0)
    platform = Platform(x=goal.x - s * (GOAL_INSET - PLATFORM_TOP / 2), y=layout.row,
                        height=spec[1], ramp=-s if spec[0] == "ramp" else 0)
    goals = [replace(g, platform=len(layout.platforms)) if g is goal else g for g in layout.goals]
    return layout.with_changes(platforms=[*layout.platforms, platform], goals=goals)

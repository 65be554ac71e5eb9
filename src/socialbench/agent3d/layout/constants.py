"""AGENT scenes' constants: sizes, slots and cameras, looks, the room and entity ids.

Each says where it comes from: the agent spec (the released generator's values) or ours.
"""

from __future__ import annotations

import math

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

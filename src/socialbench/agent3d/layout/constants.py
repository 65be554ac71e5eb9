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
MIN_POST = 0.1  # ours: a doorway's lintel rests on a post at least this long on each side
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

# --- positions (agent spec, "Layout and camera"). TDW is y up and left-handed (x right, z
# away from its cameras); ours is PyBullet's, z up and right-handed. One conversion for
# everything (layouts, cameras, the released reader): TDW (x, y, z) -> ours (-x, -z, y).
# Swapping and negating axes this way is a reflection, which is what turns a left-handed
# frame into a right-handed one without mirroring the scene: seen from the released camera,
# what TDW shows on the image's left, ours shows on the left too (tests/agent3d/test_camera.py).
# TDW's cameras look along -z, so ours look along +y: rows lie at y = -z, in front of the
# room's back wall (+y); the room is centred on TDW's origin.


def tdw_point(vector: tuple[float, ...] | list[float]) -> tuple[float, float, float]:
    """A TDW point or vector (y up, left-handed) in our frame (z up, right-handed)."""
    x, y, z = (float(v) for v in vector)
    return (-x + 0.0, -z + 0.0, y + 0.0)


def tdw_quaternion(quaternion: tuple[float, ...] | list[float]) -> tuple[float, float, float,
                                                                         float]:
    """A TDW rotation quaternion (x, y, z, w) in our frame: the axis is an axial vector, so
    under the reflection ``tdw_point`` it turns as -tdw_point(axis)."""
    x, y, z, w = (float(v) for v in quaternion)
    return (x + 0.0, z + 0.0, -y + 0.0, w)


def tdw_camera(position: tuple[float, float, float], euler_deg: tuple[float, ...],
               distance: float = 3.0) -> tuple[tuple[float, float, float],
                                               tuple[float, float, float]]:
    """(eye, a point ``distance`` along the view) of a TDW camera (Unity Euler angles in
    degrees: pitch down about x, then yaw about y from +z) in our frame."""
    pitch, yaw = math.radians(euler_deg[0]), math.radians(euler_deg[1])
    forward = tdw_point((math.cos(pitch) * math.sin(yaw), -math.sin(pitch),
                         math.cos(pitch) * math.cos(yaw)))
    eye = tdw_point(position)
    return eye, tuple(round(e + distance * d, 5) + 0.0 for e, d in zip(eye, forward,
                                                                     strict=True))


def _tdw_xs(xs: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(sorted(tdw_point((x, 0.0, 0.0))[0] for x in xs))


def _tdw_rows(rows_z: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(sorted(tdw_point((0.0, 0.0, z))[1] for z in rows_z))


# agent spec: one-goal x in {1.08, -0.12, -1.32} -> ours (-1.08, 0.12, 1.32)
ONE_GOAL_SLOTS = _tdw_xs((-1.32, -0.12, 1.08))
TWO_GOAL_AGENT_X = 0.0  # agent spec: agent at x = 0
TWO_GOAL_OBSTACLE_X = 0.83  # agent spec: obstacles at x = +-0.83
TWO_GOAL_GOAL_X = 1.66  # agent spec: goals at x = +-1.66
ONE_GOAL_ROWS = _tdw_rows((-2.795, -2.466, -1.917))  # agent spec: rows z about these
TWO_GOAL_ROWS = _tdw_rows((-4.355, -3.806, -3.257))  # agent spec
# agent spec: the released generator's cameras. One-goal at (1, 1.45, 0.69), rotation
# (23.06, -154.9, 0) degrees; two-goal at (0, 1.678, 1.168), rotation (14.45, 180, 0)
RELEASED_ONE_GOAL_CAMERA = tdw_camera((1.0, 1.45, 0.69), (23.06, -154.9, 0.0))
RELEASED_TWO_GOAL_CAMERA = tdw_camera((0.0, 1.678, 1.168), (14.45, 180.0, 0.0))
# ours (the default camera, ``layout/cameras.py``): from in front of the lane, looking down
# at this pitch, framing the lane's x span (the agent's and goals' slots) with this margin
CAMERA_PITCH_DEG = 42.0  # ours: sees over 0.7 m walls and shows a jump's height and shadow
# ours: a camera framing a detour near the camera may look down more steeply, in these steps up
# to this, where the default pitch would leave the agent too small (a steeper frame is wider
# near the camera, so it can stand nearer): two-goal walks round a wall's near end
CAMERA_DETOUR_PITCH_STEP_DEG = 3.0
CAMERA_DETOUR_PITCH_MAX_DEG = 69.0
# ours, scenario 2's one-goal scenes: turned toward +x, as the released one-goal camera is (by
# 25.1 degrees), so that a wall across the lane shows its face, and a doorway in it, not its
# end. 15 degrees shows a doorway as plainly as 25. Scenario 3 stays frontal but for 3.2's
# doorway trials (scenarios/unobserved_constraints.py, _door_view): turned for every trial, its
# occluder, sized to hide the wall from a turned view, hid the jumps' rise so that BIPaCK from
# the states rated 3.2 at 0.44 (0.95 frontal), and at 25 degrees hid jumps or the goal in most
# samples (docs/agent.md, "Coordinates and cameras")
CAMERA_YAW_ONE_GOAL_DEG = 15.0
CAMERA_TURNED_SCENARIOS = (2,)
CAMERA_MARGIN = 0.06  # m left between the outer objects' sides and the frame's edge, ours
CAMERA_STYLES = ("ours", "released")

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
# are not available here: each variant is a colour named after a material (ours), which the
# renderer draws as that material's procedural texture (``agent3d/textures.py``). Drawn once
# per trial, so the videos of a trial share their room.
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

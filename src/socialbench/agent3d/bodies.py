"""SceneConfig -> PyBullet bodies: the one place that turns entity specs into physics and visuals.

Used both by the simulation (motion, planning) and by rendering, so a scene is rebuilt exactly
the same way from a ``scene_config.json`` as when it was generated.

Conventions (see ``schema.py``):

- An entity's ``position`` is the centre of its bounding box and ``size`` its full extents
  along its own x, y, z axes. The body's frame is that centre: ``getBasePositionAndOrientation``
  gives back exactly ``position`` (the inertial frame is not moved to the true centre of mass,
  so stored states and configs speak of the same point).
- Shapes: ``box``, ``sphere`` (an ellipsoid if the extents differ), ``cylinder`` (axis z),
  ``cone`` (apex up, +z), ``pyramid`` (square base, apex up), ``octahedron`` (vertices on the
  six half-axes), ``bowl`` (a hemispherical shell, opening up; collides as its convex hull) and
  ``ramp`` (a wedge: full height at +x, zero at -x, slope up along +x).
- Bodies with ``static=True`` or ``mass == 0`` are fixed. The agent gets the released
  generator's dynamics (no friction, bounciness 0.125, strong angular drag, ``AGENT_DYNAMICS``).

Typical use::

    with physics_client(timestep=1 / 240) as client:
        ids = build_scene(config, client)        # entity id -> body unique id
        ...step, apply forces to ids[agent_id]...
        frame = read_states(client, ids)         # list[EntityState], rounded for stable JSON

Determinism: an emptied DIRECT client per video (fresh, reused after ``resetSimulation``, or
reused after its bodies were removed) and the same call sequence give the same numbers.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache, lru_cache

import numpy as np
from scipy.spatial import ConvexHull

from socialbench.agent3d.physics import p
from socialbench.agent3d.schema import EntitySpec, EntityState, SceneConfig
from socialbench.core.errors import UserError

GRAVITY = -9.81  # AGENT spec (BIPaCK physics): gravity 9.81 m/s^2
DEFAULT_TIMESTEP = 0.005  # AGENT spec (BIPaCK physics): 5 ms steps
ROUND_DIGITS = 5  # stored floats: 5 decimals keep JSON byte-stable (10 um, far below any size)
ROUND_SEGMENTS = 24  # facets around cones, cylinders, bowls and ellipsoids

# AGENT spec (released generator): agent "mass 1, no friction, bounciness 0.125, strong angular
# drag". PyBullet's angular damping is a per-second fraction; 0.9 stands for "strong".
AGENT_DYNAMICS = {"lateralFriction": 0.0, "restitution": 0.125, "angularDamping": 0.9}
SHAPES = ("box", "sphere", "cylinder", "cone", "pyramid", "octahedron", "bowl", "ramp")


# Connecting a DIRECT client costs ~25 ms and emptying one with resetSimulation 1-2 ms (Bullet
# builds its world anew), while removing a simulation's few bodies takes ~0.05 ms: a process
# keeps its clients once used and hands them out again, emptied by removing their bodies when
# the last user allowed it (``keep_shapes``), else by resetSimulation.
_IDLE_CLIENTS: list[tuple[int, int]] = []  # (process id, client): only reused in that process
_MAX_IDLE = 4
# The clients emptied by body removal: their collision shapes kept, by (shape, size), for the
# next bodies of that shape and size. Past _MAX_KEPT_SHAPES a client is reset (shapes freed).
_KEPT_SHAPES: dict[int, dict[tuple[str, tuple[float, ...]], int]] = {}
_MAX_KEPT_SHAPES = 512
_NEEDS_RESET: set[int] = set()  # clients whose last use changed more than bodies


@contextmanager
def physics_client(timestep: float = DEFAULT_TIMESTEP, gravity: float = GRAVITY, *,
                   keep_shapes: bool = False) -> Iterator[int]:
    """A headless PyBullet client (DIRECT), empty, with gravity and a fixed timestep.

    Clients are reused within a process. ``keep_shapes`` (simulation: bodies without visual
    shapes, nothing set on the client but through this module): the bodies are removed when
    the block ends and the collision shapes kept for later bodies of the same shape and size;
    otherwise ``resetSimulation`` empties the client when it is next handed out. Gravity, the
    timestep and deterministic pair ordering are set again each time, so a reused client gives
    the same numbers as a fresh one (tests/agent3d/test_motion.py checks both ways)."""
    pid = os.getpid()
    mine = [c for c in _IDLE_CLIENTS if c[0] == pid and p.isConnected(physicsClientId=c[1])]
    if mine:
        client = mine[-1][1]
        _IDLE_CLIENTS.remove(mine[-1])
    else:
        client = p.connect(p.DIRECT)
        # shapes kept under this number belong to an earlier client (disconnected, or a forked
        # parent's): not this one's
        _KEPT_SHAPES.pop(client, None)
    clean = False
    try:
        if not (keep_shapes and client in _KEPT_SHAPES):  # else emptied already, shapes kept
            p.resetSimulation(physicsClientId=client)
            _KEPT_SHAPES.pop(client, None)
            if keep_shapes:
                _KEPT_SHAPES[client] = {}
        p.setGravity(0.0, 0.0, gravity, physicsClientId=client)
        p.setTimeStep(timestep, physicsClientId=client)
        p.setPhysicsEngineParameter(deterministicOverlappingPairs=1, physicsClientId=client)
        yield client
        clean = True
    finally:
        kept = _KEPT_SHAPES.get(client)
        keep = clean and len(_IDLE_CLIENTS) < _MAX_IDLE
        if keep and kept is not None and client not in _NEEDS_RESET \
                and len(kept) <= _MAX_KEPT_SHAPES:
            _remove_bodies(client)
        else:  # reset when next handed out, or disconnected
            _KEPT_SHAPES.pop(client, None)
        _NEEDS_RESET.discard(client)
        if keep:
            _IDLE_CLIENTS.append((pid, client))
        else:  # after an error (or with enough idle clients) do not keep it
            p.disconnect(client)


def reset_after_use(client: int) -> None:
    """Mark a client whose use changed more than its bodies (a collision filter between two
    bodies): it is reset, not emptied body by body, when handed back."""
    _NEEDS_RESET.add(client)


def _remove_bodies(client: int) -> None:
    bodies = [p.getBodyUniqueId(index, client) for index in range(p.getNumBodies(client))]
    for body in reversed(bodies):
        p.removeBody(body, client)


def build_scene(scene: SceneConfig | Sequence[EntitySpec], client: int,
                visual: bool = True) -> dict[int, int]:
    """Create one PyBullet body per entity; return entity id -> body unique id.

    Bodies are created in the order of the entity list, so the same config gives the same ids.
    ``visual=False``: no visual shapes (simulation only: the physics and the ids are the same,
    the meshes' visual copies are not made).
    """
    entities = scene.entities if isinstance(scene, SceneConfig) else list(scene)
    ids: dict[int, int] = {}
    for spec in entities:
        if spec.id in ids:
            raise UserError(f"entity id {spec.id} ({spec.name}) appears twice in the scene; "
                            f"give every entity its own id")
        ids[spec.id] = add_entity(spec, client, visual)
    return ids


def add_entity(spec: EntitySpec, client: int, visual_shape: bool = True) -> int:
    """Create the body of one entity and return its PyBullet unique id (without a visual shape
    when not ``visual_shape``: it is then never drawn)."""
    _check_spec(spec)
    collision, visual = _shapes(spec, client, visual_shape)
    mass = 0.0 if spec.static else float(spec.mass)
    body = p.createMultiBody(baseMass=mass, baseCollisionShapeIndex=collision,
                             baseVisualShapeIndex=visual, basePosition=spec.position,
                             baseOrientation=spec.orientation, physicsClientId=client)
    if spec.kind == "agent":
        p.changeDynamics(body, -1, physicsClientId=client, **AGENT_DYNAMICS)
    return body


def add_textured_box(spec: EntitySpec, client: int, texture: int, tile: float) -> int:
    """A visual-only body for a box entity (the floor, the room's walls) covered by a repeating
    texture, one repetition every ``tile`` metres on every face; same geometry as the plain box,
    so depth and segmentation do not change. Rendering only: it has no collision shape."""
    _check_spec(spec)
    vertices, triangles, uvs, normals = _box_faces(spec.size, tile)
    visual = p.createVisualShape(p.GEOM_MESH, vertices=vertices, indices=triangles, uvs=uvs,
                                 normals=normals, rgbaColor=[1.0, 1.0, 1.0, 1.0],
                                 physicsClientId=client)
    body = p.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=-1,
                             baseVisualShapeIndex=visual, basePosition=spec.position,
                             baseOrientation=spec.orientation, physicsClientId=client)
    p.changeVisualShape(body, -1, textureUniqueId=texture, rgbaColor=[1.0, 1.0, 1.0, 1.0],
                        physicsClientId=client)
    return body


def _box_faces(size: Sequence[float], tile: float) -> tuple[list, list, list, list]:
    """Vertices, triangles (outward), texture coordinates (metres / tile) and normals of a box's
    six faces, four vertices each, so every face gets its own coordinates."""
    half = [float(v) / 2 for v in size]
    vertices, triangles, uvs, normals = [], [], [], []
    for axis in range(3):
        u_axis, v_axis = [a for a in range(3) if a != axis]
        for sign in (-1.0, 1.0):
            start = len(vertices)
            for du, dv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                point = [0.0, 0.0, 0.0]
                point[axis], point[u_axis], point[v_axis] = sign * half[axis], du * half[u_axis], \
                    dv * half[v_axis]
                vertices.append(point)
                uvs.append([point[u_axis] / tile, point[v_axis] / tile])
                normal = [0.0, 0.0, 0.0]
                normal[axis] = sign
                normals.append(normal)
            # (u, v, axis) is right-handed when axis is 1 (y): then +axis faces wind one way
            outward = sign * (1.0 if axis != 1 else -1.0)
            quad = [(0, 1, 2), (0, 2, 3)] if outward > 0 else [(0, 2, 1), (0, 3, 2)]
            for tri in quad:
                triangles.extend(start + k for k in tri)
    return vertices, triangles, uvs, normals


def read_states(client: int, ids: Mapping[int, int]) -> list[EntityState]:
    """The current state of every entity (in ``ids`` order), floats rounded for stable files."""
    return [read_state(client, entity_id, body) for entity_id, body in ids.items()]


def read_state(client: int, entity_id: int, body: int) -> EntityState:
    """The current state of one entity, floats rounded for stable files."""
    position, orientation = p.getBasePositionAndOrientation(body, physicsClientId=client)
    velocity, angular = p.getBaseVelocity(body, physicsClientId=client)
    return EntityState(id=entity_id, position=rounded(position),
                       orientation=rounded(orientation), velocity=rounded(velocity),
                       angular_velocity=rounded(angular))


def resting_state(spec: EntitySpec) -> EntityState:
    """What :func:`read_state` gives for a static body never moved: its configured pose."""
    return EntityState(id=spec.id, position=rounded(spec.position),
                       orientation=rounded(spec.orientation), velocity=(0.0, 0.0, 0.0),
                       angular_velocity=(0.0, 0.0, 0.0))


def set_states(client: int, ids: Mapping[int, int], states: Sequence[EntityState]) -> None:
    """Put every listed entity at its stored pose (rendering and validation replay frames)."""
    for state in states:
        body = ids.get(state.id)
        if body is None:
            raise UserError(f"state for entity {state.id}, which the scene config does not "
                            f"define; states and scene_config.json must come from one video")
        p.resetBasePositionAndOrientation(body, state.position, state.orientation,
                                          physicsClientId=client)


def rounded(values: Sequence[float]) -> tuple[float, ...]:
    """Floats rounded to ``ROUND_DIGITS`` with -0.0 turned into 0.0 (stable JSON)."""
    return tuple(round(float(v), ROUND_DIGITS) + 0.0 for v in values)


def shape_mesh(shape: str, size: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (N x 3) and outward triangles (M x 3) of a shape of the given full extents,
    centred on its bounding box. Used for mesh bodies and by checks that need the geometry."""
    if shape not in SHAPES:
        raise UserError(f"unknown shape {shape!r}; known shapes: {', '.join(SHAPES)}")
    vertices, triangles = _unit_mesh(shape)
    return vertices * np.asarray(size, dtype=float), triangles.copy()


def _check_spec(spec: EntitySpec) -> None:
    if spec.shape not in SHAPES:
        raise UserError(f"entity {spec.id} ({spec.name}) has unknown shape {spec.shape!r}; "
                        f"known shapes: {', '.join(SHAPES)}")
    if len(spec.size) != 3 or not all(np.isfinite(spec.size)) or min(spec.size) <= 0:
        raise UserError(f"entity {spec.id} ({spec.name}) has size {spec.size}; sizes must be "
                        f"three positive finite extents in metres")
    if not spec.static and spec.mass <= 0:
        raise UserError(f"entity {spec.id} ({spec.name}) is dynamic with mass {spec.mass}; "
                        f"give it a positive mass or make it static")


def _shapes(spec: EntitySpec, client: int, visual: bool = True) -> tuple[int, int]:
    """(collision shape, visual shape: -1 when not ``visual``) for one entity: native PyBullet
    shapes where exact."""
    collision = _collision_shape(spec, client)
    if not visual:
        return collision, -1
    sx, sy, sz = (float(v) for v in spec.size)
    color = list(spec.rgba)
    if spec.shape == "box":
        return collision, p.createVisualShape(p.GEOM_BOX, halfExtents=[sx / 2, sy / 2, sz / 2],
                                              rgbaColor=color, physicsClientId=client)
    if spec.shape == "sphere" and sx == sy == sz:
        return collision, p.createVisualShape(p.GEOM_SPHERE, radius=sx / 2, rgbaColor=color,
                                              physicsClientId=client)
    if spec.shape == "cylinder" and sx == sy:
        return collision, p.createVisualShape(p.GEOM_CYLINDER, radius=sx / 2, length=sz,
                                              rgbaColor=color, physicsClientId=client)
    vertices, triangles = shape_mesh(spec.shape, spec.size)
    return collision, p.createVisualShape(p.GEOM_MESH, vertices=vertices.tolist(),
                                          indices=triangles.reshape(-1).tolist(),
                                          rgbaColor=color, physicsClientId=client)


def _collision_shape(spec: EntitySpec, client: int) -> int:
    """An entity's collision shape (a mesh shape collides as its hull; a bowl, concave, as the
    hull of its outer surface)."""
    kept = _KEPT_SHAPES.get(client)
    if kept is None:
        return _new_collision_shape(spec, client)
    key = (spec.shape, tuple(float(v) for v in spec.size))
    if key not in kept:
        kept[key] = _new_collision_shape(spec, client)
    return kept[key]


def _new_collision_shape(spec: EntitySpec, client: int) -> int:
    sx, sy, sz = (float(v) for v in spec.size)
    if spec.shape == "box":
        return p.createCollisionShape(p.GEOM_BOX, halfExtents=[sx / 2, sy / 2, sz / 2],
                                      physicsClientId=client)
    if spec.shape == "sphere" and sx == sy == sz:
        return p.createCollisionShape(p.GEOM_SPHERE, radius=sx / 2, physicsClientId=client)
    if spec.shape == "cylinder" and sx == sy:
        return p.createCollisionShape(p.GEOM_CYLINDER, radius=sx / 2, height=sz,
                                      physicsClientId=client)
    vertices = _hull_vertices(spec.shape, tuple(spec.size))
    return p.createCollisionShape(p.GEOM_MESH, vertices=vertices, physicsClientId=client)


@lru_cache(maxsize=256)  # sizes vary by trial: bounded
def _hull_vertices(shape: str, size: tuple[float, ...]) -> list[list[float]]:
    """The vertices a mesh shape collides by (a bowl: its outer surface's), as PyBullet takes
    them; the same lists ``_shapes`` passes."""
    vertices, _ = shape_mesh(shape, size)
    return (vertices[: _bowl_outer_count()] if shape == "bowl" else vertices).tolist()


@cache
def _unit_mesh(shape: str) -> tuple[np.ndarray, np.ndarray]:
    """The mesh of a shape with unit extents (scaled per entity by ``shape_mesh``)."""
    if shape == "bowl":
        return _bowl()
    ring = _ring(ROUND_SEGMENTS)
    points = {
        "box": [(x, y, z) for x in (-.5, .5) for y in (-.5, .5) for z in (-.5, .5)],
        "cylinder": [(x, y, z) for x, y in ring for z in (-.5, .5)],
        "cone": [(x, y, -.5) for x, y in ring] + [(0, 0, .5)],
        "pyramid": [(x, y, -.5) for x in (-.5, .5) for y in (-.5, .5)] + [(0, 0, .5)],
        "octahedron": [(.5, 0, 0), (-.5, 0, 0), (0, .5, 0), (0, -.5, 0), (0, 0, .5), (0, 0, -.5)],
        "ramp": [(x, y, -.5) for x in (-.5, .5) for y in (-.5, .5)] + [(.5, -.5, .5), (.5, .5, .5)],
        "sphere": _ellipsoid_points(),
    }[shape]
    vertices = np.asarray(points, dtype=float)
    return vertices, _outward_hull(vertices)


def _ring(segments: int) -> list[tuple[float, float]]:
    angles = np.arange(segments) * 2 * np.pi / segments
    return [(0.5 * np.cos(a), 0.5 * np.sin(a)) for a in angles]


def _ellipsoid_points() -> list[tuple[float, float, float]]:
    points = [(0.0, 0.0, 0.5), (0.0, 0.0, -0.5)]
    for lat in np.linspace(-np.pi / 2, np.pi / 2, ROUND_SEGMENTS // 2 + 1)[1:-1]:
        points += [(x * np.cos(lat), y * np.cos(lat), 0.5 * np.sin(lat))
                   for x, y in _ring(ROUND_SEGMENTS)]
    return points


def _outward_hull(vertices: np.ndarray) -> np.ndarray:
    """Triangles of the convex hull, each wound counter-clockwise seen from outside."""
    hull = ConvexHull(vertices)
    triangles = hull.simplices.copy()
    centre = vertices.mean(axis=0)
    for row, (a, b, c) in enumerate(triangles):
        normal = np.cross(vertices[b] - vertices[a], vertices[c] - vertices[a])
        if np.dot(normal, vertices[a] - centre) < 0:
            triangles[row] = (a, c, b)
    return triangles


_BOWL_RINGS = 6  # latitude rings of the hemisphere
_BOWL_WALL = 0.15  # wall thickness as a fraction of the radius


def _bowl_outer_count() -> int:
    return 1 + _BOWL_RINGS * ROUND_SEGMENTS


def _bowl() -> tuple[np.ndarray, np.ndarray]:
    """A hemispherical shell, rim at z = +0.5, bottom at z = -0.5, unit width.

    Vertices: outer surface (bottom pole, then rings up to the rim), then the inner surface the
    same way, scaled by (1 - wall). Triangles cover outer, inner and the flat rim between them,
    wound to face away from the solid.
    """
    n = ROUND_SEGMENTS
    centre = np.array([0.0, 0.0, 0.5])  # the centre of the sphere the shell is cut from

    def surface(scale: float) -> list[tuple[float, float, float]]:
        points = [(0.0, 0.0, 0.5 - scale)]
        for k in range(1, _BOWL_RINGS + 1):
            lat = -np.pi / 2 + k * (np.pi / 2) / _BOWL_RINGS  # up to 0: the rim
            points += [(x * scale * np.cos(lat), y * scale * np.cos(lat),
                        0.5 + scale * np.sin(lat)) for x, y in _ring(n)]
        return points

    outer = surface(1.0)
    vertices = np.asarray(outer + surface(1.0 - _BOWL_WALL), dtype=float)
    offset = len(outer)

    def at(base: int, k: int, j: int) -> int:
        return base + 1 + (k - 1) * n + j % n

    faces: list[tuple[tuple[int, int, int], float]] = []  # (triangle, +1 out / -1 in)
    for base, sign in ((0, 1.0), (offset, -1.0)):  # outer faces out, inner faces the centre
        for j in range(n):
            faces.append(((base, at(base, 1, j), at(base, 1, j + 1)), sign))
        for k in range(1, _BOWL_RINGS):
            for j in range(n):
                a, b = at(base, k, j), at(base, k, j + 1)
                c, d = at(base, k + 1, j), at(base, k + 1, j + 1)
                faces += [((a, b, d), sign), ((a, d, c), sign)]
    triangles = []
    for (a, b, c), sign in faces:
        normal = np.cross(vertices[b] - vertices[a], vertices[c] - vertices[a])
        outward = vertices[[a, b, c]].mean(axis=0) - centre
        triangles.append((a, b, c) if np.dot(normal, outward) * sign > 0 else (a, c, b))
    for j in range(n):  # the flat rim between outer and inner top rings faces up
        a, b = at(0, _BOWL_RINGS, j), at(0, _BOWL_RINGS, j + 1)
        c, d = at(offset, _BOWL_RINGS, j), at(offset, _BOWL_RINGS, j + 1)
        for tri in ((a, c, d), (a, d, b)):
            corner = vertices[tri[0]]
            upward = np.cross(vertices[tri[1]] - corner, vertices[tri[2]] - corner)[2] > 0
            triangles.append(tri if upward else (tri[0], tri[2], tri[1]))
    return vertices, np.asarray(triangles, dtype=int)


def quaternion_matrices(quaternions: np.ndarray) -> np.ndarray:
    """(N, 4) quaternions (x, y, z, w) -> (N, 3, 3) rotation matrices."""
    q = quaternions / np.linalg.norm(quaternions, axis=1, keepdims=True)
    x, y, z, w = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], axis=1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], axis=1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], axis=1),
    ], axis=1)

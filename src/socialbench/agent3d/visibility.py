"""What the camera sees: how many pixels of each entity show in each frame of a video.

An entity *shows* at a pixel when the ray from the camera through that pixel's centre meets it
before any other body: exactly what the rendered instance segmentation says at that pixel.
Rays are cast here in numpy against the bodies' shapes (boxes and the convex meshes of
``bodies.shape_mesh`` as planes, spheres and ellipsoids exactly), on the pixel grid of a
``REFERENCE_SIZE`` image (200 x 200, the default render's size when it was set; renders are
320 x 320 now, where the same entities show at 1.6 times the pixels) from the scene config's
own camera, and only through the pixels of each entity's projected box, so a video's
visibility costs a fraction of rendering it. The
count therefore does not depend on whether, or at what size, the video is rendered (the state
files stay the same with and without ``--render``); ``tests/agent3d/test_visibility.py`` checks
it against TinyRenderer's segmentation.

An entity is *visible* in a frame when at least ``MIN_VISIBLE_PIXELS`` of its pixels show (a
sliver at the occluder's edge is not a sighting). The floor and the room's walls are always
visible and never stand in front of anything (the camera is inside the room, above the floor);
the occluder is always visible (it stands in front of what it hides) and is not counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache

import numpy as np

from socialbench.agent3d.bodies import shape_mesh
from socialbench.agent3d.physics import p
from socialbench.agent3d.rounding import round_floats
from socialbench.agent3d.schema import Camera, EntitySpec, EntityState, Video

REFERENCE_SIZE = (200, 200)  # (width, height): the pixel grid counted, whatever the render's size
MIN_VISIBLE_PIXELS = 6  # ours: fewer showing pixels (of ~40k) is not a sighting
# TinyRenderer draws a native sphere as a coarse mesh whose outline lies inside the true sphere:
# its pictures cover the area of a sphere this much smaller (measured: 605 pixels against 648)
SPHERE_DRAWN = 0.967
_BACKGROUND_KINDS = ("floor", "room")  # never in front of anything, always in view
_ALWAYS_SEEN = (*_BACKGROUND_KINDS, "occluder")  # not counted: reported fully visible


@dataclass(frozen=True)
class VideoVisibility:
    """Per frame and entity (``ids`` order): pixels that show it and pixels it would cover
    with nothing in front (its silhouette); floors, room walls and the occluder are not
    counted (every pixel, as if they filled the picture)."""

    ids: tuple[int, ...]
    showing: np.ndarray  # (T, E) int
    silhouette: np.ndarray  # (T, E) int

    @property
    def visible(self) -> np.ndarray:
        """(T, E) bool: the entity is seen in that frame."""
        return self.showing >= MIN_VISIBLE_PIXELS

    def column(self, entity_id: int) -> int:
        return self.ids.index(entity_id)

    def fraction(self, entity_id: int) -> np.ndarray:
        """(T,) share of the entity's silhouette that shows (1 where it has none in view)."""
        k = self.column(entity_id)
        whole = self.silhouette[:, k]
        return np.where(whole > 0, self.showing[:, k] / np.maximum(whole, 1), 1.0)


# ------------------------------------------------------------------------------ the camera


@dataclass(frozen=True)
class PixelRays:
    """Rays through pixel centres of a ``width`` x ``height`` image (row 0 at the top), as
    PyBullet's ``computeViewMatrix`` / ``computeProjectionMatrixFOV`` (vertical fov) set it up."""

    eye: np.ndarray  # (3,)
    forward: np.ndarray  # (3,) unit
    right: np.ndarray  # (3,) unit
    up: np.ndarray  # (3,) unit
    width: int
    height: int
    tan_half: float  # tan(fov / 2), vertical

    @classmethod
    def of(cls, camera: Camera, size: tuple[int, int] = REFERENCE_SIZE) -> PixelRays:
        eye = np.asarray(camera.position, dtype=float)
        forward = np.asarray(camera.target, dtype=float) - eye
        forward /= np.linalg.norm(forward)
        right = np.cross(forward, np.asarray(camera.up, dtype=float))
        right /= np.linalg.norm(right)
        return cls(eye, forward, right, np.cross(right, forward), size[0], size[1],
                   math.tan(math.radians(camera.fov_deg) / 2))

    def directions(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """(N, 3) (unnormalised) directions of the rays through pixels (rows[i], cols[i])."""
        aspect = self.width / self.height
        u = ((cols + 0.5) / self.width * 2 - 1) * self.tan_half * aspect
        v = (1 - (rows + 0.5) / self.height * 2) * self.tan_half
        return self.forward + u[:, None] * self.right + v[:, None] * self.up

    def grid(self) -> np.ndarray:
        """(height, width, 3) the directions of every pixel's ray, as :meth:`directions`
        gives them (the same elementwise arithmetic, so the same bits), for slicing windows
        out of rather than working each window's out again."""
        rows, cols = np.divmod(np.arange(self.height * self.width), self.width)
        return self.directions(rows.astype(float), cols.astype(float)).reshape(
            self.height, self.width, 3)

    def window(self, points: np.ndarray) -> tuple[int, int, int, int] | None:
        """(row0, row1, col0, col1), end exclusive, of the pixels covering ``points`` (N, 3)
        with one pixel to spare; None when they are behind the camera or out of the image."""
        rel = points - self.eye
        depth = rel @ self.forward
        if (depth <= 1e-6).any():
            return None
        aspect = self.width / self.height
        x = (rel @ self.right) / depth / (self.tan_half * aspect)
        y = (rel @ self.up) / depth / self.tan_half
        cols = (x + 1) / 2 * self.width
        rows = (1 - y) / 2 * self.height
        col0, col1 = max(int(np.floor(cols.min())) - 1, 0), min(int(np.ceil(cols.max())) + 1,
                                                                 self.width)
        row0, row1 = max(int(np.floor(rows.min())) - 1, 0), min(int(np.ceil(rows.max())) + 1,
                                                                self.height)
        if col0 >= col1 or row0 >= row1:
            return None
        return row0, row1, col0, col1


# ------------------------------------------------------------------------------ the bodies


@cache
def _local_planes(shape: str, size: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """A convex shape as half-spaces ``n . x <= d`` in its own frame (unit normals)."""
    vertices, triangles = shape_mesh(shape, size)
    if shape == "bowl":  # it collides, and hides, as its outer surface's hull
        from scipy.spatial import ConvexHull
        hull = ConvexHull(vertices)
        normals, offsets = hull.equations[:, :3], -hull.equations[:, 3]
    else:
        a, b, c = (vertices[triangles[:, k]] for k in range(3))
        normals = np.cross(b - a, c - a)
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        offsets = np.einsum("ij,ij->i", normals, a)
    planes = np.unique(np.round(np.column_stack([normals, offsets]), 9), axis=0)
    return planes[:, :3], planes[:, 3]


def _rotation(quaternion: Sequence[float]) -> np.ndarray:
    return np.asarray(p.getMatrixFromQuaternion(quaternion), dtype=float).reshape(3, 3)


@dataclass(frozen=True)
class PlacedBody:
    """One entity at one pose: what rays are tested against."""

    spec: EntitySpec
    position: np.ndarray
    rotation: np.ndarray

    @classmethod
    def at(cls, spec: EntitySpec, state: EntityState) -> PlacedBody:
        return cls(spec, np.asarray(state.position, dtype=float), _rotation(state.orientation))

    def corners(self) -> np.ndarray:
        """(8, 3) world corners of its oriented bounding box."""
        half = np.asarray(self.spec.size, dtype=float) / 2
        signs = np.array([(a, b, c) for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)])
        return self.position + (signs * half) @ self.rotation.T

    def hit_distance(self, eye: np.ndarray, directions: np.ndarray) -> np.ndarray:
        """(N,) ray parameter of the first hit along ``eye + t * direction`` (inf: a miss)."""
        return _solve(self.spec, *_pose_terms(self, eye, directions))


def _ellipsoid_half(spec: EntitySpec) -> np.ndarray:
    half = np.asarray(spec.size, dtype=float) / 2
    if half[0] == half[1] == half[2]:  # a native sphere (bodies.py): drawn as a coarse mesh
        half = half * SPHERE_DRAWN
    return half


def _pose_terms(body: PlacedBody, eye: np.ndarray, directions: np.ndarray
                ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The matrix products of a body's hit test, made per pose (their bits follow the shapes
    multiplied): (terms per ray, terms of the pose). :func:`_solve` does the rest elementwise,
    so the rays of many poses can be solved at once, bit for bit as one pose at a time."""
    shape = body.spec.shape
    if shape == "box":  # slabs in the box's own frame: three axes rather than six planes
        return [directions @ body.rotation], [(eye - body.position) @ body.rotation]
    if shape == "sphere":
        half = _ellipsoid_half(body.spec)
        origin = ((eye - body.position) @ body.rotation) / half
        local = (directions @ body.rotation) / half
        return [local, local @ origin], [origin @ origin - 1.0]
    normals, offsets = _local_planes(shape, tuple(body.spec.size))
    world = normals @ body.rotation.T
    limits = offsets + world @ body.position - world @ eye  # n . (x - eye) <= limit
    return [directions @ world.T], [limits]  # slopes (N, F)


def _solve(spec: EntitySpec, per_ray: list[np.ndarray], per_pose: list[np.ndarray]
           ) -> np.ndarray:
    """The hit distances from :func:`_pose_terms` (the pose's terms either one pose's, which
    broadcast, or repeated for each ray): elementwise operations and exact reductions only."""
    if spec.shape == "box":
        (local,), (origin,) = per_ray, per_pose
        half = np.asarray(spec.size, dtype=float) / 2
        with np.errstate(divide="ignore", invalid="ignore"):
            low, high = (-half - origin) / local, (half - origin) / local
        parallel = local == 0
        if parallel.any():  # a ray parallel to a slab stays in it (no limit) or misses
            inside = np.abs(origin) <= half
            low = np.where(parallel, np.where(inside, -np.inf, np.inf), low)
            high = np.where(parallel, np.inf, high)  # outside: enters at infinity, a miss
        near, far = np.minimum(low, high), np.maximum(low, high)
        # the extremes of the three slabs elementwise (exact, as .max(axis=1) is; faster)
        enter = np.maximum(np.maximum(near[:, 0], near[:, 1]), near[:, 2])
        leave = np.minimum(np.minimum(far[:, 0], far[:, 1]), far[:, 2])
        return np.where((enter <= leave) & (leave > 0), np.maximum(enter, 0.0), np.inf)
    if spec.shape == "sphere":
        (local, b), (c,) = per_ray, per_pose
        a = np.einsum("ij,ij->i", local, local)
        disc = b * b - a * c
        root = np.sqrt(np.maximum(disc, 0.0))
        t = (-b - root) / a
        return np.where((disc >= 0) & (t > 0), t, np.inf)
    (slope,), (limits,) = per_ray, per_pose
    # rays a block at a time: a block's (rays, faces) arrays stay in the CPU's cache through
    # the passes below (twice as fast as whole windows; each ray's result is its own)
    hits = np.empty(len(slope))
    for start in range(0, len(slope), _SOLVE_BLOCK):
        block = slice(start, start + _SOLVE_BLOCK)
        hits[block] = _solve_faces(slope[block], limits if limits.ndim == 1 else limits[block])
    return hits


_SOLVE_BLOCK = 4096  # rays per block of a many-faced shape (25-145 faces: 0.8-4.6 MB a pass)


def _solve_faces(slope: np.ndarray, limits: np.ndarray) -> np.ndarray:
    """The hit distances of rays on a convex polyhedron: ``slope (N, F)``, ``limits`` the
    pose's ``(F,)`` or per ray ``(N, F)``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = limits / slope
    # the faces' extremes across the rays, face by face (exact: max, min and any in any
    # order; NumPy reduces across rows faster than along each short row)
    slope, ratio = slope.T, ratio.T
    enter = np.where(slope < 0, ratio, -np.inf).max(axis=0)
    leave = np.where(slope > 0, ratio, np.inf).min(axis=0)
    hit = (enter <= leave) & (leave > 0)
    parallel = slope == 0
    if parallel.any():  # a ray parallel to a face outside it misses
        limits = limits[:, None] if limits.ndim == 1 else limits.T
        hit &= ~(parallel & (limits < 0)).any(axis=0)
    return np.where(hit, np.maximum(enter, 0.0), np.inf)


# ------------------------------------------------------------------------------ counting


Window = tuple[int, int, int, int]
_CAST_RAYS = 1 << 18  # rays solved at once by _cast (~25 MB of intermediate arrays)


def _window_rays(window: Window) -> tuple[np.ndarray, np.ndarray]:
    """The (rows, cols) of a window's pixels, row by row."""
    row0, row1, col0, col1 = window
    return (np.repeat(np.arange(row0, row1), col1 - col0),
            np.tile(np.arange(col0, col1), row1 - row0))


def count_pixels(rays: PixelRays, target: PlacedBody,
                 others: Sequence[PlacedBody]) -> tuple[int, int]:
    """(pixels that show ``target``, pixels of its silhouette) with ``others`` in the scene:
    one frame's count the plain way, each body tested on the target's rays in its window (the
    reference :func:`video_visibility` is tested against)."""
    window = rays.window(target.corners())
    if window is None:
        return 0, 0
    rows, cols = _window_rays(window)
    directions = rays.directions(rows.astype(float), cols.astype(float))
    own = target.hit_distance(rays.eye, directions)
    covered = np.isfinite(own)
    nearest = np.full(own.shape, np.inf)
    for body in others:
        box = rays.window(body.corners())
        if box is None:
            continue
        row0, row1, col0, col1 = box
        inside = np.flatnonzero(covered & (rows >= row0) & (rows < row1)
                                & (cols >= col0) & (cols < col1))
        if inside.size:
            nearest[inside] = np.minimum(nearest[inside],
                                         body.hit_distance(rays.eye, directions[inside]))
    return int((own < nearest).sum()), int(covered.sum())


def _cast(rays: PixelRays, grid: np.ndarray, bodies: Sequence[PlacedBody],
          windows: Sequence[Window]) -> list[np.ndarray]:
    """Each body's hit distances on every ray of its window (window-shaped): the matrix
    products per pose, the rest for the rays of many poses of one shape at once (the same
    bits as one pose at a time: :func:`_pose_terms`)."""
    out: list[np.ndarray] = [np.empty(0)] * len(bodies)
    groups: dict[tuple, list[int]] = {}
    for n, body in enumerate(bodies):
        groups.setdefault((body.spec.shape, tuple(body.spec.size)), []).append(n)
    for members in groups.values():
        start, rays_in_batch = 0, 0
        for k, n in enumerate(members):
            row0, row1, col0, col1 = windows[n]
            rays_in_batch += (row1 - row0) * (col1 - col0)
            if rays_in_batch >= _CAST_RAYS or k == len(members) - 1:
                _cast_batch(rays, grid, bodies, windows, members[start:k + 1], out)
                start, rays_in_batch = k + 1, 0
    return out


def _cast_batch(rays: PixelRays, grid: np.ndarray, bodies: Sequence[PlacedBody],
                windows: Sequence[Window], batch: list[int], out: list[np.ndarray]) -> None:
    """``out[n]`` for each body ``n`` of ``batch`` (all of one shape and size)."""
    directions = [grid[r0:r1, c0:c1].reshape(-1, 3) for r0, r1, c0, c1 in
                  (windows[n] for n in batch)]
    terms = [_pose_terms(bodies[n], rays.eye, d) for n, d in zip(batch, directions, strict=True)]
    counts = [len(d) for d in directions]
    per_ray = [np.concatenate(parts) for parts in zip(*(t[0] for t in terms), strict=True)]
    per_pose = [np.repeat(np.array(parts), counts, axis=0)
                for parts in zip(*(t[1] for t in terms), strict=True)]
    hits = _solve(bodies[batch[0]].spec, per_ray, per_pose)
    for n, piece in zip(batch, np.split(hits, np.cumsum(counts)[:-1]), strict=True):
        row0, row1, col0, col1 = windows[n]
        out[n] = piece.reshape(row1 - row0, col1 - col0)


def _pose_keys(states: Sequence[EntityState]) -> list[tuple]:
    """Each state's pose to the millimetre (a tenth of a pixel and less): a dynamic body at
    rest creeps by hundredths of a millimetre, which should not make every frame new. The
    position's and orientation's ``round(v, 3)``, all at once (``rounding.round_floats``:
    ``round`` bit for bit; its ``+ 0.0`` turns -0.0 into 0.0, which compares and hashes
    alike)."""
    if not states:
        return []
    positions = round_floats(np.array([s.position for s in states], dtype=float), 3).tolist()
    turns = round_floats(np.array([s.orientation for s in states], dtype=float), 3).tolist()
    return [(tuple(position), tuple(turn)) for position, turn in zip(positions, turns,
                                                                      strict=True)]


# the last few videos counted, by identity: the generator checks a familiarization video's
# pictures and then writes it (videos are not changed once simulated)
_RECENT: list[tuple[Video, list, int, tuple[int, int], VideoVisibility]] = []
_RECENT_SIZE = 4


def video_visibility(video: Video, size: tuple[int, int] = REFERENCE_SIZE) -> VideoVisibility:
    """Every entity's showing and silhouette pixels in every frame, from the config's camera.

    Only bodies whose picture overlaps an entity's are tested in front of it, and a frame
    repeats the count of an earlier one when the entity and those bodies stand where they
    stood then (static scenes, an agent standing still). The same video object asked again
    gets the same answer without recounting."""
    for known, frames, count, known_size, result in _RECENT:
        if known is video and frames is video.frames and count == len(frames) \
                and known_size == size:
            return result
    result = _count_video(video, size)
    _RECENT.append((video, video.frames, len(video.frames), size, result))
    del _RECENT[:-_RECENT_SIZE]
    return result


# counts by what determines them (the camera, the picture's size, the shapes, sizes and exact
# poses of an entity and of the bodies in front of it), shared by the videos of a trial: the
# expected and surprising videos move the agent alike, familiarization mostly too. Exact, so
# that a count never depends on what the process counted before (the generator's workers and
# the validator see videos in other orders)
_SHARED: dict[tuple, dict[tuple, tuple[int, int]]] = {}
_SHARED_CAMERAS = 2
_SHARED_COUNTS = 200_000


def _count_video(video: Video, size: tuple[int, int]) -> VideoVisibility:
    """The counts of every entity in every frame: each entity's frames keyed by its pose and
    the poses of the bodies whose pictures overlap its own (a key's count is the same in every
    frame that has it); the keys not counted before cast and counted once each."""
    camera = video.config.camera
    rays = PixelRays.of(camera, size)
    specs = list(video.config.entities)
    ids = tuple(s.id for s in specs)
    showing = np.zeros((len(video.frames), len(specs)), dtype=np.int32)
    silhouette = np.zeros((len(video.frames), len(specs)), dtype=np.int32)
    for k, spec in enumerate(specs):
        if spec.kind in _ALWAYS_SEEN:
            showing[:, k] = silhouette[:, k] = rays.width * rays.height
    solid = {s.id: s for s in specs if s.kind not in _BACKGROUND_KINDS}
    poses = _PoseTable.of(video.frames, solid, rays)
    column = {entity_id: k for k, entity_id in enumerate(ids)}
    shared = _shared_counts(camera, size)  # by exact states, across videos
    keyed = []  # per counted entity: its column, its frames, their keys' rows, the keys
    missing: dict[tuple, list[int]] = {}  # exact key -> pose rows, for counts not known yet
    for n, (entity_id, spec) in enumerate(solid.items()):
        if spec.kind in _ALWAYS_SEEN:
            continue
        frames = np.flatnonzero(poses.table[:, n] >= 0)
        if not frames.size:
            continue
        mine = poses.table[frames, n]
        near = [poses.near(mine, poses.table[frames, m]) for m in range(len(solid)) if m != n]
        unique, inverse = np.unique(np.stack([mine, *near], axis=1), axis=0,
                                    return_inverse=True)
        rows = unique.tolist()
        exact = [poses.exact_key(row) for row in rows]
        for key, row in zip(exact, rows, strict=True):
            if key not in shared:
                missing.setdefault(key, row)
        keyed.append((column[entity_id], frames, inverse.reshape(-1), exact))
    if missing:
        # every pose a missing count needs, cast at once
        needed = sorted({v for row in missing.values() for v in row
                         if v >= 0 and poses.windows[v] is not None})
        cast = _cast(rays, _grid(camera, size), [poses.body(v) for v in needed],
                     [poses.windows[v] for v in needed])  # type: ignore[misc]
        depths = dict(zip(needed, cast, strict=True))
        for key, row in missing.items():
            shared[key] = _count_key(row, depths, poses.windows)
    for k, frames, inverse, exact in keyed:
        counts = np.array([shared[key] for key in exact], dtype=np.int32)
        showing[frames, k], silhouette[frames, k] = counts[inverse, 0], counts[inverse, 1]
    return VideoVisibility(ids, showing, silhouette)


def _count_key(row: list[int], depths: dict[int, np.ndarray],
               windows: Sequence[Window | None]) -> tuple[int, int]:
    """(showing, silhouette) of the pose ``row[0]`` with the poses ``row[1:]`` (-1: none)
    in front where they are nearer."""
    window = windows[row[0]]
    if window is None:
        return 0, 0
    own = depths[row[0]]
    whole = int(np.count_nonzero(np.isfinite(own)))
    near = [v for v in row[1:] if v >= 0]
    if not near:
        return whole, whole
    row0, row1, col0, col1 = window
    nearest = np.full(own.shape, np.inf)
    for v in near:
        a0, a1, b0, b1 = windows[v]  # type: ignore[misc]
        top, bottom, left, right = max(row0, a0), min(row1, a1), max(col0, b0), min(col1, b1)
        block = nearest[top - row0:bottom - row0, left - col0:right - col0]
        np.minimum(block, depths[v][top - a0:bottom - a0, left - b0:right - b0], out=block)
    return int(np.count_nonzero(own < nearest)), whole


@dataclass
class _PoseTable:
    """A video's distinct poses (shape, size and position and orientation to the millimetre:
    ``_pose_keys``), each with its first state (whose exact numbers its figures come from) and
    picture window, and ``table``: (frames, solid entities in the config's order) pose
    indices, -1 where a frame does not list the entity."""

    first: list[EntityState]
    specs: list[EntitySpec]
    windows: list[Window | None]
    bounds: np.ndarray  # (P, 4) the windows (zeros for None)
    shown: np.ndarray  # (P,) bool: the window is not None
    table: np.ndarray  # (T, S)

    @classmethod
    def of(cls, frames: Sequence[Sequence[EntityState]], solid: dict[int, EntitySpec],
           rays: PixelRays) -> _PoseTable:
        # every distinct state object once (a static body's state is one object in every
        # frame; the frames keep the objects alive, so their ids stay theirs)
        distinct = {id(s): s for frame in frames for s in frame if s.id in solid}
        states = list(distinct.values())
        index: dict[tuple, int] = {}
        first: list[EntityState] = []
        specs: list[EntitySpec] = []
        windows: list[Window | None] = []
        of_state: dict[int, int] = {}
        for key, state, pose, window in zip(distinct, states, _pose_keys(states),
                                            _windows(rays, states, solid), strict=True):
            spec = solid[state.id]
            place = (spec.shape, spec.size, pose)
            k = index.get(place)
            if k is None:
                k = index[place] = len(first)
                first.append(state)
                specs.append(spec)
                windows.append(window)
            of_state[key] = k
        slot = {entity_id: n for n, entity_id in enumerate(solid)}
        cells = [(t, slot[s.id], of_state[id(s)]) for t, frame in enumerate(frames)
                 for s in frame if s.id in slot]
        table = np.full((len(frames), len(solid)), -1, dtype=np.int64)
        if cells:
            t, n, k = np.array(cells, dtype=np.int64).T
            table[t, n] = k
        bounds = np.array([w or (0, 0, 0, 0) for w in windows], dtype=np.int64).reshape(-1, 4)
        return cls(first, specs, windows, bounds, np.array([w is not None for w in windows]),
                   table)

    def near(self, mine: np.ndarray, other: np.ndarray) -> np.ndarray:
        """Per frame, ``other``'s pose where its window overlaps ``mine``'s, else -1."""
        listed = other >= 0
        theirs = np.where(listed, other, 0)
        a, b = self.bounds[mine], self.bounds[theirs]
        overlap = listed & self.shown[mine] & self.shown[theirs] \
            & (a[:, 0] < b[:, 1]) & (b[:, 0] < a[:, 1]) & (a[:, 2] < b[:, 3]) & (b[:, 2] < a[:, 3])
        return np.where(overlap, other, -1)

    def exact_key(self, row: list[int]) -> tuple:
        """What a count follows from: the exact first states of its poses (``row``: its own,
        then per other body the pose in front, or -1), the same whatever else the scene holds
        (the surprising video of 3.1 has no wall: its agent's counts are the expected's)."""
        return tuple((self.specs[v].shape, self.specs[v].size, self.first[v].position,
                      self.first[v].orientation) for v in row if v >= 0)

    def body(self, pose: int) -> PlacedBody:
        return PlacedBody.at(self.specs[pose], self.first[pose])


def _windows(rays: PixelRays, states: Sequence[EntityState],
             specs: dict[int, EntitySpec]) -> list[Window | None]:
    """:meth:`PixelRays.window` of each state's oriented bounding box, all at once."""
    if not states:
        return []
    position = np.array([s.position for s in states], dtype=float)
    x, y, z, w = np.array([s.orientation for s in states], dtype=float).T
    rotation = np.stack([  # each quaternion's matrix (rows), as getMatrixFromQuaternion's
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], 1)
    half = np.array([specs[s.id].size for s in states], dtype=float) / 2
    signs = np.array([(a, b, c) for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], float)
    corners = position[:, None] + np.einsum("kcj,kij->kci", signs * half[:, None], rotation)
    rel = corners - rays.eye
    depth = rel @ rays.forward
    aspect = rays.width / rays.height
    with np.errstate(divide="ignore", invalid="ignore"):
        cols = ((rel @ rays.right) / depth / (rays.tan_half * aspect) + 1) / 2 * rays.width
        rows = (1 - (rel @ rays.up) / depth / rays.tan_half) / 2 * rays.height
    behind = (depth <= 1e-6).any(axis=1)
    col0 = np.maximum(np.floor(np.nan_to_num(cols.min(axis=1))) - 1, 0)
    col1 = np.minimum(np.ceil(np.nan_to_num(cols.max(axis=1))) + 1, rays.width)
    row0 = np.maximum(np.floor(np.nan_to_num(rows.min(axis=1))) - 1, 0)
    row1 = np.minimum(np.ceil(np.nan_to_num(rows.max(axis=1))) + 1, rays.height)
    out: list[Window | None] = []
    for gone, r0, r1, c0, c1 in zip(behind.tolist(), row0.astype(int).tolist(),
                                     row1.astype(int).tolist(), col0.astype(int).tolist(),
                                     col1.astype(int).tolist(), strict=True):
        out.append(None if gone or c0 >= c1 or r0 >= r1 else (r0, r1, c0, c1))
    return out


@lru_cache(maxsize=_SHARED_CAMERAS)
def _grid(camera: Camera, size: tuple[int, int]) -> np.ndarray:
    """A camera's :meth:`PixelRays.grid` (a trial's videos share their camera; 1 MB each)."""
    grid = PixelRays.of(camera, size).grid()
    grid.flags.writeable = False
    return grid


def _shared_counts(camera: Camera, size: tuple[int, int]) -> dict[tuple, tuple[int, int]]:
    key = (camera, size)
    if key not in _SHARED:
        while len(_SHARED) >= _SHARED_CAMERAS:
            del _SHARED[next(iter(_SHARED))]
        _SHARED[key] = {}
    if len(_SHARED[key]) > _SHARED_COUNTS:
        _SHARED[key].clear()
    return _SHARED[key]


# ------------------------------------------------------------------------------ the view


def hides_unseen(video: Video) -> bool:
    """Whether a video's files keep only what the camera sees: those with an occluder
    (scenario 3, AGENT paper: its states are those of the camera's view); elsewhere the
    states are the full ground truth, as in the released data."""
    return any(spec.kind == "occluder" for spec in video.config.entities)


def camera_view(video: Video, visibility: VideoVisibility | None = None) -> Video:
    """The video as the camera sees it: each frame lists the entities visible in it, in the
    same order; the config keeps the entities seen in some frame (one never seen, like a wall
    the occluder hides and that never shows, is not in the files at all)."""
    visibility = visibility if visibility is not None else video_visibility(video)
    visible = visibility.visible
    column = {entity_id: k for k, entity_id in enumerate(visibility.ids)}
    frames = [[s for s in frame if visible[t, column[s.id]]]
              for t, frame in enumerate(video.frames)]
    seen = {visibility.ids[k] for k in np.flatnonzero(visible.any(axis=0))}
    config = replace(video.config, entities=[s for s in video.config.entities if s.id in seen])
    return Video(config=config, frames=frames)


# ------------------------------------------------------------------------------ how much hides

MOVING_STEP = 1e-3  # m per frame (3.5 cm/s): slower is standing (looking around turns in place)
REVEAL_TILT_DEG = 1.0  # the occluder has begun to fall once it leans this far
AIRBORNE = 0.03  # m: the agent's centre this far above its lowest is off the ground


@dataclass(frozen=True)
class Occlusion:
    """How much of a video the occluder hides (the ground-truth video and its visibility).

    ``agent_moving``: share of the frames in which the agent moves that show it;
    ``goal_least``: the smallest share of a goal's silhouette shown in any frame;
    ``jumps``: per jump, (frames off the ground, those that show the agent);
    ``obstacle_before_reveal``: most pixels of any obstacle shown before the occluder moves;
    ``reveal``: the first frame in which the occluder has moved (None: it never does)."""

    agent_moving: float
    goal_least: float
    jumps: tuple[tuple[int, int], ...]
    obstacle_before_reveal: int
    reveal: int | None


def occlusion(video: Video, visibility: VideoVisibility) -> Occlusion:
    """Measure :class:`Occlusion` on a ground-truth video (every entity in every frame)."""
    kinds = {spec.id: spec.kind for spec in video.config.entities}
    agent = next(i for i, kind in kinds.items() if kind == "agent")
    track = np.array([next(s.position for s in frame if s.id == agent)
                      for frame in video.frames])
    seen = visibility.visible[:, visibility.column(agent)]
    steps = np.linalg.norm(np.diff(track, axis=0), axis=1)
    moving = np.concatenate([[False], steps > MOVING_STEP])
    agent_moving = float(seen[moving].mean()) if moving.any() else 1.0
    goals = [i for i, kind in kinds.items() if kind == "goal"]
    goal_least = min((float(visibility.fraction(i).min()) for i in goals), default=1.0)
    airborne = track[:, 2] > track[:, 2].min() + AIRBORNE
    jumps = []
    start = None
    for t, up in enumerate([*airborne, False]):
        if up and start is None:
            start = t
        elif not up and start is not None:
            jumps.append((t - start, int(seen[start:t].sum())))
            start = None
    reveal = _first_move(video, [i for i, kind in kinds.items() if kind == "occluder"])
    obstacles = [visibility.column(i) for i, kind in kinds.items() if kind == "obstacle"]
    before = visibility.showing[:reveal, obstacles] if obstacles else np.zeros((1, 1))
    return Occlusion(agent_moving, goal_least, tuple(jumps),
                     int(before.max()) if before.size else 0, reveal)


def _first_move(video: Video, ids: Sequence[int]) -> int | None:
    """The first frame in which one of ``ids`` has tipped more than ``REVEAL_TILT_DEG``."""
    level = math.cos(math.radians(REVEAL_TILT_DEG))
    for t, frame in enumerate(video.frames):
        if any(s.id in ids and _rotation(s.orientation)[2, 2] < level for s in frame):
            return t
    return None

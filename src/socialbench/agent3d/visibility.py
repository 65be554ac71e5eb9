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
        if self.spec.shape == "sphere":
            return self._ellipsoid_hit(eye, directions)
        if self.spec.shape == "box":
            return self._box_hit(eye, directions)
        normals, offsets = _local_planes(self.spec.shape, tuple(self.spec.size))
        world = normals @ self.rotation.T
        limits = offsets + world @ self.position - world @ eye  # n . (x - eye) <= limit
        slope = directions @ world.T  # (N, F)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = limits / slope
        # the faces' extremes across the rays, face by face (exact: max, min and any in any
        # order; NumPy reduces across rows faster than along each short row)
        slope, ratio = slope.T, ratio.T
        enter = np.where(slope < 0, ratio, -np.inf).max(axis=0)
        leave = np.where(slope > 0, ratio, np.inf).min(axis=0)
        parallel_out = ((slope == 0) & (limits[:, None] < 0)).any(axis=0)
        hit = (enter <= leave) & (leave > 0) & ~parallel_out
        return np.where(hit, np.maximum(enter, 0.0), np.inf)

    def _box_hit(self, eye: np.ndarray, directions: np.ndarray) -> np.ndarray:
        """Slabs in the box's own frame: three axes rather than six planes."""
        half = np.asarray(self.spec.size, dtype=float) / 2
        origin = (eye - self.position) @ self.rotation
        local = directions @ self.rotation
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

    def _ellipsoid_hit(self, eye: np.ndarray, directions: np.ndarray) -> np.ndarray:
        half = np.asarray(self.spec.size, dtype=float) / 2
        if half[0] == half[1] == half[2]:  # a native sphere (bodies.py): drawn as a coarse mesh
            half = half * SPHERE_DRAWN
        origin = ((eye - self.position) @ self.rotation) / half
        local = (directions @ self.rotation) / half
        a = np.einsum("ij,ij->i", local, local)
        b = local @ origin
        c = origin @ origin - 1.0
        disc = b * b - a * c
        root = np.sqrt(np.maximum(disc, 0.0))
        t = (-b - root) / a
        return np.where((disc >= 0) & (t > 0), t, np.inf)


# ------------------------------------------------------------------------------ counting


Window = tuple[int, int, int, int]


def _overlap(a: Window | None, b: Window | None) -> bool:
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1] \
        and a[2] < b[3] and b[2] < a[3]


@dataclass
class _Target:
    """One entity's pixel rays at one pose, with what the bodies that stand still hide."""

    directions: np.ndarray  # (N, 3) rays through the pixels its silhouette covers
    rows: np.ndarray  # (N,) their pixel rows
    cols: np.ndarray  # (N,)
    own: np.ndarray  # (N,) distance to the entity along each ray
    nearest: np.ndarray  # (N,) distance to the nearest static body in front (inf: none)


def _target(rays: PixelRays, body: PlacedBody, window: Window | None,
            fixed: Sequence[tuple[PlacedBody, Window]],
            grid: np.ndarray | None = None, depth: np.ndarray | None = None
            ) -> _Target | None:
    """``grid``: :meth:`PixelRays.grid`, when many windows of one camera are cast;
    ``depth``: the body's :func:`_depth` on its window, when already cast."""
    if window is None:
        return None
    row0, row1, col0, col1 = window
    # the window's pixels row by row (np.mgrid's, raveled, without its overhead)
    rows = np.repeat(np.arange(row0, row1), col1 - col0)
    cols = np.tile(np.arange(col0, col1), row1 - row0)
    if grid is None:
        directions = rays.directions(rows.astype(float), cols.astype(float))
    else:
        directions = grid[row0:row1, col0:col1].reshape(-1, 3)
    own = depth.reshape(-1) if depth is not None else body.hit_distance(rays.eye, directions)
    covered = np.isfinite(own)
    target = _Target(directions[covered], rows[covered], cols[covered], own[covered],
                     np.full(int(covered.sum()), np.inf))
    target.nearest = _in_front(rays, target, target.nearest, fixed)
    return target


def _depth(rays: PixelRays, body: PlacedBody, window: Window, grid: np.ndarray) -> np.ndarray:
    """The body's hit distance on every ray of its window (window-shaped): a body that stands
    still in front of others is cast once, and read where each of them needs it."""
    row0, row1, col0, col1 = window
    return body.hit_distance(rays.eye, grid[row0:row1, col0:col1].reshape(-1, 3)).reshape(
        row1 - row0, col1 - col0)


def _behind_depths(target: _Target, depths: Sequence[tuple[Window, np.ndarray]],
                   nearest: np.ndarray | None = None) -> np.ndarray:
    """``nearest`` (default ``target.nearest``, in place) lowered by bodies cast beforehand
    (``_depth``), each read on the target's rays in its window."""
    nearest = target.nearest if nearest is None else nearest
    for (row0, row1, col0, col1), depth in depths:
        inside = np.flatnonzero((target.rows >= row0) & (target.rows < row1)
                                & (target.cols >= col0) & (target.cols < col1))
        if inside.size:
            nearest[inside] = np.minimum(
                nearest[inside], depth[target.rows[inside] - row0, target.cols[inside] - col0])
    return nearest


def _in_front(rays: PixelRays, target: _Target, nearest: np.ndarray,
              bodies: Sequence[tuple[PlacedBody, Window]]) -> np.ndarray:
    """``nearest`` lowered by the bodies' hits, each tested on the rays in its window only."""
    for body, (row0, row1, col0, col1) in bodies:
        inside = np.flatnonzero((target.rows >= row0) & (target.rows < row1)
                                & (target.cols >= col0) & (target.cols < col1))
        if inside.size:
            nearest = nearest.copy() if nearest is target.nearest else nearest
            nearest[inside] = np.minimum(nearest[inside],
                                         body.hit_distance(rays.eye, target.directions[inside]))
    return nearest


def _count_behind(target: _Target | None, depths: Sequence[tuple[Window, np.ndarray]]
                  ) -> tuple[int, int]:
    """:func:`_count` with the bodies in front given as their depths on their windows."""
    if target is None or not target.own.size:
        return 0, 0
    nearest = _behind_depths(target, depths, target.nearest.copy()) if depths \
        else target.nearest
    return int((target.own < nearest).sum()), int(target.own.size)


def _count(rays: PixelRays, target: _Target | None,
           moving: Sequence[tuple[PlacedBody, Window]]) -> tuple[int, int]:
    """(showing, silhouette) pixels of a target with bodies that move also in front."""
    if target is None or not target.own.size:
        return 0, 0
    nearest = _in_front(rays, target, target.nearest, moving)
    return int((target.own < nearest).sum()), int(target.own.size)


def count_pixels(rays: PixelRays, target: PlacedBody,
                 others: Sequence[PlacedBody]) -> tuple[int, int]:
    """(pixels that show ``target``, pixels of its silhouette) with ``others`` in the scene."""
    placed = [(b, w) for b in others if (w := rays.window(b.corners())) is not None]
    return _count(rays, _target(rays, target, rays.window(target.corners()), placed), [])


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
    rays = PixelRays.of(video.config.camera, size)
    grid = _grid(video.config.camera, size)
    specs = list(video.config.entities)
    ids = tuple(s.id for s in specs)
    solid = [s for s in specs if s.kind not in _BACKGROUND_KINDS]
    count = len(video.frames)
    showing = np.zeros((count, len(specs)), dtype=np.int32)
    silhouette = np.zeros((count, len(specs)), dtype=np.int32)
    for k, spec in enumerate(specs):
        if spec.kind in _ALWAYS_SEEN:
            showing[:, k] = silhouette[:, k] = rays.width * rays.height
    column = {s.id: k for k, s in enumerate(specs)}
    shared = _shared_counts(video.config.camera, size)  # by exact states, across videos
    counts: dict[tuple, tuple[int, int]] = {}  # by rounded poses, in this video
    targets: dict[tuple, _Target | None] = {}
    first: dict[int, tuple] = {}  # each body's pose in the first frame that has it
    # every distinct state object's pose key and picture window, made all at once; its
    # placed body only when a count needs it (a static body's state is one object in every
    # frame; the frames keep the objects alive, so their ids stay theirs)
    solid_ids = {spec.id: spec for spec in solid}
    distinct = {id(s): s for frame in video.frames for s in frame if s.id in solid_ids}
    states = list(distinct.values())
    poses = [(solid_ids[state.id].shape, solid_ids[state.id].size, pose)
             for state, pose in zip(states, _pose_keys(states), strict=True)]
    keys = dict(zip(distinct, poses, strict=True))
    windows: dict[tuple, Window | None] = {}
    # every figure of a pose is worked out from the first state with that pose, as frames go
    # (its window, its hits): so a count follows from those states' exact numbers alone, and
    # is shared with other videos under them (not under the rounded poses: the answer must not
    # depend on which videos a process counted before)
    first_state: dict[tuple, EntityState] = {}
    for state, pose, window in zip(states, poses, _windows(rays, states, solid_ids),
                                   strict=True):
        windows.setdefault(pose, window)
        first_state.setdefault(pose, state)
    exact = {pose: (pose[0], pose[1], tuple(state.position), tuple(state.orientation))
             for pose, state in first_state.items()}
    bodies: dict[int, PlacedBody] = {}
    # by pose, each body's hit distances on its window, cast once and read by every target
    # it stands in front of (and by its own count)
    depths: dict[tuple, np.ndarray] = {}

    def placed(state: EntityState) -> PlacedBody:
        body = bodies.get(id(state))
        if body is None:
            body = bodies[id(state)] = PlacedBody.at(solid_ids[state.id], state)
        return body

    def depth(state: EntityState) -> np.ndarray:
        pose = keys[id(state)]
        cast = depths.get(pose)
        if cast is None:
            cast = depths[pose] = _depth(rays, placed(first_state[pose]), windows[pose], grid)
        return cast

    counted = [i for i in solid_ids if solid_ids[i].kind not in _ALWAYS_SEEN]
    order = {i: n for n, i in enumerate(solid_ids)}  # the config's order of the bodies
    runs: list[tuple[int, int, int, tuple]] = []  # (column, first frame, end frame, count key)
    open_runs: dict[int, tuple[int, tuple]] = {}  # entity -> (first frame, count key)
    last_pose: dict[int, tuple] = {}
    for t, frame in enumerate(video.frames):
        here = {s.id: s for s in frame if s.id in solid_ids}
        pose = {i: keys[id(s)] for i, s in here.items()}
        if pose == last_pose:  # every body where it stood the frame before: the same counts
            continue
        changed = [i for i in pose if last_pose.get(i) != pose[i]] + \
            [i for i in last_pose if i not in pose]
        for i in changed:
            if i in pose:
                first.setdefault(i, pose[i])
        for i in counted:
            if i not in pose:
                if i in open_runs:
                    start, key = open_runs.pop(i)
                    runs.append((column[i], start, t, key))
                continue
            window = windows[pose[i]]
            if i in open_runs and i not in changed and not any(
                    (j in last_pose and _overlap(window, windows[last_pose[j]]))
                    or (j in pose and _overlap(window, windows[pose[j]])) for j in changed):
                continue  # neither it nor a body that was or is in front of it moved
            near = sorted((j for j in pose if j != i and _overlap(window, windows[pose[j]])),
                          key=order.__getitem__)
            key = (pose[i], tuple(pose[j] for j in near))
            if key not in counts:
                exact_key = (exact[pose[i]], tuple(exact[pose[j]] for j in near))
                if exact_key not in shared:
                    # bodies where they first stood are tested once per pose
                    fixed = tuple(j for j in near if pose[j] == first[j])
                    base = (pose[i], tuple(pose[j] for j in fixed))
                    if base not in targets:
                        target = targets[base] = None if window is None else _target(
                            rays, placed(first_state[pose[i]]), window, [], grid,
                            depth(here[i]))
                        if target is not None:
                            _behind_depths(target, [(windows[pose[j]], depth(here[j]))
                                                    for j in fixed])
                    moving = [(windows[pose[j]], depth(here[j])) for j in near
                              if j not in fixed]
                    shared[exact_key] = _count_behind(targets[base], moving)
                counts[key] = shared[exact_key]
            if i in open_runs:
                start, old = open_runs[i]
                if old == key:
                    continue
                runs.append((column[i], start, t, old))
            open_runs[i] = (t, key)
        last_pose = pose
    runs.extend((column[i], start, count, key) for i, (start, key) in open_runs.items())
    for k, start, end, key in runs:  # each run of frames with one count, laid in at once
        showing[start:end, k], silhouette[start:end, k] = counts[key]
    return VideoVisibility(ids, showing, silhouette)


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

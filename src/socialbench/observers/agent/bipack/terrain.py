"""BIPaCK's rebuilt scene: the boxes of one video as a height field the planner walks on.

The paper rebuilds each scene in PyBullet with every obstacle a box and the agent and objects
spheres, then lets RRT* search it. Our scenes are axis-aligned boxes on a floor (walls, platforms,
raised floor pieces with chasms between, ramps as wedges), so a height field sampled every
``cell`` metres holds the same geometry a downward ray cast into the PyBullet scene would give:
per cell the height of the top surface and whether the agent may stand there (floor, a
platform's top, a ramp; not a wall's top, not the bottom of a chasm).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from socialbench.observers.agent.tracks import VideoTracks

CELL = 0.1  # metres per grid cell
MARGIN = 0.9  # metres of floor kept around the scene's agent, goals and obstacles
PLATFORM_MIN_SIDE = 0.55  # an obstacle box this wide both ways has a top to stand on
STEP = 0.09  # the most the surface may rise between neighbouring cells while walking (ramps)
CLEARANCE = 0.1  # the agent's radius: kept from edges and walls
HEADROOM = 0.3  # an obstacle this far above the surface under it is overhead (a doorway's
# lintel): the 0.2 m agent walks beneath it, so it does not block the ground

# surface kinds
FLOOR, RAISED, PLATFORM, WALL, RAMP, CHASM = range(6)
LANDABLE = (FLOOR, RAISED, PLATFORM, RAMP)


@dataclass(frozen=True)
class Terrain:
    """A height field over the scene: ``height`` and ``kind`` per cell, ``walkable`` cells (the
    agent's body fits there on even ground) and the grid's origin (centre of cell [0, 0])."""

    height: np.ndarray  # (nx, ny)
    kind: np.ndarray  # (nx, ny) surface kinds
    walkable: np.ndarray  # (nx, ny) bool
    origin: np.ndarray  # (2,) x, y of cell [0, 0]
    cell: float = CELL
    overhead: np.ndarray | None = None  # (nx, ny) bool: under an overhead box (no jumping)
    # the boxes rasterized, in drawing order (class, shape, centre, half extents, yaw): where
    # the predicted path needs edges finer than the grid (a jump's take-off, a detour's corner)
    boxes: tuple = ()

    def point(self, ij: np.ndarray) -> np.ndarray:
        """Cell indices (..., 2) -> x, y of their centres."""
        return self.origin + np.asarray(ij, float) * self.cell

    @functools.cached_property
    def obstacle_clearance(self) -> np.ndarray:
        """(nx, ny) metres from each cell's centre to the nearest wall or platform cell's."""
        blocked = np.isin(self.kind, (WALL, PLATFORM))
        if not blocked.any():
            return np.full(self.kind.shape, np.inf)
        return ndimage.distance_transform_edt(~blocked) * self.cell

    def surface_at(self, xy: np.ndarray) -> np.ndarray:
        """(N,) the exact top surface's height at (N, 2) points (the grid's is rounded to a
        cell: a chasm's lip up to half a cell off)."""
        xy = np.asarray(xy, float)
        if not self.boxes:
            return self.height[tuple(self.cell_of(xy).T)]
        return _rasterize(self.boxes, xy[:, 0], xy[:, 1], pad=0.0)[0]

    def floor_at(self, xy: np.ndarray) -> np.ndarray:
        """(N,) the height of the floor pieces alone (no obstacle) at (N, 2) points."""
        floors = tuple(b for b in self.boxes if b[0] == "floor")
        xy = np.asarray(xy, float)
        if not floors:
            return np.zeros(len(xy))
        return _rasterize(floors, xy[:, 0], xy[:, 1], pad=0.0)[0]

    def cell_of(self, xy: np.ndarray) -> np.ndarray:
        ij = np.rint((np.asarray(xy, float) - self.origin) / self.cell).astype(int)
        return np.clip(ij, 0, np.array(self.height.shape) - 1)


def scene_boxes(tracks: VideoTracks) -> list[tuple[str, str, np.ndarray, np.ndarray, float]]:
    """(class, shape, centre, half extents, yaw) of every floor piece and obstacle the video
    shows, at its last seen place (an obstacle an occluder hid shows once it falls). An
    occluder is kept as the upright panel it was when first seen: it stands on the floor while
    the agent moves (it is knocked over only once the agent has stopped), so the agent cannot
    pass through it (the paper drops it from the rebuilt scene; ours blocks a wall's near end)."""
    boxes = []
    for i, cls in enumerate(tracks.classes):
        if cls not in ("floor", "obstacle", "occluder") or not tracks.seen(i):
            continue
        shown = np.flatnonzero(tracks.visible[:, i])
        t = int(shown[0] if cls == "occluder" else shown[-1])
        boxes.append(("obstacle" if cls == "occluder" else cls, tracks.shapes[i],
                      tracks.centres[t, i], tracks.half[t, i], float(tracks.yaw[t, i])))
    return boxes


def _bounds(tracks: VideoTracks) -> tuple[np.ndarray, np.ndarray]:
    low, high = np.full(2, np.inf), np.full(2, -np.inf)
    for i, cls in enumerate(tracks.classes):
        if cls in ("agent", "goal", "obstacle") and tracks.seen(i):
            centre, half = tracks.last_seen_box(i)
            first = tracks.centres[np.flatnonzero(tracks.visible[:, i])[0], i]
            for c in (centre, first):
                low = np.minimum(low, c[:2] - half[:2])
                high = np.maximum(high, c[:2] + half[:2])
    if not np.isfinite(low).all():
        raise ValueError("the video shows no agent, goal or obstacle")
    return low - MARGIN, high + MARGIN


def build_terrain(tracks: VideoTracks, cell: float = CELL) -> Terrain:
    """Rasterize the video's boxes into a :class:`Terrain`."""
    low, high = _bounds(tracks)
    shape = np.ceil((high - low) / cell).astype(int) + 1
    xs = low[0] + np.arange(shape[0]) * cell
    ys = low[1] + np.arange(shape[1]) * cell
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    # lowest top first (floor pieces before obstacles level with them: a bridge finds them)
    def order(box: tuple) -> tuple[float, bool]:
        return round(float(box[2][2] + box[3][2]), 4), box[0] != "floor"

    boxes = tuple(sorted(scene_boxes(tracks), key=order))
    # a cell belongs to a box when the box overlaps it (thin walls always show)
    height, kind, overhead = _rasterize(boxes, gx, gy, pad=cell / 2)
    return Terrain(height=height, kind=kind, walkable=_walkable(height, kind, cell),
                   origin=low.copy(), cell=cell, overhead=overhead, boxes=boxes)


def _rasterize(boxes: tuple, gx: np.ndarray, gy: np.ndarray,
               pad: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Height, kind and overhead flag at the points (gx, gy) of boxes in drawing order; a
    point belongs to a box within ``pad`` of it."""
    height = np.full(gx.shape, -np.inf)
    kind = np.full(gx.shape, CHASM)
    overhead = np.zeros(gx.shape, bool)
    raised: list[tuple[float, np.ndarray]] = []  # (top, points) of each raised floor piece
    base = None
    for cls, shp, centre, half, yaw in boxes:
        inside = ((np.abs(gx - centre[0]) <= half[0] + pad)
                  & (np.abs(gy - centre[1]) <= half[1] + pad))
        if not inside.any():
            continue
        top = centre[2] + half[2]
        if cls == "floor":
            if half[0] > 4 and half[1] > 4:  # the room's floor: the level chasms fall to
                base = top
                surface, what = np.full(gx.shape, top), FLOOR
            else:
                surface, what = np.full(gx.shape, top), RAISED
                raised.append((top, inside))
        elif shp == "ramp":
            surface, what = _ramp_surface(gx, gy, centre, half, yaw), RAMP
        else:
            below = np.where(np.isfinite(height), height, 0.0 if base is None else base)
            above = inside & (centre[2] - half[2] - below > HEADROOM)
            overhead |= above
            inside &= ~above
            wide = min(half[0], half[1]) * 2 >= PLATFORM_MIN_SIDE
            # a bridge: a slab flush with a raised floor piece it reaches (part of the floor)
            flush = any(abs(top - level) <= STEP and (inside & piece).any()
                        for level, piece in raised)
            surface, what = np.full(gx.shape, top), (RAISED if flush else
                                                     PLATFORM if wide else WALL)
        higher = inside & (surface >= height)
        height[higher] = surface[higher]
        kind[higher] = what
    if base is None:
        base = 0.0
    uncovered = ~np.isfinite(height)
    height[uncovered] = base
    kind[uncovered] = FLOOR
    if (kind == RAISED).any():  # between raised floor pieces, the room's floor is a chasm
        kind[kind == FLOOR] = CHASM
    return height, kind, overhead


def _ramp_surface(gx: np.ndarray, gy: np.ndarray, centre: np.ndarray, half: np.ndarray,
                  yaw: float) -> np.ndarray:
    """A wedge rising along its own +x from its bottom to its top."""
    u = (gx - centre[0]) * np.cos(yaw) + (gy - centre[1]) * np.sin(yaw)
    run = abs(half[0] * np.cos(yaw)) + abs(half[1] * np.sin(yaw))
    frac = np.clip((u + run) / (2 * run), 0.0, 1.0)
    return centre[2] - half[2] + 2 * half[2] * frac


def _walkable(height: np.ndarray, kind: np.ndarray, cell: float) -> np.ndarray:
    """Landable cells whose neighbourhood (the agent's radius and a margin) holds no wall, chasm
    or cliff (a jump in height between neighbouring cells larger than a ramp's)."""
    padded = np.pad(height, 1, mode="edge")
    cliff = np.zeros(height.shape, bool)
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            shifted = padded[1 + dx:1 + dx + height.shape[0], 1 + dy:1 + dy + height.shape[1]]
            cliff |= np.abs(shifted - height) > STEP * max(1.0, np.hypot(dx, dy))
    bad = cliff | ~np.isin(kind, LANDABLE)
    r = int(np.ceil(CLEARANCE / cell))
    disk = np.hypot(*np.mgrid[-r:r + 1, -r:r + 1]) * cell <= CLEARANCE + 1e-9
    near_bad = ndimage.binary_dilation(bad, structure=disk)
    # a cliff cell is also the lower cell at a platform's foot: keep the agent off both sides
    return np.isin(kind, LANDABLE) & ~near_bad

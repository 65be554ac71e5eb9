"""3D boxes from the world points a camera saw of a body.

The camera sees a body's near side and, from above, its top, never its back. So:

- a small body (the agent, a goal: 0.2 m primitives with square footprints) is fitted as a box
  whose width across the view is what is seen, whose depth along the view equals that width
  (it starts at the nearest point seen), and whose top is the highest point seen;
- an obstacle stands on the floor: its top surface, seen from above, gives its footprint and
  height; it is rasterized top-down (``CELL``) and split into flat parts (walls, platforms:
  boxes down to the floor) and sloped parts (ramps: wedges rising along x or y);
- a wall with a doorway: along the wall, the lowest point seen of it reaches the floor at the
  posts but stops at the lintel's underside over the opening (seen turned, not end-on), so a
  flat part whose lowest points stay well above the floor between two stretches seen down to
  it is cut into two posts and a lintel hanging over the opening.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

CELL = 0.05  # m: the top-down raster of an obstacle's points
RAMP_SLOPE = (0.2, 1.2)  # rise over run of a ramp's top (ours are 0.5); steeper is a wall's side
MIN_RAMP_CELLS = 16  # 0.04 m^2
MIN_PART_CELLS = 4
LOW, HIGH = 2, 98  # robust percentiles of the points' extent
ON_FLOOR = 0.04  # m: a small body seen down to this near the floor stands on it
OPENING_CLEARANCE = 0.3  # m: a stretch seen no lower than this above the floor is an opening
POST_REACH = 0.1  # m: a post is seen down to this near the floor
MIN_OPENING = 0.3  # m along the wall: narrower gaps in what is seen are not openings


@dataclass(frozen=True)
class Box:
    shape: str  # box or ramp
    centre: np.ndarray  # (3,)
    size: np.ndarray  # (3,) full extents in the body's frame
    yaw: float = 0.0  # about z; a ramp rises along its own +x


def extent(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Robust (low, high) corners of a point set."""
    return np.percentile(points, LOW, axis=0), np.percentile(points, HIGH, axis=0)


def view_axis(forward: np.ndarray) -> int:
    """The horizontal world axis (0 = x, 1 = y) closest to the camera's viewing direction."""
    return int(np.argmax(np.abs(forward[:2])))


def compact_extent(points: np.ndarray, eye: np.ndarray, pixel_angle: float,
                   floor_z: float) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of a small body's points, each side grown by half a pixel's footprint (its
    pixels sample the surface at their centres, half a pixel in from its outline); a body whose
    lowest point seen is just above the floor (whose pixels are taken for floor) stands on it."""
    pad = pixel_angle * float(np.linalg.norm(points.mean(axis=0) - eye)) / 2
    low, high = points.min(axis=0) - pad, points.max(axis=0) + pad
    if low[2] - floor_z < ON_FLOOR:
        low[2] = floor_z
    return low, high


def compact_box(low: np.ndarray, high: np.ndarray, forward: np.ndarray,
                side: float | None = None, tall: float | None = None) -> Box:
    """A small square-footprint body seen over ``low``-``high``: ``side`` (its width) and
    ``tall`` (its height) when known from other frames, else from this extent."""
    a = view_axis(forward)
    b = 1 - a
    width = float(high[b] - low[b]) if side is None else side
    height = float(high[2] - low[2]) if tall is None else tall
    centre = np.empty(3)
    centre[b] = (low[b] + high[b]) / 2
    near = low[a] if forward[a] > 0 else high[a]
    centre[a] = near + np.sign(forward[a]) * width / 2
    centre[2] = high[2] - height / 2
    size = np.empty(3)
    size[a] = size[b] = width
    size[2] = height
    return Box("box", centre, size)


def obstacle_boxes(points: np.ndarray, floor_z: float) -> list[Box]:
    """Boxes (and ramps) standing on the floor that hold an obstacle's points."""
    low = points[:, :2].min(axis=0)
    ij = np.floor((points[:, :2] - low) / CELL).astype(int)
    shape = ij.max(axis=0) + 1
    top = np.full(shape, -np.inf)
    np.maximum.at(top, (ij[:, 0], ij[:, 1]), points[:, 2])
    filled = np.isfinite(top)
    ramps = [cells for cells in _parts(_ramp_cells(top, filled)) if cells.sum() >= MIN_RAMP_CELLS]
    taken = np.any(ramps, axis=0) if ramps else np.zeros(shape, bool)
    flats = []
    for cells in _parts(filled & ~taken):
        # a strip along a ramp's foot or top (where its slope cannot be measured) is the ramp's
        beside = [r for r in ramps if (ndimage.binary_dilation(r) & cells).any()]
        if beside and min(np.ptp(np.nonzero(cells)[0]), np.ptp(np.nonzero(cells)[1])) < 3:
            beside[0] |= cells
        elif cells.sum() >= MIN_PART_CELLS:
            flats.append(cells)
    boxes = [_ramp_box(top, cells, _footprint(points, ij, cells), floor_z) for cells in ramps]
    for cells in flats:
        for part, bottom in _doorway_parts(points, ij, cells, floor_z):
            lo, hi = _footprint(points, ij, part)
            height = float(np.percentile(top[part], HIGH)) - bottom
            boxes.append(Box("box", np.array([*(lo + hi) / 2, bottom + height / 2]),
                             np.array([*(hi - lo), height])))
    return boxes


def _doorway_parts(points: np.ndarray, ij: np.ndarray, cells: np.ndarray, floor_z: float
                   ) -> list[tuple[np.ndarray, float]]:
    """A flat part's boxes as (cells, bottom): the whole part down to the floor, or, for a
    wall with a doorway, its two posts down to the floor and the lintel down to the opening.

    Along the part's long axis, each slice's lowest point seen tells a post (seen down to the
    floor) from an opening (seen no lower than the lintel's underside, ``OPENING_CLEARANCE`` or
    more above the floor). Only an opening ``MIN_OPENING`` wide with a post on each side
    counts: slices seen only from above (a wall's far end, a face hidden behind something)
    have posts on one side at most."""
    rows, cols = np.nonzero(cells)
    along = 0 if np.ptp(rows) >= np.ptp(cols) else 1
    start = int((rows, cols)[along].min())
    slice_of = (rows, cols)[along] - start  # each cell's slice along the wall
    mine = cells[ij[:, 0], ij[:, 1]]
    lowest = np.full(int(slice_of.max()) + 1, np.inf)
    np.minimum.at(lowest, ij[mine, along] - start, points[mine, 2])
    post = np.isfinite(lowest) & (lowest - floor_z <= POST_REACH)
    labels, count = ndimage.label(np.isfinite(lowest) & (lowest - floor_z >= OPENING_CLEARANCE))
    for k in range(1, count + 1):
        run = np.flatnonzero(labels == k)
        first, last = int(run[0]), int(run[-1])
        if (last - first + 1) * CELL < MIN_OPENING or not post[:first].any() \
                or not post[last + 1:].any():
            continue
        # the lintel spans from past the last post cell before the run to the next one after
        begin = int(np.flatnonzero(post[:first])[-1]) + 1
        end = last + 1 + int(np.flatnonzero(post[last + 1:])[0])
        parts = []
        for low, high in ((0, begin), (begin, end), (end, len(lowest))):
            part = np.zeros_like(cells)
            part[rows, cols] = (slice_of >= low) & (slice_of < high)
            parts.append(part)
        bottom = float(np.median(lowest[first:last + 1]))
        return [(parts[0], floor_z), (parts[2], floor_z), (parts[1], bottom)]
    return [(cells, floor_z)]


def _footprint(points: np.ndarray, ij: np.ndarray, cells: np.ndarray) -> tuple[np.ndarray,
                                                                                np.ndarray]:
    """x, y bounds of the points that fall in ``cells`` (finer than the raster's cells)."""
    mine = points[cells[ij[:, 0], ij[:, 1]], :2]
    return mine.min(axis=0), mine.max(axis=0)


def _parts(mask: np.ndarray) -> list[np.ndarray]:
    labels, count = ndimage.label(mask)
    return [labels == k for k in range(1, count + 1)]


def _ramp_cells(top: np.ndarray, filled: np.ndarray) -> np.ndarray:
    """Cells whose top rises steadily along x or y (a ramp's surface), not a wall's side."""
    ramp = np.zeros(top.shape, bool)
    for axis in (0, 1):
        ahead = np.roll(top, -1, axis)
        behind = np.roll(top, 1, axis)
        ok = filled & np.isfinite(ahead) & np.isfinite(behind)
        edge = [slice(None)] * 2
        edge[axis] = slice(0, 1)
        ok[tuple(edge)] = False
        edge[axis] = slice(-1, None)
        ok[tuple(edge)] = False
        # across the slope, a missing neighbour (the ramp's side) counts as level with the cell
        side = [np.roll(top, k, 1 - axis) for k in (-1, 1)]
        side = [np.where(np.isfinite(n), n, top) for n in side]
        with np.errstate(invalid="ignore"):
            slope = np.where(ok, (ahead - behind) / (2 * CELL), 0.0)
            other = np.where(ok, np.abs(side[0] - side[1]), 1.0)
        steady = (np.abs(slope) >= RAMP_SLOPE[0]) & (np.abs(slope) <= RAMP_SLOPE[1])
        ramp |= steady & (other < RAMP_SLOPE[0] * 2 * CELL)
    return ndimage.binary_opening(ramp, np.ones((2, 2))) & filled


def _ramp_box(top: np.ndarray, cells: np.ndarray, bounds: tuple[np.ndarray, np.ndarray],
              floor_z: float) -> Box:
    i, j = np.nonzero(cells)
    heights = top[cells]
    span = np.array([np.ptp(i), np.ptp(j)], float)
    axis = int(np.argmax([abs(np.corrcoef(i, heights)[0, 1]) if span[0] else 0.0,
                          abs(np.corrcoef(j, heights)[0, 1]) if span[1] else 0.0]))
    along = (i, j)[axis]
    rises = np.corrcoef(along, heights)[0, 1] > 0
    lo, hi = bounds
    height = float(np.percentile(heights, HIGH)) - floor_z
    size = hi - lo
    # the wedge's own +x is the way it rises: yaw 0 (+x), pi (-x), pi/2 (+y), -pi/2 (-y)
    yaw = (0.0 if rises else np.pi) if axis == 0 else (np.pi / 2 if rises else -np.pi / 2)
    run, across = (size[0], size[1]) if axis == 0 else (size[1], size[0])
    return Box("ramp", np.array([*(lo + hi) / 2, floor_z + height / 2]),
               np.array([run, across, height]), yaw)

"""Pixel regions of a depth image: the floor's level, and connected regions that do not run
across a depth edge (an object in front of another stays apart from it)."""

from __future__ import annotations

import numpy as np
from scipy import ndimage

EDGE_M = 0.04  # a neighbour this much farther (plus EDGE_REL of the depth) is across an edge
EDGE_REL = 0.02
LEVEL_BIN = 0.01  # m: the histogram bin of the floor's level


def floor_level(z: np.ndarray, valid: np.ndarray) -> float:
    """The height most pixels see: the walkable floor (raised floor pieces in chasm scenes,
    which usually fill more of the picture than the chasms between them: ``walkable_level``)."""
    heights = z[valid]
    if heights.size == 0:
        raise ValueError("an empty depth image")
    bins = _height_bins(heights)
    return _level_at(heights, bins, int(np.bincount(bins).argmax()))


def _height_bins(heights: np.ndarray) -> np.ndarray:
    """Each height's ``LEVEL_BIN`` histogram bin, counted from the lowest."""
    low = np.floor(heights.min() / LEVEL_BIN)
    return np.floor(heights / LEVEL_BIN - low).astype(np.int64)


def _level_at(heights: np.ndarray, bins: np.ndarray, peak: int) -> float:
    """The level of a histogram peak: the median height of its bin and the two beside it."""
    return float(np.median(heights[np.abs(bins - peak) <= 1]))


GOAL_BASE = 0.08  # m: a goal's lowest points seen stand this close above the floor it is on
# m: the raised floor's flat piece in view runs at least this far each way (a platform's top
# is 0.7 m across, a wall's at most 0.5 m thick)
WIDE_LEVEL = (0.8, 1.5)
MIN_LEVEL_SHARE = 0.02  # of the pixels: a level smaller than this is a body's top, not a floor
MIN_GOAL_PIXELS = 20


def walkable_level(points: np.ndarray, valid: np.ndarray, goal_pixels: np.ndarray) -> float:
    """The height the agent walks on. Usually the level most pixels see (``floor_level``). In a
    chasm scene filmed so that the chasms, and the room's floor beyond the raised floor, fill
    more of the picture than the raised floor does, that level is the floor under the raised
    one; the goals stand above it. Then the walkable floor is the highest level under the goals'
    bases whose flat pixels make one piece wide both ways (``WIDE_LEVEL``: the raised floor, not
    a platform's or a wall's top)."""
    z = points[..., 2]
    usual = floor_level(z, valid)
    goal_z = z[valid & goal_pixels]
    if goal_z.size < MIN_GOAL_PIXELS:
        return usual
    base = float(np.percentile(goal_z, 5))
    if base <= usual + GOAL_BASE:
        return usual  # the goals stand on the usual level
    flat = _flat(z, valid)
    heights = z[flat]
    if heights.size == 0:
        return usual
    bins = _height_bins(heights)
    counts = np.bincount(bins)
    near = counts + np.r_[counts[1:], 0] + np.r_[0, counts[:-1]]  # each bin with its neighbours
    peaks = [b for b in np.flatnonzero(near >= MIN_LEVEL_SHARE * valid.sum())
             if near[b] == near[max(b - 1, 0):b + 2].max()]
    for b in sorted(peaks, reverse=True):
        level = _level_at(heights, bins, int(b))
        if not usual + GOAL_BASE < level <= base + GOAL_BASE:
            continue
        pieces, count = ndimage.label(flat & (np.abs(z - level) <= 1.5 * LEVEL_BIN))
        if count == 0:
            continue
        largest = np.bincount(pieces.ravel())[1:].argmax() + 1
        on = points[pieces == largest][:, :2]
        extent = np.percentile(on, 95, axis=0) - np.percentile(on, 5, axis=0)
        if extent.min() >= WIDE_LEVEL[0] and extent.max() >= WIDE_LEVEL[1]:
            return level
    return usual


FLAT_STEP = 0.005  # m: a pixel of a level surface is within this height of its neighbours


def _flat(z: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Pixels of level surfaces: their height differs little from the next pixel down and
    across (a wall's face changes height from row to row)."""
    flat = valid.copy()
    for axis in (0, 1):
        step = np.abs(np.diff(z, axis=axis))
        ok = step <= FLAT_STEP
        pad = [(0, 0), (0, 0)]
        pad[axis] = (0, 1)
        flat &= np.pad(ok, pad, constant_values=False)
    return flat


def far_side_of_edges(depth_m: np.ndarray) -> np.ndarray:
    """Pixels whose 4-neighbour is nearer by more than the edge threshold: removing them cuts
    every region at its depth edges while the nearer object keeps all its pixels."""
    edge = np.zeros(depth_m.shape, bool)
    for axis in (0, 1):
        a = np.swapaxes(depth_m, 0, axis)
        e = np.swapaxes(edge, 0, axis)
        step = a[1:] - a[:-1]
        limit = EDGE_M + EDGE_REL * np.minimum(a[1:], a[:-1])
        e[1:] |= step > limit  # the lower pixel is farther
        e[:-1] |= -step > limit  # the upper pixel is farther
    return edge


def regions(mask: np.ndarray, depth_m: np.ndarray, min_pixels: int) -> list[np.ndarray]:
    """Boolean masks of ``mask``'s 4-connected regions, cut at depth edges, of at least
    ``min_pixels`` pixels, largest first."""
    labels, count = ndimage.label(mask & ~far_side_of_edges(depth_m))
    if count == 0:
        return []
    sizes = np.bincount(labels.ravel(), minlength=count + 1)
    keep = [k for k in np.argsort(-sizes[1:]) + 1 if sizes[k] >= min_pixels]
    return [labels == k for k in keep]

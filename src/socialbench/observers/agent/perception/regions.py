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
    which fill more of the picture than the chasms between them)."""
    heights = z[valid]
    if heights.size == 0:
        raise ValueError("an empty depth image")
    low = np.floor(heights.min() / LEVEL_BIN)
    bins = np.floor(heights / LEVEL_BIN - low).astype(np.int64)
    mode = int(np.bincount(bins).argmax())
    near = np.abs(bins - mode) <= 1
    return float(np.median(heights[near]))


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

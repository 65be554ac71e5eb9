"""The floor from depth: its level, and in chasm scenes the raised pieces, the chasms between
them and any bridge across.

A chasm is where the floor seen between the raised floor's near and far edges drops well below
its level; chasms cut across the lane (along y, as the scenes lay them out), so the pieces are
the x intervals between chasms. What lies beyond the view is assumed to continue: the room's
floor is given the room's size and the outer raised pieces run ``REACH`` metres past the
outermost chasm, enough for any plan that stays near the scene.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from socialbench.observers.agent.perception.boxes import CELL, Box

LEVEL_TOLERANCE = 0.02  # m: a floor point lies this close to the floor's level
DROP = 0.08  # m: a point this far below the floor's level is inside a chasm
MIN_CHASM_POINTS = 40
MIN_COLUMN_POINTS = 2
COLUMN_SHARE = 0.2  # a chasm's x column holds this share of the fullest column's low points
ROOM = 12.0  # m: the room floor's side (assumed; the view shows only part of it)
REACH = 3.0  # m: how far the outer raised pieces run past the outermost chasm
SLAB = 0.1  # m: the thickness given to the room's floor and to bridges


def floor_boxes(points: np.ndarray, valid: np.ndarray,
                floor_z: float) -> tuple[list[Box], list[Box]]:
    """(floor pieces, bridges): the room's floor first, then raised pieces left to right."""
    z = points[..., 2]
    # floor, not the thin line where a wall crosses the floor's height: eroded away
    level = ndimage.binary_erosion(valid & (np.abs(z - floor_z) <= LEVEL_TOLERANCE),
                                   iterations=2)
    flat = points[level]
    centre = np.median(flat[:, :2], axis=0) if len(flat) else np.zeros(2)
    chasms = _chasms(points, valid, level, floor_z)
    if not chasms:
        room = Box("box", np.array([*centre, floor_z - SLAB / 2]), np.array([ROOM, ROOM, SLAB]))
        return [room], []
    low_z = float(np.median(z[valid & (z < floor_z - DROP)]))
    room = Box("box", np.array([*centre, low_z - SLAB / 2]), np.array([ROOM, ROOM, SLAB]))
    y0, y1 = np.percentile(flat[:, 1], 1), np.percentile(flat[:, 1], 99)
    edges = [chasms[0][0] - REACH] + [e for c in chasms for e in c] + [chasms[-1][1] + REACH]
    pieces = []
    for x0, x1 in zip(edges[::2], edges[1::2], strict=True):
        thick = floor_z - low_z
        pieces.append(Box("box", np.array([(x0 + x1) / 2, (y0 + y1) / 2, low_z + thick / 2]),
                          np.array([x1 - x0, y1 - y0, thick])))
    bridges = []
    for x0, x1 in chasms:
        inside = flat[(flat[:, 0] > x0 + CELL) & (flat[:, 0] < x1 - CELL)]
        if len(inside) >= MIN_CHASM_POINTS:
            b0, b1 = np.percentile(inside[:, 1], 2), np.percentile(inside[:, 1], 98)
            bridges.append(Box("box", np.array([(x0 + x1) / 2, (b0 + b1) / 2,
                                                floor_z - SLAB / 2]),
                               np.array([x1 - x0, b1 - b0, SLAB])))
    return [room, *pieces], bridges


def _chasms(points: np.ndarray, valid: np.ndarray, level: np.ndarray,
            floor_z: float) -> list[tuple[float, float]]:
    """x intervals where the floor drops, between the raised floor's near and far edges."""
    if level.sum() < MIN_CHASM_POINTS:
        return []
    flat_y = points[level][:, 1]
    y0, y1 = np.percentile(flat_y, 1) + CELL, np.percentile(flat_y, 99) - CELL
    low = valid & (points[..., 2] < floor_z - DROP)
    low &= (points[..., 1] > y0) & (points[..., 1] < y1)
    xs = points[low][:, 0]
    if len(xs) < MIN_CHASM_POINTS:
        return []
    start = np.floor(xs.min() / CELL)
    bins = np.bincount((np.floor(xs / CELL) - start).astype(int))
    chasms = []
    run: list[int] = []
    for k, n in enumerate([*bins, 0]):
        if n >= max(MIN_COLUMN_POINTS, COLUMN_SHARE * bins.max()):
            run.append(k)
        elif run:
            chasms.append(((start + run[0]) * CELL, (start + run[-1] + 1) * CELL))
            run = []
    return [c for c in chasms if c[1] - c[0] >= 2 * CELL]

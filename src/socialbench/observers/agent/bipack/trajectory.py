"""Trajectories BIPaCK compares: the agent's observed path (occluded stretches filled by a
second-order curve fit, as the paper does) and the path a plan predicts, both sampled at the
spacing a walking agent covers between two rated frames."""

from __future__ import annotations

import numpy as np

from socialbench.observers.agent.bipack.planner import Plan
from socialbench.observers.agent.bipack.terrain import STEP, Terrain

WALK_SPEED = 1.3  # m/s (agent spec: walking and a jump's horizontal speed)
FIT_WINDOW = 5  # seen frames on each side of a gap that the curve is fitted to (a jump
# half seen keeps its rise and fall)


def fill_occluded(track: np.ndarray, visible: np.ndarray, window: int = FIT_WINDOW) -> np.ndarray:
    """Fill each run of unseen frames of a (T, 3) track with a 2nd-order polynomial in time
    fitted, per coordinate, to up to ``window`` seen frames on either side of the run."""
    track = np.array(track, float)
    seen = np.flatnonzero(visible)
    if seen.size == 0:
        raise ValueError("the agent is never seen")
    t = np.arange(len(track))
    for start, stop in _runs(~np.asarray(visible, bool)):
        before = seen[seen < start][-window:]
        after = seen[seen >= stop][:window]
        support = np.concatenate([before, after])
        degree = min(2, support.size - 1)
        gap = t[start:stop]
        for axis in range(3):
            coeffs = np.polyfit(support, track[support, axis], degree)
            track[start:stop, axis] = np.polyval(coeffs, gap)
    return track


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) of each run of True."""
    edges = np.diff(np.concatenate([[0], mask.astype(int), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True))


def observed_path(track: np.ndarray, visible: np.ndarray, stride: int) -> np.ndarray:
    """The agent's centre every ``stride`` frames (and the last frame), gaps filled."""
    filled = fill_occluded(track, visible)
    keep = np.unique(np.append(np.arange(0, len(filled), stride), len(filled) - 1))
    return filled[keep]


def predicted_path(terrain: Terrain, plan: Plan | None, start: np.ndarray, half_height: float,
                   spacing: float) -> np.ndarray:
    """The centre's path a plan predicts, from ``start`` (3,), sampled every ``spacing`` metres;
    with no plan (giving up) the agent stays where it starts."""
    start = np.asarray(start, float)
    if plan is None or len(plan.cells) < 2:
        return start[None]
    ij = np.stack(np.unravel_index(plan.cells, terrain.height.shape), axis=1)
    xy = terrain.point(ij)
    xy[0] = start[:2]
    ground = terrain.height[ij[:, 0], ij[:, 1]]
    pieces = [np.array([[*start[:2], ground[0] + half_height]])]
    k = 0
    while k < len(plan.jumps):
        if plan.jumps[k]:
            pieces.append(_arc(np.array([*xy[k], ground[k] + half_height]),
                               np.array([*xy[k + 1], ground[k + 1] + half_height]),
                               float(plan.humps[k]), spacing))
            k += 1
            continue
        end = k
        while end < len(plan.jumps) and not plan.jumps[end]:
            end += 1
        corners = _string_pull(terrain, xy[k:end + 1], ground[k:end + 1])
        points = np.column_stack([xy[k:end + 1][corners], ground[k:end + 1][corners]
                                  + half_height])
        pieces.append(_resample(points, spacing)[1:])
        k = end
    return np.concatenate(pieces)


def _string_pull(terrain: Terrain, xy: np.ndarray, ground: np.ndarray) -> list[int]:
    """Indices of the corners of a walking run: straight lines wherever the ground allows."""
    corners, anchor = [0], 0
    while anchor < len(xy) - 1:
        nxt = anchor + 1
        for cand in range(len(xy) - 1, anchor + 1, -1):
            if _straight_ok(terrain, xy[anchor], xy[cand], ground[anchor], ground[cand]):
                nxt = cand
                break
        corners.append(nxt)
        anchor = nxt
    return corners


def _straight_ok(terrain: Terrain, a: np.ndarray, b: np.ndarray, ha: float, hb: float) -> bool:
    n = max(2, int(np.ceil(np.hypot(*(b - a)) / (terrain.cell / 2))) + 1)
    frac = np.linspace(0, 1, n)[:, None]
    ij = terrain.cell_of(a + frac * (b - a))
    if not terrain.walkable[ij[:, 0], ij[:, 1]].all():
        return False
    line = ha + frac[:, 0] * (hb - ha)
    return bool(np.all(np.abs(terrain.height[ij[:, 0], ij[:, 1]] - line) <= STEP))


def _arc(a: np.ndarray, b: np.ndarray, hump: float, spacing: float) -> np.ndarray:
    """A jump: the parabola ``hump`` above the straight line from ``a`` to ``b`` (a ballistic
    flight at constant horizontal speed), sampled after ``a``."""
    n = max(2, int(np.ceil(np.hypot(*(b[:2] - a[:2])) / spacing)))
    s = np.linspace(0, 1, n + 1)[1:, None]
    points = a + s * (b - a)
    points[:, 2] += 4 * hump * s[:, 0] * (1 - s[:, 0])
    return points


def _resample(points: np.ndarray, spacing: float) -> np.ndarray:
    """Points every ``spacing`` metres along a polyline (its first and last points kept)."""
    seg = np.linalg.norm(np.diff(points, axis=0), axis=1)
    total = float(seg.sum())
    if total == 0:
        return points[:1]
    s = np.concatenate([[0.0], np.cumsum(seg)])
    at = np.append(np.arange(0.0, total, spacing), total)
    return np.column_stack([np.interp(at, s, points[:, d]) for d in range(points.shape[1])])

"""Trajectories BIPaCK compares: the agent's observed path (occluded stretches filled by a
second-order curve fit, as the paper does) and the path a plan predicts, both sampled at the
spacing a walking agent covers between two rated frames."""

from __future__ import annotations

import numpy as np

from socialbench.observers.agent.bipack.planner import Plan
from socialbench.observers.agent.bipack.terrain import STEP, Terrain

WALK_SPEED = 1.3  # m/s (agent spec: walking and a jump's horizontal speed)
GOAL_STOP = 0.24  # m: the agent stops this far from its goal (agent spec)
# m from the agent's centre to the nearest wall cell when it walks round a wall's end: the
# spec's ~0.3 m between the agent's side and the wall, plus its 0.1 m half width
DETOUR_ROOM = 0.4
GRAVITY = 9.81
FIT_WINDOW = 5  # seen frames on each side of a gap that the curve is fitted to (a jump
# half seen keeps its rise and fall)


def fill_occluded(track: np.ndarray, visible: np.ndarray, window: int = FIT_WINDOW) -> np.ndarray:
    """Fill each run of unseen frames of a (T, 3) track with a second-order curve: the quadratic
    Bezier from the last seen point to the next one whose control point is where the agent's
    headings there meet (each from a quadratic fit in time to up to ``window`` seen frames on
    that side). A ballistic arc is such a curve, so a half-seen jump keeps its exact rise and
    fall; a corner walked round unseen is rounded off inside the corner, never overshot; with
    headings that never meet (parallel, or pointing apart) the stretch is a straight line. A
    run at either end of the video holds the nearest seen point."""
    track = np.array(track, float)
    seen = np.flatnonzero(visible)
    if seen.size == 0:
        raise ValueError("the agent is never seen")
    for start, stop in _runs(~np.asarray(visible, bool)):
        before, after = seen[seen < start][-window:], seen[seen >= stop][:window]
        if before.size == 0 or after.size == 0:
            track[start:stop] = track[after[0] if before.size == 0 else before[-1]]
            continue
        p0, p2 = track[before[-1]], track[after[0]]
        control = _meeting_point(p0, _heading(track, before, before[-1]),
                                 p2, _heading(track, after, after[0]))
        u = ((np.arange(start, stop) - before[-1]) / (after[0] - before[-1]))[:, None]
        track[start:stop] = (1 - u) ** 2 * p0 + 2 * u * (1 - u) * control + u ** 2 * p2
    return track


def _heading(track: np.ndarray, frames: np.ndarray, at: int) -> np.ndarray:
    """The velocity at frame ``at`` of a quadratic in time fitted to ``frames`` (zero if one)."""
    if frames.size < 2:
        return np.zeros(3)
    degree = min(2, frames.size - 1)
    coeffs = np.polyfit(frames - at, track[frames], degree)  # (degree + 1, 3)
    return coeffs[-2]


def _meeting_point(p0: np.ndarray, d0: np.ndarray, p2: np.ndarray, d2: np.ndarray) -> np.ndarray:
    """Where the line forward from ``p0`` along ``d0`` and the line back from ``p2`` along
    ``d2`` come closest (the middle of the chord when they do not meet ahead of both)."""
    middle = (p0 + p2) / 2
    chord = float(np.linalg.norm(p2 - p0))
    system = np.array([[d0 @ d0, d0 @ d2], [d0 @ d2, d2 @ d2]])
    if chord == 0 or abs(np.linalg.det(system)) < 1e-12 * (d0 @ d0) * (d2 @ d2) + 1e-18:
        return middle
    a, b = np.linalg.solve(system, [d0 @ (p2 - p0), d2 @ (p2 - p0)])
    ahead = a * np.linalg.norm(d0), b * np.linalg.norm(d2)
    if min(ahead) <= 0 or max(ahead) > 3 * chord:
        return middle
    return (p0 + a * d0 + p2 - b * d2) / 2


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
                   spacing: float, goal: np.ndarray | None = None) -> np.ndarray:
    """The centre's path a plan predicts, from ``start`` (3,), sampled every ``spacing`` metres;
    with no plan (giving up) the agent stays where it starts. With the ``goal``'s centre, the
    path ends where the agent stops, GOAL_STOP short of it (the plan ends within reach)."""
    start = np.asarray(start, float)
    if plan is None or len(plan.cells) < 2:
        return start[None]
    path = _plan_path(terrain, plan, start, half_height, spacing)
    if goal is not None:
        end = path[-1]
        away = np.asarray(goal, float)[:2] - end[:2]
        gap = float(np.hypot(*away))
        if gap > GOAL_STOP:
            stop = end.copy()
            stop[:2] += away * (gap - GOAL_STOP) / gap
            path = np.concatenate([path, _resample(np.stack([end, stop]), spacing)[1:]])
    return path


def _plan_path(terrain: Terrain, plan: Plan, start: np.ndarray, half_height: float,
               spacing: float) -> np.ndarray:
    ij = np.stack(np.unravel_index(plan.cells, terrain.height.shape), axis=1)
    xy = terrain.point(ij)
    xy[0] = start[:2]
    ground = terrain.height[ij[:, 0], ij[:, 1]]
    pieces = [np.array([[*start[:2], ground[0] + half_height]])]
    k = 0
    while k < len(plan.jumps):
        if plan.jumps[k]:
            a = np.array([*xy[k], ground[k] + half_height])
            b = np.array([*xy[k + 1], ground[k + 1] + half_height])
            pieces.append(_walk_up_and_jump(terrain, a, b, float(plan.humps[k]), spacing,
                                            half_height))
            k += 1
            continue
        end = k
        while end < len(plan.jumps) and not plan.jumps[end]:
            end += 1
        corners = _string_pull(terrain, xy[k:end + 1], ground[k:end + 1])
        points = np.column_stack([xy[k:end + 1][corners], ground[k:end + 1][corners]])
        points = _round_corners_wide(terrain, points)
        points[:, 2] += half_height
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


def _round_corners_wide(terrain: Terrain, points: np.ndarray) -> np.ndarray:
    """Move each inner corner (x, y, ground) of a walking run that passes closer than
    DETOUR_ROOM to an obstacle out to the nearest cell that clear (within that distance),
    where both straight legs to it stay walkable: the agent walks round a wall's end with about
    0.3 m to spare (agent spec), not grazing it as the least-cost path on the grid does (the
    plan's cost is unchanged: this only places its corners)."""
    clear = terrain.obstacle_clearance
    points = points.copy()
    reach = int(np.ceil(DETOUR_ROOM / terrain.cell))
    for k in range(1, len(points) - 1):
        i, j = terrain.cell_of(points[k, :2])
        if clear[i, j] >= DETOUR_ROOM:
            continue
        lo = np.maximum([i - reach, j - reach], 0)
        hi = np.minimum([i + reach + 1, j + reach + 1], clear.shape)
        window = clear[lo[0]:hi[0], lo[1]:hi[1]]
        ok = (window >= DETOUR_ROOM) & terrain.walkable[lo[0]:hi[0], lo[1]:hi[1]]
        if not ok.any():
            continue
        cells = np.argwhere(ok) + lo
        near = np.hypot(*(cells - [i, j]).T)
        for c in cells[np.argsort(near, kind="stable")][:8]:
            xy, h = terrain.point(c), float(terrain.height[c[0], c[1]])
            if (_straight_ok(terrain, points[k - 1, :2], xy, points[k - 1, 2], h)
                    and _straight_ok(terrain, xy, points[k + 1, :2], h, points[k + 1, 2])):
                points[k] = [*xy, h]
                break
    return points


def _straight_ok(terrain: Terrain, a: np.ndarray, b: np.ndarray, ha: float, hb: float) -> bool:
    n = max(2, int(np.ceil(np.hypot(*(b - a)) / (terrain.cell / 2))) + 1)
    frac = np.linspace(0, 1, n)[:, None]
    ij = terrain.cell_of(a + frac * (b - a))
    if not terrain.walkable[ij[:, 0], ij[:, 1]].all():
        return False
    line = ha + frac[:, 0] * (hb - ha)
    return bool(np.all(np.abs(terrain.height[ij[:, 0], ij[:, 1]] - line) <= STEP))


def _walk_up_and_jump(terrain: Terrain, a: np.ndarray, b: np.ndarray, hump: float,
                      spacing: float, half_height: float) -> np.ndarray:
    """A planned jump from ``a`` to ``b`` as the agent would make it: walking up to a take-off
    point and landing past the obstacle so that the arc clears it with the least launch speed
    at 1.3 m/s or more horizontally (the spec's jump speed). The plan's cost is unchanged: this
    only places the arc; onto platforms, or when nothing is found, the planned arc is kept."""
    if abs(a[2] - b[2]) > STEP:  # onto or off a platform: keep the planned arc
        return _arc(a, b, hump, spacing)
    length = float(np.hypot(*(b[:2] - a[:2])))
    n = max(2, int(np.ceil(length / (terrain.cell / 2))))
    s = np.linspace(0, 1, n + 1)
    ij = terrain.cell_of(a[:2] + s[:, None] * (b[:2] - a[:2]))
    under = terrain.height[ij[:, 0], ij[:, 1]] + 0.0
    base = a[2] - half_height
    blocked = np.flatnonzero(np.abs(under - base) > STEP)  # the wall's top, the chasm
    if blocked.size == 0:
        return _arc(a, b, hump, spacing)
    body = half_height / length  # the agent's half width (a 0.2 m body), along the line
    lo, hi = s[blocked[0]] - body, s[blocked[-1]] + body
    # clear a wall's top, or over a chasm the take-off floor (the far lip), by 5 cm
    top = max(float(np.max(under[blocked])) - base, 0.0) + 0.05
    # take-off and landing margins around the obstacle: the arc just clearing its edges, and
    # of those the one of least launch speed (v_h^2 + v_v^2) at 1.3 m/s or more horizontally
    margin = np.arange(0.02, 1.0, 0.02) / length
    s0, s1 = np.maximum(0.0, lo - margin), np.minimum(1.0, hi + margin)
    span = (s1 - s0) * length
    edge = np.minimum(lo - s0, s1 - hi) / np.maximum(s1 - s0, 1e-9)
    height = np.maximum(top / np.maximum(4 * edge * (1 - edge), 1e-9), 0.01)
    speed_h = span * np.sqrt(GRAVITY / (8 * height))
    energy = np.where(speed_h >= WALK_SPEED, speed_h ** 2 + 2 * GRAVITY * height, np.inf)
    best = int(np.argmin(energy))
    if not np.isfinite(energy[best]):
        return _arc(a, b, hump, spacing)
    s0, s1, height = float(s0[best]), float(s1[best]), float(height[best])
    take_off, landing = a + s0 * (b - a), a + s1 * (b - a)
    walk_in = _resample(np.stack([a, take_off]), spacing)[1:]
    flight = _arc(take_off, landing, height, spacing)
    walk_out = _resample(np.stack([landing, b]), spacing)[1:]
    return np.concatenate([walk_in, flight, walk_out])


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

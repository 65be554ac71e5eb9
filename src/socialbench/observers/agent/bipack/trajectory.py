"""Trajectories BIPaCK compares: the agent's observed path (occluded stretches filled by a
second-order curve fit, as the paper does) and the path a plan predicts, both sampled at the
spacing a walking agent covers between two rated frames."""

from __future__ import annotations

import itertools

import numpy as np

from socialbench.observers.agent.bipack.planner import Plan
from socialbench.observers.agent.bipack.terrain import HEADROOM, STEP, Terrain

WALK_SPEED = 1.3  # m/s (agent spec: walking and a jump's horizontal speed)
GOAL_STOP = 0.24  # m: the agent stops this far from its goal (agent spec)
# m from the agent's centre to a wall's end when it walks round it: the spec's ~0.3 m
# between the agent's side and the wall, plus its 0.1 m half width
DETOUR_ROOM = 0.4
BODY_RADIUS = 0.1  # m: the agent's half width (agent spec: 0.2 m primitives)
DOOR_ROOM = 0.3  # m: a doorway is walked through from this far before its face to as far
# past the other (the generator's waypoints on its middle line)
SNAP_REACH = 0.45  # m: the turns round a wall this close to the grid's run are the ones it takes
GRAVITY = 9.81
LINE_STEP = 0.01  # m: how finely a jump's line is checked against the exact surface
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
    path = _plan_path(terrain, plan, start, half_height, spacing, goal)
    if goal is not None:
        path = _stop_on_reaching(path, np.asarray(goal, float))
        end = path[-1]
        away = np.asarray(goal, float)[:2] - end[:2]
        gap = float(np.hypot(*away))
        if gap > GOAL_STOP:
            stop = end.copy()
            stop[:2] += away * (gap - GOAL_STOP) / gap
            path = np.concatenate([path, _resample(np.stack([end, stop]), spacing)[1:]])
    return path


def _stop_on_reaching(path: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """The path up to where the walking agent first comes GOAL_STOP from the goal (it stops
    there; the plan's last cell, the cheapest within reach, may lie round the goal's far
    side). Points in flight (above the path's end level) never count as reaching it."""
    gap = np.hypot(*(path[:, :2] - goal[:2]).T)
    on_ground = np.abs(path[:, 2] - path[-1, 2]) < 0.02
    inside = np.flatnonzero((gap <= GOAL_STOP) & on_ground)
    if inside.size == 0 or inside[0] == 0:
        return path
    k = int(inside[0])
    # where the step from k - 1 to k crosses the GOAL_STOP circle
    u = (gap[k - 1] - GOAL_STOP) / max(gap[k - 1] - gap[k], 1e-9)
    stop = path[k - 1] + np.clip(u, 0.0, 1.0) * (path[k] - path[k - 1])
    return np.concatenate([path[:k], stop[None]])


def _plan_path(terrain: Terrain, plan: Plan, start: np.ndarray, half_height: float,
               spacing: float, goal: np.ndarray | None = None) -> np.ndarray:
    """The centre's path along a plan; with the ``goal``'s centre, its last walk heads for
    the goal itself (it stops on the way, within reach), not the plan's last cell."""
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
        if goal is not None and end == len(plan.jumps):
            points = _head_for(terrain, points, goal)
        points[:, 2] += half_height
        pieces.append(_resample(points, spacing)[1:])
        k = end
    return np.concatenate(pieces)


def _head_for(terrain: Terrain, points: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """A walking run's (x, y, ground) corners with its end moved onto the goal where the
    last leg can go straight there."""
    target = _on_ground(terrain, np.asarray(goal, float)[:2])
    if len(points) < 2 or abs(target[2] - points[-1, 2]) > STEP:
        return points
    if not _leg_clear(terrain, points[-2], target):
        return points
    points = points.copy()
    points[-1] = target
    return points


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
    """The corners (x, y, ground) of a walking run placed where an agent walking round a wall
    turns: past the wall's end, DETOUR_ROOM out along its length, level with its near face
    and then with its far face (agent spec: detours pass a wall's end with ~0.3 m to spare),
    or through a doorway on its middle line; where no such way is clear, off the wall's
    corners along both axes. Of the turns near the grid's run (so round the same end of the
    same walls), the shortest way through them whose legs the agent's body clears on the
    exact boxes is taken; where none is, the grid's corners are moved out to DETOUR_ROOM on
    the grid. The least-cost path on the grid grazes the walls' corners instead (the plan's
    cost is unchanged: this only places its corners)."""
    if len(points) < 3:
        return points
    units = [(rank, pair) for rank, pair in _detour_turns(terrain)
             if _distance_to_polyline(pair, points[:, :2]).min() <= SNAP_REACH]
    legs: dict[tuple[tuple[float, ...], tuple[float, ...]], bool] = {}

    def clear(a: np.ndarray, b: np.ndarray) -> bool:
        key = (tuple(a), tuple(b))
        if key not in legs:
            legs[key] = _leg_clear(terrain, a, b)
        return legs[key]

    for rank in (0, 1):
        pairs = [np.array([_on_ground(terrain, xy) for xy in pair])
                 for r, pair in units if r <= rank]
        best, best_length = None, np.inf
        for way in _ways_through(pairs):
            nodes = np.array([points[0], *way, points[-1]])
            length = float(np.hypot(*np.diff(nodes[:, :2], axis=0).T).sum())
            if length < best_length and all(clear(a, b) for a, b in zip(nodes[:-1], nodes[1:],
                                                                         strict=True)):
                best, best_length = nodes, length
        if best is not None:
            return best
    return _clear_corners_on_grid(terrain, points)


def _ways_through(pairs: list[np.ndarray], most: int = 2) -> list[list[np.ndarray]]:
    """Every ordered choice of up to ``most`` of the turn pairs, each walked either way (the
    empty way first)."""
    ways: list[list[np.ndarray]] = [[]]
    for count in range(1, min(most, len(pairs)) + 1):
        for chosen in itertools.permutations(range(len(pairs)), count):
            for flips in itertools.product((False, True), repeat=count):
                ways.append([p for i, f in zip(chosen, flips, strict=True)
                             for p in (pairs[i][::-1] if f else pairs[i])])
    return ways


def _distance_to_polyline(xy: np.ndarray, line: np.ndarray) -> np.ndarray:
    """(M,) the distance of each of (M, 2) points to the polyline (N, 2)."""
    a, b = line[:-1][None], line[1:][None]
    ab = b - a
    t = np.clip(((xy[:, None] - a) * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-12), 0, 1)
    return np.hypot(*(xy[:, None] - a - t[..., None] * ab).transpose(2, 0, 1)).min(axis=1)


def _clear_corners_on_grid(terrain: Terrain, points: np.ndarray) -> np.ndarray:
    """Each inner corner that passes closer than DETOUR_ROOM to an obstacle moved out to the
    nearest cell that clear (within that distance) where both straight legs stay walkable."""
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


def _leg_clear(terrain: Terrain, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether the agent's body walks the straight leg between (x, y, ground) points ``a``
    and ``b`` on the exact boxes (the grid's walls are up to a cell fatter): the surface
    under it and round it, one body radius out, follows the leg's height."""
    n = max(2, int(np.ceil(np.hypot(*(b[:2] - a[:2])) / LINE_STEP)) + 1)
    frac = np.linspace(0, 1, n)[:, None]
    line = a + frac * (b - a)
    ring = BODY_RADIUS * np.array([[0, 0], *[[np.cos(t), np.sin(t)]
                                             for t in np.arange(8) * np.pi / 4]])
    around = (line[:, None, :2] + ring[None]).reshape(-1, 2)
    under = terrain.surface_at(around).reshape(n, len(ring))
    return bool(np.all(np.abs(under - line[:, 2:3]) <= STEP))


def _on_ground(terrain: Terrain, xy: np.ndarray) -> np.ndarray:
    """(x, y, the exact surface's height there)."""
    xy = np.asarray(xy, float)
    return np.array([*xy, float(terrain.surface_at(xy[None])[0])])


def _standing_boxes(terrain: Terrain) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """(centre, half extents, yaw) of the obstacles that stand on the ground (not ramps, not
    a doorway's lintel overhead)."""
    out = []
    for cls, shape, centre, half, yaw in terrain.boxes:
        if cls != "obstacle" or shape == "ramp":
            continue
        if centre[2] - half[2] - terrain.floor_at(np.asarray(centre)[None, :2])[0] <= HEADROOM:
            out.append((np.asarray(centre, float), np.asarray(half, float), float(yaw)))
    return out


def _to_world(centre: np.ndarray, yaw: float, local: np.ndarray) -> list[float]:
    c, s = np.cos(yaw), np.sin(yaw)
    return [centre[0] + c * local[0] - s * local[1], centre[1] + s * local[0] + c * local[1]]


def _detour_turns(terrain: Terrain) -> list[tuple[int, np.ndarray]]:
    """(rank, (2, 2) x, y) of the pairs of places where a detour round or through the
    standing obstacles turns, walked one after the other: past a wall's end level with each
    of its faces (rank 0) or off its two corners along both axes (rank 1); a doorway's middle
    line DOOR_ROOM before and after it (rank 0; the ends that face a doorway are not walked
    round)."""
    boxes = _standing_boxes(terrain)
    turns, door_ends = _doorway_turns(boxes)
    for b, (centre, half, yaw) in enumerate(boxes):
        along = int(half[1] >= half[0])  # a wall's length is its longer side
        for end in (-1.0, 1.0):
            if (b, end) in door_ends:
                continue
            for rank, out in ((0, 0.0), (1, DETOUR_ROOM)):
                pair = []
                for face in (-1.0, 1.0):
                    local = np.zeros(2)
                    local[along] = end * (half[along] + DETOUR_ROOM)
                    local[1 - along] = face * (half[1 - along] + out)
                    pair.append(_to_world(centre, yaw, local))
                turns.append((rank, np.array(pair)))
    return turns


def _doorway_turns(boxes: list[tuple[np.ndarray, np.ndarray, float]]
                   ) -> tuple[list[tuple[int, np.ndarray]], set[tuple[int, float]]]:
    """The turn pairs through each doorway (two wall pieces in line, with a gap the agent
    fits through between their ends), and (box, end) of the ends that face one."""
    turns, ends = [], set()
    for i, (c0, h0, y0) in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            c1, h1, y1 = boxes[j]
            along = int(h0[1] >= h0[0])
            offset = np.array(_to_world(np.zeros(2), -y0, c1[:2] - c0[:2]))
            gap = abs(offset[along]) - h0[along] - h1[along]
            if (abs(y1 - y0) > 1e-3 or abs(offset[1 - along]) > 0.05
                    or not 2 * BODY_RADIUS < gap < 1.5):
                continue
            toward = float(np.sign(offset[along]))
            ends |= {(i, toward), (j, -toward)}
            pair = []
            for face in (-1.0, 1.0):
                local = np.zeros(2)
                local[along] = toward * (h0[along] + gap / 2)
                local[1 - along] = face * (max(h0[1 - along], h1[1 - along]) + DOOR_ROOM)
                pair.append(_to_world(c0, y0, local))
            turns.append((0, np.array(pair)))
    return turns, ends


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
    # the exact surface (the grid's lips are up to half a cell off: a take-off misplaced by
    # that much shifts the whole arc)
    n = max(2, int(np.ceil(length / LINE_STEP)))
    s = np.linspace(0, 1, n + 1)
    under = terrain.surface_at(a[:2] + s[:, None] * (b[:2] - a[:2]))
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
    margin = np.arange(0.01, 1.0, 0.01) / length
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
    # in flight the agent covers more ground per frame than walking: sampled in time as
    # the walk is, the arc has as many points as the jump lasts frames
    flight = _arc(take_off, landing, height, spacing * float(speed_h[best]) / WALK_SPEED)
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
    return resample_path(points, spacing)[0]


def resample_path(points: np.ndarray, spacing: float, end_within: float | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Points every ``spacing`` metres along the polyline ``points`` (N, D) from its first point,
    then its last point (left out when it lies within ``end_within`` of the one before; by
    default always kept), and for each point the index of the vertex at or before it along
    the line. A polyline of no length gives its first point."""
    seg = np.linalg.norm(np.diff(points, axis=0), axis=1)
    total = float(seg.sum())
    if total == 0:
        return points[:1], np.zeros(1, dtype=int)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    at = np.arange(0.0, total, spacing)
    if end_within is None or total - at[-1] > end_within:
        at = np.append(at, total)
    resampled = np.column_stack([np.interp(at, s, points[:, d])
                                 for d in range(points.shape[1])])
    vertex = np.clip(np.searchsorted(s, at, side="right") - 1, 0, len(points) - 1)
    return resampled, vertex

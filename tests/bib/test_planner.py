"""The shared grid planner: optimal 8-connected paths, no corner cutting, wall-safe smoothing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from socialbench.core.grid_planning import (
    SQRT2,
    astar,
    cell_path_cost,
    plan_points,
    polyline_length,
    reachable,
    segment_clear,
    smooth,
)

CELL = 20
HALF = 6


def grid_from(rows: list[str]) -> np.ndarray:
    """Text rows, top row first, '#' = wall -> ``blocked[col, row-from-bottom]``."""
    h, w = len(rows), len(rows[0])
    blocked = np.zeros((w, h), dtype=bool)
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            blocked[c, h - 1 - r] = ch == "#"
    return blocked


def brute_force_costs(blocked: np.ndarray, start: tuple[int, int]) -> dict:
    """Bellman-Ford over every legal move until nothing improves (independent of the planner)."""
    w, h = blocked.shape
    free = {(x, y) for x in range(w) for y in range(h) if not blocked[x, y]}
    cost = {c: math.inf for c in free}
    cost[start] = 0.0
    changed = True
    while changed:
        changed = False
        for (x, y) in free:
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    n = (x + dx, y + dy)
                    if (dx, dy) == (0, 0) or n not in free:
                        continue
                    if dx and dy and ((x + dx, y) not in free or (x, y + dy) not in free):
                        continue  # no corner cutting
                    step = SQRT2 if dx and dy else 1.0
                    if cost[(x, y)] + step < cost[n] - 1e-12:
                        cost[n] = cost[(x, y)] + step
                        changed = True
    return cost


MAZES = {
    "open": ["#######", "#.....#", "#.....#", "#.....#", "#######"],
    "wall with gap": ["########", "#..#...#", "#..#...#", "#......#", "#..#...#", "########"],
    "spiral": ["#########", "#.......#", "#.#####.#", "#.#...#.#", "#.#.#.#.#", "#...#...#",
               "#########"],
    "diagonal squeeze": ["######", "#..#.#", "#.#..#", "#....#", "######"],
}


@pytest.mark.parametrize("name", sorted(MAZES))
def test_astar_matches_brute_force_lengths(name: str) -> None:
    blocked = grid_from(MAZES[name])
    free = [tuple(map(int, c)) for c in zip(*np.nonzero(~blocked), strict=True)]
    start = free[0]
    truth = brute_force_costs(blocked, start)
    for goal in free:
        path = astar(blocked, start, goal)
        if math.isinf(truth[goal]):
            assert path is None
            continue
        assert path is not None and path[0] == start and path[-1] == goal
        assert cell_path_cost(path) == pytest.approx(truth[goal])
        for a, b in zip(path, path[1:], strict=False):  # legal moves only
            assert max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1 and not blocked[b]


@pytest.mark.parametrize("name", sorted(MAZES))
def test_reachable_exactly_where_astar_finds_a_path(name: str) -> None:
    blocked = grid_from(MAZES[name])
    w, h = blocked.shape
    cells = [(x, y) for x in range(-1, w + 1) for y in range(-1, h + 1)]  # walls, off-grid too
    for start in cells:
        for goal in cells:
            assert reachable(blocked, start, goal) == (astar(blocked, start, goal) is not None)


def test_no_corner_cutting_between_diagonal_walls() -> None:
    # Two walls touching at a corner: the diagonal between them is closed, so the only way
    # round is long (or none).
    blocked = grid_from(["####", "#.##", "##.#", "####"])
    assert astar(blocked, (1, 2), (2, 1)) is None


def test_random_grids_optimal_and_smoothing_safe() -> None:
    rng = np.random.default_rng(0)
    for _ in range(30):
        blocked = np.zeros((10, 10), dtype=bool)
        blocked[[0, -1], :] = blocked[:, [0, -1]] = True
        inner = rng.random((8, 8)) < 0.25
        blocked[1:-1, 1:-1] |= inner
        free = [tuple(map(int, c)) for c in zip(*np.nonzero(~blocked), strict=True)]
        if len(free) < 2:
            continue
        start, goal = free[0], free[-1]
        truth = brute_force_costs(blocked, start)[goal]
        path = astar(blocked, start, goal)
        if math.isinf(truth):
            assert path is None
            continue
        assert cell_path_cost(path) == pytest.approx(truth)
        centres = [(c[0] * CELL + 10, c[1] * CELL + 10) for c in path]
        smoothed = smooth(centres, blocked, HALF, CELL)
        assert smoothed[0] == centres[0] and smoothed[-1] == centres[-1]
        assert polyline_length(smoothed) <= polyline_length(centres) + 1e-9
        for a, b in zip(smoothed, smoothed[1:], strict=False):
            assert _sampled_clear(blocked, a, b)


def _sampled_clear(blocked: np.ndarray, a, b, samples: int = 400) -> bool:
    """Independent check: the agent's square at many points along a -> b overlaps no wall."""
    for t in np.linspace(0, 1, samples):
        x, y = a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])
        for i in range(int((x - HALF) // CELL), int((x + HALF) // CELL) + 1):
            for j in range(int((y - HALF) // CELL), int((y + HALF) // CELL) + 1):
                if not blocked[i, j]:
                    continue
                overlap_x = min(x + HALF, (i + 1) * CELL) - max(x - HALF, i * CELL)
                overlap_y = min(y + HALF, (j + 1) * CELL) - max(y - HALF, j * CELL)
                if overlap_x > 1e-6 and overlap_y > 1e-6:
                    return False
    return True


def test_segment_clear_sees_a_wall_in_the_way_and_grazing_is_allowed() -> None:
    blocked = np.zeros((5, 5), dtype=bool)
    blocked[2, 2] = True  # covers x, y in [40, 60)
    assert not segment_clear(blocked, (30, 50), (70, 50), HALF, CELL)  # straight through
    assert segment_clear(blocked, (30, 66), (70, 66), HALF, CELL)  # bottom edge at 60: grazes
    assert not segment_clear(blocked, (30, 65), (70, 65), HALF, CELL)  # 1 px into it


def test_plan_points_straightens_open_room_and_goes_round_a_wall() -> None:
    blocked = grid_from(MAZES["open"])  # 7 x 5
    pts = plan_points(blocked, (30, 30), (110, 70), half=HALF, cell=CELL)
    assert pts == [(30, 30), (110, 70)]  # any-angle: one straight segment
    walled = grid_from(MAZES["wall with gap"])
    pts = plan_points(walled, (50, 90), (130, 90), half=HALF, cell=CELL)
    assert len(pts) > 2  # had to turn at the gap
    assert all(_sampled_clear(walled, a, b) for a, b in zip(pts, pts[1:], strict=False))

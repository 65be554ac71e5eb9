"""The BIB grid world's connectivity check and wall sampling."""

from __future__ import annotations

import numpy as np

from socialbench.bib.world import INTERIOR, blocked_grid, connected, random_walls


def _one_region(blocked: np.ndarray) -> bool:
    """Independent check: a breadth-first search over the free interior cells."""
    free = {c for c in INTERIOR if not blocked[c]}
    if not free:
        return False
    seen, todo = set(), [min(free)]
    while todo:
        x, y = todo.pop()
        if (x, y) in seen or (x, y) not in free:
            continue
        seen.add((x, y))
        todo += [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
    return seen == free


def test_connected_matches_a_search_on_random_grids() -> None:
    rng = np.random.default_rng(0)
    answers = set()
    for _ in range(400):
        walls = [c for c in INTERIOR if rng.random() < rng.choice([0.1, 0.2, 0.35])]
        blocked = blocked_grid(walls)
        answers.add(connected(blocked))
        assert connected(blocked) == _one_region(blocked)
    assert answers == {True, False}
    assert not connected(blocked_grid(INTERIOR))  # no free cell at all


def test_random_walls_keep_the_free_space_connected() -> None:
    rng = np.random.default_rng(1)
    for count in (0, 5, 20, 60):
        keep = [INTERIOR[0], INTERIOR[-1]]
        walls = random_walls(rng, count, keep_free=keep)
        assert len(walls) <= count and len(set(walls)) == len(walls)
        assert not set(walls) & set(keep)
        assert _one_region(blocked_grid(walls))

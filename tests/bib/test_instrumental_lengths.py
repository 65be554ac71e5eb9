"""Instrumental trials as short as the design allows (released style), key and lock off the
direct route (issue 13: trial lengths)."""

from __future__ import annotations

import pytest

from socialbench.bib import style
from socialbench.bib.generate import SPLITS, build_episode
from socialbench.bib.tasks import instrumental_scene
from socialbench.bib.world import blocked_grid, cell_of, path_cost

TASKS = ("instrumental_no_barrier", "instrumental_inconsequential_barrier",
         "instrumental_blocking_barrier")


@pytest.mark.parametrize("task", TASKS)
def test_familiarization_trials_are_capped_and_the_key_is_a_detour(task: str) -> None:
    split = SPLITS["eval"]
    for index in range(4):
        built = build_episode(split.tasks[task], split.shapes, 200 + index, index)
        for trial in built.expected[:8]:
            assert len(trial) <= instrumental_scene.MAX_TRIAL_FRAMES
            first = trial.frames[0]
            walls = {b.cell for b in first.walls}
            grid = blocked_grid(walls)
            start, goal = cell_of(first.home.center), cell_of(first.objects[0].center)
            key, lock = cell_of(first.key[0].center), cell_of(first.lock[0].center)
            fetch = path_cost(grid, start, key) + path_cost(grid, key, lock) \
                + path_cost(grid, lock, goal)
            assert fetch >= path_cost(grid, start, goal) + instrumental_scene.DETOUR_CELLS


def test_fetching_the_key_always_takes_longer_in_the_no_barrier_test() -> None:
    split = SPLITS["eval"]
    for index in range(8):
        built = build_episode(split.tasks["instrumental_no_barrier"], split.shapes, 300 + index,
                              index)
        assert len(built.unexpected[-1]) > len(built.expected[-1])


def test_the_tidy_style_keeps_its_longer_trials() -> None:
    split = SPLITS["eval"]
    built = build_episode(split.tasks["instrumental_no_barrier"], split.shapes, 5, 0,
                          scene_style=style.TIDY)
    assert all(len(t) >= 115 for t in built.expected)

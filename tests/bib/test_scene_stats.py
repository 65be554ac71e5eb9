"""Generated scenes look like the real released files (issue: scenes like the real files).

The real samples' statistics (``bib.scene_stats``) set the ranges; generated preference episodes
must fall inside them, and no task may be sparser or tidier than the real files except where its
design says why (``scene_stats.DESIGN_REASONS``). The tidy style stays one option away.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from socialbench.bib import style
from socialbench.bib.generate import SPLITS, build_episode, list_border_repeats
from socialbench.bib.io.layout import find_pairs
from socialbench.bib.io.read import load_episode
from socialbench.bib.scene_stats import (
    DESIGN_REASONS,
    Summary,
    markdown_table,
    row_name,
    summarize,
    tidier_than_real,
)
from socialbench.bib.schema import Episode
from socialbench.bib.world import HOME_COLOR, OBJECT_HALF, blocked_grid, place

# The same place as the other tests that read the real files (a checkout may live anywhere).
REAL = Path("/work/shared/data/bib_real_samples")


@pytest.fixture(scope="module")
def real() -> Summary:
    if not REAL.is_dir():
        pytest.skip("the real BIB samples are not here")
    return summarize((load_episode(p.expected), load_episode(p.unexpected))
                     for p in find_pairs(REAL))


def generated(split: str, task: str, pairs: int, look: style.SceneStyle = style.RELEASED
              ) -> Summary:
    chosen = SPLITS[split]
    out = []
    for index in range(pairs):
        b = build_episode(chosen.tasks[task], chosen.shapes, 100 + index, index, scene_style=look)
        list_border_repeats(b, look.border_repeats, 100 + index)
        out.append((Episode(b.expected), Episode(b.unexpected) if b.unexpected else None))
    return summarize(out)


def test_the_real_files_measure_as_the_spec_says(real: Summary) -> None:
    assert real.walls[:2] == (8, 16)
    assert real.object_offset[0] == 10 and real.home_offset[0] == 8
    assert (real.frames[0], real.frames[1]) == (136, 160)
    assert real.listed_twice == (3, 5)
    assert {(0, 0, 128), (255, 140, 0), (30, 144, 255)} <= real.colours


@pytest.mark.parametrize("split", ["eval", "eval-new-shapes"])
def test_generated_preference_falls_in_the_real_ranges(real: Summary, split: str) -> None:
    ours = generated(split, "preference", 8)
    assert real.walls[0] <= ours.walls[0] and ours.walls[1] <= real.walls[1]
    assert ours.object_offset[0] <= 10 and abs(ours.object_offset[1] - real.object_offset[1]) < 1.5
    # Homes: one an episode (three real ones), so a looser bound on the mean.
    assert ours.home_offset[0] <= 8 and abs(ours.home_offset[1] - real.home_offset[1]) < 2
    assert ours.frames[0] >= 136 and ours.frames[1] <= 160  # every trial as long as real ones
    assert 1.5 <= ours.spread[0] <= 4.5  # objects roam about as far as in the real files
    assert ours.listed_twice[0] >= 2 and ours.listed_twice[1] <= 6
    assert ours.colours & real.colours
    assert tidier_than_real(ours, real) == []


@pytest.mark.parametrize("task", list(SPLITS["eval"].tasks))
def test_no_task_is_tidier_than_the_real_files_without_a_reason(real: Summary, task: str) -> None:
    ours = generated("eval", task, 10)
    assert set(tidier_than_real(ours, real)) <= set(DESIGN_REASONS.get(task, {}))


@pytest.mark.slow
@pytest.mark.parametrize("split", ["eval", "eval-new-shapes"])
def test_every_task_of_both_splits_on_more_pairs(real: Summary, split: str) -> None:
    for task in SPLITS[split].tasks:
        ours = generated(split, task, 30)
        assert set(tidier_than_real(ours, real)) <= set(DESIGN_REASONS.get(task, {})), task


@pytest.mark.parametrize("task", list(SPLITS["train"].tasks))
def test_background_tasks_are_released_style_or_say_why(real: Summary, task: str) -> None:
    """Background tasks too: real walls, offsets, colours; lengths differ only by design."""
    ours = generated("train", task, 6)
    assert set(tidier_than_real(ours, real)) <= set(DESIGN_REASONS[row_name("train", task)])
    assert ours.walls[0] >= real.walls[0] and ours.object_offset[0] >= 8
    assert ours.home_offset[0] >= 4 and ours.colours & real.colours


def test_the_tidy_style_is_one_option_away(real: Summary) -> None:
    """The earlier look: offsets within 4 px, no border cells listed twice but the ring's own."""
    ours = generated("eval", "preference", 3, style.TIDY)
    assert ours.object_offset[0] <= 4 and ours.home_offset[0] <= 4
    assert ours.listed_twice == (1, 1)
    assert "object_offset" in tidier_than_real(ours, real)


def test_released_icons_sit_off_centre_but_never_over_a_wall() -> None:
    """Real icons sit up to 10 px off their cell's centre and never overlap a wall."""
    import numpy as np

    walls = [(3, 4), (5, 4), (4, 3), (4, 5), (3, 3), (5, 5), (3, 5), (5, 3)]  # (4, 4) walled in
    boxed, open_ = blocked_grid(walls), blocked_grid(())
    rng = np.random.default_rng(0)
    with style.using(style.RELEASED):
        inside = [place(rng, (4, 4), boxed, OBJECT_HALF) for _ in range(200)]
        free = [place(rng, (4, 4), open_, OBJECT_HALF) for _ in range(200)]
    assert all(abs(x - 90) <= 1 and abs(y - 90) <= 1 for x, y in inside)
    offsets = np.abs(np.array(free) - 90)
    assert offsets.max() == 10 and 4 < offsets.mean() < 6


def test_agent_colours_read_on_the_pink_home() -> None:
    for agent in style.RELEASED_AGENT_COLORS:
        assert sum((a - b) ** 2 for a, b in zip(agent, HOME_COLOR, strict=True)) ** 0.5 >= 150
        for obj in style.RELEASED_OBJECT_COLORS:
            assert sum((a - b) ** 2 for a, b in zip(agent, obj, strict=True)) ** 0.5 >= 50


def test_the_table_has_a_row_per_data_set(real: Summary) -> None:
    table = markdown_table({"real": real, "preference": generated("eval", "preference", 2)})
    assert table.count("\n") == 3 and "| real |" in table and "| preference |" in table

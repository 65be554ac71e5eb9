"""Generated scenes look like the real released files (issue: scenes like the real files).

The real samples' statistics (``bib.scene_stats``) set the ranges; generated preference episodes
must fall inside them, and no task may be sparser or tidier than the real files except where its
design says why (``scene_stats.DESIGN_REASONS``). The tidy style stays one option away.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from socialbench.bib import style
from socialbench.bib.generate import SPLITS, build_episode, list_border_repeats
from socialbench.bib.io.layout import find_pairs
from socialbench.bib.io.read import load_episode
from socialbench.bib.replay import planned, real_trials
from socialbench.bib.scene_stats import (
    DESIGN_REASONS,
    STEP_CLASSES,
    Summary,
    markdown_table,
    pair_trials,
    row_name,
    signed_grid,
    step_definitions,
    step_shares,
    steps_table,
    summarize,
    tidier_than_real,
    trial_stats,
)
from socialbench.bib.schema import Episode, Trial
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


def test_walks_more_axis_bound_than_any_real_episode_are_flagged(real: Summary) -> None:
    """The efficiency detours run along their barrier: flagged as tidier steps, with the reason
    stated; a walk straight at its object (preference) is not flagged."""
    assert "steps" in tidier_than_real(generated("eval", "efficiency_path", 10), real)
    assert "steps" in DESIGN_REASONS["efficiency_path"]
    assert "steps" not in tidier_than_real(generated("eval", "preference", 10), real)


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


# --- The agent's steps in full (issue 13: "axis-aligned 2 px steps: real 17 %, ours 45 %") ---

def test_the_displacement_histogram_of_one_real_trial_counted_by_hand() -> None:
    """000010loe, trial 1: 31 frames on home, 32 moves straight down with a (1, -2) every 5-6
    frames, 84 frames holding (146 frames). Counted from the file by hand:
    (0, -1) once (the first step), (0, -2) 2+5+6+5+5+3 = 26 times, (1, -2) 5 times; still
    30 + 83 = 113 frame pairs."""
    if not REAL.is_dir():
        pytest.skip("the real BIB samples are not here")
    trial = load_episode(REAL / "000010loe.json").trials[0]
    counts = trial_stats(trial).displacements
    assert counts == {(0, 0): 113, (0, -2): 26, (1, -2): 5, (0, -1): 1}
    assert trial_stats(trial).steps == {(0, 1): 1, (0, 2): 26, (1, 2): 5}


def test_the_readings_of_axis_aligned_steps_on_the_real_files(real: Summary) -> None:
    """The 45 % (the table's, of the moves) and the 17 % once quoted (horizontal moves only)
    are two readings of one histogram; with still frames it is 10 %."""
    shares = step_definitions(real.displacements)
    assert shares["axis 2 px / moves"] == pytest.approx(439 / 970)
    assert shares["(+-2, 0) / moves"] == pytest.approx(170 / 970)  # 17.5 %
    assert shares["axis 2 px / frame pairs"] == pytest.approx(439 / 4360)
    assert sum(real.displacements.values()) == 4360  # 30 distinct trials' frame pairs
    assert max(max(abs(dx), abs(dy)) for dx, dy in real.displacements) == 2


def _episode_steps(look: style.SceneStyle, episodes: int) -> list[Counter]:
    chosen = SPLITS["eval"]
    out = []
    for index in range(episodes):
        b = build_episode(chosen.tasks["preference"], chosen.shapes, 100 + index, index,
                          scene_style=look)
        trials = pair_trials(Episode(b.expected), Episode(b.unexpected))
        out.append(sum((trial_stats(t).displacements for t in trials), Counter()))
    return out


def _real_episode_steps() -> list[Counter]:
    out = []
    for p in find_pairs(REAL):
        trials = pair_trials(load_episode(p.expected), load_episode(p.unexpected))
        out.append(sum((trial_stats(t).displacements for t in trials), Counter()))
    return out


# Points a generated step class may differ from the real share (docs/bib.md, "The agent's steps").
STEP_TOLERANCE = {(0, 1): 0.015, (0, 2): 0.05, (1, 1): 0.015, (1, 2): 0.05, (2, 2): 0.05}


def _off_classes(pooled: Counter, real: Summary) -> set[tuple[int, int]]:
    mine, theirs = step_shares(pooled), step_shares(real.displacements)
    return {c for c, points in STEP_TOLERANCE.items()
            if abs(mine.get(c, 0.0) - theirs[c]) > points}


def test_generated_steps_within_tolerance_of_the_real(real: Summary) -> None:
    """The default's histogram against the real one, pooled over 30 generated preference pairs:
    every class of move within 5 points of the real share (the 2-px ones: axis-aligned (0, 2),
    slanted (1, 2), diagonal (2, 2)), the 1-px ones (a segment's start) within 1.5, still frames
    within 3; and each real episode's share of 1-px and diagonal steps inside the central 90 %
    of generated episodes'."""
    ours = _episode_steps(style.RELEASED, 30)
    pooled = sum(ours, Counter())
    assert _off_classes(pooled, real) == set()
    still = step_definitions(pooled)["still / frame pairs"]
    assert abs(still - step_definitions(real.displacements)["still / frame pairs"]) <= 0.03
    checked = [STEP_CLASSES.index(c) for c in ((0, 1), (1, 1), (2, 2))]
    per_episode = np.array([[step_shares(e).get(c, 0.0) for c in STEP_CLASSES] for e in ours])
    low, high = np.percentile(per_episode[:, checked], [5, 95], axis=0)
    for episode in _real_episode_steps():
        shares = np.array([step_shares(episode).get(c, 0.0) for c in STEP_CLASSES])[checked]
        assert ((low <= shares) & (shares <= high)).all(), (shares, low, high)


@pytest.mark.parametrize(("look", "missed"), [
    # Objects anywhere in reach: walks turn along corridors (axis steps 10 points too many).
    (style.RELEASED_V2, {(0, 2), (1, 2)}),
    # ... and no 1-px step at turns.
    (style.RELEASED_V1, {(0, 1), (0, 2), (1, 2)}),
])
def test_the_earlier_styles_miss_the_real_steps(real: Summary, look: style.SceneStyle,
                                                missed: set[tuple[int, int]]) -> None:
    """What each change fixed: without objects in view (released-v2) the axis-aligned and
    slanted shares are off; without the 1-px turn steps (released-v1) the 1-px steps too."""
    pooled = sum(_episode_steps(look, 30), Counter())
    assert missed <= _off_classes(pooled, real)


def _goes_straight(trial: Trial) -> bool:
    """Whether our planner's route from the trial's start to the object its agent ends at is
    one straight segment (on the real layouts: 18 of the 30 real trials)."""
    first = trial.frames[0]
    track = [a for a in trial.agent_path if a is not None]
    goal = min((o.center for o in first.objects), key=lambda c: math.dist(c, track[-1]))
    walls = blocked_grid({b.cell for b in first.walls})
    return len(planned(walls, track[0], goal)) == 2


def test_real_walks_go_straight_in_18_of_30_trials() -> None:
    assert sum(len(planned(blocked_grid(t.walls), tuple(map(float, t.track[0])),
                           tuple(map(float, t.goal)))) == 2 for t in real_trials(REAL)) == 18


@pytest.mark.parametrize("task", ["preference", "multi_agent", "inaccessible_goal"])
def test_objects_in_view_at_a_slant(task: str) -> None:
    """Released style: the walks of the tasks that place objects within a walk of the start go
    straight about as often as the real ones (18 of 30; released-v2: about a third) and their
    2-px steps slant about as often as they run along an axis (real: 44 % / 45 %; released-v2
    about 30 % / 55 %). 16 pairs: on 8 the ratio strays by 0.15 from one set to another."""
    chosen = SPLITS["eval"]
    straight: list[bool] = []
    steps: Counter = Counter()
    for index in range(16):
        b = build_episode(chosen.tasks[task], chosen.shapes, 300 + index, index)
        for trial in pair_trials(Episode(b.expected), Episode(b.unexpected)):
            straight.append(_goes_straight(trial))
            steps += trial_stats(trial).steps
    assert 0.45 <= np.mean(straight) <= 0.8
    assert steps[(1, 2)] >= 0.8 * steps[(0, 2)]


def test_the_steps_table_and_grid(real: Summary) -> None:
    table = steps_table({"real": real.displacements})
    assert "| real | 4360 | 970 | 4.8% | 45.3% | 1.8% | 44.4% | 3.7% | 45.3% | 17.5% |" in table
    grid = signed_grid(real.displacements).splitlines()
    assert len(grid) == 6 and grid[3].split()[3] == "3390"  # still frames: the centre cell

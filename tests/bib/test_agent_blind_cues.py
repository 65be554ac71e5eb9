"""No cue that ignores the agent tells a pair's tests apart unless the paper's design implies it:
the blocking barrier's two tests are equally new, no pause at a lock guarding nothing, and the
time control's two ways of making a straight path last as long as a detour."""

from __future__ import annotations

import numpy as np
import pytest

from socialbench.bib import motion
from socialbench.bib.generate import build_episode
from socialbench.bib.schema import GRID, Frame, Trial
from socialbench.bib.shapes import TRAIN
from socialbench.bib.tasks import EVAL_TASKS, efficiency_time
from socialbench.core.errors import UserError
from socialbench.core.grid_planning import reachable
from socialbench.observers.bib.controls import walking_speed
from socialbench.voe.observer import EpisodeView
from socialbench.voe.registry import make_observer


def built(name: str, seed: int):
    return build_episode(EVAL_TASKS[name], TRAIN, seed, 0)


def rated(name: str, trials: list[Trial]) -> float:
    return make_observer("bib", name).surprise(EpisodeView(tuple(trials)))


def cells(blocks) -> set[tuple[int, int]]:
    return {b.cell for b in blocks}


def goal_reachable(frame: Frame) -> bool:
    grid = np.zeros((GRID, GRID), dtype=bool)
    for b in (*frame.walls, *frame.fuse_walls):
        grid[b.cell] = True
    start = tuple(int(v // 20) for v in frame.agent.center)
    return reachable(grid, start, frame.objects[0].cell)


def steps(trial: Trial) -> np.ndarray:
    path = np.asarray([f.agent.center for f in trial.frames], dtype=float)
    return np.abs(np.diff(path, axis=0)).max(axis=1)


def still_frames_underway(trial: Trial) -> int:
    """Frames the agent stands still between leaving home and arriving."""
    moving = np.flatnonzero(steps(trial) > 0)
    return int((steps(trial)[moving[0]:moving[-1] + 1] == 0).sum())


@pytest.mark.parametrize("seed", [3, 11, 12])
def test_both_blocking_tests_are_the_familiar_barrier_less_one_cell(seed: int) -> None:
    b = built("instrumental_blocking_barrier", seed)
    familiar = cells(b.expected[0].frames[0].fuse_walls)
    e, u = b.expected[-1].frames[0], b.unexpected[-1].frames[0]
    for test in (e, u):
        assert cells(test.fuse_walls) < familiar and len(familiar - cells(test.fuse_walls)) == 1
    assert not goal_reachable(e) and goal_reachable(u)  # e still blocks, u does not
    assert rated("control-novelty", b.expected) == rated("control-novelty", b.unexpected)


def test_no_pause_at_a_lock_that_guards_nothing() -> None:
    b = built("instrumental_no_barrier", 8)
    assert still_frames_underway(b.unexpected[-1]) == 0  # straight on after the lock
    # A lock that opens a barrier still makes the agent wait while it fades.
    fam = b.expected[0]
    assert still_frames_underway(fam) >= 24


def test_spread_pauses_keeps_the_steps_and_pauses_between_them() -> None:
    moves = motion.walk([(30.0, 30.0), (90.0, 30.0)], first=None)
    paced = motion.spread_pauses(moves, 2 * len(moves) - 1)
    assert len(paced) == 2 * len(moves) - 1
    assert (paced[0] == moves[0]).all() and (paced[-2] != paced[-1]).any()  # moves first, last
    track = np.vstack([[30, 30], paced])
    step = np.abs(np.diff(track, axis=0)).max(axis=1)
    assert set(step.tolist()) == {0, 2} and not (step[:-1] + step[1:] == 0).any()  # 1-frame stops
    with pytest.raises(ValueError):
        motion.spread_pauses(moves, len(moves) - 1)


@pytest.mark.parametrize("control", efficiency_time.TIME_CONTROLS)
def test_time_control_equal_lengths_and_the_speed_each_way_gives(control: str) -> None:
    with efficiency_time.using(control):
        b = built("efficiency_time", 5)
    e, u = b.expected[-1], b.unexpected[-1]
    assert len(e) == len(u)  # the paper: the same time in both
    assert walking_speed(u) == walking_speed(b.expected[0]) == 2.0
    if control == "slow":
        assert walking_speed(e) < 1.5 and still_frames_underway(e) == 0
        assert rated("control-speed", b.expected) > rated("control-speed", b.unexpected)
    else:
        assert walking_speed(e) == 2.0 and still_frames_underway(e) > 0
        assert rated("control-speed", b.expected) == rated("control-speed", b.unexpected)


def test_the_default_time_control_is_the_slow_walk_and_bad_names_are_refused() -> None:
    with efficiency_time.using("slow"):
        slow = built("efficiency_time", 5)
    assert built("efficiency_time", 5).expected[-1] == slow.expected[-1]
    with pytest.raises(UserError, match="unknown --time-control 'fast'"):
        efficiency_time.check_time_control("fast")


def test_the_time_control_travels_with_the_jobs_only_when_not_the_default(tmp_path) -> None:
    from socialbench.bib.generate import SPLITS, generate, make_jobs

    split = SPLITS["eval"]
    plain = make_jobs(split, ["efficiency_time"], {"efficiency_time": 1}, 0, False)
    paused = make_jobs(split, ["efficiency_time"], {"efficiency_time": 1}, 0, False,
                       time_control="pauses")
    assert "time_control" not in plain[0].params  # the default's files stay as they were
    assert paused[0].params["time_control"] == "pauses" and paused[0].seed == plain[0].seed
    with pytest.raises(UserError, match="--time-control"):
        generate(tmp_path / "x", tasks="efficiency_time", episodes=1, time_control="fast")
    assert not (tmp_path / "x").exists()  # refused before anything is written

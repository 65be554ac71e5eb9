"""Agent motion: the released files' timing and per-frame steps (bib spec, measured)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from socialbench.bib import motion

REAL = Path("/work/shared/data/bib_real_samples/000010loe.json")


def test_segment_first_step_one_px_then_two_on_major_axis() -> None:
    steps = motion.segment_steps((0, 0), (9, -40), first=1)
    diffs = np.diff(np.vstack([[0, 0], steps]), axis=0)
    assert tuple(diffs[0]) == (0, -1)
    assert (np.abs(diffs) <= 2).all()
    assert (diffs[1:-1, 1] == -2).all()  # major axis: 2 px a frame
    assert tuple(steps[-1]) == (9, -40)  # lands exactly on the waypoint


def test_reproduces_a_released_trial_exactly() -> None:
    if not REAL.exists():
        pytest.skip("released samples not available")
    trial = json.loads(REAL.read_text())[0]
    pos = np.array([f["agent"][0] for f in trial])
    moving = motion.segment_steps(tuple(pos[30]), tuple(pos[-1]), first=1)
    track = motion.trial_track(tuple(pos[0]), [moving])
    assert track.tolist() == pos.tolist()


def test_trial_timing_home_hold_and_steps() -> None:
    moves = motion.walk([(30, 30), (30, 90), (150, 130)], goal=(150, 130))
    track = motion.trial_track((30, 30), [moves])
    diffs = np.abs(np.diff(track, axis=0))
    assert (track[: motion.HOME_FRAMES] == (30, 30)).all()
    assert tuple(track[motion.HOME_FRAMES]) != (30, 30)  # leaves on frame 31
    assert (track[-motion.HOLD_FRAMES:] == track[-1]).all()
    assert tuple(track[-motion.HOLD_FRAMES - 1]) != tuple(track[-1])  # arrives then holds 84
    assert diffs.max() <= 2
    assert diffs[motion.HOME_FRAMES - 1].max() == 1  # the very first step is 1 px
    assert len(track) == motion.HOME_FRAMES + len(moves) + motion.HOLD_FRAMES - 1


def test_walk_stops_on_touching_the_goal() -> None:
    moves = motion.walk([(20, 20), (120, 20)], goal=(120, 20))
    gaps = np.hypot(moves[:, 0] - 120, moves[:, 1] - 20)
    assert gaps[-1] <= motion.TOUCH_PX < gaps[-2]
    assert gaps[-1] >= 7  # bib spec: 7-12.5 px at the end


def test_slower_step_for_time_control() -> None:
    fast = motion.walk([(0, 0), (100, 0)])
    slow = motion.walk([(0, 0), (100, 0)], step=1.0)
    assert len(slow) > len(fast)
    assert np.abs(np.diff(slow, axis=0)).max() <= 1


def test_walk_equals_its_segments_one_after_the_other() -> None:
    """walk computes all segments in one pass: the same positions as segment_steps in turn
    (any steps, first steps, zero-length segments, float waypoints, a goal that cuts it)."""
    rng = np.random.default_rng(1)
    for _ in range(2000):
        points = [tuple(rng.uniform(0, 200, 2)) if rng.random() < 0.5
                  else tuple(map(float, rng.integers(0, 200, 2)))
                  for _ in range(int(rng.integers(1, 6)))]
        if len(points) > 1 and rng.random() < 0.2:
            points[1] = points[0]
        step = float(rng.choice([2.0, 1.0, rng.uniform(0.5, 3)]))
        first = [None, 1.0, float(rng.uniform(0.5, 3))][int(rng.integers(3))]
        turn = [None, 1.0, float(rng.uniform(0.5, 3))][int(rng.integers(3))]
        later = None if turn is None else min(turn, step)
        goal = points[-1] if rng.random() < 0.5 else None
        parts = [motion.segment_steps(a, b, step=step, first=first if i == 0 else later)
                 for i, (a, b) in enumerate(zip(points, points[1:], strict=False))]
        expected = np.concatenate(parts) if parts else np.empty((0, 2), dtype=np.int64)
        if goal is not None and len(expected):
            near = np.hypot(*(expected - goal).T) <= motion.TOUCH_PX
            if near.any():
                expected = expected[: int(np.argmax(near)) + 1]
        got = motion.walk(points, step=step, first=first, goal=goal, turn_first=turn)
        assert got.dtype == np.int64 and np.array_equal(got, expected)


def test_a_turn_starts_with_a_one_px_step() -> None:
    """Real 000012: up to a turn, then (-1, 1), (-1, 0), (-2, 0): the new segment starts with
    1 px (bib spec: 1-px steps at most turns); the earlier motion turns at full speed."""
    path = [(90, 30), (90, 70), (40, 70)]
    turned = motion.walk(path, turn_first=motion.TURN_STEP_PX)
    steps = np.diff(np.vstack([path[0], turned]), axis=0)
    assert tuple(steps[0]) == (0, 1)  # the trial's first step
    at_turn = int(np.flatnonzero((turned == (90, 70)).all(axis=1))[0])
    assert tuple(steps[at_turn + 1]) == (-1, 0) and tuple(steps[at_turn + 2]) == (-2, 0)
    assert np.abs(steps).max() <= 2 and tuple(turned[-1]) == (40, 70)
    earlier = motion.walk(path)
    assert len(turned) == len(earlier) + 1  # one frame more for the half step
    assert tuple(np.diff(earlier, axis=0)[at_turn]) == (-2, 0)

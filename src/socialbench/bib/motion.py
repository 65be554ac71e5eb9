"""How a BIB agent moves: waypoints -> one integer pixel position per video frame.

Measured on the released files (bib spec): the agent sits on ``home`` for the first 31 frames,
moves along straight segments between waypoints at 2 px per frame on the segment's major axis
(the minor axis follows, rounded to whole pixels), its very first step is 1 px, a segment ends
with whatever remains (often a 1-px step), it stops as soon as it touches its goal (centre
distance at most 12.5 px) and holds still for the last 84 frames.

At a turn the released walks start the new segment with a 1-px step too (``(0, 2)``, ``(-1, 1)``,
``(-1, 0)``, ``(-2, 0)``: real 000012; bib spec: "1-px steps appear at most turns"); ``turn_first``
gives that step (the released scene style's default, :mod:`socialbench.bib.style`); None keeps the
earlier motion, where only a trial's first segment starts with 1 px.

Positions here are icon centres; ``centre - half`` gives the released bottom-left corner.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

HOME_FRAMES = 31  # bib spec: the agent sits on home for the first 31 frames
HOLD_FRAMES = 84  # bib spec: ... and holds at its goal for the last 84
STEP_PX = 2.0  # bib spec: 2 px per frame on the major axis
FIRST_STEP_PX = 1.0  # bib spec: the first move of every trial is a 1-px step
TURN_STEP_PX = 1.0  # bib spec / real samples: ... and 1-px steps at most turns
TOUCH_PX = 12.5  # bib spec: centre-to-centre distance 7-12.5 px when the agent stops

Point = tuple[float, float]


def _round(values: np.ndarray) -> np.ndarray:
    """Round half away from zero (numpy's banker's rounding would make steps uneven)."""
    return np.sign(values) * np.floor(np.abs(values) + 0.5)


def segment_steps(a: Point, b: Point, *, step: float = STEP_PX,
                  first: float | None = None) -> np.ndarray:
    """Positions after each frame moving from ``a`` to ``b`` (``b`` included), as int rows.

    The major axis advances ``first`` px on the first frame (default ``step``), then ``step``
    px a frame, and the last frame lands exactly on ``b``.
    """
    ax, ay = int(round(a[0])), int(round(a[1]))
    dx, dy = int(round(b[0])) - ax, int(round(b[1])) - ay
    major = max(abs(dx), abs(dy))
    if major == 0:
        return np.empty((0, 2), dtype=np.int64)
    start = step if first is None else first
    progress = np.arange(start, major, step, dtype=np.float64) if start < major else np.empty(0)
    progress = progress[progress < major - 0.5]  # see walk: no frame rounding onto the end
    progress = np.append(progress, float(major))
    offsets = np.stack([_round(dx * progress / major), _round(dy * progress / major)], axis=1)
    return (offsets + (ax, ay)).astype(np.int64)


def walk(waypoints: Sequence[Point], *, step: float = STEP_PX, first: float | None = FIRST_STEP_PX,
         goal: Point | None = None, touch: float = TOUCH_PX,
         turn_first: float | None = None) -> np.ndarray:
    """The positions, one per moving frame, along ``waypoints`` (the first is where it stands).

    With ``goal``, the walk ends on the first frame whose centre is within ``touch`` px of it.
    ``first`` is the first frame's step (1 px when a trial starts; None for ``step``);
    ``turn_first`` the first step of every later segment (at most ``step``; None for ``step``).
    Equal to the segments' :func:`segment_steps` one after the other, computed in one pass.
    """
    turn = step if turn_first is None else min(turn_first, step)
    progress: list[np.ndarray] = []
    segments: list[tuple[int, int, int, int, int]] = []  # dx, dy, major, ax, ay
    counts: list[int] = []
    for i, (a, b) in enumerate(zip(waypoints, waypoints[1:], strict=False)):
        ax, ay = int(round(a[0])), int(round(a[1]))
        dx, dy = int(round(b[0])) - ax, int(round(b[1])) - ay
        major = max(abs(dx), abs(dy))
        if major == 0:
            continue
        start = (step if first is None else first) if i == 0 else turn
        along = np.arange(start, major, step, dtype=np.float64) if start < major else np.empty(0)
        # A slower step (the time control's) can land within half a pixel of the segment's end:
        # that frame would round onto the end and the agent would stand still for one frame.
        # At whole-pixel steps (every other walk) nothing is dropped.
        along = along[along < major - 0.5]
        progress += (along, np.array([major], dtype=np.float64))
        segments.append((dx, dy, major, ax, ay))
        counts.append(len(along) + 1)
    if not progress:
        return np.empty((0, 2), dtype=np.int64)
    # The same arithmetic as segment_steps, on all segments at once.
    per_frame = np.repeat(np.array(segments, dtype=np.int64), counts, axis=0)
    along = np.concatenate(progress)[:, None]
    offsets = _round(per_frame[:, 0:2] * along / per_frame[:, 2:3])
    moves = (offsets + per_frame[:, 3:5]).astype(np.int64)
    if goal is not None and len(moves):
        near = np.hypot(moves[:, 0] - goal[0], moves[:, 1] - goal[1]) <= touch
        if near.any():
            moves = moves[: int(np.argmax(near)) + 1]
    return moves


def spread_pauses(moves: np.ndarray, frames: int) -> np.ndarray:
    """``moves`` lasting ``frames`` frames: still frames spread as evenly as possible between
    the moves (none before the first move, which would lengthen the wait at home, nor after
    the last, which would lengthen the hold at the goal). The moves keep their speed."""
    extra = frames - len(moves)
    if extra < 0:
        raise ValueError(f"{len(moves)} moves cannot last {frames} frames")
    if extra == 0:
        return moves
    if len(moves) < 2:
        raise ValueError("pauses need at least two moves to sit between")
    gaps = len(moves) - 1
    # Still frames after move i (i < gaps): an even share of ``extra``, by integer steps.
    after = np.diff((np.arange(gaps + 1) * extra) // gaps)
    repeats = np.append(1 + after, 1)
    return np.repeat(moves, repeats, axis=0)


def hold(position: Sequence[int], frames: int) -> np.ndarray:
    """``frames`` copies of one position."""
    return np.tile(np.asarray(position, dtype=np.int64), (frames, 1))


def trial_track(start: Point, moving: Sequence[np.ndarray]) -> np.ndarray:
    """A whole trial: home frames, the moving frames in order, then the hold.

    The frame that reaches the goal is the first of the last :data:`HOLD_FRAMES`.
    """
    home = (int(round(start[0])), int(round(start[1])))
    track = [hold(home, HOME_FRAMES), *moving]
    last = next((m[-1] for m in reversed(moving) if len(m)), np.asarray(home))
    track.append(hold(last, HOLD_FRAMES - 1))
    return np.concatenate(track)

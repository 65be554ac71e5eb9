"""Agent-blind control observers: cues a model could follow without reasoning about the agent.

The path shortcuts (:mod:`.shortcuts`) each predict where the agent goes. These controls ignore
where it goes: they rate a test trial by something else a video shows, read from the same
stripped view (the trials alone). Where the paper's design does not imply such a cue, the
expected and unexpected tests must not differ in it on average, so each control sits at chance;
where the design implies it, :data:`DESIGN_IMPLIED` says why and which of the paper's own
sub-evaluations neutralises it (there the control is at chance again).

========================  =================================================================
observer                  rates the test trial as surprising by ...
========================  =================================================================
``control-novelty``       how far its scene (walls, green barrier, objects' places) is from the
                          nearest familiarization scene; the agent ignored
``control-duration``      its length in frames (the longer test is the surprising one)
``control-speed``         how far the agent's walking speed departs from familiarization's
``control-contrast``      how much it differs from its familiarization, on average, in anything
                          but the agent's path: walls, barrier, objects and their shapes, key,
                          lock, home, the agent's shape and colour
``control-path-shape``    how far its walk's shape (turns, share of slanted steps, tortuosity)
                          is from familiarization's median shape, wherever the walk goes
========================  =================================================================
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from socialbench.bib.schema import CELL, Frame, Sprite, Trial
from socialbench.voe.observer import EpisodeView, Observer
from socialbench.voe.registry import register_observer

Cell = tuple[int, int]
Point = tuple[float, float]


@dataclass(frozen=True)
class Scene:
    """What a trial's first frame shows besides the agent's path (positions in cells)."""

    walls: frozenset[Cell]
    fuse: frozenset[Cell]
    objects: tuple[tuple[str, Point], ...]  # (shape name, centre in cells)
    key: Point | None
    lock: Point | None
    home: Point | None
    agent: tuple[str, tuple[int, int, int]] | None  # shape name, colour


def _in_cells(sprite: Sprite) -> Point:
    x, y = sprite.center
    return x / CELL, y / CELL


def scene_of(trial: Trial) -> Scene:
    """The scene of a trial's first frame that shows the agent (released files may lack it in
    the first frames; :func:`views.view_trial` starts there too)."""
    frame: Frame = next((f for f in trial.iter_frames() if f.agent is not None), None) \
        or next(trial.iter_frames())
    return Scene(
        walls=frozenset(b.cell for b in frame.walls),
        fuse=frozenset(b.cell for b in frame.fuse_walls),
        objects=tuple((o.name, _in_cells(o)) for o in frame.objects),
        key=_in_cells(frame.key[0]) if frame.key else None,
        lock=_in_cells(frame.lock[0]) if frame.lock else None,
        home=_in_cells(frame.home) if frame.home else None,
        agent=(frame.agent.name, frame.agent.color) if frame.agent else None)


def _place_gap(a: Point | None, b: Point | None) -> float:
    """Cells between two places; a thing present in one scene only counts one cell."""
    if a is None or b is None:
        return 0.0 if a is b else 1.0
    return math.dist(a, b)


def _objects_gap(a: tuple[tuple[str, Point], ...], b: tuple[tuple[str, Point], ...],
                 shapes: bool) -> float:
    """Each object of ``a`` to its nearest counterpart in ``b`` (of the same shape when
    ``shapes``; none there: one cell), plus one cell per object that ``b`` has more."""
    gap = 0.0
    for shape, place in a:
        pool = [p for s, p in b if s == shape or not shapes]
        gap += min((math.dist(place, p) for p in pool), default=1.0)
    return gap + max(0, len(b) - len(a))


def layout_gap(a: Scene, b: Scene) -> float:
    """Walls, barrier and objects' places (cells): what the agent moves among."""
    return (len(a.walls ^ b.walls) + len(a.fuse ^ b.fuse)
            + _objects_gap(a.objects, b.objects, shapes=False))


def contrast_gap(a: Scene, b: Scene) -> float:
    """Everything but the agent's path: :func:`layout_gap` with object shapes, plus the key,
    the lock, home and the agent's look (a changed shape or colour counts one each)."""
    look = 0.0
    if a.agent != b.agent:
        look = 1.0 if a.agent is None or b.agent is None else \
            float(a.agent[0] != b.agent[0]) + float(a.agent[1] != b.agent[1])
    return (len(a.walls ^ b.walls) + len(a.fuse ^ b.fuse)
            + _objects_gap(a.objects, b.objects, shapes=True)
            + _place_gap(a.key, b.key) + _place_gap(a.lock, b.lock)
            + _place_gap(a.home, b.home) + look)


def walking_speed(trial: Trial) -> float:
    """The median per-frame step of the agent over the frames it moves, in px on the step's
    larger axis (the data's own unit: at most 2 px per axis per frame, bib spec); 0 if it never
    moves. Frames where it stands still (home, the goal, a wait) do not count."""
    path = np.asarray([f.agent.center for f in trial.iter_frames() if f.agent is not None],
                      dtype=float)
    if len(path) < 2:
        return 0.0
    steps = np.abs(np.diff(path, axis=0)).max(axis=1)
    moving = steps[steps > 0]
    return float(np.median(moving)) if len(moving) else 0.0


# A walk bends where it strays more than this from the straight line between two kept points:
# a straight walk drawn at any slant (2 px a frame on its major axis, the minor axis rounded)
# strays at most 1 px.
TURN_TOLERANCE_PX = 2.0
STRIDE_PX = 2.0  # a step of the released walk: 2 px on its major axis (bib spec)
# What one unit of shape difference is: one turn; a quarter of the steps slanted or not; a walk
# a quarter of its straight-line length longer.
SHAPE_SCALES = (1.0, 0.25, 0.25)


@dataclass(frozen=True)
class WalkShape:
    """How the agent's walk bends, wherever it goes."""

    turns: int  # bends of the walk (its track simplified to TURN_TOLERANCE_PX)
    slanted: float  # share of its 2-px strides off both axes (dx and dy both non-zero)
    tortuosity: float  # length walked over the straight distance from start to end (>= 1)

    def as_tuple(self) -> tuple[float, float, float]:
        return float(self.turns), self.slanted, self.tortuosity


def _corners(points: np.ndarray, tolerance: float) -> int:
    """Points a polyline keeps besides its ends when simplified (Ramer-Douglas-Peucker)."""
    kept = 0
    spans = [(0, len(points) - 1)]
    while spans:
        first, last = spans.pop()
        if last - first < 2:
            continue
        a, b = points[first], points[last]
        inner = points[first + 1:last]
        chord = b - a
        norm = float(np.hypot(*chord))
        if norm > 0:
            gaps = np.abs(chord[0] * (inner[:, 1] - a[1]) - chord[1] * (inner[:, 0] - a[0])) / norm
        else:
            gaps = np.hypot(*(inner - a).T)
        far = int(np.argmax(gaps))
        if gaps[far] > tolerance:
            kept += 1
            spans += [(first, first + 1 + far), (first + 1 + far, last)]
    return kept


def walk_shape(trial: Trial) -> WalkShape:
    """The shape of the agent's walk: its track with still frames dropped (home, holding and
    waits do not count), so neither speed nor pauses change it."""
    path = np.asarray([f.agent.center for f in trial.iter_frames() if f.agent is not None],
                      dtype=float)
    if len(path) < 2:
        return WalkShape(0, 0.0, 1.0)
    steps = np.diff(path, axis=0)
    moving = np.abs(steps).max(axis=1) > 0
    if not moving.any():
        return WalkShape(0, 0.0, 1.0)
    track = np.vstack([path[:1], path[1:][moving]])
    length = float(np.hypot(*steps[moving].T).sum())
    chord = float(np.hypot(*(track[-1] - track[0])))
    strides = np.diff(_strides(track), axis=0)
    slanted = float(np.mean((strides[:, 0] != 0) & (strides[:, 1] != 0))) if len(strides) \
        else 0.0
    return WalkShape(turns=_corners(track, TURN_TOLERANCE_PX), slanted=slanted,
                     tortuosity=length / max(chord, 1.0))


def _strides(track: np.ndarray) -> np.ndarray:
    """The track's points at least :data:`STRIDE_PX` apart on an axis: a slow walk (1 px a
    frame on its major axis) makes axis-only frames where a full-speed one slants, so steps
    are counted at one stride, whatever the speed."""
    kept = [track[0]]
    for point in track[1:]:
        if np.abs(point - kept[-1]).max() >= STRIDE_PX:
            kept.append(point)
    return np.asarray(kept)


def shape_gap(a: WalkShape, b: WalkShape | tuple[float, float, float]) -> float:
    """The difference between two walk shapes, each feature in its :data:`SHAPE_SCALES` unit."""
    other = b.as_tuple() if isinstance(b, WalkShape) else b
    return float(sum(abs(x - y) / unit
                     for x, y, unit in zip(a.as_tuple(), other, SHAPE_SCALES, strict=True)))


def novelty(familiarization: Sequence[Trial], test: Trial) -> float:
    """The layout gap from the test scene to the nearest familiarization scene."""
    scene = scene_of(test)
    return min((layout_gap(scene, scene_of(t)) for t in familiarization), default=0.0)


def duration(familiarization: Sequence[Trial], test: Trial) -> float:
    """The test trial's length in frames."""
    return float(len(test))


def speed_change(familiarization: Sequence[Trial], test: Trial) -> float:
    """|log(test walking speed / familiarization's median walking speed)|."""
    seen = [s for s in (walking_speed(t) for t in familiarization) if s > 0]
    speed = walking_speed(test)
    if not seen or speed <= 0:
        return 0.0
    return abs(math.log(speed / float(np.median(seen))))


def contrast(familiarization: Sequence[Trial], test: Trial) -> float:
    """The mean :func:`contrast_gap` from the test to each familiarization trial."""
    scene = scene_of(test)
    gaps = [contrast_gap(scene, scene_of(t)) for t in familiarization]
    return float(np.mean(gaps)) if gaps else 0.0


def path_shape_change(familiarization: Sequence[Trial], test: Trial) -> float:
    """:func:`shape_gap` from the test walk's shape to familiarization's median shape (each
    feature's median over the trials, so one familiar walk repeated is not a match by itself)."""
    shapes = [walk_shape(t).as_tuple() for t in familiarization]
    if not shapes:
        return 0.0
    median = tuple(float(v) for v in np.median(np.asarray(shapes), axis=0))
    return shape_gap(walk_shape(test), median)


RATINGS: dict[str, Callable[[Sequence[Trial], Trial], float]] = {
    "control-novelty": novelty, "control-duration": duration, "control-speed": speed_change,
    "control-contrast": contrast, "control-path-shape": path_shape_change,
}


class ControlObserver(Observer[EpisodeView[Trial]]):
    """One rating per test trial (a single step): its control's rating function."""

    benchmark = "bib"

    def __init__(self, name: str) -> None:
        self.name = name
        self._rate = RATINGS[name]

    def surprise_per_step(self, episode: EpisodeView[Trial]) -> np.ndarray:
        return np.asarray([self._rate(episode.familiarization, episode.test)], dtype=float)


for _name in RATINGS:
    register_observer("bib", _name)(partial(ControlObserver, _name))


CONTROLS: tuple[str, ...] = tuple(RATINGS)


@dataclass(frozen=True)
class Implied:
    """A cue the paper's design implies on one sub-evaluation: which way it points (``high``:
    it picks the unexpected test; ``low``: the expected one), the paper's reason, and the
    paper's own sub-evaluation where the same cue is at chance ("" for a cue that points to
    the expected test: following it scores below chance, it cannot pass for reasoning)."""

    direction: str
    reason: str
    neutralised_by: str


_NOVEL_GOAL = Implied(
    "low", "the walled-in preferred object is new at test (paper sec. 1: 'the unexpected "
    "outcome is typically perceptually similar to the events in the familiarization while the "
    "expected outcome is typically more perceptually different')", "")
_BARRIER_GONE = Implied(
    "high", "the rational familiarization's barrier is gone at test, so that its path is "
    "inefficient; the irrational one never had it (sec. 2.5)", "efficiency_path (both tests "
    "lose the barrier)")
_KEY_TAKES_LONGER = Implied(
    "high", "fetching the key and unlocking take longer than going straight (sec. 2.4)",
    "instrumental_blocking_barrier (both outcomes fetch the key)")


def _familiar_walk(unexpected: str, expected: str, section: str) -> Implied:
    """A walk shape cue: the unexpected test walks as familiarization did, the expected one
    does not (it points to the expected test)."""
    return Implied("low", f"the unexpected test {unexpected}; the expected one {expected} "
                   f"({section}; sec. 1: 'the unexpected outcome is typically perceptually "
                   f"similar to the events in the familiarization')", "")


_DETOUR_AGAIN = _familiar_walk("repeats the familiar detour", "walks straight", "sec. 2.5")
_KEY_AGAIN = "fetches the key and unlocks, as every familiarization trial does"
DESIGN_IMPLIED: dict[tuple[str, str], Implied] = {
    ("control-path-shape", "preference"): _familiar_walk(
        "walks one familiarization walk again, to the familiar place",
        "walks to the other object's place, where no familiarization walk went", "sec. 2.1"),
    ("control-path-shape", "efficiency_path"): _DETOUR_AGAIN,
    ("control-path-shape", "efficiency_time"): _DETOUR_AGAIN,
    ("control-path-shape", "instrumental_no_barrier"): _familiar_walk(
        _KEY_AGAIN, "goes straight to the goal", "sec. 2.4"),
    ("control-path-shape", "instrumental_inconsequential_barrier"): _familiar_walk(
        _KEY_AGAIN, "goes round the open barrier to the goal", "sec. 2.4"),
    ("control-novelty", "inaccessible_goal"): _NOVEL_GOAL,
    ("control-contrast", "inaccessible_goal"): _NOVEL_GOAL,
    ("control-novelty", "efficiency_irrational"): _BARRIER_GONE,
    ("control-contrast", "efficiency_irrational"): _BARRIER_GONE,
    ("control-duration", "efficiency_path"): Implied(
        "high", "the familiar detour is longer than the straight path (sec. 2.5)",
        "efficiency_time (the paper's time control)"),
    ("control-duration", "instrumental_no_barrier"): _KEY_TAKES_LONGER,
    ("control-duration", "instrumental_inconsequential_barrier"): _KEY_TAKES_LONGER,
    ("control-speed", "efficiency_time"): Implied(
        "low", "the same time over a shorter path (Fig. 13: 'the time taken by the agent to "
        "reach the goal in the expected and unexpected cases is the same'): the expected agent "
        "walks slower (generator --time-control slow) or pauses (pauses)",
        "efficiency_path (both walk at 2 px/frame)"),
}


def chance_band(observer: str, task: str, pairs: int) -> tuple[float, float] | None:
    """Where a control must score on a sub-evaluation whose design does not imply its cue:
    chance, within the two-sided 95 % sampling margin of ``pairs`` pairs (exactly 50 % when
    the two tests tie, as most do). None: not a control, or the cue is design-implied."""
    if observer not in CONTROLS or (observer, task) in DESIGN_IMPLIED:
        return None
    margin = 1.96 * math.sqrt(0.25 / max(pairs, 1))
    return 0.5 - margin, 0.5 + margin

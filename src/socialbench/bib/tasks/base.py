"""What every task recipe shares: planning the agent's route on a layout and drawing the trial.

A recipe builds :class:`~socialbench.bib.world.Layout` objects and asks for trials here:

* :func:`go` - the rational agent walks its efficient path from home to one object;
* :func:`follow` - the agent walks given waypoints (a path planned on another layout);
* :func:`instrumental` - home -> key, carry the key to the lock, the lock and key vanish, the
  green barrier disappears cell by cell (over :data:`FUSE_REMOVAL_FRAMES`) while the agent
  waits, then on to the goal.

Each returns a :class:`Walk`: the typed :class:`~socialbench.bib.schema.Trial` and the facts a
task's audit needs (the route's length in px and its waypoints). Every frame of a trial shares
the same wall, object and home tuples, so building (and later writing) frames stays cheap.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from socialbench.bib import motion
from socialbench.bib.schema import CELL, FRAME_SIZE, Block, Frame, Sprite, Trial
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.validate import GOAL_TOUCH_PX
from socialbench.bib.world import (
    AGENT_HALF,
    BORDER,
    Icon,
    Layout,
    Resample,
    blocked_grid,
    home_icon,
)
from socialbench.core.grid_planning import plan_points

Point = tuple[float, float]
# Frames the barrier takes to disappear after unlocking, whatever its size (ours; bib spec: its
# cells are removed progressively over several frames while the agent waits). A fixed time keeps
# the agent's timing independent of the barrier's shape.
FUSE_REMOVAL_FRAMES = 24
# Ours: the agent moves at least once (an object "right next to the start" in the background
# tasks can be touched from home; such a trial would have no motion, 114 frames). One move gives
# the released minimum of 31 + 84 = 115 frames (validate.MIN_TRIAL_FRAMES).
MIN_MOVING_FRAMES = 1


@dataclass
class Walk:
    """One drawn trial and its route: waypoints walked and their length in px."""

    trial: Trial
    waypoints: list[list[Point]]  # one list per leg (one leg, or three for the instrumental)
    length: float = field(default=0.0)


@dataclass
class Built:
    """A recipe's output: the trials of the expected (and unexpected) episode, and its facts.

    ``unexpected`` is None for background training tasks (expected outcomes only). ``meta``
    holds the design facts and numbers written to ``_meta/`` for auditing; it never enters an
    episode file.
    """

    expected: list[Trial]
    unexpected: list[Trial] | None
    meta: dict


@dataclass(frozen=True)
class Recipe:
    """A task: its folder, its 2-letter file code and the function that builds one episode."""

    name: str
    code: str
    split: str  # "eval" or "train"
    build: Callable[[np.random.Generator, ShapeSet, int], Built]

    @property
    def doc(self) -> str:
        """The task module's docstring: what familiarization shows, what e and u test."""
        return (sys.modules[self.build.__module__].__doc__ or "").strip()


def plan(layout: Layout, start: Point, goal: Point, *, with_fuse: bool = True) -> list[Point]:
    """The efficient waypoints from ``start`` to ``goal``; :class:`Resample` when unreachable."""
    walls = (*layout.walls, *layout.fuse) if with_fuse else layout.walls
    points = _planned(frozenset(walls), tuple(start), tuple(goal))
    if points is None:
        raise Resample("goal unreachable")
    return list(points)


@lru_cache(maxsize=1024)
def _planned(walls: frozenset[tuple[int, int]], start: Point,
             goal: Point) -> tuple[Point, ...] | None:
    """Planning, cached per layout's blocked cells: recipes re-plan the same legs (a reachability
    check, then the walk; a pair's two tests)."""
    points = plan_points(blocked_grid(walls), start, goal, half=AGENT_HALF, cell=CELL)
    return None if points is None else tuple(points)


def go(layout: Layout, goal: int, *, step: float = motion.STEP_PX) -> Walk:
    """The agent walks its efficient path from home to ``layout.objects[goal]``."""
    target = layout.objects[goal].centre
    return follow(layout, plan(layout, layout.home, target), goal, step=step)


def follow(layout: Layout, waypoints: Sequence[Point], goal: int, *,
           step: float = motion.STEP_PX) -> Walk:
    """The agent walks ``waypoints`` (starting at home) until it touches object ``goal``."""
    moves = motion.walk(waypoints, step=step, goal=layout.objects[goal].centre)
    if len(moves) < MIN_MOVING_FRAMES:
        raise Resample("the agent starts touching its goal")
    _check_clear_of_others(layout, moves, goal)
    track = motion.trial_track(layout.home, [moves])
    return Walk(draw(layout, track), [list(waypoints)], _walked(layout.home, moves))


def instrumental(layout: Layout, goal: int, *, key_route: Sequence[Point] | None = None,
                 lock_route: Sequence[Point] | None = None) -> Walk:
    """Home -> key -> (carrying it) lock -> the barrier vanishes -> goal object.

    ``key_route`` / ``lock_route`` replace the planned legs (a pair's two tests share them).
    """
    assert layout.key is not None and layout.lock is not None
    to_key = list(key_route) if key_route is not None else plan(layout, layout.home,
                                                                layout.key.centre)
    leg1 = motion.walk(to_key, goal=layout.key.centre)
    if not len(leg1):
        raise Resample("the agent starts touching the key")
    at_key = _last(leg1, layout.home)
    offset = (layout.key.centre[0] - at_key[0], layout.key.centre[1] - at_key[1])
    to_lock = list(lock_route) if lock_route is not None else plan(layout, at_key,
                                                                   layout.lock.centre)
    leg2 = motion.walk(to_lock, first=None, goal=layout.lock.centre)
    at_lock = _last(leg2, at_key)
    # The lock and key vanish on the frame after arrival; the barrier then goes cell by cell,
    # nearest to the lock first, while the agent waits.
    order = sorted(layout.fuse, key=lambda c: (abs(c[0] * CELL + CELL / 2 - layout.lock.centre[0])
                                               + abs(c[1] * CELL + CELL / 2
                                                     - layout.lock.centre[1]), c))
    wait = motion.hold(at_lock, FUSE_REMOVAL_FRAMES)
    to_goal = plan(layout, at_lock, layout.objects[goal].centre, with_fuse=False)
    leg3 = motion.walk(to_goal, first=None, goal=layout.objects[goal].centre)
    track = motion.trial_track(layout.home, [leg1, leg2, wait, leg3])

    n = len(track)
    start2 = motion.HOME_FRAMES + len(leg1)  # first frame of the carry
    inserted = start2 + len(leg2)  # first frame without lock and key
    key_centres: list[tuple[int, int] | None] = [layout.key.centre] * start2
    key_centres += [(int(p[0] + offset[0]), int(p[1] + offset[1])) for p in track[start2:inserted]]
    key_centres += [None] * (n - inserted)
    cells = len(order)
    fuse_left = [cells] * inserted + [
        cells - min(cells, (k + 1) * cells // FUSE_REMOVAL_FRAMES) for k in range(n - inserted)]
    trial = draw(layout, track, key_centres=key_centres, lock_until=inserted,
                 fuse_order=order, fuse_left=fuse_left)
    length = _walked(layout.home, np.concatenate([leg1, leg2, leg3]))
    return Walk(trial, [to_key, to_lock, to_goal], length)


def _check_clear_of_others(layout: Layout, moves: np.ndarray, goal: int) -> None:
    """:class:`Resample` when the agent would touch a non-goal object on its way (or at its
    end): which object it went to would then be ambiguous (validate: touches exactly one)."""
    track = np.vstack([np.asarray(layout.home, dtype=float)[None], moves])
    for k, other in enumerate(layout.objects):
        if k != goal:
            gap = np.hypot(track[:, 0] - other.centre[0], track[:, 1] - other.centre[1]).min()
            if gap <= GOAL_TOUCH_PX:
                raise Resample("the path touches a non-goal object")


def _last(moves: np.ndarray, default: Point) -> tuple[int, int]:
    if len(moves):
        return int(moves[-1][0]), int(moves[-1][1])
    return int(default[0]), int(default[1])


def _walked(start: Point, moves: np.ndarray) -> float:
    if not len(moves):
        return 0.0
    pts = np.vstack([np.asarray(start, dtype=float)[None], moves.astype(float)])
    return float(np.hypot(*np.diff(pts, axis=0).T).sum())


def _sprite(icon: Icon, centre: Sequence[int] | None = None) -> Sprite:
    cx, cy = icon.centre if centre is None else centre
    return _sprite_at(icon.half, icon.path, icon.color, int(cx), int(cy))


@lru_cache(maxsize=8192)
def _sprite_at(half: int, path: str, color: tuple[int, int, int], cx: int, cy: int) -> Sprite:
    """Equal sprites are one object (cached): writers and renderers then cache by identity."""
    return Sprite(cx - half, cy - half, half, path, color)


def _blocks(cells: Sequence[tuple[int, int]]) -> tuple[Block, ...]:
    return _blocks_of(tuple(cells))


@lru_cache(maxsize=1024)
def _blocks_of(cells: tuple[tuple[int, int], ...]) -> tuple[Block, ...]:
    """Equal block lists are one tuple (cached), e.g. an episode's walls in all its trials."""
    return tuple(Block(c[0] * CELL, c[1] * CELL) for c in cells)


def _frame(**fields: Any) -> Frame:
    """``Frame(**fields)`` with every field given, ~3x faster: a frozen dataclass's ``__init__``
    sets each field through ``object.__setattr__`` (a trial builds ~80 distinct frames)."""
    frame = object.__new__(Frame)
    frame.__dict__.update(fields)
    return frame


def draw(layout: Layout, track: np.ndarray, *, key_centres: Sequence | None = None,
         lock_until: int | None = None, fuse_order: Sequence[tuple[int, int]] | None = None,
         fuse_left: Sequence[int] | None = None) -> Trial:
    """Frames for an agent track on a layout (plus the key, lock and barrier's changes)."""
    walls = _blocks([*layout.walls, *BORDER])  # released order: random cells, then the ring
    objects = tuple(_sprite(o) for o in layout.objects)
    home = _sprite(home_icon(layout.home))
    # The barrier keeps the layout's cell order in every frame; ``fuse_order`` is the order its
    # cells are removed in, ``fuse_left[i]`` how many are left in frame i.
    order = list(fuse_order) if fuse_order is not None else list(layout.fuse)
    fuse_by_count = {len(order): _blocks(layout.fuse)}
    lock = (_sprite(layout.lock),) if layout.lock is not None else ()
    key_icon_ = layout.key
    agent_cache: dict[tuple[int, int], Sprite] = {}
    key_cache: dict[tuple[int, int], tuple[Sprite, ...]] = {}
    # Equal states share one Frame object (the home and hold frames are most of a trial), which
    # saves building them and lets writers and renderers cache by identity.
    frame_cache: dict[tuple, Frame] = {}
    n_fuse = len(order)
    n = len(track)
    # Only where the state changes is a frame built: runs of equal states (home, waiting,
    # holding) repeat one Frame object.
    columns = [np.asarray(track, dtype=np.int64)]
    if fuse_left is not None:
        columns.append(np.asarray(fuse_left, dtype=np.int64)[:, None])
    if key_centres is not None:
        columns.append(np.array([c if c is not None else (-1, -1) for c in key_centres],
                                dtype=np.int64).reshape(n, 2))
    if lock_until is not None:
        columns.append((np.arange(n) < lock_until)[:, None].astype(np.int64))
    states = np.hstack(columns)
    starts = [0, *(np.flatnonzero((states[1:] != states[:-1]).any(axis=1)) + 1).tolist()]
    points = track.tolist()
    frames: list[Frame] = []
    if fuse_left is None and key_centres is None and lock_until is None:
        # Only the agent moves (most trials): a run's state is its position, and every frame
        # shares the same barrier, key and lock.
        fuse = fuse_by_count[n_fuse]
        keys = (_sprite(key_icon_, key_icon_.centre),) if key_icon_ is not None else ()
        by_point: dict[tuple[int, int], Frame] = {}
        for start, end in zip(starts, [*starts[1:], n], strict=True):
            point = tuple(points[start])
            frame = by_point.get(point)
            if frame is None:
                frame = by_point[point] = _frame(
                    walls=walls, objects=objects, agent=_sprite(layout.agent, point), home=home,
                    fuse_walls=fuse, key=keys, lock=lock, blocking=(), size=FRAME_SIZE)
            frames.extend([frame] * (end - start))
        return Trial(frames)
    for start, end in zip(starts, [*starts[1:], n], strict=True):
        x, y = points[start]
        left = n_fuse if fuse_left is None else fuse_left[start]
        kc = None
        if key_icon_ is not None:
            kc = key_icon_.centre if key_centres is None else key_centres[start]
        locked = lock_until is None or start < lock_until
        state = (x, y, left, kc, locked)
        frame = frame_cache.get(state)
        if frame is None:
            agent = agent_cache.get((x, y))
            if agent is None:
                agent = agent_cache[(x, y)] = _sprite(layout.agent, (x, y))
            fuse = fuse_by_count.get(left)
            if fuse is None:
                removed = set(order[:n_fuse - left])
                fuse = fuse_by_count[left] = _blocks([c for c in layout.fuse if c not in removed])
            keys: tuple[Sprite, ...] = ()
            if kc is not None:
                keys = key_cache.get(kc) or key_cache.setdefault(kc, (_sprite(key_icon_, kc),))
            frame = frame_cache[state] = _frame(
                walls=walls, objects=objects, agent=agent, home=home, fuse_walls=fuse, key=keys,
                lock=lock if locked else (), blocking=(), size=FRAME_SIZE)
        frames.extend([frame] * (end - start))
    return Trial(frames)

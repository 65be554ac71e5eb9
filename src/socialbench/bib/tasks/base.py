"""What every task recipe shares: planning the agent's route on a layout and drawing the trial.

A recipe builds :class:`~socialbench.bib.world.Layout` objects and asks for trials here:

* :func:`go` - the rational agent walks its efficient path from home to one object;
* :func:`follow` - the agent walks given waypoints (a path planned on another layout);
* :func:`instrumental` - home -> key, carry the key to the lock, the lock and key vanish, the
  green barrier disappears cell by cell (over :data:`FUSE_REMOVAL_FRAMES`) while the agent
  waits (no wait without a barrier), then on to the goal.

Each returns a :class:`Walk`: the typed :class:`~socialbench.bib.schema.Trial` and the facts a
task's audit needs (the route's length in px and its waypoints). Every frame of a trial shares
the same wall, object and home tuples, so building (and later writing) frames stays cheap.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache

import numpy as np

from socialbench.bib import motion, style
from socialbench.bib.schema import CELL, FRAME_SIZE, Block, Frame, Run, Sprite, Trial
from socialbench.bib.shapes import ShapeSet
from socialbench.bib.validate.episode import GOAL_TOUCH_PX
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
           step: float = motion.STEP_PX, frames: int | None = None) -> Walk:
    """The agent walks ``waypoints`` (starting at home) until it touches object ``goal``.

    With ``frames``, still frames spread along the walk make the trial that long
    (:func:`motion.spread_pauses`; the efficiency time control's ``pauses``)."""
    moves = motion.walk(waypoints, step=step, goal=layout.objects[goal].centre,
                        turn_first=style.current().turn_step)
    if len(moves) < MIN_MOVING_FRAMES:
        raise Resample("the agent starts touching its goal")
    if frames is not None:
        moving = frames - motion.HOME_FRAMES - (motion.HOLD_FRAMES - 1)
        if moving < len(moves) or len(moves) < 2:
            raise Resample("the walk cannot be paced to the asked length")
        moves = motion.spread_pauses(moves, moving)
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
    turn = style.current().turn_step
    leg1 = motion.walk(to_key, goal=layout.key.centre, turn_first=turn)
    if not len(leg1):
        raise Resample("the agent starts touching the key")
    at_key = _last(leg1, layout.home)
    offset = (layout.key.centre[0] - at_key[0], layout.key.centre[1] - at_key[1])
    to_lock = list(lock_route) if lock_route is not None else plan(layout, at_key,
                                                                   layout.lock.centre)
    leg2 = motion.walk(to_lock, first=None, goal=layout.lock.centre, turn_first=turn)
    at_lock = _last(leg2, at_key)
    # The lock and key vanish on the frame after arrival; the barrier then goes cell by cell,
    # nearest to the lock first, while the agent waits. With no barrier there is nothing to
    # wait for: the agent goes on at once (a pause at a lock that guards nothing would tell
    # the no-barrier test's unexpected video apart by itself).
    order = sorted(layout.fuse, key=lambda c: (abs(c[0] * CELL + CELL / 2 - layout.lock.centre[0])
                                               + abs(c[1] * CELL + CELL / 2
                                                     - layout.lock.centre[1]), c))
    wait = motion.hold(at_lock, FUSE_REMOVAL_FRAMES if layout.fuse else 0)
    to_goal = plan(layout, at_lock, layout.objects[goal].centre, with_fuse=False)
    leg3 = motion.walk(to_goal, first=None, goal=layout.objects[goal].centre, turn_first=turn)
    track = motion.trial_track(layout.home, [leg1, leg2, wait, leg3])

    start2 = motion.HOME_FRAMES + len(leg1)  # first frame of the carry
    inserted = start2 + len(leg2)  # first frame without lock and key
    cells = len(order)
    fuse_left = [cells] * inserted + [
        cells - min(cells, (k + 1) * cells // FUSE_REMOVAL_FRAMES)
        for k in range(len(track) - inserted)]
    trial = draw(layout, track, carry=(start2, inserted, offset), fuse_order=order,
                 fuse_left=fuse_left)
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
    return tuple(map(_block_at, cells))


@cache
def _block_at(cell: tuple[int, int]) -> Block:
    """One Block object per cell (frozen, so shared safely): mazes redrawn every trial reuse
    them instead of making ~40 new ones each time."""
    return Block(cell[0] * CELL, cell[1] * CELL)


def draw(layout: Layout, track: np.ndarray, *,
         carry: tuple[int, int, tuple[int, int]] | None = None,
         fuse_order: Sequence[tuple[int, int]] | None = None,
         fuse_left: Sequence[int] | None = None) -> Trial:
    """The trial of an agent track (icon centres, one row per frame) on a layout, as runs.

    ``carry = (first, gone, offset)``: from frame ``first`` the key moves with the agent (its
    centre the agent's plus ``offset``); from frame ``gone`` on, the key and the lock are gone.
    ``fuse_order`` is the order the barrier's cells are removed in, ``fuse_left[i]`` how many
    are left in frame ``i`` (the barrier keeps the layout's cell order in every frame).
    """
    walls = _blocks([*layout.walls, *BORDER])  # released order: random cells, then the ring
    objects = tuple(_sprite(o) for o in layout.objects)
    home = _sprite(home_icon(layout.home))
    lock = (_sprite(layout.lock),) if layout.lock is not None else ()
    key_icon_ = layout.key
    static_key = (_sprite(key_icon_),) if key_icon_ is not None else ()
    n = len(track)
    order = list(fuse_order) if fuse_order is not None else list(layout.fuse)
    left = np.full(n, len(order), dtype=np.int64) if fuse_left is None else np.asarray(fuse_left)
    # A run starts where anything but the agent changes: the carry's start and end, and each
    # removal of barrier cells.
    starts = {0, *(np.flatnonzero(left[1:] != left[:-1]) + 1).tolist()}
    if carry is not None:
        starts |= {carry[0], carry[1]}
    bounds = sorted(i for i in starts if i < n)
    corners = np.asarray(track, dtype=np.int64) - layout.agent.half
    runs = []
    for start, end in zip(bounds, [*bounds[1:], n], strict=True):
        keys, key_offset, locks = static_key, None, lock
        if carry is not None and start >= carry[1]:
            keys, locks = (), ()
        elif carry is not None and start >= carry[0]:
            assert key_icon_ is not None
            dx, dy = carry[2]
            cx, cy = track[start]
            keys = (_sprite(key_icon_, (int(cx + dx), int(cy + dy))),)
            key_offset = (int(layout.agent.half + dx - key_icon_.half),
                          int(layout.agent.half + dy - key_icon_.half))
        kept = int(left[start])
        removed = set(order[:len(order) - kept])
        fuse = _blocks([c for c in layout.fuse if c not in removed])
        template = Frame(walls=walls, objects=objects, agent=_sprite(layout.agent, track[start]),
                         home=home, fuse_walls=fuse, key=keys, lock=locks, blocking=(),
                         size=FRAME_SIZE)
        runs.append(Run(template, corners[start:end], key_offset))
    return Trial(runs=runs)

"""What a BIB observer sees of a trial, reduced to what reasoning about agents needs.

A :class:`TrialView` holds the layout at the trial's first frame (wall cells, green barrier
cells, objects, key, lock), the agent's identity and its path, and the path resampled into
*waypoints*: a new waypoint each time the agent has moved one cell (20 px) from the last one.
Resampling by distance, not by time, keeps the step direction meaningful (the released files'
first move is a 1-px step, and agents wait while a barrier fades) and makes the rating
independent of speed; the released baseline likewise looked only every 10 frames (about one
cell at 2 px per frame; bib spec).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from socialbench.bib.schema import CELL, GRID, Block, Frame, Sprite, Trial
from socialbench.voe.observer import EpisodeView

WAYPOINT_PX = 20.0  # one cell: ~10 frames at the released 2 px/frame (bib spec, baseline query)
END_PX = 6.0  # a last partial step shorter than this (the final approach) is not a step


@dataclass(frozen=True)
class Thing:
    """An object, key or lock: its shape name and centre (px, y up)."""

    shape: str
    centre: tuple[float, float]


@dataclass
class TrialView:
    """One trial as an observer reasons about it (see the module docstring)."""

    walls: np.ndarray  # bool [col, row-from-bottom], black walls (border included)
    fuse: np.ndarray  # bool [col, row], the green removable barrier at the first frame
    objects: list[Thing]
    key: Thing | None
    lock: Thing | None
    agent: str
    path: np.ndarray  # (frames, 2) agent centre per frame
    waypoints: np.ndarray  # (k, 2) resampled path, the start first
    waypoint_frames: np.ndarray  # (k,) the frame index of each waypoint
    fuse_at: list[np.ndarray]  # the barrier at each waypoint's frame (it fades in instrumental)
    key_at: list[tuple[float, float] | None]  # the key's centre at each waypoint's frame
    lock_at: list[tuple[float, float] | None]  # the lock's centre (None once the key is in)

    @property
    def start(self) -> tuple[float, float]:
        return float(self.path[0, 0]), float(self.path[0, 1])

    @property
    def end(self) -> tuple[float, float]:
        return float(self.path[-1, 0]), float(self.path[-1, 1])

    def reached(self) -> int | None:
        """Index of the object the agent ends nearest to (its goal), None without objects."""
        if not self.objects:
            return None
        end = np.asarray(self.end)
        return int(np.argmin([np.hypot(*(np.asarray(o.centre) - end)) for o in self.objects]))


def _cells(blocks: Iterable[Block]) -> np.ndarray:
    grid = np.zeros((GRID, GRID), dtype=bool)
    for b in blocks:
        col, row = b.cell
        if 0 <= col < GRID and 0 <= row < GRID:
            grid[col, row] = True
    return grid


def _thing(sprites: Sequence[Sprite]) -> Thing | None:
    return Thing(sprites[0].name, sprites[0].center) if sprites else None


def resample(path: np.ndarray, step: float = WAYPOINT_PX, end: float = END_PX,
             breaks: frozenset[int] | set[int] = frozenset()) -> tuple[np.ndarray, np.ndarray]:
    """Waypoints every ``step`` px of displacement along ``path`` (and the end if >= ``end``).

    At a frame in ``breaks`` (the scene changed: key picked up, lock used, barrier shrinking,
    the agent moving again after a wait) a waypoint is forced, so that no step straddles two
    situations; if the agent has not moved since the last waypoint, that waypoint's frame moves
    forward instead (its step is then judged in the newest situation).
    Returns the waypoints and, for each, the frame whose state its next step is judged in.
    """
    keep = [0]
    last = path[0]
    for i in range(1, len(path)):
        moved = float(np.hypot(*(path[i] - last)))
        if moved >= step:
            keep.append(i)
            last = path[i]
        elif i in breaks:
            if moved < 2.0:
                keep[-1] = i
            else:
                keep.append(i)
                last = path[i]
    if len(path) > 1 and keep[-1] != len(path) - 1 and np.hypot(*(path[-1] - last)) >= end:
        keep.append(len(path) - 1)
    index = np.asarray(keep)
    return path[index], index


def events(frames: list[Frame], path: np.ndarray) -> set[int]:
    """Frames where the situation changes: key, lock or barrier change, or motion resumes."""
    out: set[int] = set()
    for i in range(1, len(frames)):
        a, b = frames[i - 1], frames[i]
        if (len(a.fuse_walls) != len(b.fuse_walls) or bool(a.key) != bool(b.key)
                or bool(a.lock) != bool(b.lock)):
            out.add(i)
        if i >= 2 and _starts_moving(path[i - 2], path[i - 1], path[i]):
            out.add(i - 1)  # the last still frame before the agent moves again
        if (i >= 2 and a.key and b.key and frames[i - 2].key
                and _starts_moving(frames[i - 2].key[0].center, a.key[0].center,
                                   b.key[0].center)):
            out.add(i - 1)  # the key is picked up
    return out


def _starts_moving(before: Sequence[float], now: Sequence[float],
                   after: Sequence[float]) -> bool:
    return tuple(before) == tuple(now) and tuple(now) != tuple(after)


def view_trial(trial: Trial) -> TrialView:
    """Build the :class:`TrialView` of one trial (frames without an agent are skipped)."""
    frames: list[Frame] = [f for f in trial.frames if f.agent is not None]
    if not frames:
        raise ValueError("a trial without any agent position cannot be rated")
    first = frames[0]
    path = np.asarray([f.agent.center for f in frames], dtype=float)
    waypoints, index = resample(path, breaks=events(frames, path))
    fuse_cache: dict[int, np.ndarray] = {}

    def fuse_of(frame: Frame) -> np.ndarray:
        key = id(frame.fuse_walls)
        if key not in fuse_cache:
            fuse_cache[key] = _cells(frame.fuse_walls)
        return fuse_cache[key]

    return TrialView(
        walls=_cells(first.walls), fuse=_cells(first.fuse_walls),
        objects=[Thing(o.name, o.center) for o in first.objects],
        key=_thing(first.key), lock=_thing(first.lock), agent=first.agent.name,
        path=path, waypoints=waypoints, waypoint_frames=index,
        fuse_at=[fuse_of(frames[i]) for i in index],
        key_at=[frames[i].key[0].center if frames[i].key else None for i in index],
        lock_at=[frames[i].lock[0].center if frames[i].lock else None for i in index])


def view_episode(episode: EpisodeView[Trial]) -> list[TrialView]:
    """The views of all trials, familiarization first, the test last."""
    return [view_trial(t) for t in episode.trials]


def cell_of(point: tuple[float, float] | np.ndarray) -> tuple[int, int]:
    return int(point[0] // CELL), int(point[1] // CELL)

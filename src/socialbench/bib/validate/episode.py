"""The rules one BIB episode must follow on its own (see :mod:`socialbench.bib.validate`).

A trial is checked as *segments*: runs of frames equal but for the agent's place (a generated
trial's runs, or frames of a read file sharing their other fields). The agent's square is
tested against walls and barriers through an occupancy grid of whole cells.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter

import numpy as np

from socialbench.bib.schema import (
    CELL,
    FRAME_SIZE,
    GRID,
    N_TRIALS,
    Block,
    Episode,
    Frame,
    Sprite,
    Trial,
)

HOME_FRAMES = 31  # bib spec, measured: the agent sits on home for the first 31 frames
HOLD_FRAMES = 84  # bib spec, measured: the agent holds at its goal for the last 84 frames
MAX_STEP_PX = 2  # bib spec, measured: at most 2 px per axis per frame
GOAL_TOUCH_PX = 13.0  # bib spec: centre distance 7-12.5 px at the end; +0.5 for rounding
MIN_TRIAL_FRAMES = HOME_FRAMES + HOLD_FRAMES  # ours: one move (its frame is the first held)
MAX_TRIAL_FRAMES = 1_000  # ours: released trials are 136-160 frames; instrumental ones are longer


def _border_ring() -> set[tuple[int, int]]:
    last = (GRID - 1) * CELL
    return {(x, y) for x in range(0, GRID * CELL, CELL) for y in range(0, GRID * CELL, CELL)
            if x in (0, last) or y in (0, last)}


BORDER_RING = frozenset(_border_ring())


def _box_array(blocks: tuple[Block, ...]) -> np.ndarray:
    """``(n, 4)`` rows ``x0, y0, x1, y1`` of blocks."""
    if not blocks:
        return np.empty((0, 4))
    return np.array([(b.x, b.y, b.x + b.width, b.y + b.height) for b in blocks], dtype=float)


@dataclass
class _Segments:
    """A trial as segments of consecutive frames equal but for the agent's place (a generated
    trial's runs; for a list of frames, runs of frames sharing their other fields' objects).

    ``templates[k]`` is segment ``k``'s first frame, ``starts[k]`` its first frame index;
    ``xy`` and ``half`` give the agent's corner and half-side in every frame.
    """

    templates: list[Frame]
    starts: list[int]
    xy: np.ndarray
    half: np.ndarray
    last: Frame

    @property
    def ends(self) -> list[int]:
        return [*self.starts[1:], len(self.xy)]


_STATIC_FIELDS = attrgetter("walls", "fuse_walls", "key", "lock", "objects", "blocking", "home",
                            "size")


def _segments(trial: Trial) -> _Segments:
    """The trial's segments; every frame must have an agent (checked before)."""
    runs = trial.runs
    if runs is not None:
        starts = np.cumsum([0, *(len(r) for r in runs)])[:-1].tolist()
        xy = np.concatenate([r.xy for r in runs]).astype(float)
        half = np.concatenate([np.full(len(r), r.template.agent.half, dtype=float)  # type: ignore[union-attr]
                               for r in runs])
        return _Segments([r.template for r in runs], starts, xy, half, runs[-1].frame(-1))
    frames = trial.frames
    templates, starts = [], []
    previous: tuple | None = None
    for f, frame in enumerate(frames):
        agent = frame.agent
        key = (*map(id, _STATIC_FIELDS(frame)), agent.half, agent.shape, agent.color)  # type: ignore[union-attr]
        if key != previous:
            templates.append(frame)
            starts.append(f)
            previous = key
    unique: dict[int, tuple[float, float, float]] = {}
    for frame in frames:
        a = frame.agent
        if id(a) not in unique:
            unique[id(a)] = (a.x, a.y, a.half)  # type: ignore[union-attr]
    track = np.array([unique[id(fr.agent)] for fr in frames], dtype=float)
    return _Segments(templates, starts, track[:, :2], track[:, 2], frames[-1])


def _first_overlaps(trials: list[_Segments]) -> list[str | None]:
    """For each trial, its first frame whose agent square overlaps a wall, barrier or blocking
    cell (touching is allowed), as ``"frame F: the agent overlaps the KIND at (x, y)"``, or None.

    All the trials' frames are checked together: segments sharing a block tuple (all of a
    pair's walls, often; a barrier between two removals) are looked up in one pass.
    """
    lengths = [len(t.xy) for t in trials]
    offsets = np.cumsum([0, *lengths])
    squares = _Squares(np.concatenate([t.xy for t in trials]),
                       2 * np.concatenate([t.half for t in trials]))
    trial_of_frame = np.repeat(np.arange(len(trials)), lengths)
    spans = [(int(offsets[k]) + start, int(offsets[k]) + end)
             for k, t in enumerate(trials) for start, end in zip(t.starts, t.ends, strict=True)]
    templates = [template for t in trials for template in t.templates]
    first: list[tuple[int, str] | None] = [None] * len(trials)
    for kind, name in (("wall", "walls"), ("fuse wall", "fuse_walls"),
                       ("blocking cell", "blocking")):
        groups: dict[int, list[int]] = {}
        values: dict[int, tuple[Block, ...]] = {}
        for k, value in enumerate(map(attrgetter(name), templates)):
            if value:
                groups.setdefault(id(value), []).append(k)
                values[id(value)] = value
        for key, members in groups.items():
            blocks = values[key]
            rows = np.concatenate([np.arange(*spans[k]) for k in members])  # increasing
            hit_rows = rows[squares.overlapping(blocks, rows)]
            hit_trials, firsts = np.unique(trial_of_frame[hit_rows], return_index=True)
            for k, row in zip(hit_trials.tolist(), hit_rows[firsts].tolist(), strict=True):
                frame = row - int(offsets[k])
                if first[k] is None or frame < first[k][0]:  # type: ignore[index]
                    b = _box_array(blocks)
                    (x0, y0), (x1, y1) = squares.xy[row], squares.xy[row] + squares.side[row]
                    col = int(np.argmax((x0 < b[:, 2]) & (b[:, 0] < x1) & (y0 < b[:, 3])
                                        & (b[:, 1] < y1)))
                    first[k] = (frame, f"{kind} at ({blocks[col].x}, {blocks[col].y})")
    return [None if hit is None else f"frame {hit[0]}: the agent overlaps the {hit[1]}"
            for hit in first]


def _first_overlap(segments: _Segments) -> str | None:
    """:func:`_first_overlaps` of one trial."""
    return _first_overlaps([segments])[0]


_PADDED = GRID + 2  # the occupancy grid's side: the cells and a one-cell margin all round


def _wall_facts(walls: tuple[Block, ...]) -> tuple[int, Block | None]:
    """How many border-ring cells the walls lack, and the first wall that is not a grid cell."""
    lacking = len(BORDER_RING - {(b.x, b.y) for b in walls})
    off_grid = next((b for b in walls if b.x % CELL or b.y % CELL
                     or (b.width, b.height) != (CELL, CELL)), None)
    return lacking, off_grid


def _occupancy(blocks: tuple[Block, ...]) -> np.ndarray | None:
    """The cells the blocks fill (flat, ``_PADDED`` x ``_PADDED``: a one-cell margin all round),
    or None when a block is not a whole grid cell."""
    b = _box_array(blocks)
    cells = b[:, :2] // CELL
    whole = bool((b[:, :2] % CELL == 0).all() and (b[:, 2:] - b[:, :2] == CELL).all()
                 and ((cells >= 0) & (cells < GRID)).all())
    if not whole:
        return None
    occupied = np.zeros(_PADDED * _PADDED, dtype=bool)
    occupied[(cells[:, 1].astype(int) + 1) * _PADDED + cells[:, 0].astype(int) + 1] = True
    return occupied


class _Squares:
    """The agent's squares over a trial (corner ``xy``, side ``side``), to test against blocks.

    Blocks that are whole grid cells (all walls are) are looked up in an occupancy grid: a
    square no wider than a cell covers at most 2 x 2 cells, found once for all block tuples.
    Other blocks, or wider squares, are compared with every block.
    """

    def __init__(self, xy: np.ndarray, side: np.ndarray) -> None:
        self.xy, self.side = xy, side
        self.cells: np.ndarray | None = None  # (frames, 4): the flat cells a square covers
        if len(side) and side.min() > 0 and side.max() <= CELL:
            # Cell c spans [20c, 20c + 20): a square [x0, x1) overlaps it when c is between
            # floor(x0 / 20) and ceil(x1 / 20) - 1.
            lo = np.clip(np.floor(xy / CELL), -1, GRID).astype(int) + 1
            hi = np.clip(np.ceil((xy + side[:, None]) / CELL) - 1, -1, GRID).astype(int) + 1
            self.cells = np.stack([lo[:, 1] * _PADDED + lo[:, 0], lo[:, 1] * _PADDED + hi[:, 0],
                                   hi[:, 1] * _PADDED + lo[:, 0], hi[:, 1] * _PADDED + hi[:, 0]],
                                  axis=1)

    def overlapping(self, blocks: tuple[Block, ...], rows: np.ndarray | slice) -> np.ndarray:
        """Positions within ``rows`` of the squares that overlap any block, in order."""
        occupied = _occupancy(blocks) if self.cells is not None else None
        if occupied is not None:
            return np.flatnonzero(occupied[self.cells[rows]].any(axis=1))  # type: ignore[index]
        b = _box_array(blocks)
        xy, side = self.xy[rows], self.side[rows]
        x0, y0 = xy[:, 0:1], xy[:, 1:2]
        x1, y1 = x0 + side[:, None], y0 + side[:, None]
        return np.flatnonzero(((x0 < b[:, 2]) & (b[:, 0] < x1) & (y0 < b[:, 3])
                               & (b[:, 1] < y1)).any(axis=1))


def _overlapping_rows(blocks: tuple[Block, ...], xy: np.ndarray, side: np.ndarray) -> np.ndarray:
    """Indices of the squares (corner ``xy``, side ``side``) that overlap any block, in order."""
    return _Squares(xy, side).overlapping(blocks, slice(None))


def _changes(segments: _Segments, name: str) -> int | None:
    """The first frame whose ``name`` field differs from the first frame's (None: constant)."""
    first = getattr(segments.templates[0], name)
    for start, template in zip(segments.starts, segments.templates, strict=True):
        value = getattr(template, name)
        if value is not first and value != first:
            return start
    return None


def _sprites_overlap(a: Sprite, b: Sprite) -> bool:
    return (a.x < b.x + 2 * b.half and b.x < a.x + 2 * a.half
            and a.y < b.y + 2 * b.half and b.y < a.y + 2 * a.half)


def check_trial(trial: Trial, t: int) -> list[str]:
    """The per-trial invariants (see the module docstring); ``t`` names the trial."""
    return check_trials([(trial, t)])[0]


def check_trials(trials: Sequence[tuple[Trial, int]]) -> list[list[str]]:
    """:func:`check_trial` of each (trial, name) pair; the trials' overlap tests run together."""
    early: dict[int, list[str]] = {}
    checked: list[tuple[int, _Segments]] = []
    for k, (trial, t) in enumerate(trials):
        n = len(trial)
        if not MIN_TRIAL_FRAMES <= n <= MAX_TRIAL_FRAMES:
            early[k] = [f"trial {t}: {n} frames, expected {MIN_TRIAL_FRAMES}-{MAX_TRIAL_FRAMES}"]
            continue
        if trial.runs is None:
            missing = [f for f, fr in enumerate(trial.frames) if fr.agent is None]
            if missing:
                early[k] = [f"trial {t} frame {missing[0]}: no agent ({len(missing)} frames "
                            "without one)"]
                continue
        checked.append((k, _segments(trial)))
    overlaps = _first_overlaps([segments for _, segments in checked]) if checked else []
    results = dict(early)
    for (k, segments), overlap in zip(checked, overlaps, strict=True):
        results[k] = _trial_problems(segments, f"trial {trials[k][1]}", overlap)
    return [results[k] for k in range(len(trials))]


def _trial_problems(segments: _Segments, where: str, overlap: str | None) -> list[str]:
    """A trial's problems in the module docstring's order, its overlap test done already."""
    n = len(segments.xy)
    problems: list[str] = []
    first = segments.templates[0]
    if tuple(first.size) != FRAME_SIZE:
        problems.append(f"{where}: frame size {first.size}, expected {FRAME_SIZE}")
    lacking, off_grid = _wall_facts(first.walls)
    if lacking:
        problems.append(f"{where}: the walls lack {lacking} border-ring cells")
    if off_grid is not None:
        problems.append(f"{where}: wall ({off_grid.x}, {off_grid.y}) is not a grid cell")
    for name, what in (("walls", "walls change"), ("objects", "objects change")):
        if (f := _changes(segments, name)) is not None:
            problems.append(f"{where} frame {f}: {what} within the trial")
    objects = first.objects
    for i in range(len(objects)):
        for j in range(i + 1, len(objects)):
            if _sprites_overlap(objects[i], objects[j]):
                problems.append(f"{where}: objects {i} and {j} overlap")
    shape0 = first.agent.shape  # type: ignore[union-attr]
    changed = next((s for s, fr in zip(segments.starts, segments.templates, strict=True)
                    if fr.agent.shape != shape0), None)  # type: ignore[union-attr]
    if changed is not None:
        problems.append(f"{where} frame {changed}: the agent's shape changes within the trial")
    # The agent's track as arrays: (x, y) bottom-left corners, half-sides, centres.
    xy, half = segments.xy, segments.half
    centres = xy + half[:, None]
    if overlap is not None:
        problems.append(f"{where} {overlap}")
    jumps = np.abs(np.diff(xy, axis=0))
    over = np.flatnonzero((jumps > MAX_STEP_PX).any(axis=1))
    if len(over):
        dx, dy = jumps[over[0]]
        problems.append(f"{where} frame {over[0] + 1}: the agent jumps ({dx:g}, {dy:g}) px, "
                        f"more than {MAX_STEP_PX} px per axis per frame")
    home = first.home
    if home is None:
        problems.append(f"{where}: no home")
    else:
        off = np.flatnonzero((centres[:HOME_FRAMES] != home.center).any(axis=1))
        if len(off):
            problems.append(f"{where} frame {off[0]}: the agent is not on home during the first "
                            f"{HOME_FRAMES} frames")
    moving = np.flatnonzero((xy[-HOLD_FRAMES:] != xy[-1]).any(axis=1))
    if len(moving):
        problems.append(f"{where} frame {n - HOLD_FRAMES + moving[0]}: the agent moves "
                        f"during the last {HOLD_FRAMES} frames (it should hold at its goal)")
    problems += _goal_problems(segments.last, centres, where)
    return problems


def _goal_problems(last: Frame, centres: np.ndarray, where: str) -> list[str]:
    """The agent ends touching exactly one object (or the key or lock) and touches no other
    object on its way: which object it went to is never ambiguous."""
    targets = list(last.objects) + list(last.key) + list(last.lock)
    if not targets:
        return [f"{where}: no object to reach in the last frame"]
    end = centres[-1]
    gaps = [math.dist(end, o.center) for o in targets]
    if min(gaps) > GOAL_TOUCH_PX:
        return [f"{where}: the agent ends {min(gaps):.1f} px from the nearest object, more than "
                f"{GOAL_TOUCH_PX} (it should end touching its goal)"]
    touched = [k for k, o in enumerate(last.objects) if gaps[k] <= GOAL_TOUCH_PX]
    if len(touched) > 1:
        return [f"{where}: the agent ends touching {len(touched)} objects (its goal is "
                "ambiguous)"]
    problems = []
    for k, o in enumerate(last.objects):
        if k in touched:
            continue
        near = np.hypot(*(centres - o.center).T) <= GOAL_TOUCH_PX
        if near.any():
            problems.append(f"{where} frame {int(np.argmax(near))}: the agent touches object {k}, "
                            "which is not its goal")
            break
    return problems


def validate_episode(episode: Episode) -> list[str]:
    """Problems of one episode on its own (empty: valid)."""
    if len(episode.trials) != N_TRIALS:
        return [f"{len(episode.trials)} trials, expected {N_TRIALS}"]
    return [p for found in check_trials(list(zip(episode.trials, range(N_TRIALS), strict=True)))
            for p in found]


def validate_episodes(episodes: Iterable[Episode]) -> list[str]:
    """:func:`validate_episode` of each, in order, checking a Trial object shared by several (a
    pair's familiarization) only once."""
    # Each episode's problems in order: its trial count, or each of its trials' first time.
    slots: list[str | int] = []
    trials: list[tuple[Trial, int]] = []
    seen: set[int] = set()
    for episode in episodes:
        if len(episode.trials) != N_TRIALS:
            slots.append(f"{len(episode.trials)} trials, expected {N_TRIALS}")
            continue
        for t, trial in enumerate(episode.trials):
            if id(trial) not in seen:
                seen.add(id(trial))
                slots.append(len(trials))
                trials.append((trial, t))
    found = check_trials(trials)
    problems: list[str] = []
    for slot in slots:
        problems += [slot] if isinstance(slot, str) else found[slot]
    return problems

"""BIB episodes as the mask model's arrays: per trial, an initial-state grid and a visited mask.

The BIB paper's mask baseline (appendix B.1) sees each trial as

* its **initial state**, downsampled to the 10 x 10 grid with one channel per kind of element:
  target objects (14), agents (5), wall, home, key, lock and removable barrier (|O| = 24), and
* the **visited mask**: the 10 x 10 cells the agent's centre passes through during the trial.

Objects and agents get a channel per *shape name* from :data:`socialbench.bib.shapes.TRAIN`
(14 object and 5 agent names, in that set's order). A shape outside that set (the new-shapes
evaluation set, a foreign file) goes to one extra catch-all channel per kind, so an unknown shape
never aliases a known one: the arrays have the paper's 24 channels plus these 2.

Grids are in image order: row 0 is the top row (y = 180..200 px), column 0 the left one.
Everything here is NumPy; arrays are ``uint8`` and small (about 23 kB per episode), so a training
set is tensorized once and cached as an ``.npz`` file (:func:`save_arrays` / :func:`load_arrays`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.bib.schema import CELL, GRID, N_TRIALS, Episode, Frame, Sprite, Trial
from socialbench.bib.shapes import TRAIN, shape_name
from socialbench.core.errors import DataFileError, UserError
from socialbench.core.files import atomic_write
from socialbench.voe.observer import EpisodeView

N_OBJECT_CHANNELS = 14  # bib paper, B.1: "target objects (14)"
N_AGENT_CHANNELS = 5  # bib paper, B.1: "agents (5)"
OBJECT0 = 0
AGENT0 = OBJECT0 + N_OBJECT_CHANNELS
WALL = AGENT0 + N_AGENT_CHANNELS  # bib paper, B.1: walls (1), home (1), key (1), lock (1),
HOME = WALL + 1  # removable barriers (1): 24 channels in all
KEY = HOME + 1
LOCK = KEY + 1
BARRIER = LOCK + 1
PAPER_CHANNELS = BARRIER + 1  # = 24
OTHER_OBJECT = PAPER_CHANNELS  # ours: shapes outside the training set
OTHER_AGENT = PAPER_CHANNELS + 1
N_CHANNELS = PAPER_CHANNELS + 2

CACHE_FORMAT = "socialbench-mask-arrays/1"
# What "a cell the agent visited" means (the paper does not say): "centre", the cell of the
# agent's centre (ours, the first reading); "body", every cell the agent's 12-px icon overlaps.
VISIT_RULES = ("centre", "body")


@dataclass(frozen=True)
class ChannelMap:
    """Which channel each object and agent shape name is drawn in (saved with a checkpoint)."""

    objects: tuple[str, ...] = TRAIN.objects
    agents: tuple[str, ...] = TRAIN.agents

    def __post_init__(self) -> None:
        if len(self.objects) > N_OBJECT_CHANNELS or len(self.agents) > N_AGENT_CHANNELS:
            raise ValueError(f"at most {N_OBJECT_CHANNELS} object and {N_AGENT_CHANNELS} agent "
                             f"shapes get their own channel")

    def object_channel(self, shape: str) -> int:
        name = shape_name(shape)
        return OBJECT0 + self.objects.index(name) if name in self.objects else OTHER_OBJECT

    def agent_channel(self, shape: str) -> int:
        name = shape_name(shape)
        return AGENT0 + self.agents.index(name) if name in self.agents else OTHER_AGENT

    def to_json(self) -> dict[str, list[str]]:
        return {"objects": list(self.objects), "agents": list(self.agents)}

    @classmethod
    def from_json(cls, data: dict) -> ChannelMap:
        return cls(tuple(map(str, data["objects"])), tuple(map(str, data["agents"])))


def point_cell(x: float, y: float) -> tuple[int, int]:
    """(row from the top, column) of the cell holding pixel point (x, y), y up; clipped."""
    col = min(max(int(x // CELL), 0), GRID - 1)
    row = GRID - 1 - min(max(int(y // CELL), 0), GRID - 1)
    return row, col


def _sprite_cell(sprite: Sprite) -> tuple[int, int]:
    return point_cell(*sprite.center)


def _first_present(trial: Trial, attribute: str) -> Any:
    """The attribute's value in the first frame where it is present (files may omit it early)."""
    for frame in trial.frames:
        value = getattr(frame, attribute)
        if value:
            return value
    return getattr(trial.frames[0], attribute) if trial.frames else None


def trial_state(trial: Trial, channels: ChannelMap) -> np.ndarray:
    """The trial's initial state as a ``(N_CHANNELS, 10, 10)`` uint8 grid of 0/1.

    Walls, barrier cells, home, key and lock come from the first frame; objects and the agent
    from the first frame that has them (some released files omit them in early frames).
    """
    grid = np.zeros((N_CHANNELS, GRID, GRID), dtype=np.uint8)
    if not trial.frames:
        return grid
    first: Frame = trial.frames[0]
    for channel, blocks in ((WALL, first.walls), (BARRIER, first.fuse_walls)):
        for block in blocks:
            # A block may span several cells (the format allows any extent).
            for bx in range(int(block.x), int(block.x + block.width), CELL):
                for by in range(int(block.y), int(block.y + block.height), CELL):
                    grid[(channel, *point_cell(bx + CELL / 2, by + CELL / 2))] = 1
    for channel, sprites in ((KEY, first.key), (LOCK, first.lock)):
        for sprite in sprites:
            grid[(channel, *_sprite_cell(sprite))] = 1
    if first.home is not None:
        grid[(HOME, *_sprite_cell(first.home))] = 1
    for sprite in _first_present(trial, "objects") or ():
        grid[(channels.object_channel(sprite.shape), *_sprite_cell(sprite))] = 1
    agent = _first_present(trial, "agent")
    if agent is not None:
        grid[(channels.agent_channel(agent.shape), *_sprite_cell(agent))] = 1
    return grid


def agent_cells(trial: Trial) -> list[tuple[int, int] | None]:
    """Per frame, the (row, col) cell of the agent's centre (None where the frame lacks one)."""
    return [point_cell(*c) if c is not None else None for c in trial.agent_path]


def body_cells(trial: Trial) -> list[frozenset[tuple[int, int]]]:
    """Per frame, the cells the agent's icon overlaps (by more than an edge; empty where the
    frame lacks the agent)."""
    out = []
    for frame in trial.frames:
        agent = frame.agent
        if agent is None:
            out.append(frozenset())
            continue
        x0, y0, x1, y1 = agent.x, agent.y, agent.x + 2 * agent.half, agent.y + 2 * agent.half
        cols = range(max(int(x0 // CELL), 0), min(int(np.ceil(x1 / CELL)), GRID))
        rows = range(max(int(y0 // CELL), 0), min(int(np.ceil(y1 / CELL)), GRID))
        out.append(frozenset((GRID - 1 - r, c) for r in rows for c in cols))
    return out


def visit_cells(trial: Trial, rule: str = "centre") -> list[frozenset[tuple[int, int]]]:
    """Per frame, the cells the agent counts as visiting under ``rule`` (:data:`VISIT_RULES`)."""
    if rule == "body":
        return body_cells(trial)
    if rule != "centre":
        raise UserError(f"visit rule must be one of {', '.join(VISIT_RULES)}, got {rule!r}")
    return [frozenset() if c is None else frozenset([c]) for c in agent_cells(trial)]


def visited_mask(trial: Trial, upto: int | None = None, rule: str = "centre") -> np.ndarray:
    """``(10, 10)`` uint8: 1 where the agent was in frames ``0..upto`` (all if None): its
    centre's cell (``rule`` "centre") or every cell its icon overlaps ("body")."""
    mask = np.zeros((GRID, GRID), dtype=np.uint8)
    cells = visit_cells(trial, rule)
    for group in cells if upto is None else cells[: upto + 1]:
        for cell in group:
            mask[cell] = 1
    return mask


@dataclass
class EpisodeArrays:
    """A tensorized set of episodes (N of them), all trials' states and visited masks.

    ``states``: ``(N, 9, N_CHANNELS, 10, 10)`` uint8; ``masks``: ``(N, 9, 10, 10)`` uint8;
    ``tasks`` and ``names``: one string per episode (the task folder and the episode's name).
    """

    states: np.ndarray
    masks: np.ndarray
    tasks: np.ndarray
    names: np.ndarray

    def __len__(self) -> int:
        return int(self.states.shape[0])

    def subset(self, index: np.ndarray | list[int]) -> EpisodeArrays:
        index = np.asarray(index, dtype=np.int64)
        return EpisodeArrays(self.states[index], self.masks[index], self.tasks[index],
                             self.names[index])

    @staticmethod
    def concatenate(parts: list[EpisodeArrays]) -> EpisodeArrays:
        return EpisodeArrays(*(np.concatenate([getattr(p, k) for p in parts])
                               for k in ("states", "masks", "tasks", "names")))

    def fingerprint(self) -> str:
        """SHA-256 of the arrays' bytes: identifies the training data a checkpoint saw."""
        digest = hashlib.sha256()
        for array in (self.states, self.masks):
            digest.update(str(array.shape).encode())
            digest.update(np.ascontiguousarray(array).tobytes())
        digest.update("\x1f".join(map(str, self.tasks)).encode())
        return digest.hexdigest()


def episode_arrays(episode: Episode | EpisodeView[Trial], channels: ChannelMap,
                   rule: str = "centre") -> tuple[np.ndarray, np.ndarray]:
    """One episode's ``(9, C, 10, 10)`` states and ``(9, 10, 10)`` masks (``rule``: the
    visit rule, :data:`VISIT_RULES`)."""
    if len(episode.trials) != N_TRIALS:
        raise UserError(f"an episode with {len(episode.trials)} trials; BIB episodes have "
                        f"{N_TRIALS}")
    states = np.stack([trial_state(t, channels) for t in episode.trials])
    masks = np.stack([visited_mask(t, rule=rule) for t in episode.trials])
    return states, masks


def tensorize(episodes: Iterable[Episode], channels: ChannelMap,
              rule: str = "centre") -> EpisodeArrays:
    """Stack the arrays of many episodes (streamed: episodes are dropped once converted)."""
    states, masks, tasks, names = [], [], [], []
    for episode in episodes:
        if len(episode.trials) != N_TRIALS:
            raise DataFileError(episode.name or "episode", f"has {len(episode.trials)} trials; "
                                f"BIB episodes have {N_TRIALS}")
        s, m = episode_arrays(episode, channels, rule)
        states.append(s)
        masks.append(m)
        tasks.append(episode.task or "")
        names.append(episode.name)
    if not states:
        return EpisodeArrays(np.zeros((0, N_TRIALS, N_CHANNELS, GRID, GRID), np.uint8),
                             np.zeros((0, N_TRIALS, GRID, GRID), np.uint8),
                             np.array([], dtype=str), np.array([], dtype=str))
    return EpisodeArrays(np.stack(states), np.stack(masks), np.array(tasks, dtype=str),
                         np.array(names, dtype=str))


def save_arrays(path: Path, arrays: EpisodeArrays, key: str) -> None:
    """Write the arrays to ``path`` (.npz, compressed) atomically, tagged with a cache ``key``."""
    with atomic_write(path) as tmp, open(tmp, "wb") as handle:  # a file: savez adds no suffix
        np.savez_compressed(handle, format=np.array(CACHE_FORMAT), key=np.array(key),
                            states=arrays.states, masks=arrays.masks, tasks=arrays.tasks,
                            names=arrays.names)


def load_arrays(path: Path, key: str) -> EpisodeArrays | None:
    """The cached arrays at ``path`` if they carry ``key``; None if absent, stale or unreadable."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["format"]) != CACHE_FORMAT or str(data["key"]) != key:
                return None
            arrays = EpisodeArrays(data["states"], data["masks"], data["tasks"], data["names"])
    except (OSError, ValueError, KeyError, EOFError):
        return None  # a damaged cache is rebuilt, not trusted
    n = len(arrays)
    if (arrays.states.shape[1:] != (N_TRIALS, N_CHANNELS, GRID, GRID)
            or arrays.masks.shape != (n, N_TRIALS, GRID, GRID)
            or arrays.tasks.shape != (n,) or arrays.names.shape != (n,)):
        return None
    return arrays


# ----------------------------------------------------------------------------- datasets on disk


def files_key(paths: Sequence[Path], channels: ChannelMap) -> str:
    """What a cache of these files' arrays depends on: each file's path, size and modification
    time, and the channels."""
    digest = hashlib.sha256(f"{CACHE_FORMAT}|{channels.to_json()}".encode())
    for path in paths:
        stat = Path(path).stat()
        digest.update(f"{Path(path).resolve()}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()

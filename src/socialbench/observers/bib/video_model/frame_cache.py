"""Episodes as 3-fps 64 x 64 frames, prepared once: shards of uint8 arrays on disk.

Training reads every episode once per epoch; drawing its frames again each time would cost more
than the network. :func:`prepare_shards` draws each episode once (:mod:`.frames`) and writes
``PREFIX-0000.npz``, ``PREFIX-0001.npz``, ... of :data:`SHARD_EPISODES` episodes each
(compressed ``.npz``, no pickled objects; ~0.4 MB per episode on disk, ~2 MB in memory). A
shard already written for the same files and sampling is kept, so an interrupted preparation
resumes. Reading checks each array's header against :data:`MAX_SHARD_BYTES` before allocating.

A shard records its frame source (``2d`` or ``3d``, :mod:`.frame_source`) in its ``source`` array
and in its key, so a 2D shard is never taken for 3D frames (shards written before the source
was recorded are 2D).
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from socialbench.bib.io.read import EpisodeFiles
from socialbench.bib.schema import N_TRIALS, Episode
from socialbench.core.errors import DataFileError
from socialbench.core.files import atomic_write
from socialbench.core.parallel import ordered_map
from socialbench.core.progress import progress_bar
from socialbench.observers.bib.video_model.frame_source import (
    FRAME_SOURCES,
    check_source,
    frame_drawer,
)
from socialbench.observers.bib.video_model.frames3d import RENDER_SIDE_3D

SHARD_FORMAT = "socialbench-video-frames/1"
SHARD_EPISODES = 64  # episodes per shard: ~130 MB of frames in memory at a time
MAX_SHARD_BYTES = 1 << 30  # refuse an array bigger than this (a shard is ~130 MB)


@dataclass(frozen=True)
class FrameShard:
    """Episodes' frames end to end: ``frames (F, H, W, 3)`` uint8, ``counts (E, 9)`` frames
    per trial, ``tasks`` and ``names`` ``(E,)``, and the frame ``source`` (``2d`` | ``3d``)."""

    frames: np.ndarray
    counts: np.ndarray
    tasks: np.ndarray
    names: np.ndarray
    source: str = "2d"

    def __len__(self) -> int:
        return int(self.counts.shape[0])

    def episode(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """One episode's frames and per-trial counts."""
        start = int(self.counts[:index].sum())
        counts = self.counts[index]
        return self.frames[start:start + int(counts.sum())], counts


def frame_shard(episodes: Iterable[Episode], side: int, fps: float,
                source: str = "2d") -> FrameShard:
    """Draw the episodes' ``source`` frames (``side`` px at ``fps``) into one in-memory shard."""
    frames, counts, tasks, names = [], [], [], []
    with frame_drawer(source, side, fps) as draw:
        for episode in episodes:
            if len(episode.trials) != N_TRIALS:
                raise DataFileError(episode.name or "episode", f"has {len(episode.trials)} "
                                    f"trials; BIB episodes have {N_TRIALS}")
            f, c = draw(episode.trials)
            frames.append(f)
            counts.append(c)
            tasks.append(episode.task or "")
            names.append(episode.name)
    if not frames:
        return FrameShard(np.zeros((0, 1, 1, 3), np.uint8), np.zeros((0, N_TRIALS), np.int64),
                          np.array([], dtype=str), np.array([], dtype=str), source)
    return FrameShard(np.concatenate(frames), np.stack(counts), np.array(tasks, dtype=str),
                      np.array(names, dtype=str), source)


def shards_key(paths: Sequence[Path], side: int, fps: float, source: str = "2d") -> str:
    """What prepared frames depend on: the files (path, size, modification time), the
    sampling and the frame source (2D keys are those from before 3D existed: their shards stay
    valid)."""
    tag = "" if check_source(source) == "2d" else f"|{source}/{RENDER_SIDE_3D}"
    digest = hashlib.sha256(f"{SHARD_FORMAT}|{side}|{fps}{tag}".encode())
    for path in paths:
        stat = Path(path).stat()
        digest.update(f"{Path(path).resolve()}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def prepare_shards(files: EpisodeFiles, prefix: Path, side: int, fps: float,
                   progress: bool = False, source: str = "2d", workers: int = 1) -> list[Path]:
    """Shard paths holding the files' ``source`` frames, drawing only the shards not yet on
    disk (a shard of another source is drawn again). ``workers`` > 1: the missing shards are
    drawn in that many processes (each shard depends only on its own episodes, so the files
    are the same whatever the number)."""
    key = shards_key(files.paths, side, fps, source)
    starts = range(0, len(files), SHARD_EPISODES)
    paths = [Path(f"{prefix}-{number:04d}.npz") for number in range(len(starts))]
    jobs = [_ShardJob(paths[number], files.paths[start:start + SHARD_EPISODES], side, fps,
                      source, f"{key}/{number}")
            for number, start in enumerate(starts) if read_key(paths[number]) != f"{key}/{number}"]
    with progress_bar(show=progress and len(files) > 0) as bar:
        task = bar.add_task(f"drawing {source} frames", total=len(files))
        bar.update(task, advance=len(files) - sum(len(job.episodes) for job in jobs))
        for drawn in ordered_map(_draw_shard, jobs, workers):
            bar.update(task, advance=drawn)
    return paths


@dataclass(frozen=True)
class _ShardJob:
    """One shard to draw: where it goes, its episode files, the sampling and its key."""

    path: Path
    episodes: Sequence[Path]
    side: int
    fps: float
    source: str
    key: str


def _draw_shard(job: _ShardJob) -> int:
    """Draw and write one shard (in a worker process when there are several); its episodes."""
    write_shard(job.path, frame_shard(EpisodeFiles(job.episodes), job.side, job.fps, job.source),
                job.key)
    return len(job.episodes)


def write_shard(path: Path, shard: FrameShard, key: str) -> None:
    """Write a shard (compressed .npz) atomically, tagged with ``key``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as tmp, open(tmp, "wb") as handle:  # a handle: savez adds no suffix
        np.savez_compressed(handle, format=np.array(SHARD_FORMAT), key=np.array(key),
                            frames=shard.frames, counts=shard.counts, tasks=shard.tasks,
                            names=shard.names, source=np.array(shard.source))


def read_key(path: Path) -> str | None:
    """The key a shard was written with, or None (absent, foreign or damaged: redraw it)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["format"]) != SHARD_FORMAT:
                return None
            return str(data["key"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None


def read_shard(path: Path) -> FrameShard:
    """A shard written by :func:`write_shard`; a damaged one is a one-line DataFileError."""
    try:
        _check_sizes(path)
        with np.load(path, allow_pickle=False) as data:
            source = str(data["source"]) if "source" in data.files else "2d"
            shard = FrameShard(data["frames"], data["counts"], data["tasks"], data["names"],
                               source)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise DataFileError(path, f"damaged frame shard ({str(exc)[:100]}); delete it to "
                                  f"draw it again") from None
    if (shard.frames.dtype != np.uint8 or shard.frames.ndim != 4
            or shard.counts.ndim != 2 or int(shard.counts.sum()) != shard.frames.shape[0]
            or shard.source not in FRAME_SOURCES):
        raise DataFileError(path, "frame shard with inconsistent arrays; delete it to draw it "
                                  "again")
    return shard


def _check_sizes(path: Path) -> None:
    """Refuse arrays larger than MAX_SHARD_BYTES from their .npy headers, before loading."""
    with zipfile.ZipFile(path) as archive:
        for member in archive.namelist():
            with archive.open(member) as handle:
                version = np.lib.format.read_magic(handle)
                if version == (1, 0):
                    shape, _, dtype = np.lib.format.read_array_header_1_0(handle)
                elif version == (2, 0):
                    shape, _, dtype = np.lib.format.read_array_header_2_0(handle)
                else:
                    raise ValueError(f"{member}: .npy format {version} is not read here")
            if int(np.prod(shape, dtype=np.int64)) * dtype.itemsize > MAX_SHARD_BYTES:
                raise ValueError(f"{member} is {shape} {dtype}, over the {MAX_SHARD_BYTES >> 20}"
                                 f" MB bound")

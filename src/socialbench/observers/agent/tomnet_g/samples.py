"""ToMnet-G's samples, read one trial at a time and optionally kept on disk.

A trial's states are dropped as soon as its graphs are built, so the full training split (1,920
trials, gigabytes of states) never sits in memory at once; its graphs take a few hundred
megabytes. Parsing the state files is most of the time (about 1.4 s a trial on the busy 2-core
machine, the graphs 0.1 s), so with a cache folder each trial's graphs are written once as a
plain ``.npz`` (no pickles) and a re-run, or the next fold, reads them back in milliseconds.
The graphs are filed under their dataset (``dataset_key``): datasets name their trials alike
(``scenario_1_.../type_1.1/test_set/Trial_0``), so two datasets rated with one checkpoints
folder (a model trained once, rated on another test split) must not read each other's graphs.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from socialbench.agent3d.episodes import load_episode
from socialbench.agent3d.io import find_trials, load_trial
from socialbench.agent3d.schema import VideoStates
from socialbench.core.errors import DataFileError
from socialbench.observers.agent.tomnet_g.graphs import (
    FEATURES,
    VideoGraphs,
    paced,
    video_graphs,
)
from socialbench.observers.agent.tomnet_g.training import Sample

GRAPHS_VERSION = 3  # bump when video_graphs or the layout changes: old caches are rebuilt
_MAX_VIDEOS, _MAX_FRAMES, _MAX_NODES = 16, 10_000, 64  # bounds on what a cache file may hold


def sample_of(trials: Sequence[VideoStates]) -> Sample:
    """An episode's videos (familiarization first, the test video last) as one sample."""
    return Sample(tuple(video_graphs(v) for v in trials[:-1]), video_graphs(trials[-1]))


def paced_sample(sample: Sample, pace: str = "time") -> Sample:
    """``sample`` with every video's rated frames chosen by ``pace`` (``graphs.paced``)."""
    if pace == "time":
        return sample
    return Sample(tuple(paced(g, pace) for g in sample.familiarization), paced(sample.test, pace))


def training_trials(root: Path, types: Sequence[str], max_per_type: int | None = None,
                    split: str = "train_set") -> Iterator[tuple[str, Path]]:
    """(type, folder) of each trial of ``types`` in ``split``, at most ``max_per_type`` each."""
    wanted, counts = set(types), dict[str, int]()
    for trial_dir in find_trials(root):
        trial_type = trial_dir.parent.parent.name.removeprefix("type_")
        if trial_dir.parent.name != split or trial_type not in wanted:
            continue
        if max_per_type is not None and counts.get(trial_type, 0) >= max_per_type:
            continue
        counts[trial_type] = counts.get(trial_type, 0) + 1
        yield trial_type, trial_dir


def training_sample(trial_dir: Path) -> Sample:
    """A training trial's familiarization videos and its expected test video."""
    trial = load_trial(trial_dir)
    return sample_of([VideoStates.of(v) for v in (*trial.familiarization, trial.expected)])


def test_sample(video_dir: Path) -> Sample:
    """A test trial's familiarization videos and one of its test videos (``video_dir``)."""
    return sample_of(load_episode(video_dir).trials)


def cached(folder: Path, root: Path, cache: Path | None, kind: str = "train") -> Sample:
    """``folder``'s sample (a training trial folder, or with ``kind`` "test" a test video
    folder), read from ``cache`` when it holds it, else built and written there."""
    make = training_sample if kind == "train" else test_sample
    if cache is None:
        return make(folder)
    where = graphs_folder(cache, root) / Path(folder).resolve().relative_to(
        Path(root).resolve())
    file = where.with_name(where.name + ".npz")
    if file.exists():
        return read_sample(file)
    sample = make(folder)
    write_sample(file, sample)
    return sample


def graphs_folder(cache: Path, root: Path) -> Path:
    """Where the graphs of the dataset at ``root`` are kept under a checkpoints folder."""
    return Path(cache) / f"graphs-v{GRAPHS_VERSION}" / dataset_key(root)


def dataset_key(root: Path) -> str:
    """A dataset's name in the cache: the sha256 of its ``manifest.json`` (the checksums of
    all its files: the same dataset wherever it lies, another one once a file changes), or of
    its resolved path when it has no manifest."""
    manifest = Path(root).resolve() / "manifest.json"
    try:
        stat = manifest.stat()
    except OSError:
        return "path-" + hashlib.sha256(str(manifest.parent).encode()).hexdigest()[:16]
    return _manifest_key(str(manifest), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=16)
def _manifest_key(manifest: str, mtime_ns: int, size: int) -> str:
    """Hashed once per manifest version (a full dataset's manifest is megabytes)."""
    digest = hashlib.sha256()
    with open(manifest, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return "manifest-" + digest.hexdigest()[:16]


def write_sample(path: Path, sample: Sample) -> None:
    """Write atomically: a run stopped mid-write leaves no half file to read back."""
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {"test_nodes": sample.test.nodes, "test_agent": sample.test.agent}
    for k, g in enumerate(sample.familiarization):
        arrays[f"fam{k}_nodes"], arrays[f"fam{k}_agent"] = g.nodes, g.agent
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
    tmp.replace(path)


def read_sample(path: Path) -> Sample:
    """Read a :func:`write_sample` file (plain arrays only; shapes checked and bounded)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            videos = sum(1 for key in z.files if key.endswith("_nodes")) - 1
            if not 0 <= videos < _MAX_VIDEOS:
                raise ValueError(f"{videos} familiarization videos")
            fam = tuple(_graphs(z, f"fam{k}") for k in range(videos))
            return Sample(fam, _graphs(z, "test"))
    except (OSError, KeyError, ValueError) as exc:
        raise DataFileError(path, f"not a ToMnet-G graph cache file ({exc}); delete it") from None


def _graphs(z: np.lib.npyio.NpzFile, name: str) -> VideoGraphs:
    nodes, agent = z[f"{name}_nodes"], z[f"{name}_agent"]
    t = nodes.shape[0] if nodes.ndim == 3 else -1
    if (nodes.ndim != 3 or nodes.shape[2] != FEATURES or not 0 < t <= _MAX_FRAMES
            or not 0 < nodes.shape[1] <= _MAX_NODES or agent.shape != (t, 3)):
        raise ValueError(f"{name}: shapes {nodes.shape} and {agent.shape}")
    return VideoGraphs(nodes=nodes.astype(np.float32), agent=agent.astype(np.float32))

"""What the viewer shows of a dataset: thin adapters over the BIB, AGENT and TalkItOut readers.

Every path a request names is resolved with :func:`socialbench.core.paths.safe_join`, so it never
leaves the dataset root. Design facts from ``_meta/`` (they hold the answer) are read only by
:func:`design_facts`, which the viewer calls only when asked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from socialbench.core.errors import UserError
from socialbench.core.paths import safe_join
from socialbench.core.runner import META_DIR

Benchmark = Literal["bib", "agent"]
MAX_META_BYTES = 1_000_000  # a design-facts file is a few kB


@dataclass(frozen=True)
class EpisodeRef:
    """One expected/unexpected pair of a dataset, by paths relative to its root."""

    benchmark: Benchmark
    task: str  # BIB sub-evaluation or AGENT trial type ("2.1")
    name: str  # BIB episode name or AGENT trial folder, relative to the root
    expected: str | None
    unexpected: str | None
    scenario: str = ""  # AGENT: the scenario folder

    @property
    def key(self) -> str:
        """The pair's id in URLs: its expected (or only) file or folder, relative to the root."""
        return self.name


@dataclass
class Dataset:
    """A dataset folder and what it holds."""

    root: Path
    benchmark: Benchmark
    episodes: list[EpisodeRef] = field(default_factory=list)

    def tasks(self) -> list[str]:
        return list(dict.fromkeys(e.task for e in self.episodes))

    def find(self, key: str) -> EpisodeRef:
        for ref in self.episodes:
            if ref.key == key:
                return ref
        raise UserError(f"no episode {key!r} in {self.root}")

    def path(self, relpath: str) -> Path:
        """A file or folder of the dataset; never outside its root."""
        return safe_join(self.root, relpath)


def detect_benchmark(root: Path) -> Benchmark:
    """"bib" or "agent", from what the folder holds."""
    if not root.is_dir():
        raise UserError(f"{root} is not a folder: give a BIB or AGENT dataset root")
    if any(p.name.startswith("scenario_") for p in root.iterdir() if p.is_dir()):
        return "agent"
    return "bib"


def open_dataset(root: Path | str) -> Dataset:
    """List a dataset's expected/unexpected pairs (the same readers as ``evaluate``)."""
    root = Path(root).resolve()
    benchmark = detect_benchmark(root)
    if benchmark == "agent":
        from socialbench.agent3d.episodes import find_test_pairs

        episodes = [EpisodeRef("agent", task, _rel(root, e.parent), _rel(root, e), _rel(root, u),
                               scenario=e.parent.relative_to(root).parts[0])
                    for task, e, u in find_test_pairs(root)]
    else:
        from socialbench.bib.io.layout import EVALUATION_TASKS, TRAINING_TASKS, find_pairs

        order = {t: k for k, t in enumerate(dict.fromkeys(EVALUATION_TASKS + TRAINING_TASKS))}
        episodes = [EpisodeRef("bib", p.task or "-", _bib_name(root, p.expected or p.unexpected),
                               _rel(root, p.expected) if p.expected else None,
                               _rel(root, p.unexpected) if p.unexpected else None)
                    for p in find_pairs(root)]
        episodes.sort(key=lambda e: (order.get(e.task, len(order)), e.name))  # papers' order
    if not episodes:
        raise UserError(f"{root} holds no expected/unexpected pairs of BIB or AGENT")
    return Dataset(root, benchmark, episodes)


def _rel(root: Path, path: Path) -> str:
    return path.resolve().relative_to(root).as_posix()


def _bib_name(root: Path, path: Path | None) -> str:
    from socialbench.bib.io.layout import episode_name

    assert path is not None
    rel = Path(_rel(root, path))
    return (rel.parent / episode_name(rel)).as_posix()


# ------------------------------------------------------------------------------------ BIB


@lru_cache(maxsize=64)
def _bib_episode(path: Path) -> Any:
    from socialbench.bib.io.read import load_episode

    return load_episode(path)


def bib_episode(dataset: Dataset, relpath: str) -> Any:
    """A BIB episode file as the reader gives it (cached)."""
    return _bib_episode(dataset.path(relpath))


def bib_trial_frames(dataset: Dataset, relpath: str) -> list[int]:
    """Frames per trial of a BIB episode file (8 familiarization trials, then the test)."""
    return [len(t.frames) for t in bib_episode(dataset, relpath).trials]


def bib_video(dataset: Dataset, relpath: str) -> Path | None:
    """The episode's mp4 written by ``bib generate`` beside its JSON, if there is one."""
    video = dataset.path(relpath).with_suffix(".mp4")
    return video if video.is_file() else None


# ------------------------------------------------------------------------------------ AGENT


def agent_videos(dataset: Dataset, ref: EpisodeRef) -> dict[str, list[str]]:
    """An AGENT trial's video folders: ``familiarization``, ``expected``, ``unexpected``."""
    from socialbench.agent3d.io import TRIAL_FILE, read_json

    trial_dir = dataset.path(ref.name)
    meta = read_json(trial_dir / TRIAL_FILE)
    folders = [f for f in meta.get("videos", []) if isinstance(f, str)]
    familiar = [f"{ref.name}/{f}" for f in folders if f.startswith("Familiarization_")]
    return {"familiarization": familiar, "expected": [ref.expected or ""],
            "unexpected": [ref.unexpected or ""]}


def agent_video_file(dataset: Dataset, folder: str) -> Path | None:
    """The rendered ``rgb.mp4`` of an AGENT video folder (``generate --render``), if any."""
    video = dataset.path(f"{folder}/rgb.mp4")
    return video if video.is_file() else None


def agent_frame_count(dataset: Dataset, folder: str) -> int:
    from socialbench.agent3d.io import STATES_FILE, read_json

    info = read_json(dataset.path(folder) / STATES_FILE)
    return int(info.get("num_frames", len(info.get("frames", [])))) if isinstance(info, dict) else 0


# ------------------------------------------------------------------------------------ _meta


def design_facts(dataset: Dataset, ref: EpisodeRef) -> dict[str, Any]:
    """The pair's design facts from ``_meta/`` (they say which video is which), or {}."""
    try:
        if ref.benchmark == "agent":
            from socialbench.agent3d.io import meta_path

            path = meta_path(dataset.path(ref.name))
            dataset.path(path.relative_to(dataset.root).as_posix())  # inside the root
        else:
            path = dataset.path(f"{META_DIR}/{ref.name}.json")
    except (UserError, ValueError):
        return {}
    if not path.is_file() or path.stat().st_size > MAX_META_BYTES:
        return {}
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise UserError(f"{path}: not readable JSON ({exc})") from exc

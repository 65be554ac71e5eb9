"""Evaluate a BIB observer on a dataset root: find the pairs, ready the observer, score.

The glue between the files (``socialbench.bib.io``), the observers (``voe.registry``) and the
shared loop (``voe.evaluate``), used by ``socialbench bib evaluate`` and ``bib audit``, the tour
and the speed script. Works on our generated layout and on the released one (task folders of
``<id>e.json`` / ``<id>u.json``); a folder of pairs without task folders (like the six real
sample files) is one task named after the folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from socialbench.bib.io import find_pairs, load_episode
from socialbench.bib.published import EVAL_TASKS
from socialbench.core.errors import UserError
from socialbench.core.metrics import TiePolicy
from socialbench.observers.bib.shortcuts import SHORTCUTS
from socialbench.voe.evaluate import (
    PairRating,
    TaskResult,
    rate_pairs,
    rate_pairs_many,
    summarize,
)
from socialbench.voe.observer import LearnedObserver, Observer, Reduction
from socialbench.voe.registry import make_observer

META_DIR = "_meta"  # the generator's design facts: never read by observers
TRAIN_SHARE = 0.8  # bib spec: train/validation 80/20 by sorted file name within each task

Pair = tuple[str, Path, Path]
# The audit's observers (``socialbench bib audit``): every shortcut, then inverse planning.
AUDIT_OBSERVERS: tuple[str, ...] = (*SHORTCUTS, "inverse-planning")


def collect_pairs(root: Path | str, tasks: Sequence[str] = (),
                  max_per_task: int | None = None) -> list[Pair]:
    """``(task, expected path, unexpected path)`` for every complete pair under ``root``."""
    root = Path(root)
    if not root.exists():
        raise UserError(f"{root} does not exist: give a BIB evaluation dataset root "
                        f"(make one with `socialbench bib generate --split eval --out DIR`)")
    pairs: list[Pair] = []
    for pair in find_pairs(root):
        if pair.expected is None or pair.unexpected is None:
            continue
        if META_DIR in pair.expected.parts:
            continue
        task = pair.task or pair.expected.parent.name or "unnamed"
        pairs.append((task, pair.expected, pair.unexpected))
    if not pairs:
        raise UserError(f"no expected/unexpected pairs (<id>e.json + <id>u.json) under {root}: "
                        f"is it an evaluation split?")
    found = list(dict.fromkeys(t for t, _, _ in pairs))
    if tasks:
        unknown = [t for t in tasks if t not in found]
        if unknown:
            raise UserError(f"no pairs for task(s) {', '.join(unknown)} under {root}; "
                            f"tasks found: {', '.join(found)}")
        pairs = [p for p in pairs if p[0] in tasks]
    if max_per_task is not None:
        kept: dict[str, int] = {}
        trimmed = []
        for pair in pairs:
            if kept.get(pair[0], 0) < max_per_task:
                kept[pair[0]] = kept.get(pair[0], 0) + 1
                trimmed.append(pair)
        pairs = trimmed
    order = {t: i for i, t in enumerate(EVAL_TASKS)}
    return sorted(pairs, key=lambda p: (order.get(p[0], len(order)), p[0], str(p[1])))


class LazyEpisodes(Sequence):
    """Episode files read one at a time when indexed (training sets do not fit in memory)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return LazyEpisodes(self.paths[index])
        return load_episode(self.paths[index])


def training_split(root: Path | str) -> tuple[LazyEpisodes, LazyEpisodes]:
    """Expected-only training episodes under ``root``, 80/20 by sorted name within each task."""
    root = Path(root)
    if not root.is_dir():
        raise UserError(f"{root} is not a folder: give a BIB training dataset root "
                        f"(make one with `socialbench bib generate --split train --out DIR`)")
    by_task: dict[str, list[Path]] = {}
    for pair in find_pairs(root):
        if pair.expected is not None and META_DIR not in pair.expected.parts:
            by_task.setdefault(pair.task or "", []).append(pair.expected)
    if not by_task:
        raise UserError(f"no training episodes (<id>e.json) under {root}")
    train: list[Path] = []
    validation: list[Path] = []
    for paths in by_task.values():
        paths = sorted(paths, key=lambda p: p.name)
        cut = round(TRAIN_SHARE * len(paths))
        train += paths[:cut]
        validation += paths[cut:]
    return LazyEpisodes(train), LazyEpisodes(validation)


def ready_observer(name: str, *, train: Path | None = None, checkpoint: Path | None = None,
                   console: Console | None = None, **options: Any) -> Observer:
    """Build observer ``name``; fit (``train``) and/or load/save (``checkpoint``) learned ones.

    A learned observer is fitted when ``train`` is given (and saved to ``checkpoint`` if given),
    else loaded from ``checkpoint``. Other observers take neither.
    """
    observer = make_observer("bib", name, **options)
    if not isinstance(observer, LearnedObserver):
        if train is not None or checkpoint is not None:
            raise UserError(f"observer {name!r} is not trained: drop --train/--checkpoint")
        return observer
    if train is not None:
        train_set, validation = training_split(train)
        metrics = observer.fit(train_set, validation)
        if console is not None:
            shown = ", ".join(f"{k}={v:.4g}" for k, v in metrics.items())
            console.print(f"fitted {name} on {len(train_set)} episodes: {shown}")
        if checkpoint is not None:
            checkpoint.parent.mkdir(parents=True, exist_ok=True)
            observer.save(checkpoint)
        return observer
    if checkpoint is None:
        raise UserError(f"observer {name!r} is learned: give --train DIR to fit it or "
                        f"--checkpoint PATH to load a fitted one")
    if not checkpoint.is_file():
        raise UserError(f"checkpoint {checkpoint} does not exist: fit one with --train DIR "
                        f"--checkpoint {checkpoint}")
    return type(observer).load(checkpoint)


def evaluate_observer(observer: Observer, pairs: Sequence[Pair], *, reduce: Reduction = "max",
                      console: Console | None = None, progress: bool = True, seed: int = 0,
                      n_boot: int = 1000, ties: TiePolicy = "half", workers: int = 1,
                      ) -> tuple[list[PairRating], dict[str, TaskResult]]:
    """Rate every pair and score per task (relative accuracy, AUC, bootstrap CIs)."""
    ratings = rate_pairs(observer, pairs, reduce=reduce, load=load_episode, console=console,
                         progress=progress, workers=workers)
    return ratings, summarize(ratings, seed=seed, n_boot=n_boot, order=EVAL_TASKS, ties=ties)


def compare_observers(root: Path | str, names: Sequence[str] = AUDIT_OBSERVERS, *,
                      max_pairs: int | None = None, console: Console | None = None,
                      progress: bool = True, n_boot: int = 200,
                      workers: int = 1) -> dict[str, dict[str, TaskResult]]:
    """Every pair under ``root`` rated by each observer (each file read once), scored per
    task: observer name -> task -> result."""
    pairs = collect_pairs(root, max_per_task=max_pairs)
    observers = [make_observer("bib", name) for name in names]
    ratings = rate_pairs_many(observers, pairs, load=load_episode, console=console,
                              progress=progress, workers=workers)
    return {name: summarize(ratings[name], n_boot=n_boot, order=EVAL_TASKS) for name in names}

"""Readying a BIB observer, and fitting a learned one: the one training path that
``socialbench bib train`` and ``socialbench bib evaluate --train`` share.

The training data are the expected episode files of each training root (ours or the released
background layout), at most ``max_per_task`` per task (the first by sorted name), split 80/20
by sorted name within each task (bib spec; :func:`socialbench.bib.io.layout.
train_validation_split`). With an output path ``out`` the fitted observer is saved there, and
it keeps its working files beside it: ``OUT.resume`` (the state after each epoch: an
interrupted run resumes) and ``OUT.data-*.npz`` (the episodes as arrays, read once).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from socialbench.bib.io.layout import find_pairs, train_validation_split
from socialbench.bib.io.read import EpisodeFiles
from socialbench.core.errors import UserError
from socialbench.voe.observer import LearnedObserver, Observer
from socialbench.voe.registry import make_observer


def training_files(roots: Sequence[Path | str],
                   max_per_task: int | None = None) -> tuple[list[Path], list[Path]]:
    """(train, validation) expected episode files of the roots: per root and task, sorted by
    name, the first ``max_per_task`` kept, then the last 20 % validate."""
    train: list[Path] = []
    validation: list[Path] = []
    for root in map(Path, roots):
        if not root.is_dir():
            raise UserError(f"{root} is not a folder: give a BIB training dataset root (make one "
                            f"with `socialbench bib generate --split train --out DIR`)")
        per_task: dict[str, dict[str, Path]] = {}
        for pair in find_pairs(root):
            if pair.expected is not None:
                per_task.setdefault(pair.task or "", {})[pair.expected.name] = pair.expected
        for task in sorted(per_task):
            names = sorted(per_task[task])[:max_per_task]
            fit, held_out = train_validation_split(names)
            train += [per_task[task][name] for name in fit]
            validation += [per_task[task][name] for name in held_out]
        if not per_task:
            raise UserError(f"{root} holds no expected episode files (*e.json): give the root of "
                            f"a BIB training set, e.g. one made by `socialbench bib generate "
                            f"--split train`")
    return train, validation


def train_observer(name: str, roots: Sequence[Path | str], *, out: Path | None = None,
                   max_per_task: int | None = None, progress: bool = True,
                   observer_options: dict[str, Any] | None = None,
                   **fit_options: Any) -> tuple[LearnedObserver, dict[str, float]]:
    """Fit the learned observer ``name`` on the training roots (and save it to ``out``);
    return it and its final metrics. ``observer_options`` build it (e.g. the video model's
    ``frames``); ``fit_options`` go to its ``fit`` (epochs, lr, ...)."""
    observer = make_observer("bib", name, **(observer_options or {}))
    if not isinstance(observer, LearnedObserver):
        raise UserError(f"observer {name!r} has no parameters to train; choose a learned "
                        f"observer such as mask")
    train, validation = training_files(roots, max_per_task)
    if out is not None:
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        fit_options = {"state_path": out.with_name(f"{out.name}.resume"),
                       "cache_prefix": out.with_name(f"{out.name}.data"), **fit_options}
    metrics = observer.fit(EpisodeFiles(train), EpisodeFiles(validation), progress=progress,
                           **fit_options)
    if out is not None:
        observer.save(out)
    return observer, metrics


def train_from_shards(name: str, root: Path | str, *, out: Path | None = None,
                      progress: bool = True,
                      **fit_options: Any) -> tuple[LearnedObserver, dict[str, float]]:
    """Fit learned observer ``name`` on a shard folder (``socialbench bib shards``), split 80/20
    by sorted name within each task as :func:`training_files` splits files; save it to ``out``
    (with ``OUT.resume`` beside it). Only observers that train on the mask arrays take shards."""
    from socialbench.observers.bib.shards import ShardSet

    if name != "mask":
        raise UserError(f"--shards holds the mask model's arrays: observer {name!r} cannot train "
                        f"on them (give --train DIR of episode files)")
    shards = ShardSet(root)
    # the model marks visited cells as the shards' masks do (their index records the rule)
    observer = make_observer("bib", name, visit_rule=shards.visit_rule)
    if not isinstance(observer, LearnedObserver):
        raise UserError(f"observer {name!r} is not trained")
    train, validation = shards.split()
    if out is not None:
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        fit_options = {"state_path": out.with_name(f"{out.name}.resume"), **fit_options}
    metrics = observer.fit(train, validation, progress=progress, **fit_options)
    if out is not None:
        observer.save(out)
    return observer, metrics


def ready_observer(name: str, *, train: Path | None = None, checkpoint: Path | None = None,
                   console: Console | None = None,
                   observer_options: dict[str, Any] | None = None) -> Observer:
    """Build observer ``name``; fit (``train``) and/or load/save (``checkpoint``) learned ones.

    A learned observer is fitted when ``train`` is given (:func:`train_observer`, saved to
    ``checkpoint`` if given), else loaded from ``checkpoint``. Other observers take neither.
    """
    observer = make_observer("bib", name)
    if not isinstance(observer, LearnedObserver):
        if train is not None or checkpoint is not None:
            raise UserError(f"observer {name!r} is not trained: drop --train/--checkpoint")
        return observer
    if train is not None:
        fitted, metrics = train_observer(name, [train], out=checkpoint,
                                         progress=console is not None,
                                         observer_options=observer_options)
        if console is not None:
            shown = ", ".join(f"{k}={v:.4g}" for k, v in metrics.items())
            console.print(f"fitted {name}: {shown}")
        return fitted
    if checkpoint is None:
        raise UserError(f"observer {name!r} is learned: give --train DIR to fit it or "
                        f"--checkpoint PATH to load a fitted one")
    if not checkpoint.is_file():
        raise UserError(f"checkpoint {checkpoint} does not exist: fit one with --train DIR "
                        f"--checkpoint {checkpoint}")
    return type(observer).load(checkpoint)

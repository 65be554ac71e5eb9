"""The observer interface of the violation-of-expectation (VOE) protocol.

An observer watches an episode's familiarization trials, then rates how surprising its test trial
is. BIB episodes (:class:`socialbench.bib.schema.Episode`) and AGENT tests
(:class:`socialbench.agent3d.schema.Episode`) are both "episodes" here: an observer is written for
one benchmark's typed trials and knows nothing of file formats. It never sees the answer: the
evaluation loop and :meth:`Observer.surprise` hand it an :class:`EpisodeView`, the trials alone,
without the file's name, the expected/unexpected label, the task or any metadata.

Surprise is computed per rated step of the test trial (a frame, or every k-th frame); a video's
scalar surprise reduces those steps, by the maximum by default (BIB paper: the max worked better
than the mean) or the mean.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar

import numpy as np

EpisodeT = TypeVar("EpisodeT")
TrialT = TypeVar("TrialT")
Reduction = Literal["max", "mean"]


class HasTrials(Protocol[TrialT]):
    """Any benchmark's episode: its trials in order, familiarization first, the test last."""

    @property
    def trials(self) -> Sequence[TrialT]: ...


@dataclass(frozen=True)
class EpisodeView(Generic[TrialT]):
    """What an observer is shown of an episode: its trials, and nothing else."""

    trials: tuple[TrialT, ...]

    @property
    def familiarization(self) -> tuple[TrialT, ...]:
        return self.trials[:-1]

    @property
    def test(self) -> TrialT:
        return self.trials[-1]


def view_of(episode: HasTrials[TrialT]) -> EpisodeView[TrialT]:
    """The episode as an observer may see it: the trials alone (a benchmark's trial types
    carry states only; names, labels, tasks and metadata live on the episode, left behind)."""
    return EpisodeView(tuple(episode.trials))


class Observer(ABC, Generic[EpisodeT]):
    """Rates the surprise of an episode's test trial given its familiarization trials."""

    #: The name used on the command line (``--observer NAME``).
    name: str = ""
    #: Which benchmark's episodes it reads: "bib" or "agent".
    benchmark: str = ""

    @abstractmethod
    def surprise_per_step(self, episode: EpisodeT) -> np.ndarray:
        """One non-negative surprise value per rated step of the test trial (1-D float array)."""

    def surprise(self, episode: HasTrials[Any], reduce: Reduction = "max") -> float:
        """The test trial's scalar surprise: the max (default) or mean over its steps, rated on
        the episode's :func:`view_of` (its trials alone)."""
        view = view_of(episode)
        steps = np.asarray(self.surprise_per_step(view), dtype=float)  # type: ignore[arg-type]
        if steps.size == 0:
            return 0.0
        if reduce == "max":
            return float(steps.max())
        if reduce == "mean":
            return float(steps.mean())
        raise ValueError(f"reduce must be 'max' or 'mean', got {reduce!r}")


class LearnedObserver(Observer[EpisodeT]):
    """An observer with parameters fitted on training episodes, saved without pickling."""

    @abstractmethod
    def fit(self, train: Sequence[EpisodeT], validation: Sequence[EpisodeT] = (),
            **options: Any) -> dict[str, float]:
        """Train on expected-only training episodes; return final metrics (losses, ...).

        The training path (``socialbench bib train``, ``evaluate --train``) passes the
        observer's own hyperparameters and, with an output path, ``state_path`` (where to keep
        a resumable state) and ``cache_prefix`` (where to keep prepared data); ``progress``
        asks for progress bars.
        """

    @abstractmethod
    def save(self, path: Path) -> None:
        """Write a checkpoint loadable with ``torch.load(..., weights_only=True)`` or JSON."""

    @classmethod
    @abstractmethod
    def load(cls, path: Path) -> LearnedObserver[EpisodeT]:
        """Read a checkpoint written by :meth:`save` (never by unpickling arbitrary objects)."""

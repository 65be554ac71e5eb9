"""Run an AGENT observer under one of the paper's protocols: train or calibrate per fold, rate
the fold's test pairs, and score per type, per scenario (weighted by test pairs) and overall.

BIPaCK's per-video evidence does not depend on the fold, so it is computed once per video and
each fold only re-weighs it; ToMnet-G is trained afresh per fold on graphs built once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from socialbench.agent3d.episodes import load_episode
from socialbench.agent3d.schema import TRIAL_TYPES, Episode
from socialbench.core.errors import UserError
from socialbench.core.metrics import pairwise_accuracy
from socialbench.core.parallel import ordered_map
from socialbench.core.progress import progress_bar
from socialbench.observers.agent.protocols import (
    SCENARIO_NAMES,
    Fold,
    folds,
    scenario_of,
    test_pairs,
    training_episodes,
)

Ratings = dict[str, list[tuple[float, float]]]  # type -> (expected, surprising) per pair


class EpisodeSource(Protocol):
    """Where the evaluation gets its episodes: the state files (:class:`StateEpisodes`) or,
    with ``--from-frames``, perception on rendered frames (``perception.episodes``)."""

    def test(self, video_dir: Path) -> Episode: ...

    def training(self, root: Path, types: tuple[str, ...],
                 max_per_type: int | None = None) -> list[Episode]: ...


class StateEpisodes:
    """Episodes from the state files (the default)."""

    def test(self, video_dir: Path) -> Episode:
        return load_episode(video_dir)

    def training(self, root: Path, types: tuple[str, ...],
                 max_per_type: int | None = None) -> list[Episode]:
        return training_episodes(root, types, max_per_type)


@dataclass(frozen=True)
class TrainedOnStates:
    """Test episodes from ``tests``; training episodes from the state files (the ground truth)
    under another dataset, ``root`` (``--train-states``: a model trained on true states, rated
    on what perception makes of the frames, as the paper's derendered condition)."""

    tests: EpisodeSource
    root: Path

    def test(self, video_dir: Path) -> Episode:
        return self.tests.test(video_dir)

    def training(self, root: Path, types: tuple[str, ...],
                 max_per_type: int | None = None) -> list[Episode]:
        return training_episodes(self.root, types, max_per_type)


@dataclass
class ProtocolResult:
    observer: str
    protocol: str
    types: dict[str, float]
    scenarios: dict[str, float]
    overall: float
    pairs: dict[str, int]
    matrix: dict[str, dict[str, float]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"observer": self.observer, "protocol": self.protocol,
                               "types": self.types, "scenarios": self.scenarios,
                               "overall": self.overall, "pairs": self.pairs}
        if self.matrix:
            out["matrix"] = self.matrix
        return out


def weighted(accuracy: dict[str, float], pairs: dict[str, int],
             keep: Callable[[str], bool] = lambda t: True) -> float:
    chosen = [t for t in accuracy if keep(t) and not np.isnan(accuracy[t])]
    total = sum(pairs[t] for t in chosen)
    return float(sum(accuracy[t] * pairs[t] for t in chosen) / total) if total else float("nan")


def _accuracy(ratings: list[tuple[float, float]]) -> float:
    """AGENT's pairwise accuracy: every surprising rating against every expected one of the
    type (agent spec, "Metric"), not BIB's pair-by-pair comparison."""
    return pairwise_accuracy([r[1] for r in ratings], [r[0] for r in ratings], ties="half")


class FoldRater:
    """Rates a fold's test pairs after training on its training types."""

    name = ""

    def rate(self, fold: Fold) -> Ratings:
        raise NotImplementedError


class BipackRater(FoldRater):
    name = "bipack"

    def __init__(self, data: Path, pairs: list[tuple[str, Path, Path]], max_train: int | None,
                 progress: bool, use_familiarization: bool = True,
                 calibration: str = "product", episodes: EpisodeSource | None = None,
                 workers: int = 1) -> None:
        self.calibration = calibration
        self.use_familiarization = use_familiarization
        episodes = episodes or StateEpisodes()
        train = episodes.training(data, TRIAL_TYPES, max_train)
        self.train: dict[str, list] = {}
        self.test: dict[str, list] = {}
        # Planning a video is the costly part and needs nothing from the others: it runs on
        # ``workers`` processes (or Ray tasks under --backend ray), results in order.
        with progress_bar(show=progress, transient=True) as bar:
            job = bar.add_task("bipack: planning every video",
                               total=len(train) + len(pairs))
            for task, evidence in ordered_map(_training_evidence, train, workers):
                self.train.setdefault(task, []).extend(evidence)
                bar.advance(job)
            for trial_type, rated in ordered_map(_test_evidence, pairs, workers,
                                                 shared=episodes):
                self.test.setdefault(trial_type, []).append(rated)
                bar.advance(job)

    def rate(self, fold: Fold) -> Ratings:
        from socialbench.observers.agent.bipack.inference import calibrate, expected_distance

        prior = calibrate([ev for t in fold.train for ev in self.train.get(t, [])],
                          self.calibration)
        return {t: [(expected_distance(fam, e, prior, self.use_familiarization),
                     expected_distance(fam, s, prior, self.use_familiarization))
                    for fam, e, s in self.test.get(t, [])] for t in fold.test}


class ToMnetRater(FoldRater):
    name = "tomnet-g"

    def __init__(self, data: Path, pairs: list[tuple[str, Path, Path]], max_train: int | None,
                 progress: bool, epochs: int, device: str, seed: int,
                 checkpoints: Path | None, episodes: EpisodeSource | None = None,
                 surprise: str = "teacher-forced", relative: bool = True,
                 conditioning: str = "gain", orientation: bool = False,
                 workers: int = 1, reduce: str = "mean", train_data: Path | None = None,
                 horizon: int = 0, end: bool = False, pace: str = "path") -> None:
        self.epochs, self.device, self.seed, self.reduce = epochs, device, seed, reduce
        self.checkpoints, self.progress = checkpoints, progress
        self.surprise, self.relative, self.conditioning = surprise, relative, conditioning
        self.orientation, self.workers, self.horizon = orientation, workers, horizon
        self.end, self.pace = end, pace
        self.train: dict[str, list] = {}
        self.test: dict[str, list] = {}
        if episodes is None:  # the state files: one trial at a time, graphs cached
            # ``train_data``: the training split from another dataset's state files (a test
            # split generated into its own folder), read the same way
            self._read_states(data, pairs, max_train, train_data or data)
        else:
            self._read_episodes(episodes, data, pairs, max_train)
        # the pace once here, not per fold (the kept graphs are every 5th frame's)
        from socialbench.observers.agent.tomnet_g.samples import paced_sample

        self.train = {t: [paced_sample(s, pace) for s in samples]
                      for t, samples in self.train.items()}
        self.test = {t: [(paced_sample(e, pace), paced_sample(s, pace)) for e, s in both]
                     for t, both in self.test.items()}

    def _read_episodes(self, episodes: EpisodeSource, data: Path,
                       pairs: list[tuple[str, Path, Path]], max_train: int | None) -> None:
        from socialbench.observers.agent.tomnet_g.samples import sample_of

        train = episodes.training(data, TRIAL_TYPES, max_train)
        with progress_bar(show=self.progress, transient=True) as bar:
            job = bar.add_task("tomnet-g: building graphs", total=len(train) + len(pairs))
            for episode in train:
                self.train.setdefault(episode.task or "", []).append(sample_of(episode.trials))
                bar.advance(job)
            for trial_type, expected, surprising in pairs:
                e, s = episodes.test(expected), episodes.test(surprising)
                self.test.setdefault(trial_type, []).append((sample_of(e.trials),
                                                             sample_of(s.trials)))
                bar.advance(job)

    def _read_states(self, data: Path, pairs: list[tuple[str, Path, Path]],
                     max_train: int | None, train_data: Path) -> None:
        from socialbench.observers.agent.tomnet_g.samples import training_trials

        trials = list(training_trials(train_data, TRIAL_TYPES, max_train))
        with progress_bar(show=self.progress, transient=True) as bar:
            job = bar.add_task("tomnet-g: building graphs", total=len(trials) + len(pairs))
            # reading a trial's states is the costly part: ``workers`` processes, in order
            # (a cached graph's name is its folder under its dataset: train_set or test_set)
            where = (data, self.checkpoints)
            for trial_type, sample in ordered_map(_tomnet_training_sample, trials,
                                                  self.workers,
                                                  shared=(train_data, self.checkpoints)):
                self.train.setdefault(trial_type, []).append(sample)
                bar.advance(job)
            for trial_type, both in ordered_map(_tomnet_test_samples, pairs, self.workers,
                                                shared=where):
                self.test.setdefault(trial_type, []).append(both)
                bar.advance(job)

    def rate(self, fold: Fold) -> Ratings:
        import torch

        from socialbench.observers.agent.tomnet_g.model import ToMnetG
        from socialbench.observers.agent.tomnet_g.surprise import surprise
        from socialbench.observers.agent.tomnet_g.training import train

        samples = [s for t in fold.train for s in self.train.get(t, [])]
        if not samples:
            raise UserError(f"no training trials of types {', '.join(fold.train)} under the "
                            f"data's train_set folders: ToMnet-G needs some")
        torch.manual_seed(self.seed)
        model = ToMnetG(relative=self.relative, conditioning=self.conditioning,
                        orientation=self.orientation, horizon=self.horizon, end=self.end)
        state = None
        if self.checkpoints is not None:
            self.checkpoints.mkdir(parents=True, exist_ok=True)
            # named by what it trains on: G2's and G4's folds share scenario names
            trained_on = hashlib.sha256("+".join(fold.train).encode()).hexdigest()[:8]
            yaw = "_yaw" if self.orientation else ""
            ahead = f"_h{self.horizon}" if self.horizon else ""
            ahead += "_end" if self.end else ""
            ahead += "_path" if self.pace == "path" else ""
            state = self.checkpoints / (f"tomnet-g_{fold.name}-{trained_on}_{self.surprise}_"
                                        f"{self.conditioning}{yaw}{ahead}.pt")
        train(model, samples, epochs=self.epochs, device=self.device, seed=self.seed,
              state_path=state, progress=self.progress, mode=self.surprise)

        def rating(sample: Any) -> float:
            return surprise(model, sample, self.surprise, self.device, self.reduce)

        return {t: [(rating(e), rating(s)) for e, s in self.test.get(t, [])]
                for t in fold.test}


def _tomnet_training_sample(where: tuple[Path, Path | None],
                            trial: tuple[str, Path]) -> tuple[str, Any]:
    from socialbench.observers.agent.tomnet_g.samples import cached

    data, cache = where
    return trial[0], cached(trial[1], data, cache)


def _tomnet_test_samples(where: tuple[Path, Path | None],
                         pair: tuple[str, Path, Path]) -> tuple[str, tuple[Any, Any]]:
    """A test pair's samples: (expected, surprising)."""
    from socialbench.observers.agent.tomnet_g.samples import cached

    data, cache = where
    return pair[0], (cached(pair[1], data, cache, "test"), cached(pair[2], data, cache, "test"))


def _training_evidence(episode: Episode) -> tuple[str, list]:
    from socialbench.observers.agent.bipack.evidence import video_evidence

    return episode.task or "", [video_evidence(v) for v in episode.trials]


def _test_evidence(episodes: EpisodeSource, pair: tuple[str, Path, Path]) -> tuple[str, tuple]:
    """A test pair's evidence: the familiarization videos', then the expected and surprising
    test videos'."""
    from socialbench.observers.agent.bipack.evidence import video_evidence

    trial_type, expected, surprising = pair
    e, s = episodes.test(expected), episodes.test(surprising)
    fam = [video_evidence(v) for v in e.trials[:-1]]
    return trial_type, (fam, video_evidence(e.trials[-1]), video_evidence(s.trials[-1]))


def run_protocol(rater: FoldRater, protocol: str, types: Sequence[str]) -> ProtocolResult:
    """Score ``rater`` under ``protocol`` over the trial types present in the test split."""
    present = tuple(t for t in TRIAL_TYPES if t in types)
    plan = folds(protocol, present)
    if not plan:
        raise UserError(f"protocol {protocol} needs more than one trial type or scenario "
                        f"in the data; found {', '.join(present)}")
    results = {fold.name: rater.rate(fold) for fold in plan}
    pairs: dict[str, int] = {}
    for by_type in results.values():
        for t, rows in by_type.items():
            pairs[t] = len(rows)
    matrix: dict[str, dict[str, float]] = {}
    if protocol in ("all", "G1", "G2"):
        accuracy = {t: _accuracy(rows) for by_type in results.values()
                    for t, rows in by_type.items()}
    else:  # G3 / G4: a matrix; a type's figure is its mean over folds not trained on it
        for fold in plan:
            row = {t: _accuracy(rows) for t, rows in results[fold.name].items()}
            if protocol == "G4":
                row = {SCENARIO_NAMES[s]: weighted(row, pairs, lambda t, s=s: scenario_of(t) == s)
                       for s in sorted({scenario_of(t) for t in row})}
            matrix[SCENARIO_NAMES.get(fold.name, fold.name) if protocol == "G4"
                   else fold.name] = row
        accuracy = {}
        for t in present:
            key = t if protocol == "G3" else scenario_of(t)
            off = [results[f.name][t] for f in plan if t in results[f.name]
                   and key != f.name]
            accuracy[t] = float(np.mean([_accuracy(r) for r in off])) if off else float("nan")
    accuracy = {t: accuracy[t] for t in present if t in accuracy}
    scenarios = {SCENARIO_NAMES[s]: weighted(accuracy, pairs, lambda t, s=s: scenario_of(t) == s)
                 for s in sorted({scenario_of(t) for t in accuracy})}
    return ProtocolResult(observer=rater.name, protocol=protocol, types=accuracy,
                          scenarios=scenarios, overall=weighted(accuracy, pairs), pairs=pairs,
                          matrix=matrix)


def find_pairs(data: Path) -> list[tuple[str, Path, Path]]:
    if not data.is_dir():
        raise UserError(f"{data}: no such dataset folder")
    pairs = test_pairs(data)
    if not pairs:
        raise UserError(f"{data}: no AGENT test trials (test_set/Trial_N with expected/ and "
                        f"surprising/); generate some with `socialbench agent generate`")
    return pairs

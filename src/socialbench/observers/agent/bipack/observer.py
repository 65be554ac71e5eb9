"""The registered ``bipack`` observer: calibrated on training episodes, saved as JSON."""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.agent3d.schema import VideoStates
from socialbench.core.errors import DataFileError
from socialbench.core.progress import progress_bar
from socialbench.observers.agent.bipack.evidence import W_V, VideoEvidence, video_evidence
from socialbench.observers.agent.bipack.inference import calibrate, expected_distance
from socialbench.voe.observer import EpisodeView, LearnedObserver
from socialbench.voe.registry import register_observer

FORMAT = "socialbench-bipack/1"
_CACHE_SIZE = 32  # videos: the expected and surprising episodes share familiarization videos


def _fingerprint(video: VideoStates) -> str:
    digest = hashlib.sha1(repr((video.entities, video.fps, len(video.frames))).encode())
    for frame in video.frames:
        digest.update(repr(frame).encode())
    return digest.hexdigest()


@register_observer("agent", "bipack")
class BipackObserver(LearnedObserver[EpisodeView[VideoStates]]):
    """Bayesian inverse planning with core knowledge (AGENT paper, Section 4.1)."""

    name = "bipack"
    benchmark = "agent"

    def __init__(self, log_prior: Sequence[float] | None = None,
                 use_familiarization: bool = True, calibration: str = "product") -> None:
        self.log_prior = (np.full(len(W_V), -np.log(len(W_V))) if log_prior is None
                          else np.asarray(log_prior, float))
        self.use_familiarization = use_familiarization
        self.calibration = calibration
        self._cache: OrderedDict[str, VideoEvidence] = OrderedDict()

    def evidence(self, video: VideoStates) -> VideoEvidence:
        key = _fingerprint(video)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        ev = video_evidence(video)
        self._cache[key] = ev
        if len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)
        return ev

    def trial_evidence(self, view: EpisodeView[VideoStates]) -> tuple[list[VideoEvidence],
                                                                       VideoEvidence]:
        return [self.evidence(v) for v in view.familiarization], self.evidence(view.test)

    def surprise_per_step(self, episode: EpisodeView[VideoStates]) -> np.ndarray:
        fam, test = self.trial_evidence(episode)
        return np.array([expected_distance(fam, test, self.log_prior,
                                           self.use_familiarization)])

    def fit(self, train: Sequence[Any], validation: Sequence[Any] = (),
            **options: Any) -> dict[str, float]:
        """Calibrate P_train(w_v) on every video of the training episodes."""
        videos = [v for episode in train for v in episode.trials]
        evidence = []
        with progress_bar(show=bool(options.get("progress")), transient=True) as bar:
            job = bar.add_task("calibrating bipack", total=len(videos))
            for video in videos:
                evidence.append(video_evidence(video))
                bar.advance(job)
        self.log_prior = calibrate(evidence, self.calibration)
        return {f"p(w_v={w})": float(np.exp(lp)) for w, lp in zip(W_V, self.log_prior,
                                                                    strict=True)}

    def save(self, path: Path) -> None:
        Path(path).write_text(json.dumps({"format": FORMAT, "w_v": list(W_V),
                                          "log_prior": self.log_prior.tolist()}) + "\n")

    @classmethod
    def load(cls, path: Path) -> BipackObserver:
        try:
            data = json.loads(Path(path).read_text())
            ok = data.get("format") == FORMAT and data.get("w_v") == list(W_V)
            prior = [float(x) for x in data["log_prior"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise DataFileError(Path(path), f"not a BIPaCK calibration file ({exc})") from None
        if not ok or len(prior) != len(W_V):
            raise DataFileError(Path(path), f"not a {FORMAT} file for w_v {list(W_V)}")
        return cls(log_prior=prior)

"""The registered ``tomnet-g`` observer: surprise = how far the observed agent is from the
path the network predicts, per rated step (a video's rating: the interface's ``reduce``, the
largest by default; ``agent evaluate`` takes the mean; ``surprise.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from socialbench.agent3d.schema import VideoStates
from socialbench.core.errors import DataFileError, first_line
from socialbench.core.torch_files import load_torch_file
from socialbench.observers.agent.tomnet_g.graphs import PACES
from socialbench.observers.agent.tomnet_g.model import ToMnetG
from socialbench.observers.agent.tomnet_g.samples import paced_sample, sample_of
from socialbench.observers.agent.tomnet_g.surprise import surprise_per_step
from socialbench.observers.agent.tomnet_g.training import train
from socialbench.voe.observer import EpisodeView, LearnedObserver
from socialbench.voe.registry import register_observer

EPOCHS = 60  # our default (the paper gives none); `--epochs` changes it
PACE = "path"  # graphs.paced: which rated frames the network reads


@register_observer("agent", "tomnet-g")
class ToMnetGObserver(LearnedObserver[EpisodeView[VideoStates]]):
    """ToMnet-G (AGENT paper, Section 4.2) on the videos' states."""

    name = "tomnet-g"
    benchmark = "agent"

    def __init__(self, device: str = "cpu", seed: int = 0, relative: bool = True,
                 surprise: str = "teacher-forced", conditioning: str = "gain",
                 orientation: bool = False, horizon: int = 0, end: bool = False,
                 pace: str = PACE) -> None:
        if pace not in PACES:
            raise ValueError(f"unknown ToMnet-G pace {pace!r}; choose {', '.join(PACES)}")
        self.device = device
        self.pace = pace
        self.seed = seed
        self.reading = surprise  # not `surprise`: that is the observer interface's method
        torch.manual_seed(seed)
        self.model = ToMnetG(relative=relative, conditioning=conditioning,
                             orientation=orientation, horizon=horizon, end=end).to(device)

    def surprise_per_step(self, episode: EpisodeView[VideoStates]) -> np.ndarray:
        return surprise_per_step(self.model, self._sample(episode.trials), self.reading,
                                 self.device)

    def _sample(self, trials: Sequence[VideoStates]) -> Any:
        return paced_sample(sample_of(trials), self.pace)

    def fit(self, train_episodes: Sequence[Any], validation: Sequence[Any] = (),
            **options: Any) -> dict[str, float]:
        samples = [self._sample(e.trials) for e in train_episodes]
        state = options.get("state_path")
        return train(self.model, samples, epochs=int(options.get("epochs", EPOCHS)),
                     device=self.device, seed=self.seed,
                     state_path=Path(state) if state else None,
                     progress=bool(options.get("progress", False)), mode=self.reading)

    def save(self, path: Path) -> None:
        torch.save({"model": self.model.state_dict(), "relative": self.model.relative,
                    "surprise": self.reading, "conditioning": self.model.conditioning,
                    "orientation": self.model.orientation, "horizon": self.model.horizon,
                    "end": self.model.end, "pace": self.pace},
                   path)

    @classmethod
    def load(cls, path: Path, device: str = "cpu") -> ToMnetGObserver:
        retrain = ("retrain it with `socialbench agent evaluate --observer tomnet-g "
                   "--checkpoints DIR`")
        try:
            state = load_torch_file(path, "tomnet-g checkpoint", retrain, map_location=device)
        except FileNotFoundError:
            raise DataFileError(Path(path), f"no such tomnet-g checkpoint; {retrain}") from None
        try:
            observer = cls(device=device, relative=bool(state.get("relative", True)),
                           surprise=str(state.get("surprise", "teacher-forced")),
                           conditioning=str(state.get("conditioning", "gain")),
                           orientation=bool(state.get("orientation", False)),
                           horizon=int(state.get("horizon", 0)),
                           end=bool(state.get("end", False)),
                           pace=str(state.get("pace", "time")))
            observer.model.load_state_dict(state["model"])
        except (RuntimeError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise DataFileError(Path(path), f"not a tomnet-g checkpoint ({first_line(exc)}); "
                                            f"{retrain}") from None
        return observer

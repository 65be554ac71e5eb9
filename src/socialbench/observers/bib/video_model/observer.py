"""The BIB paper's video model as an observer: ``--observer video``.

Surprise (BIB paper, section 5 and B.2): the test trial's frames at 3 fps, each predicted from
the one before it and the familiarization embedding; a step's surprise is the mean squared
error of its predicted frame, and a video's surprise the maximum over its steps (the mean is
``--reduce mean``). Checkpoints are a plain dict of tensors and JSON text, read with
``torch.load(..., weights_only=True)``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from rich.console import Console

from socialbench.bib.io.read import EpisodeFiles
from socialbench.bib.schema import N_FAMILIARIZATION, N_TRIALS, Episode, Trial
from socialbench.core.errors import DataFileError, UserError
from socialbench.core.files import atomic_write
from socialbench.observers.bib.torch_files import read_torch_dict
from socialbench.observers.bib.video_model.frame_cache import (
    SHARD_EPISODES,
    frame_shard,
    prepare_shards,
)
from socialbench.observers.bib.video_model.frame_source import frame_drawer
from socialbench.observers.bib.video_model.network import VideoConfig, VideoNet
from socialbench.observers.bib.video_model.training import (
    PRECISIONS,
    SHARDS_IN_MEMORY,
    STEP_SAMPLINGS,
    Shard,
    make_batch,
    resolve_device,
    shard_key,
    train,
)
from socialbench.voe.observer import EpisodeView, LearnedObserver
from socialbench.voe.registry import register_observer

CHECKPOINT_FORMAT = "socialbench-video/1"


@register_observer("bib", "video")
class VideoObserver(LearnedObserver[EpisodeView[Trial]]):
    """``VideoObserver(checkpoint=PATH)`` loads a trained model; ``VideoObserver(**config)``
    builds an untrained one (:class:`VideoConfig` fields) to :meth:`fit`."""

    name = "video"
    benchmark = "bib"

    def __init__(self, checkpoint: str | Path | None = None, **config: Any) -> None:
        self.device = torch.device("cpu")
        if checkpoint is not None:
            if config:
                raise UserError("a checkpoint fixes the video model's shape: give no options")
            loaded = self.load(Path(checkpoint))
            self.config, self.net, self.training_info = (loaded.config, loaded.net,
                                                         loaded.training_info)
            return
        self.config = VideoConfig(**config)
        self.net = VideoNet(self.config).eval()
        self.training_info: dict[str, Any] = {}

    # --- rating -----------------------------------------------------------------------------

    def frames_of(self, trials: Sequence[Trial]) -> tuple[np.ndarray, np.ndarray]:
        """The trials' frames from the source the model was built for (2D or 3D videos)."""
        with frame_drawer(self.config.frames, self.config.side, self.config.fps) as draw:
            return draw(trials)

    def step_errors(self, frames: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Per test step, the MSE of the predicted next frame (``frames``/``counts`` of one
        episode, as :mod:`.frames` gives them)."""
        if len(counts) != N_TRIALS:
            raise UserError(f"an episode with {len(counts)} trials; BIB episodes have "
                            f"{N_TRIALS}")
        if counts[-1] < 2 or (counts[:-1] < 1).any():
            return np.zeros(0)
        self.net.eval()
        with torch.no_grad():
            errors = make_batch([(frames, counts)], self.device).step_errors(self.net)
        return errors.cpu().numpy().astype(np.float64)

    def surprise_per_step(self, episode: EpisodeView[Trial]) -> np.ndarray:
        return self.step_errors(*self.frames_of(episode.trials))

    # --- training ---------------------------------------------------------------------------

    def fit(self, train_set: Sequence[Episode], validation: Sequence[Episode] = (), *,
            epochs: int = 5, batch_size: int = 4, lr: float = 1e-4, seed: int = 0,
            device: str = "cpu", test_steps: int | None = None, fam_trials: int | None = None,
            step_sampling: str = "all", shards_in_memory: int | None = SHARDS_IN_MEMORY,
            max_updates: int | None = None, precision: str = "fp32",
            state_path: Path | None = None,
            cache_prefix: Path | None = None, workers: int = 1, progress: bool = True,
            **unused: Any) -> dict[str, float]:
        """Train from scratch, or resume ``state_path``; return the last epoch's metrics.

        ``cache_prefix``: the frames of :class:`EpisodeFiles` are drawn once into
        ``PREFIX-train-NNNN.npz`` / ``PREFIX-validation-NNNN.npz`` shards, reused later.
        ``device``: ``cpu`` (deterministic: same seed and threads, same weights) or ``cuda``.
        ``test_steps``: train on that many random test steps of each episode per epoch (ours;
        default all, :mod:`.training`); ``fam_trials``: in training, average that many random
        familiarization trials' embeddings (ours; default all 8; rating always uses 8);
        ``step_sampling`` ``moving``: draw those test steps among the ones where the frame
        changes (ours; default ``all``, :mod:`.training`); ``shards_in_memory``: frame shards
        whose episodes are mixed in one pass (None: all, every batch drawn from the whole
        training set); ``max_updates``: stop after that many optimiser steps in all (the state
        stays resumable: a larger value continues); ``workers``: processes drawing the frame
        shards of ``cache_prefix`` (the shards are the same whatever the number);
        ``precision``: ``bf16`` trains in bf16 (ours; default fp32, :mod:`.training`).
        """
        if unused:
            raise UserError(f"unknown video training option(s): {', '.join(sorted(unused))}")
        if epochs < 1 or batch_size < 1 or lr <= 0 or (test_steps is not None and
                                                       test_steps < 1):
            raise UserError("epochs, batch size and test steps must be >= 1 and the learning "
                            "rate > 0")
        if step_sampling not in STEP_SAMPLINGS:
            raise UserError(f"step sampling must be one of {', '.join(STEP_SAMPLINGS)}, got "
                            f"{step_sampling!r}")
        if step_sampling != "all" and test_steps is None:
            raise UserError("--step-sampling moving draws --test-steps N steps: give N")
        if (shards_in_memory is not None and shards_in_memory < 1) or \
                (max_updates is not None and max_updates < 1):
            raise UserError("shards in memory and the optimiser-step limit must be >= 1")
        if fam_trials is not None and not 1 <= fam_trials <= N_FAMILIARIZATION:
            raise UserError(f"familiarization trials per episode must be 1-{N_FAMILIARIZATION}")
        if precision not in PRECISIONS:
            raise UserError(f"precision must be one of {', '.join(PRECISIONS)}, got "
                            f"{precision!r}")
        where = resolve_device(device)
        if workers < 1:
            raise UserError(f"workers must be at least 1, got {workers}")
        shards = self._shards(train_set, cache_prefix, "train", progress, workers)
        held_out = self._shards(validation, cache_prefix, "validation", progress, workers)
        if not shards:
            raise UserError("the video model needs at least one training episode")
        resume_key = {"config": self.config.to_json(), "data": [shard_key(s) for s in shards],
                      "batch_size": batch_size, "lr": lr, "seed": seed,
                      "test_steps": test_steps, "fam_trials": fam_trials,
                      "shards_in_memory": shards_in_memory or "all"}
        if step_sampling != "all":  # "all": the key runs before the option were resumed with
            resume_key["step_sampling"] = step_sampling
        if precision != "fp32":  # likewise: fp32 runs made before the option resume
            resume_key["precision"] = precision
        deterministic = torch.are_deterministic_algorithms_enabled()
        torch.use_deterministic_algorithms(where.type == "cpu")
        try:
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed)
                self.net = VideoNet(self.config)
            self.net.to(where)
            self.device = where
            log = Console(stderr=True).log if progress else (lambda _text: None)
            history = train(self.net, shards, held_out, epochs=epochs, batch_size=batch_size,
                            lr=lr, seed=seed, device=where, state_path=state_path and
                            Path(state_path), resume_key=resume_key, progress=progress,
                            log=log, test_steps=test_steps, fam_trials=fam_trials,
                            step_sampling=step_sampling, shards_in_memory=shards_in_memory,
                            max_updates=max_updates, precision=precision)
        finally:
            torch.use_deterministic_algorithms(deterministic)
        self.net.to("cpu", memory_format=torch.contiguous_format).eval()
        self.device = torch.device("cpu")
        self.training_info = {"epochs": epochs, "batch_size": batch_size, "lr": lr,
                              "seed": seed, "device": str(where), "test_steps": test_steps,
                              "fam_trials": fam_trials, "step_sampling": step_sampling,
                              "shards_in_memory": shards_in_memory or "all",
                              "max_updates": max_updates, "precision": precision,
                              "updates": history[-1]["updates"] if history else 0,
                              "history": history}
        return {k: float(v) for k, v in history[-1].items() if k != "epoch"} if history else {}

    def _shards(self, episodes: Sequence[Episode], prefix: Path | None, part: str,
                progress: bool, workers: int = 1) -> list[Shard]:
        """The episodes' frames: shards on disk for files with a cache prefix, else in memory."""
        side, fps = self.config.side, self.config.fps
        if len(episodes) == 0:
            return []
        if prefix is not None and isinstance(episodes, EpisodeFiles):
            return list(prepare_shards(episodes, Path(f"{prefix}-{part}"), side, fps, progress,
                                       self.config.frames, workers))
        out: list[Shard] = []
        for start in range(0, len(episodes), SHARD_EPISODES):
            out.append(frame_shard(episodes[start:start + SHARD_EPISODES], side, fps,
                                   self.config.frames))
        return out

    # --- checkpoints ------------------------------------------------------------------------

    def save(self, path: Path) -> None:
        """Write weights + config (+ training record) to ``path``, atomically."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        state = {k: v.detach().cpu() for k, v in self.net.state_dict().items()}
        with atomic_write(path) as tmp:
            torch.save({"format": CHECKPOINT_FORMAT, "config": json.dumps(self.config.to_json()),
                        "model": state, "training": json.dumps(self.training_info)}, tmp)

    @classmethod
    def load(cls, path: Path) -> VideoObserver:
        """Read a checkpoint written by :meth:`save` (``weights_only``: nothing is unpickled)."""
        data = read_torch_dict(Path(path), CHECKPOINT_FORMAT, "video checkpoint", "video")
        try:
            config = VideoConfig.from_json(json.loads(data["config"]))
            net = VideoNet(config)
            net.load_state_dict(data["model"])
            info = json.loads(data.get("training", "{}"))
        except (KeyError, TypeError, ValueError, RuntimeError, UserError) as exc:
            raise DataFileError(path, f"damaged video checkpoint ({str(exc)[:100]}); retrain it "
                                      f"with `socialbench bib train --observer video`") from None
        observer = cls(**config.to_json())
        observer.net, observer.training_info = net.eval(), info
        return observer

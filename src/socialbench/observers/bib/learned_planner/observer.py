"""``--observer learned-planner``: the learned BIB observer (docs/beyond.md).

Amortised inverse planning with a differentiable planner as inductive bias
(``planner.py``, ``model.py``), fitted by maximum likelihood of the agents' steps in the
background training episodes (expected files only; the surprise it rates is the same
likelihood, on a test trial). A test step's surprise is ``-log P(step | familiarization, the
test so far)``, capped at ``MAX_SURPRISE``; the last is ``-log P(the agent stops where it
does)``. Checkpoints and training states are torch files read with ``weights_only=True``.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from socialbench.bib.io.read import EpisodeFiles
from socialbench.bib.schema import Episode, Trial
from socialbench.core.errors import DataFileError, UserError, first_line
from socialbench.core.progress import progress_bar
from socialbench.core.seeding import rng_for
from socialbench.observers.bib.learned_planner.batch import pack
from socialbench.observers.bib.learned_planner.model import ModelConfig, PlannerModel
from socialbench.observers.bib.learned_planner.tensors import TrialArrays, trial_arrays
from socialbench.observers.bib.torch_files import (
    read_torch_dict,
    read_training_state,
    write_torch_dict,
    write_training_state,
)
from socialbench.voe.observer import EpisodeView, LearnedObserver
from socialbench.voe.registry import register_observer

NAME = "learned-planner"
CHECKPOINT_FORMAT = "socialbench-bib-learned-planner-v1"
STATE_FORMAT = "socialbench-bib-learned-planner-state-v1"
MAX_SURPRISE = 50.0  # nats: the rating of a step the model all but rules out
MAX_BYTES = 1 << 20  # a checkpoint holds a dozen numbers
# The checkpoint measured in docs/beyond.md (b17_run2), shipped so that `socialbench run` can
# rate with it; read like any other (weights_only).
SHIPPED_CHECKPOINT = Path(__file__).with_name("shipped.pt")


def episode_arrays(episode: Episode | EpisodeView[Trial]) -> list[TrialArrays]:
    return [trial_arrays(t) for t in episode.trials]


class LearnedPlanner(LearnedObserver[EpisodeView[Trial]]):
    """The registered observer (see the module docstring)."""

    name = NAME
    benchmark = "bib"

    def __init__(self, config: ModelConfig | None = None, **overrides: Any) -> None:
        base = config or ModelConfig()
        self.config = ModelConfig(**{**base.to_json(), **overrides})
        self.model = PlannerModel(self.config)
        self.training_info: dict[str, Any] = {}

    # --- rating ---------------------------------------------------------------------------

    def surprise_per_step(self, episode: EpisodeView[Trial]) -> np.ndarray:
        return self.surprise_of_arrays(episode_arrays(episode))

    def surprise_of_arrays(self, arrays: list[TrialArrays]) -> np.ndarray:
        """Per-step surprise of the test trial (the last) from the trials' arrays."""
        with torch.no_grad():
            test = self.model(pack(arrays), [len(arrays)])[0][-1]
        steps = np.minimum(-test["steps"].numpy().astype(float), MAX_SURPRISE)
        stop = min(-float(test["stop"]), MAX_SURPRISE)
        return np.maximum(np.append(steps, stop), 0.0)

    # --- training -------------------------------------------------------------------------

    def fit(self, train: Sequence[Episode], validation: Sequence[Episode] = (), *,
            epochs: int = 3, batch_size: int = 8, lr: float = 0.05, seed: int = 0,
            device: str | None = None, state_path: Path | None = None,
            progress: bool = True, **unused: Any) -> dict[str, float]:
        """Maximise the likelihood of every step of every trial given the trials before it.

        ``state_path``: the state after each epoch (an interrupted run resumes there; a larger
        ``epochs`` continues a finished one). Returns the last epoch's mean negative
        log-likelihood per step on the training and validation episodes (and per task).
        """
        unused.pop("cache_prefix", None)
        if unused:
            raise UserError(f"unknown {NAME} training option(s): {', '.join(sorted(unused))}")
        if epochs < 1 or batch_size < 1 or lr <= 0:
            raise UserError("epochs and batch size must be >= 1 and the learning rate > 0")
        run_on = _device(device)
        train_data = _read(train, "reading training episodes", progress)
        val_data = _read(validation, "reading validation episodes", progress)
        if not train_data:
            raise UserError(f"{NAME} needs at least one training episode")
        key = {"config": self.config.to_json(), "data": _fingerprint(train),
               "batch_size": batch_size, "lr": lr, "seed": seed}
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.model = PlannerModel(self.config)
        self.model.to(run_on)
        optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        start, history = 0, []
        key_text = json.dumps(key, sort_keys=True)
        if state_path is not None and Path(state_path).exists():
            start, history = read_training_state(
                Path(state_path), STATE_FORMAT, key_text, self.model, optimizer, NAME,
                {"epoch": int, "history": lambda text: list(json.loads(text))})
        with progress_bar(show=progress) as bar:
            for epoch in range(start, epochs):
                order = rng_for(seed, NAME, "shuffle", epoch).permutation(len(train_data))
                batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
                task = bar.add_task(f"{NAME} epoch {epoch + 1}/{epochs}", total=len(batches))
                total, steps = 0.0, 0
                for chosen in batches:
                    loss, count = _nll(self.model, [train_data[i][1] for i in chosen], run_on)
                    optimizer.zero_grad()
                    (loss / max(count, 1)).backward()
                    optimizer.step()
                    total += float(loss.detach())
                    steps += count
                    bar.update(task, advance=1)
                record = {"epoch": epoch + 1, "train_nll": total / max(steps, 1),
                          **self._validate(val_data, run_on),
                          **self.model.learned_values()}
                history.append(record)
                if state_path is not None:
                    write_training_state(Path(state_path), STATE_FORMAT, key_text, self.model,
                                         optimizer, epoch=epoch + 1,
                                         history=json.dumps(history))
        self.model.to("cpu")
        self.model.eval()
        self.training_info = {"episodes": len(train_data), "history": history}
        return {k: float(v) for k, v in history[-1].items() if k != "epoch"} if history else {}

    def _validate(self, data: list[tuple[str, list[TrialArrays]]],
                  device: torch.device) -> dict[str, float]:
        sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        with torch.no_grad():
            for task, arrays in data:
                loss, count = _nll(self.model, [arrays], device)
                for name in (task, ""):
                    sums[name][0] += float(loss)
                    sums[name][1] += count
        return {("val_nll/" + t if t else "val_nll"): s / max(c, 1) for t, (s, c) in sums.items()}

    # --- checkpoints ----------------------------------------------------------------------

    def save(self, path: Path) -> None:
        """Write the config, the learned values and the training record (weights_only-safe)."""
        write_torch_dict(Path(path), {"format": CHECKPOINT_FORMAT,
                                      "config": json.dumps(self.config.to_json()),
                                      "model": self.model.state_dict(),
                                      "training": json.dumps(self.training_info)})

    @classmethod
    def load(cls, path: Path) -> LearnedPlanner:
        data = read_torch_dict(Path(path), CHECKPOINT_FORMAT, f"{NAME} checkpoint", NAME,
                               MAX_BYTES)
        try:
            observer = cls(ModelConfig(**json.loads(data["config"])))
            observer.model.load_state_dict(data["model"])
            observer.model.eval()
            observer.training_info = json.loads(data.get("training", "{}"))
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise DataFileError(Path(path), f"damaged {NAME} checkpoint ({first_line(exc)}); "
                                            f"retrain it with `socialbench bib train --observer "
                                            f"{NAME}`") from None
        return observer

    @classmethod
    def shipped(cls) -> LearnedPlanner:
        """The checkpoint that ships with the package (:data:`SHIPPED_CHECKPOINT`)."""
        return cls.load(SHIPPED_CHECKPOINT)


def _device(name: str | None) -> torch.device:
    if name in (None, "cpu"):
        return torch.device("cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise UserError(f"--device {name}: PyTorch sees no GPU here; use --device cpu")
    try:
        return torch.device(name)
    except RuntimeError:
        raise UserError(f"--device {name!r} is not a device PyTorch knows (cpu, cuda)") from None


def _read(episodes: Sequence[Episode], label: str,
          progress: bool) -> list[tuple[str, list[TrialArrays]]]:
    """(task, arrays) of every episode, read once (the files are large; the arrays small)."""
    with progress_bar(show=progress and len(episodes) > 0) as bar:
        return [(e.task or "", episode_arrays(e))
                for e in bar.track(episodes, description=label)]


def _fingerprint(episodes: Sequence[Episode]) -> str:
    names = ([str(p) for p in episodes.paths] if isinstance(episodes, EpisodeFiles)
             else [str(len(episodes))])
    return hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]


def _nll(model: PlannerModel, episodes: list[list[TrialArrays]],
         device: torch.device) -> tuple[torch.Tensor, int]:
    """The summed negative log-likelihood of the episodes' steps and stops, and their count."""
    batch = pack([t for arrays in episodes for t in arrays]).to(device)
    out = model(batch, [len(a) for a in episodes])
    terms = [torch.cat([r["steps"], r["stop"][None]]) for trials in out for r in trials]
    joined = torch.cat(terms)
    return -joined.sum(), int(joined.numel())


@register_observer("bib", NAME)
def _make(**options: Any) -> LearnedPlanner:
    return LearnedPlanner(**options)

"""Training the video model: next-frame MSE on the background set's expected test trials.

BIB paper, B.2: mean squared error, Adam with learning rate 1e-4 and betas (0.9, 0.999). Ours:
episodes in batches (``batch_size`` episodes: all their familiarization frames through the
encoder, all their test steps through the U-Net); the loss is the mean squared error over every
pixel of every test step of the batch.

Epochs walk the frame shards (:mod:`.frame_cache`) in an order seeded by (seed, epoch), and each
shard's episodes in an order seeded by (seed, epoch, shard). The state (weights, optimizer,
position, history) is written after every shard, so an interrupted run loses at most one shard's
work, and a resumed run ends with the same weights as an uninterrupted one (on the CPU, for
the same thread count: deterministic algorithms are switched on there).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from socialbench.bib.schema import N_FAMILIARIZATION
from socialbench.core.errors import DataFileError, UserError
from socialbench.core.files import atomic_write
from socialbench.core.progress import progress_bar
from socialbench.core.seeding import rng_for
from socialbench.observers.bib.torch_files import read_torch_dict
from socialbench.observers.bib.video_model.frame_cache import FrameShard, read_key, read_shard
from socialbench.observers.bib.video_model.network import VideoNet

STATE_FORMAT = "socialbench-video-train-state/1"
Shard = FrameShard | Path


@dataclass(frozen=True)
class Batch:
    """Tensors of some episodes: familiarization frames and counts, test steps (input frame,
    next frame) and the episode each step belongs to."""

    fam_frames: torch.Tensor
    fam_counts: torch.Tensor
    inputs: torch.Tensor
    targets: torch.Tensor
    owner: torch.Tensor

    def step_errors(self, net: VideoNet) -> torch.Tensor:
        """The mean squared error of each test step's predicted next frame ``(S,)``."""
        predicted = net(self.fam_frames, self.fam_counts, self.inputs, self.owner)
        return ((predicted - self.targets) ** 2).mean(dim=(1, 2, 3))


def make_batch(episodes: Sequence[tuple[np.ndarray, np.ndarray]],
               device: torch.device | str = "cpu") -> Batch:
    """A batch of episodes given as (frames ``(F, H, W, 3)`` uint8, per-trial counts ``(9,)``)."""
    fam, counts, inputs, targets, owner = [], [], [], [], []
    for index, (frames, trial_counts) in enumerate(episodes):
        n_fam = int(trial_counts[:N_FAMILIARIZATION].sum())
        test = frames[n_fam:n_fam + int(trial_counts[N_FAMILIARIZATION])]
        fam.append(frames[:n_fam])
        counts.append(trial_counts[:N_FAMILIARIZATION])
        inputs.append(test[:-1])
        targets.append(test[1:])
        owner += [index] * max(len(test) - 1, 0)
    return Batch(_pixels(fam, device), torch.as_tensor(np.stack(counts), device=device),
                 _pixels(inputs, device), _pixels(targets, device),
                 torch.as_tensor(owner, dtype=torch.long, device=device))


def _pixels(parts: list[np.ndarray], device: torch.device | str) -> torch.Tensor:
    """uint8 ``(N, H, W, 3)`` arrays -> one float ``(N, 3, H, W)`` tensor in [0, 1]."""
    array = torch.from_numpy(np.ascontiguousarray(np.concatenate(parts)))
    return array.to(device).permute(0, 3, 1, 2).float().div_(255.0)


def resolve_device(name: str) -> torch.device:
    """``cpu`` or ``cuda[:N]``; a one-line error when CUDA is asked for and missing."""
    if name != "cpu" and not name.startswith("cuda"):
        raise UserError(f"--device must be cpu or cuda, got {name!r}")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise UserError(f"--device {name}: PyTorch sees no CUDA GPU here "
                        f"(torch {torch.__version__}); use --device cpu")
    return torch.device(name)


def shard_key(shard: Shard) -> str:
    """What identifies a shard's data (its key on disk; a digest of an in-memory one)."""
    if isinstance(shard, FrameShard):
        digest = hashlib.sha256(np.ascontiguousarray(shard.frames).tobytes())
        digest.update(np.ascontiguousarray(shard.counts).tobytes())
        return digest.hexdigest()
    return read_key(shard) or str(shard)


def load(shard: Shard) -> FrameShard:
    return shard if isinstance(shard, FrameShard) else read_shard(shard)


def shard_size(shard: Shard) -> int:
    """Episodes in a shard (on disk: read from its small ``counts`` array alone)."""
    if isinstance(shard, FrameShard):
        return len(shard)
    with np.load(shard, allow_pickle=False) as data:
        return int(data["counts"].shape[0])


def episode_batches(shard: FrameShard, order: np.ndarray, batch_size: int,
                    device: torch.device) -> list[tuple[int, Batch]]:
    """(episode count, batch) in ``order``, skipping episodes whose test has no step."""
    out = []
    for start in range(0, len(order), batch_size):
        items = [shard.episode(int(i)) for i in order[start:start + batch_size]]
        items = [(f, c) for f, c in items if c[N_FAMILIARIZATION] >= 2 and
                 (c[:N_FAMILIARIZATION] >= 1).all()]
        if items:
            out.append((len(order[start:start + batch_size]), make_batch(items, device)))
    return out


@dataclass
class Position:
    """Where a run is: finished epochs, finished shards of the current one, and its loss sums."""

    epoch: int = 0
    shards_done: int = 0
    loss_sum: float = 0.0
    steps: int = 0


def train(net: VideoNet, shards: Sequence[Shard], validation: Sequence[Shard], *, epochs: int,
          batch_size: int, lr: float, seed: int, device: torch.device,
          state_path: Path | None, resume_key: dict[str, Any], progress: bool,
          log: Callable[[str], None]) -> list[dict[str, Any]]:
    """Train ``net`` in place; return the per-epoch history (train and validation MSE)."""
    optimizer = torch.optim.Adam(net.parameters(), lr=lr, betas=(0.9, 0.999))
    history: list[dict[str, Any]] = []
    position = Position()
    key_text = json.dumps(resume_key, sort_keys=True)
    if state_path is not None and state_path.exists():
        position, history = _resume(state_path, key_text, net, optimizer)
    total = sum(shard_size(s) for s in shards) if progress else 0
    with progress_bar(show=progress) as bar:
        while position.epoch < epochs:
            epoch = position.epoch
            order = rng_for(seed, "video-shards", epoch).permutation(len(shards))
            task = bar.add_task(f"video epoch {epoch + 1}/{epochs}", total=total)
            net.train()
            for rank in range(len(shards)):
                if rank < position.shards_done:
                    bar.update(task, advance=shard_size(shards[int(order[rank])]))
                    continue
                shard = load(shards[int(order[rank])])
                inner = rng_for(seed, "video-episodes", epoch, int(order[rank]))
                for count, batch in episode_batches(shard, inner.permutation(len(shard)),
                                                    batch_size, device):
                    errors = batch.step_errors(net)
                    loss = errors.mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    position.loss_sum += float(errors.detach().sum())
                    position.steps += int(errors.numel())
                    bar.update(task, advance=count)
                position.shards_done = rank + 1
                if state_path is not None:
                    _write_state(state_path, key_text, net, optimizer, position, history)
            record = {"epoch": epoch + 1,
                      "train_mse": position.loss_sum / max(position.steps, 1),
                      **validate(net, validation, device)}
            history.append(record)
            log(", ".join(f"{k} {v:.5f}" if isinstance(v, float) else f"{k} {v}"
                          for k, v in record.items()))
            position = Position(epoch + 1)
            if state_path is not None:
                _write_state(state_path, key_text, net, optimizer, position, history)
    net.eval()
    return history


def validate(net: VideoNet, shards: Sequence[Shard], device: torch.device) -> dict[str, float]:
    """Mean per-step MSE of the predicted next frame, overall and per task."""
    sums: dict[str, list[float]] = {}
    net.eval()
    with torch.no_grad():
        for item in shards:
            shard = load(item)
            for index in range(len(shard)):
                frames, counts = shard.episode(index)
                if counts[N_FAMILIARIZATION] < 2:
                    continue
                errors = make_batch([(frames, counts)], device).step_errors(net)
                for task in ("", str(shard.tasks[index])):
                    total = sums.setdefault(task, [0.0, 0])
                    total[0] += float(errors.sum())
                    total[1] += int(errors.numel())
    net.train()
    metrics = {}
    for task, (error, steps) in sorted(sums.items()):
        metrics["val_mse" + (f"/{task}" if task else "")] = error / max(steps, 1)
    return metrics


def _write_state(path: Path, key: str, net: VideoNet, optimizer: torch.optim.Optimizer,
                 position: Position, history: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as tmp:
        torch.save({"format": STATE_FORMAT, "key": key, "model": net.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "position": json.dumps(position.__dict__),
                    "history": json.dumps(history)}, tmp)


def _resume(path: Path, key: str, net: VideoNet,
            optimizer: torch.optim.Optimizer) -> tuple[Position, list[dict[str, Any]]]:
    state = read_torch_dict(path, STATE_FORMAT, "video training state", "video")
    if state.get("key") != key:
        raise UserError(f"{path} was written for other training data or options; delete it "
                        f"to start over, or rerun with the same data and options to resume")
    try:
        net.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        return Position(**json.loads(state["position"])), list(json.loads(state["history"]))
    except (KeyError, RuntimeError, ValueError, TypeError) as exc:
        raise DataFileError(path, f"damaged video training state ({str(exc)[:100]}); delete "
                                  f"it to start over") from None

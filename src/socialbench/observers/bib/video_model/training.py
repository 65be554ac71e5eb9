"""Training the video model: next-frame MSE on the background set's expected test trials.

BIB paper, B.2: mean squared error, Adam with learning rate 1e-4 and betas (0.9, 0.999). Ours:
episodes in batches (``batch_size`` episodes: all their familiarization frames through the
encoder, their test steps through the U-Net); the loss is the mean squared error over every
pixel of every test step of the batch.

``test_steps`` (ours, default all): each episode contributes that many of its test steps, drawn
at random (seeded) each epoch, instead of all ~22. The U-Net's pass over one step costs about as
much as the encoder's over 8 familiarization frames, so a few steps per episode give several
times more optimiser steps per CPU-second; the loss stays an unbiased estimate of the
per-episode mean error.

``step_sampling`` (ours, default ``all``): with ``moving``, the test steps are drawn only among
those where the next frame differs from the current one. At 3 fps about 30 % of the background
test steps change anything (the agent waits on its start, then holds at its goal); the rest
teach only "copy the frame", which the residual U-Net (:mod:`.network`) already gives for free.
The loss is still the frame's MSE; validation and rating still use every step.

``fam_trials`` (ours, default all 8): in training, the embedding averages that many of the 8
familiarization trials, drawn at random (seeded) per episode and epoch; the encoder's pass over
~190 familiarization frames otherwise costs more than the U-Net's over a few test steps. Rating
always averages all 8 (the paper's design).

Epochs walk the frame shards (:mod:`.frame_cache`) in groups of ``shards_in_memory`` (default
:data:`SHARDS_IN_MEMORY`), in an order seeded by (seed, epoch), and each group's episodes mixed
in an order seeded by (seed, epoch, group): shards hold episodes in file order, i.e. one task
after another, and batches from one task at a time pull the weights back and forth. With
``shards_in_memory=None`` every shard is held at once (~2.5 MB of frames an episode) and every
batch is drawn from the whole training set, in an order seeded by (seed, epoch) alone (the
third run's sampler, first run by a script, ``long.py``; its stream name is kept so that the
command reproduces that run). The state (weights, optimizer, position, history) is written
after every group and every :data:`SAVE_EVERY` optimiser steps, so an interrupted run loses
little, and a resumed run ends with the same weights as an uninterrupted one (on the CPU, for
the same thread count: deterministic algorithms are switched on there). ``max_updates`` stops
a run after that many optimiser steps in all, mid-epoch if need be; a larger value resumes it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from socialbench.bib.schema import N_FAMILIARIZATION
from socialbench.core.errors import UserError
from socialbench.core.progress import progress_bar
from socialbench.core.seeding import rng_for
from socialbench.observers.bib.torch_files import (
    read_training_state,
    write_training_state,
)
from socialbench.observers.bib.video_model.frame_cache import FrameShard, read_key, read_shard
from socialbench.observers.bib.video_model.network import VideoNet

STATE_FORMAT = "socialbench-video-train-state/1"
STEP_SAMPLINGS = ("all", "moving")  # which test steps --test-steps draws from
SHARDS_IN_MEMORY = 4  # shards whose episodes are mixed in one pass: ~0.7 GB of 2D frames
SAVE_EVERY = 100  # optimiser steps between saved states inside a group of shards
# the network's arithmetic in training: fp32, or bf16 (autocast, the weights and Adam's
# moments in fp32; channels-last activations): 1.7x the optimiser steps per CPU-second on a
# CPU with bf16 matrix units (docs/bib_baselines.md)
PRECISIONS = ("fp32", "bf16")
ALL_SHARDS_STREAM = "long"  # the seed stream of the all-shards order (the third run's script's)
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

    def step_errors(self, net: VideoNet, precision: str = "fp32") -> torch.Tensor:
        """The mean squared error of each test step's predicted next frame ``(S,)``; the
        network run in ``precision`` (:data:`PRECISIONS`), the error taken in fp32."""
        with torch.autocast(self.inputs.device.type, dtype=torch.bfloat16,
                            enabled=precision == "bf16"):
            predicted = net(self.fam_frames, self.fam_counts, self.inputs, self.owner)
        return ((predicted.float() - self.targets) ** 2).mean(dim=(1, 2, 3))


def make_batch(episodes: Sequence[tuple[np.ndarray, np.ndarray]],
               device: torch.device | str = "cpu",
               steps: Sequence[np.ndarray] | None = None,
               trials: Sequence[np.ndarray] | None = None) -> Batch:
    """A batch of episodes given as (frames ``(F, H, W, 3)`` uint8, per-trial counts ``(9,)``);
    ``steps``: per episode, the test steps to keep (step t predicts test frame t + 1 from t;
    default all); ``trials``: per episode, the familiarization trials to encode (default all 8;
    the same number for every episode)."""
    fam, counts, inputs, targets, owner = [], [], [], [], []
    for index, (frames, trial_counts) in enumerate(episodes):
        n_fam = int(trial_counts[:N_FAMILIARIZATION].sum())
        test = frames[n_fam:n_fam + int(trial_counts[N_FAMILIARIZATION])]
        kept = np.arange(max(len(test) - 1, 0)) if steps is None else np.asarray(steps[index])
        chosen = np.arange(N_FAMILIARIZATION) if trials is None else np.asarray(trials[index])
        starts = np.concatenate([[0], np.cumsum(trial_counts[:N_FAMILIARIZATION])])
        fam += [frames[starts[t]:starts[t + 1]] for t in chosen]
        counts.append(trial_counts[chosen])
        inputs.append(test[kept])
        targets.append(test[kept + 1])
        owner += [index] * len(kept)
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


def moving_steps(frames: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The test steps of an episode whose next frame differs from the current one (the agent
    moves, or the barrier shrinks)."""
    test = frames[int(counts[:N_FAMILIARIZATION].sum()):]
    changed = (test[1:] != test[:-1]).reshape(len(test) - 1, -1).any(axis=1)
    return np.flatnonzero(changed)


def _draw_steps(rng: np.random.Generator, frames: np.ndarray, counts: np.ndarray, wanted: int,
                step_sampling: str) -> np.ndarray:
    """``wanted`` test steps drawn without replacement: from all steps, or (``moving``) from
    the steps where the frame changes (all steps when none does)."""
    pool = np.arange(int(counts[N_FAMILIARIZATION]) - 1)
    if step_sampling == "moving":
        moving = moving_steps(frames, counts)
        pool = moving if len(moving) else pool
    return np.sort(rng.choice(pool, size=min(wanted, len(pool)), replace=False))


def episode_batches(shards: Sequence[FrameShard], rng: np.random.Generator, batch_size: int,
                    device: torch.device, test_steps: int | None,
                    fam_trials: int | None = None,
                    step_sampling: str = "all",
                    skip: int = 0) -> Iterator[tuple[int, Batch | None]]:
    """(episode count, batch) over the shards' episodes mixed in an order drawn from ``rng``,
    with ``test_steps`` test steps and ``fam_trials`` familiarization trials of each (drawn
    from ``rng``; None: all; ``step_sampling`` ``moving``: test steps only where the frame
    changes), skipping episodes whose test has no step. The first ``skip`` batches come as
    None, with the same draws made (a resumed run continues the same sequence)."""
    where = [(s, i) for s, shard in enumerate(shards) for i in range(len(shard))]
    order = rng.permutation(len(where))
    yielded = 0
    for start in range(0, len(order), batch_size):
        chosen = order[start:start + batch_size]
        items = [shards[where[k][0]].episode(where[k][1]) for k in chosen]
        items = [(f, c) for f, c in items if c[N_FAMILIARIZATION] >= 2 and
                 (c[:N_FAMILIARIZATION] >= 1).all()]
        steps = None
        if test_steps is not None:
            steps = [_draw_steps(rng, f, c, test_steps, step_sampling) for f, c in items]
        trials = None
        if fam_trials is not None and fam_trials < N_FAMILIARIZATION:
            trials = [np.sort(rng.choice(N_FAMILIARIZATION, size=fam_trials, replace=False))
                      for _ in items]
        if items:
            yielded += 1
            yield len(chosen), None if yielded <= skip else make_batch(items, device, steps,
                                                                       trials)


@dataclass
class Position:
    """Where a run is: finished epochs, finished shards of the current one, and its loss sums."""

    epoch: int = 0
    shards_done: int = 0  # groups of shards_in_memory shards
    batches_done: int = 0  # batches of the current group (states saved inside a group)
    loss_sum: float = 0.0
    steps: int = 0
    updates: int = 0  # optimiser steps since the run began (all epochs)
    cpu_s: float = 0.0  # CPU seconds of training so far (resumed runs add theirs)


def train(net: VideoNet, shards: Sequence[Shard], validation: Sequence[Shard], *, epochs: int,
          batch_size: int, lr: float, seed: int, device: torch.device,
          state_path: Path | None, resume_key: dict[str, Any], progress: bool,
          log: Callable[[str], None], test_steps: int | None = None,
          fam_trials: int | None = None, step_sampling: str = "all",
          shards_in_memory: int | None = SHARDS_IN_MEMORY,
          max_updates: int | None = None, precision: str = "fp32") -> list[dict[str, Any]]:
    """Train ``net`` in place; return the per-epoch history (train and validation MSE, the
    validation MSE of copying the current frame, optimiser steps and CPU seconds so far), and
    a last record marked ``stopped`` when ``max_updates`` ended the run before ``epochs`` (its
    ``epoch``: the epochs finished; its train MSE: over the unfinished epoch's steps).
    ``precision`` bf16: the training steps in bf16 (:data:`PRECISIONS`); validation in fp32."""
    if precision not in PRECISIONS:
        raise UserError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if precision == "bf16":  # before Adam's moments are made: they take the weights' layout
        net.to(memory_format=torch.channels_last)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr, betas=(0.9, 0.999))
    history: list[dict[str, Any]] = []
    position = Position()
    key_text = json.dumps(resume_key, sort_keys=True)
    if state_path is not None and state_path.exists():
        position, history = _resume(state_path, key_text, net, optimizer)
    total = sum(shard_size(s) for s in shards) if progress else 0
    done_cpu = position.cpu_s or (history[-1].get("cpu_s", 0.0) if history else 0.0)
    cpu_before = time.process_time() - done_cpu

    def save() -> None:
        if state_path is not None:
            position.cpu_s = round(time.process_time() - cpu_before, 1)
            _write_state(state_path, key_text, net, optimizer, position, history)

    def record(epoch: int) -> dict[str, Any]:
        trained = {"train_mse": position.loss_sum / position.steps} if position.steps else {}
        return {"epoch": epoch, **trained, **validate(net, validation, device),
                "updates": position.updates, "cpu_s": round(time.process_time() - cpu_before, 1)}

    def stopping() -> bool:
        return max_updates is not None and position.updates >= max_updates

    with progress_bar(show=progress) as bar:
        while position.epoch < epochs and not stopping():
            epoch = position.epoch
            task = bar.add_task(f"video epoch {epoch + 1}/{epochs}", total=total)
            net.train()
            for rank, group in enumerate(_groups(len(shards), seed, epoch, shards_in_memory)):
                if rank < position.shards_done:
                    bar.update(task, advance=sum(shard_size(shards[int(i)]) for i in group))
                    continue
                loaded = [load(shards[int(i)]) for i in group]
                mixing = (rng_for(seed, ALL_SHARDS_STREAM, epoch) if shards_in_memory is None
                          else rng_for(seed, "video-episodes", epoch, rank))
                for count, batch in episode_batches(loaded, mixing, batch_size, device,
                                                    test_steps, fam_trials, step_sampling,
                                                    skip=position.batches_done):
                    bar.update(task, advance=count)
                    if batch is None:  # done before the run was resumed
                        continue
                    errors = batch.step_errors(net, precision)
                    optimizer.zero_grad()
                    errors.mean().backward()
                    optimizer.step()
                    position.loss_sum += float(errors.detach().sum())
                    position.steps += int(errors.numel())
                    position.updates += 1
                    position.batches_done += 1
                    if stopping():  # mid-epoch: the state stays resumable
                        save()
                        net.eval()
                        return [*history, {**record(epoch), "stopped": True}]
                    if position.updates % SAVE_EVERY == 0:
                        save()
                position.shards_done, position.batches_done = rank + 1, 0
                save()
            history.append(record(epoch + 1))
            log(", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
                          for k, v in history[-1].items()))
            position = Position(epoch + 1, updates=position.updates)
            save()
    net.eval()
    if stopping() and position.epoch < epochs:  # rerun after a stop: report where it is
        return [*history, {**record(position.epoch), "stopped": True}]
    return history


def _groups(n_shards: int, seed: int, epoch: int,
            shards_in_memory: int | None) -> list[np.ndarray]:
    """The shards each pass of an epoch holds: groups in an order seeded by (seed, epoch), or
    (None) all of them in their given order."""
    if shards_in_memory is None:
        return [np.arange(n_shards)]
    order = rng_for(seed, "video-shards", epoch).permutation(n_shards)
    return [order[i:i + shards_in_memory] for i in range(0, n_shards, shards_in_memory)]


def validate(net: VideoNet, shards: Sequence[Shard], device: torch.device) -> dict[str, float]:
    """Mean per-step MSE of the predicted next frame, overall and per task, and the same for
    copying the current frame (``val_copy_mse``: the untrained model's error, the bar to beat)."""
    sums: dict[str, list[float]] = {}
    net.eval()
    with torch.no_grad():
        for item in shards:
            shard = load(item)
            for index in range(len(shard)):
                frames, counts = shard.episode(index)
                if counts[N_FAMILIARIZATION] < 2:
                    continue
                batch = make_batch([(frames, counts)], device)
                errors = batch.step_errors(net)
                copying = ((batch.inputs - batch.targets) ** 2).mean(dim=(1, 2, 3))
                for task in ("", str(shard.tasks[index])):
                    total = sums.setdefault(task, [0.0, 0.0, 0])
                    total[0] += float(errors.sum())
                    total[1] += float(copying.sum())
                    total[2] += int(errors.numel())
    net.train()
    metrics = {}
    for task, (error, copy_error, steps) in sorted(sums.items()):
        suffix = f"/{task}" if task else ""
        metrics["val_mse" + suffix] = error / max(steps, 1)
        metrics["val_copy_mse" + suffix] = copy_error / max(steps, 1)
    return metrics


def _write_state(path: Path, key: str, net: VideoNet, optimizer: torch.optim.Optimizer,
                 position: Position, history: list[dict[str, Any]]) -> None:
    write_training_state(path, STATE_FORMAT, key, net, optimizer,
                         position=json.dumps(position.__dict__), history=json.dumps(history))


def _resume(path: Path, key: str, net: VideoNet,
            optimizer: torch.optim.Optimizer) -> tuple[Position, list[dict[str, Any]]]:
    position, history = read_training_state(
        path, STATE_FORMAT, key, net, optimizer, "video",
        {"position": lambda text: Position(**json.loads(text)),
         "history": lambda text: list(json.loads(text))})
    return position, history

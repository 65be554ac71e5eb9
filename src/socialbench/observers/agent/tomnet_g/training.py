"""Batches, the training loop (MSE, Adam, batch 16, lr 1e-3: AGENT paper) with a progress bar,
per-epoch checkpoints loadable with ``weights_only=True`` and resume, and the test rollout.

The network predicts the agent's displacement to the next rated point (``graphs.paced``: every
0.2 m of its path by default, or every 5th frame) in units of ``DISPLACEMENT_UNIT`` metres: in
metres the untrained head's output dwarfed the steps (a unit change only, the loss is the
paper's MSE)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from socialbench.core.errors import DataFileError, first_line
from socialbench.core.progress import progress_bar
from socialbench.core.torch_files import load_torch_file
from socialbench.observers.agent.tomnet_g.graphs import VideoGraphs, position_slice
from socialbench.observers.agent.tomnet_g.model import ToMnetG

BATCH, LR = 16, 1e-3  # AGENT paper
DISPLACEMENT_UNIT = 0.1  # metres per unit of the predicted displacement
TRAINING = ("rollout", "teacher-forced")  # what the loss compares (batch_loss)


@contextmanager
def few_threads(device: str) -> Iterator[None]:
    """One CPU thread while inside: the graphs are tiny, and on a busy machine two threads
    waiting on each other made every step 500x slower (measured: 250 ms against 0.5 ms)."""
    before = torch.get_num_threads()
    if device == "cpu":
        torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@dataclass(frozen=True)
class Sample:
    """One episode: its familiarization graphs and its test video's graphs."""

    familiarization: tuple[VideoGraphs, ...]
    test: VideoGraphs


def _pad(arrays: Sequence[np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    """Stack (T_i, N_i, F) arrays into (B, T, N, F) zeros-padded, with lengths (B,)."""
    t = max(a.shape[0] for a in arrays)
    n = max(a.shape[1] for a in arrays)
    out = np.zeros((len(arrays), t, n, arrays[0].shape[2]), np.float32)
    for k, a in enumerate(arrays):
        out[k, :a.shape[0], :a.shape[1]] = a
    return torch.from_numpy(out), torch.tensor([a.shape[0] for a in arrays])


def character(model: ToMnetG, samples: Sequence[Sample], device: str) -> torch.Tensor:
    fam = [g for s in samples for g in s.familiarization]
    owner = torch.tensor([k for k, s in enumerate(samples) for _ in s.familiarization],
                         device=device)
    nodes, lengths = _pad([g.nodes for g in fam])
    return model.character_embedding(nodes.to(device), lengths, owner, len(samples))


def batch_loss(model: ToMnetG, samples: Sequence[Sample], device: str,
               mode: str = "rollout") -> torch.Tensor:
    """The batch's MSE, in ``DISPLACEMENT_UNIT`` squared: ``rollout`` (the paper's loss), the
    rolled-out path against the observed one over the test video's frames; ``teacher-forced``,
    each step's predicted displacement from the observed frame against the observed one."""
    if mode == "rollout":
        return _rollout_loss(model, samples, device)
    if mode != "teacher-forced":
        raise ValueError(f"unknown ToMnet-G training {mode!r}; choose {', '.join(TRAINING)}")
    char = character(model, samples, device)
    nodes, _ = _pad([s.test.nodes for s in samples])
    pred, ahead, to_end, _ = model.predictions(nodes.to(device), char)
    target = torch.zeros(pred.shape, device=device)
    target_ahead = torch.zeros(pred.shape, device=device)
    target_end = torch.zeros(pred.shape, device=device)
    mask = torch.zeros(pred.shape[:2], device=device)
    for k, s in enumerate(samples):
        steps = np.diff(s.test.agent, axis=0)
        target[k, :len(steps)] = torch.from_numpy(steps / DISPLACEMENT_UNIT).to(device)
        if ahead is not None:
            target_ahead[k, :len(steps)] = torch.from_numpy(
                displacement_ahead(s.test.agent, model.horizon) / DISPLACEMENT_UNIT).to(device)
        if to_end is not None:
            target_end[k, :len(steps)] = torch.from_numpy(
                displacement_to_end(s.test.agent) / DISPLACEMENT_UNIT).to(device)
        mask[k, :len(steps)] = 1

    def mse(predicted: torch.Tensor, wanted: torch.Tensor) -> torch.Tensor:
        return (((predicted - wanted) ** 2).sum(-1) * mask).sum() / mask.sum().clamp(min=1)

    loss = mse(pred, target)
    if ahead is not None:
        # divided by horizon^2: a displacement `horizon` steps long weighs as one step's does
        loss = loss + mse(ahead, target_ahead) / model.horizon ** 2
    if to_end is not None:
        # in metres squared (the next step's is in DISPLACEMENT_UNIT squared): a wrong goal,
        # metres off at every still frame, still outweighs the rest of the frames' step errors
        loss = loss + mse(to_end, target_end) * DISPLACEMENT_UNIT ** 2
    return loss


def displacement_to_end(agent: np.ndarray) -> np.ndarray:
    """(T, 3) agent centres -> (T - 1, 3): from each rated frame but the last, the
    displacement to the last one (where the video leaves the agent)."""
    return agent[-1] - agent[:-1]


def displacement_ahead(agent: np.ndarray, horizon: int) -> np.ndarray:
    """(T, 3) agent centres -> (T - 1, 3): from each rated frame but the last, the displacement
    to ``horizon`` rated frames later, or to the last frame where the video ends sooner."""
    t = len(agent)
    later = np.minimum(np.arange(t - 1) + horizon, t - 1)
    return agent[later] - agent[:-1]


def _rollout_loss(model: ToMnetG, samples: Sequence[Sample], device: str) -> torch.Tensor:
    char = character(model, samples, device)
    first, _ = _pad([s.test.nodes[:1] for s in samples])
    t = max(len(s.test.agent) for s in samples)
    observed = torch.zeros(len(samples), t, 3, device=device)
    mask = torch.zeros(len(samples), t, device=device)
    for k, s in enumerate(samples):
        observed[k, :len(s.test.agent)] = torch.from_numpy(s.test.agent).to(device)
        mask[k, 1:len(s.test.agent)] = 1
    path = roll(model, first[:, 0].to(device), observed[:, 0], char, t - 1)
    error = (((path - observed) / DISPLACEMENT_UNIT) ** 2).sum(-1)
    return (error * mask).sum() / mask.sum().clamp(min=1)


def roll(model: ToMnetG, first: torch.Tensor, start: torch.Tensor, char: torch.Tensor,
         steps: int) -> torch.Tensor:
    """The paper's Figure 5 loop: from the test video's first frame ``first`` (B, N, F) and
    the agent at ``start`` (B, 3), ``steps`` times predict the displacement and move the agent
    node there; the rest of the scene stays as first seen (the network sees nothing of the
    observed path after its first frame). Returns the path (B, steps + 1, 3)."""
    where = position_slice()
    pos, path, state = start, [start], None
    for _ in range(steps):
        agent = torch.cat([first[:, :1, :where.start], pos[:, None],
                           first[:, :1, where.stop:]], dim=-1)
        frame = torch.cat([agent, first[:, 1:]], dim=1)
        step, state = model(frame[:, None], char, state)
        pos = pos + step[:, 0] * DISPLACEMENT_UNIT
        path.append(pos)
    return torch.stack(path, dim=1)


@torch.no_grad()
def mean_loss(model: ToMnetG, samples: Sequence[Sample], device: str = "cpu",
              mode: str = "rollout") -> float:
    """The loss over ``samples`` (batches of 16), weighted by episode."""
    total = 0.0
    with few_threads(device):
        for first in range(0, len(samples), BATCH):
            batch = samples[first:first + BATCH]
            total += float(batch_loss(model, batch, device, mode)) * len(batch)
    return total / max(1, len(samples))


def train(model: ToMnetG, samples: Sequence[Sample], *, epochs: int, device: str = "cpu",
          seed: int = 0, state_path: Path | None = None, progress: bool = True,
          validation: Sequence[Sample] = (), mode: str = "rollout") -> dict[str, Any]:
    """Train for ``epochs`` epochs (resuming from ``state_path`` when it holds a checkpoint).
    Returns the last epoch's training loss and, per epoch run here, the training and (when
    ``validation`` is given) validation losses."""
    torch.manual_seed(seed)
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    start, loss_value = 0, float("nan")
    history: dict[str, list[float]] = {"train": [], "validation": []}
    if state_path is not None and state_path.exists():
        fix = "delete it or choose another --checkpoints folder"
        state = load_torch_file(state_path, "checkpoint of this ToMnet-G", fix,
                                map_location=device)
        try:
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            start = int(state["epoch"])
        except (RuntimeError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise DataFileError(state_path, f"not a checkpoint of this ToMnet-G "
                                            f"({first_line(exc)}); {fix}") from None
    order = list(range(len(samples)))
    steps = (len(samples) + BATCH - 1) // BATCH
    with few_threads(device), progress_bar(show=progress, transient=True) as bar:
        job = bar.add_task("training tomnet-g", total=epochs * steps, completed=start * steps)
        for epoch in range(start, epochs):
            model.train()
            random.Random(seed * 100003 + epoch).shuffle(order)
            total = 0.0
            for first in range(0, len(order), BATCH):
                batch = [samples[i] for i in order[first:first + BATCH]]
                loss = batch_loss(model, batch, device, mode)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += float(loss.detach()) * len(batch)
                bar.advance(job)
            loss_value = total / max(1, len(samples))
            history["train"].append(loss_value)
            if validation:
                history["validation"].append(mean_loss(model, validation, device, mode))
            if state_path is not None:
                tmp = state_path.with_name(state_path.name + ".tmp")
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "epoch": epoch + 1}, tmp)
                tmp.replace(state_path)
    return {"loss": loss_value, "epochs": float(epochs), "history": history}


@torch.no_grad()
def rollout(model: ToMnetG, sample: Sample, device: str = "cpu") -> np.ndarray:
    """The agent's path predicted from its first position over the test video's frames: at
    each step the agent node sits where the model put it. Returns (T, 3)."""
    with few_threads(device):
        return _rollout(model, sample, device)


def _rollout(model: ToMnetG, sample: Sample, device: str) -> np.ndarray:
    model.eval()
    char = character(model, [sample], device)
    first = torch.from_numpy(sample.test.nodes[:1]).to(device)
    start = torch.from_numpy(sample.test.agent[:1]).to(device)
    return roll(model, first, start, char, len(sample.test.agent) - 1)[0].cpu().numpy()

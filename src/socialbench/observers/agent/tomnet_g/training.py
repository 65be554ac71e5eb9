"""Batches, the training loop (MSE, Adam, batch 16, lr 1e-3: AGENT paper) with a progress bar,
per-epoch checkpoints loadable with ``weights_only=True`` and resume, and the test rollout."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from socialbench.core.progress import progress_bar
from socialbench.observers.agent.tomnet_g.graphs import VideoGraphs, position_slice
from socialbench.observers.agent.tomnet_g.model import ToMnetG

BATCH, LR = 16, 1e-3  # AGENT paper


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


def batch_loss(model: ToMnetG, samples: Sequence[Sample], device: str) -> torch.Tensor:
    """Teacher-forced MSE of the predicted next displacement over every test step."""
    char = character(model, samples, device)
    nodes, _ = _pad([s.test.nodes for s in samples])
    pred, _ = model(nodes.to(device), char)
    target = torch.zeros(pred.shape, device=device)
    mask = torch.zeros(pred.shape[:2], device=device)
    for k, s in enumerate(samples):
        steps = np.diff(s.test.agent, axis=0)
        target[k, :len(steps)] = torch.from_numpy(steps).to(device)
        mask[k, :len(steps)] = 1
    return (((pred - target) ** 2).sum(-1) * mask).sum() / mask.sum().clamp(min=1)


def train(model: ToMnetG, samples: Sequence[Sample], *, epochs: int, device: str = "cpu",
          seed: int = 0, state_path: Path | None = None, progress: bool = True
          ) -> dict[str, float]:
    """Train for ``epochs`` epochs (resuming from ``state_path`` when it holds a checkpoint)."""
    torch.manual_seed(seed)
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    start, loss_value = 0, float("nan")
    if state_path is not None and state_path.exists():
        state = torch.load(state_path, map_location=device, weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = int(state["epoch"])
    order = list(range(len(samples)))
    steps = (len(samples) + BATCH - 1) // BATCH
    with few_threads(device), progress_bar(show=progress, transient=True) as bar:
        job = bar.add_task("training tomnet-g", total=epochs * steps, completed=start * steps)
        for epoch in range(start, epochs):
            random.Random(seed * 100003 + epoch).shuffle(order)
            total = 0.0
            for first in range(0, len(order), BATCH):
                batch = [samples[i] for i in order[first:first + BATCH]]
                loss = batch_loss(model, batch, device)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += float(loss.detach()) * len(batch)
                bar.advance(job)
            loss_value = total / max(1, len(samples))
            if state_path is not None:
                tmp = state_path.with_name(state_path.name + ".tmp")
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "epoch": epoch + 1}, tmp)
                tmp.replace(state_path)
    return {"loss": loss_value, "epochs": float(epochs)}


@torch.no_grad()
def rollout(model: ToMnetG, sample: Sample, device: str = "cpu") -> np.ndarray:
    """The agent's path predicted from its first position over the test video's frames: at
    each step the agent node sits where the model put it. Returns (T, 3)."""
    with few_threads(device):
        return _rollout(model, sample, device)


def _rollout(model: ToMnetG, sample: Sample, device: str) -> np.ndarray:
    model.eval()
    char = character(model, [sample], device)
    nodes = torch.from_numpy(sample.test.nodes).to(device)
    where = position_slice()
    pos = torch.from_numpy(sample.test.agent[0]).to(device)
    path, state = [pos], None
    for t in range(nodes.shape[0] - 1):
        frame = nodes[t].clone()
        frame[0, where] = pos
        step, state = model(frame[None, None], char, state)
        pos = pos + step[0, 0]
        path.append(pos)
    return torch.stack(path).cpu().numpy()

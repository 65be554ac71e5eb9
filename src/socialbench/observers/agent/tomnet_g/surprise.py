"""ToMnet-G's surprise rating of a test video: how far the observed agent is from the path the
network predicts, in metres (AGENT paper, Section 4.2: the deviation of the predicted trajectory
from the observed one), per rated step; the video's rating is their mean (``--reduce mean``, the
command's default) or the largest (``max``, the VOE core's ``Observer.surprise`` default).

Which one: with the default path pace (``graphs.paced``: a rated point every 0.2 m of the
agent's path) every step is a step of the walk, and the mean is the trajectory's deviation.
With the time pace (every 5th frame) most steps are the agent standing still before it sets
off, which dilutes the mean: there the largest orders type 2.5 right (its surprising video is
surprising at one moment, the jump through the taller wall) where the mean got every pair wrong.
Both are measured in docs/agent_observers.md.

Two readings of "predicted trajectory" (``--tomnet-surprise``):

- ``teacher-forced`` (our default): at each rated frame the network sees the observed scene so
  far and predicts the agent's next displacement; the rating is the mean distance between
  predicted and observed displacements, the per-step prediction error accumulated over the
  video. It is what the network is trained to do, so it needs no rollout that drifts.
- ``rollout``: the paper's Figure 5 loop: from the test video's first frame the network's own
  predictions move the agent node, and the rating is the mean distance between that path and
  the observed one, frame by frame.

With the ``end`` head (``--end-head``, ``model.py``), a teacher-forced step's error is the next
step's plus the end head's: how far, in metres, the predicted place where the video leaves the
agent is from the observed one. An agent that walks to the goal its familiarization did not
favour is metres off at every frame it stands still before it sets off, where the next step is
a few millimetres off either way.
"""

from __future__ import annotations

import numpy as np
import torch

from socialbench.observers.agent.tomnet_g.model import ToMnetG
from socialbench.observers.agent.tomnet_g.training import (
    DISPLACEMENT_UNIT,
    Sample,
    character,
    displacement_ahead,
    displacement_to_end,
    few_threads,
    rollout,
)

SURPRISE_MODES = ("teacher-forced", "rollout")
REDUCTIONS = ("max", "mean")  # a video's rating from its per-step errors


@torch.no_grad()
def step_errors(model: ToMnetG, sample: Sample, device: str = "cpu") -> np.ndarray:
    """Per rated step of the test video (T - 1,): the distance in metres between the predicted
    and the observed displacement, the network seeing the observed frames; with a model
    ``horizon``, the displacement that many rated frames ahead (``model.py``); with an ``end``
    head, plus the distance between the predicted and observed displacement to the video's end."""
    with few_threads(device):
        model.eval()
        char = character(model, [sample], device)
        nodes = torch.from_numpy(sample.test.nodes)[None].to(device)
        predicted, ahead, to_end, _ = model.predictions(nodes, char)
    steps = np.diff(sample.test.agent, axis=0)
    if ahead is not None:
        predicted, steps = ahead, displacement_ahead(sample.test.agent, model.horizon)
    errors = _distances(predicted, steps)
    if to_end is not None:
        errors = errors + _distances(to_end, displacement_to_end(sample.test.agent))
    return errors


def _distances(predicted: torch.Tensor, observed: np.ndarray) -> np.ndarray:
    """(1, T, 3) predictions in DISPLACEMENT_UNIT against (T - 1, 3) observed metres ->
    (T - 1,) distances in metres."""
    predicted_m = predicted[0, :len(observed)].cpu().numpy() * DISPLACEMENT_UNIT
    return np.linalg.norm(predicted_m - observed, axis=1)


def rollout_errors(model: ToMnetG, sample: Sample, device: str = "cpu") -> np.ndarray:
    """Per rated frame (T,): the distance in metres between the rolled-out and observed agent."""
    return np.linalg.norm(rollout(model, sample, device) - sample.test.agent, axis=1)


def surprise_per_step(model: ToMnetG, sample: Sample, mode: str = "teacher-forced",
                      device: str = "cpu") -> np.ndarray:
    if mode == "teacher-forced":
        return step_errors(model, sample, device)
    if mode == "rollout":
        return rollout_errors(model, sample, device)
    raise ValueError(f"unknown ToMnet-G surprise {mode!r}; choose {', '.join(SURPRISE_MODES)}")


def surprise(model: ToMnetG, sample: Sample, mode: str = "teacher-forced",
             device: str = "cpu", reduce: str = "max") -> float:
    """The test video's rating: the largest (``max``) or the mean of :func:`surprise_per_step`."""
    if reduce not in REDUCTIONS:
        raise ValueError(f"unknown ToMnet-G reduction {reduce!r}; choose {', '.join(REDUCTIONS)}")
    errors = surprise_per_step(model, sample, mode, device)
    return float(errors.max() if reduce == "max" else errors.mean())

"""BIPaCK's Bayesian inverse planning over agent parameters (AGENT paper, Eqs. 2-4).

Hypotheses: the weight of vertical effort ``w_v`` (agent spec's six values) and a reward per goal
(by colour code) from a grid over (0, 100]. Under a hypothesis the agent goes to the goal of
highest reward - cost (cost = COST_SCALE x effort in metres) or gives up when none pays; the
likelihood of an observed path is exp(-beta D), D the DTW distance to that prediction.
Calibration on training videos gives P_train(w_v) (Eq. 3, rewards marginalized per video, as
each trial's agent has its own); each trial's familiarization videos multiply in their
likelihoods (Eq. 4); the test video's surprise is the posterior expectation of its distance.
Friction, in the spec's grid, does not change a planned path's shape, so it is not enumerated.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from socialbench.observers.agent.bipack.evidence import W_V, VideoEvidence

BETA = 0.2  # agent spec
REWARDS = np.arange(1.0, 101.0)  # agent spec: r_g in (0, 100], in steps of 1
COST_SCALE = 10.0  # reward units per metre of effort (our choice: puts costs inside the range)


def reward_grid(goals: Sequence[int]) -> np.ndarray:
    """(M, len(goals)): every combination of grid rewards over the goals."""
    if not goals:
        return np.zeros((1, 0))
    return np.array(list(itertools.product(REWARDS, repeat=len(goals))))


def predicted_distance(ev: VideoEvidence, goals: Sequence[int], rewards: np.ndarray) -> np.ndarray:
    """(len(W_V), M): the distance of the observed path to what each hypothesis predicts."""
    n_w = ev.cost.shape[0]
    if not ev.goals:
        return np.full((n_w, rewards.shape[0]), ev.stay)
    cols = [list(goals).index(g) for g in ev.goals]
    utility = rewards[None, :, cols] - COST_SCALE * ev.cost[:, None, :]  # (K, M, g)
    best = utility.max(axis=2)
    chosen = utility >= best[..., None] - 1e-9
    dist = np.where(chosen, np.where(np.isfinite(ev.distance), ev.distance, 0.0)[:, None, :], 0.0)
    went = dist.sum(axis=2) / np.maximum(chosen.sum(axis=2), 1)
    return np.where(best > 0, went, ev.stay)


def calibrate(videos: Sequence[VideoEvidence]) -> np.ndarray:
    """log P_train(w_v) from training videos: the sum over videos of each one's likelihood,
    its rewards averaged over the grid (Eq. 3 with uniform priors)."""
    total = np.zeros(len(W_V))
    for ev in videos:
        rewards = reward_grid(ev.goals)
        total += np.exp(-BETA * predicted_distance(ev, ev.goals, rewards)).mean(axis=1)
    if not videos or total.sum() == 0:
        return np.full(len(W_V), -np.log(len(W_V)))
    return np.log(total / total.sum())


def trial_goals(videos: Sequence[VideoEvidence]) -> tuple[int, ...]:
    return tuple(sorted({g for ev in videos for g in ev.goals}))


def expected_distance(familiarization: Sequence[VideoEvidence], test: VideoEvidence,
                      log_prior: np.ndarray, use_familiarization: bool = True) -> float:
    """The posterior expectation of the test video's distance (the surprise rating)."""
    goals = trial_goals([*familiarization, test])
    rewards = reward_grid(goals)
    log_post = np.repeat(log_prior[:, None], rewards.shape[0], axis=1)
    if use_familiarization:
        for ev in familiarization:
            log_post = log_post - BETA * predicted_distance(ev, goals, rewards)
    post = np.exp(log_post - log_post.max())
    post /= post.sum()
    return float((post * predicted_distance(test, goals, rewards)).sum())

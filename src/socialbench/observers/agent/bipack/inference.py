"""BIPaCK's Bayesian inverse planning over agent parameters (AGENT paper, Eqs. 2-4).

Hypotheses: the weight of vertical effort ``w_v`` (agent spec's six values) and a reward per goal
(by colour code) from a grid over (0, 100]. Under a hypothesis the agent goes to the goal of
highest reward - cost (cost = COST_SCALE x effort in metres) or gives up when none pays; the
likelihood of an observed path is exp(-beta D), D the DTW distance to that prediction.
Calibration on training videos gives P_train(w_v) (Eq. 3; rewards marginalized per video, as
each trial's agent has its own; the videos' likelihoods multiply, or add as Eq. 3 prints).
Each trial's familiarization videos multiply in their likelihoods (Eq. 4); the test video's
surprise is the posterior expectation of its distance.
Friction, in the spec's grid, does not change a planned path's shape, so it is not enumerated.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from socialbench.observers.agent.bipack.evidence import W_V, VideoEvidence

BETA = 0.2  # agent spec
# agent spec: r_g in (0, 100]; fine steps where costs lie (0.05 up to 10), then steps of 1,
# each point weighted by the width of its interval so that the prior stays uniform
REWARDS = np.concatenate([np.arange(0.05, 10.0, 0.05), np.arange(10.0, 100.5, 1.0)])
REWARD_PRIOR = np.diff(np.concatenate([[0.0], REWARDS]))
REWARD_PRIOR = REWARD_PRIOR / REWARD_PRIOR.sum()
COST_SCALE = 1.0  # reward units per metre of effort
P_HIDDEN = 0.5  # ours: the prior that an occluder that hid the agent's path hides a constraint


def reward_grid(goals: Sequence[int]) -> np.ndarray:
    """(M, len(goals)): every combination of grid rewards over the goals."""
    if not goals:
        return np.zeros((1, 0))
    return np.array(list(itertools.product(REWARDS, repeat=len(goals))))


def reward_log_prior(goals: Sequence[int]) -> np.ndarray:
    """(M,): the log prior of each combination of :func:`reward_grid` (uniform rewards)."""
    if not goals:
        return np.zeros(1)
    logs = np.log(REWARD_PRIOR)
    return np.array([sum(c) for c in itertools.product(logs, repeat=len(goals))])


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


def log_likelihood(ev: VideoEvidence, goals: Sequence[int], rewards: np.ndarray) -> np.ndarray:
    """(len(W_V), M): log P(observed path | w_v, rewards) = -beta D. Where an occluder may hide
    a constraint (``ev.hidden_cost``), the scene is uncertain too: with P_HIDDEN something
    unseen made the observed path the efficient way to the goal it reached (predicted = observed,
    cost = its effort), else the scene is as seen; the two likelihoods mix."""
    seen = -BETA * predicted_distance(ev, goals, rewards)
    if ev.hidden_cost is None or ev.reached < 0:
        return seen
    cost, distance = ev.cost.copy(), ev.distance.copy()
    cost[:, ev.reached] = ev.hidden_cost
    distance[:, ev.reached] = 0.0
    hidden = -BETA * predicted_distance(replace(ev, cost=cost, distance=distance), goals,
                                        rewards)
    return np.logaddexp(np.log1p(-P_HIDDEN) + seen, np.log(P_HIDDEN) + hidden)


def calibrate(videos: Sequence[VideoEvidence], combine: str = "product") -> np.ndarray:
    """log P_train(w_v) from training videos, each video's rewards averaged over the grid
    (every trial's agent has its own rewards; the cost weight is shared).

    ``combine="product"``: Bayes' rule over the shared parameter (the likelihoods multiply);
    ``"sum"``: the paper's Eq. 3 as printed (a sum of per-video likelihoods).
    """
    if combine not in ("product", "sum"):
        raise ValueError(f"combine must be 'product' or 'sum', got {combine!r}")
    per_video = np.array([_log_mean_exp(log_likelihood(ev, ev.goals, reward_grid(ev.goals))
                                        + reward_log_prior(ev.goals))
                          for ev in videos]).reshape(len(videos), len(W_V))
    if not videos:
        return np.full(len(W_V), -np.log(len(W_V)))
    if combine == "product":
        total = per_video.sum(axis=0)
    else:
        top = per_video.max()
        total = np.log(np.exp(per_video - top).sum(axis=0)) + top
    return total - (np.log(np.exp(total - total.max()).sum()) + total.max())


def _log_mean_exp(x: np.ndarray) -> np.ndarray:
    """log of the sum of exp(x) over the last axis (x holds log prior terms), stably."""
    top = x.max(axis=-1, keepdims=True)
    return (np.log(np.exp(x - top).sum(axis=-1, keepdims=True)) + top)[..., 0]


def trial_goals(videos: Sequence[VideoEvidence]) -> tuple[int, ...]:
    return tuple(sorted({g for ev in videos for g in ev.goals}))


def expected_distance(familiarization: Sequence[VideoEvidence], test: VideoEvidence,
                      log_prior: np.ndarray, use_familiarization: bool = True) -> float:
    """The posterior expectation of the test video's distance (the surprise rating)."""
    goals = trial_goals([*familiarization, test])
    rewards = reward_grid(goals)
    log_post = log_prior[:, None] + reward_log_prior(goals)[None, :]
    if use_familiarization:
        for ev in familiarization:
            log_post = log_post + log_likelihood(ev, goals, rewards)
    post = np.exp(log_post - log_post.max())
    post /= post.sum()
    return float((post * predicted_distance(test, goals, rewards)).sum())

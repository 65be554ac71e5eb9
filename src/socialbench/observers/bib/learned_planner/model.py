"""The learned planner's model of an agent: what is learned, and the inference over trials.

Learned from the background episodes (maximum likelihood of every observed step given the
trials before it): the cell costs (``planner.CellCosts``), the agent's rationality ``beta``,
how sharply it picks the cheapest route to its goal ``route_beta`` (straight there, or via
the key and the lock), and how strongly a preference forms from what it approached before
(the Dirichlet pseudo-count ``alpha``). Fixed, as inductive bias (``ModelConfig``): goals are
objects; preferences belong to an agent's identity and are over object shapes; an object no
cheap path reaches is not a goal; an agent may be rational or not (the background agents are
all rational, so the data cannot teach what an irrational one looks like).

Per trial the belief is joint over (rational or not) x (goal object); the rationality belief
carries over to the next trial; each trial's goal prior comes from the agent's preference
counts, to which the trial's goal posterior is added once the agent stops.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch.nn import functional as F

from socialbench.observers.bib.learned_planner.batch import Batch, TrialIndex
from socialbench.observers.bib.learned_planner.planner import (
    UNREACHABLE,
    CellCosts,
    map_costs,
    obstacle_costs,
    query_values,
    row_log_likelihood,
    value_iteration,
)


@dataclass(frozen=True)
class ModelConfig:
    """The fixed part of the model (ours; see the module docstring)."""

    p_rational: float = 0.9  # prior that an agent acts efficiently
    irrational_ratio: float = 0.25  # the non-rational agent's beta as a share of the learned one
    stop_miss: float = 0.02  # P(an agent stops away from its goal)
    log_unreachable: float = -20.0  # log prior weight of a goal no path reaches
    preference: bool = True  # False: the ablation without the familiarization latent
    per_agent: bool = True  # False: one preference shared by every agent (ablation)

    def to_json(self) -> dict:
        return asdict(self)


def _inverse_softplus(x: float) -> float:
    return float(torch.log(torch.expm1(torch.tensor(x))))


class PlannerModel(nn.Module):
    """Parameters and the episode likelihood (see the module docstring)."""

    def __init__(self, config: ModelConfig | None = None) -> None:
        super().__init__()
        self.config = config or ModelConfig()
        self.costs = CellCosts()
        self.raw_beta = nn.Parameter(torch.tensor(_inverse_softplus(1.0)))
        self.raw_route_beta = nn.Parameter(torch.tensor(_inverse_softplus(1.0)))
        self.raw_alpha = nn.Parameter(torch.tensor(_inverse_softplus(1.0)))

    @property
    def beta(self) -> torch.Tensor:
        return F.softplus(self.raw_beta)

    @property
    def route_beta(self) -> torch.Tensor:
        return F.softplus(self.raw_route_beta)

    @property
    def alpha(self) -> torch.Tensor:
        return F.softplus(self.raw_alpha) + 1e-3

    @torch.no_grad()
    def learned_values(self) -> dict[str, float]:
        """The learned scalars, readable (for the docs and the training report)."""
        from socialbench.observers.bib.learned_planner.tensors import CHANNELS

        conv = self.costs.blocked
        out = {"beta": float(self.beta), "route_beta": float(self.route_beta),
               "alpha": float(self.alpha)}
        for i, name in enumerate(CHANNELS):
            logit = float(conv.weight[0, i, 0, 0] + conv.bias[0])
            out[f"p_blocked/{name}"] = float(torch.sigmoid(torch.tensor(logit)))
        out["p_blocked/empty"] = float(torch.sigmoid(conv.bias[0]))
        return out

    # --- the episode ----------------------------------------------------------------------

    def forward(self, batch: Batch, episode_sizes: list[int]) -> list[list[dict]]:
        """Per episode, per trial: ``{"steps": log P(step | before) (n,), "stop": log P(stop)}``.

        ``episode_sizes``: how many of the batch's trials (in order) make up each episode.
        """
        cell_costs = self.costs(batch.channels)
        costs = map_costs(cell_costs, batch)
        values = value_iteration(costs, batch.map_target_cell)
        values_q = query_values(values, costs, batch)
        with torch.no_grad():  # reachability: the learned costs read as obstacles or not
            hard = obstacle_costs(costs)
            reach_q = query_values(value_iteration(hard, batch.map_target_cell), hard, batch)
        beta = self.beta
        rows = torch.stack([row_log_likelihood(values_q, costs, batch, beta),
                            row_log_likelihood(values_q, costs, batch,
                                               beta * self.config.irrational_ratio)])
        row_start = values_q[batch.row_queries[:, -1]]
        # a route via the key is an option only while the goal is out of reach without it
        row_open = reach_q[batch.row_queries[:, -1]] < UNREACHABLE / 2
        out, start = [], 0
        for size in episode_sizes:
            out.append(self._episode(batch.trials[start:start + size], values_q, rows,
                                     row_start, reach_q, row_open))
            start += size
        return out

    def _episode(self, trials: list[TrialIndex], values_q: torch.Tensor, rows: torch.Tensor,
                 row_start: torch.Tensor, reach_q: torch.Tensor,
                 row_open: torch.Tensor) -> list[dict]:
        cfg = self.config
        device = values_q.device
        counts: dict[str, dict[str, torch.Tensor]] = defaultdict(dict)
        log_model = torch.log(torch.tensor([cfg.p_rational, 1.0 - cfg.p_rational],
                                           device=device))
        results = []
        for trial in trials:
            owner = trial.agent if cfg.per_agent else ""
            log_goal = self._goal_prior(trial, counts[owner], reach_q)
            loglik = self._step_loglik(trial, values_q, rows, row_start, row_open)  # (2, G, n)
            joint = log_model[:, None] + log_goal[None, :]
            if trial.n_steps:
                before = torch.cumsum(loglik, dim=2) - loglik  # evidence before each step
                prior_s = joint[:, :, None] + before
                log_pred = (torch.logsumexp((prior_s + loglik).flatten(0, 1), dim=0)
                            - torch.logsumexp(prior_s.flatten(0, 1), dim=0))
                joint = joint + loglik.sum(dim=2)
            else:
                log_pred = values_q.new_zeros(0)
            joint = joint - torch.logsumexp(joint.flatten(), dim=0)
            goal_post = torch.logsumexp(joint, dim=0)
            p_stop = torch.where(trial.touching, torch.tensor(1.0 - cfg.stop_miss, device=device),
                                 torch.tensor(cfg.stop_miss, device=device))
            log_stop = torch.logsumexp(goal_post + torch.log(p_stop), dim=0)
            results.append({"steps": log_pred, "stop": log_stop})
            goal_final = torch.softmax(goal_post + torch.log(p_stop), dim=0)
            for g, shape in enumerate(trial.shapes):
                counts[owner][shape] = counts[owner].get(shape, 0.0) + goal_final[g]
            log_model = torch.logsumexp(joint, dim=1)
            log_model = log_model - torch.logsumexp(log_model, dim=0)
        return results

    def _goal_prior(self, trial: TrialIndex, counts: dict[str, torch.Tensor],
                    reach_q: torch.Tensor) -> torch.Tensor:
        """log P(goal): the agent's preference counts (Dirichlet), and no unreachable goal."""
        cfg = self.config
        zero = reach_q.new_zeros(())
        if cfg.preference:
            counted = torch.stack([counts.get(s, zero) for s in trial.shapes])
            weights = torch.log(self.alpha + counted)
        else:
            weights = reach_q.new_zeros(len(trial.shapes))
        reachable = reach_q[trial.prior_queries] < UNREACHABLE / 2
        if reachable.any():
            weights = torch.where(reachable, weights, torch.full_like(weights, cfg.log_unreachable))
        logits = weights
        return logits - torch.logsumexp(logits, dim=0)

    def _step_loglik(self, trial: TrialIndex, values_q: torch.Tensor, rows: torch.Tensor,
                     row_start: torch.Tensor, row_open: torch.Tensor) -> torch.Tensor:
        """log P(step | model, goal) (2, G, n): a mixture over the routes to the goal
        (straight there; via the key, then the lock; via the lock with the key), weighted by a
        softmax of their planned costs. The key is instrumental: its routes are options only
        while no path reaches the goal without it."""
        n, g_count = trial.goal_rows.shape
        if n == 0:
            return rows.new_zeros(2, len(trial.shapes), 0)
        blocked = ~row_open[trial.goal_rows]  # (n, G)
        has_key = (trial.key_rows >= 0)[:, None] & blocked
        has_lock = (trial.lock_rows >= 0)[:, None] & blocked
        valid = torch.stack([torch.ones_like(has_key), has_key, has_lock], dim=2)  # (n, G, 3)
        after_lock = _take(values_q, trial.lock_to_goal)  # (n, G)
        via_key = (_take(row_start, trial.key_rows) + _take(values_q, trial.key_to_lock))[:, None]
        via_lock = _take(row_start, trial.lock_rows)[:, None]
        routes = torch.stack([row_start[trial.goal_rows], via_key + after_lock,
                              via_lock + after_lock], dim=2)
        logits = torch.where(valid, -self.route_beta * routes, -torch.inf)
        log_route = torch.log_softmax(logits, dim=2)
        step = torch.stack([_take(rows, trial.goal_rows, dim=1),
                            _take(rows, trial.key_rows, dim=1)[:, :, None].expand(2, n, g_count),
                            _take(rows, trial.lock_rows, dim=1)[:, :, None].expand(2, n, g_count)],
                           dim=3)  # (2, n, G, 3)
        mixed = torch.where(valid[None], log_route[None] + step, -torch.inf)
        return torch.logsumexp(mixed, dim=3).permute(0, 2, 1)


def _take(values: torch.Tensor, index: torch.Tensor, dim: int = 0) -> torch.Tensor:
    """values[index] along ``dim``, with NONE (-1) entries as 0 (callers mask them)."""
    got = values.index_select(dim, index.clamp(min=0).flatten())
    got = got.reshape(*values.shape[:dim], *index.shape, *values.shape[dim + 1:])
    return torch.where(index >= 0, got, torch.zeros_like(got))

"""The differentiable planner: learned cell costs, value iteration, Boltzmann step likelihoods.

A cell's cost of crossing is ``1 + BLOCKED * sigmoid(w . channels)``: the network learns
which kinds of cell (wall, green barrier, home, object) an agent never walks through. Value
iteration over the 8-neighbour grid turns a map's costs into cost-to-go fields (a step from a
cell to a neighbour costs its length times the dearest cell it touches, the two cells beside a
diagonal step included, so no corner is cut). A point's cost-to-go is read through the best
of the 3x3 cells around it. A candidate step's cost is its length times the dearest cell its
square crosses, plus the change in cost-to-go; its probability is a softmax of ``-beta *
cost`` over the observed step turned to every direction.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from socialbench.bib.schema import GRID
from socialbench.observers.bib.learned_planner.batch import Batch
from socialbench.observers.bib.learned_planner.tensors import CHANNELS, PAD

BLOCKED = 50.0  # extra cost (cells) of a fully blocked cell: no path is that long
ITERATIONS = 40  # value-iteration sweeps: more than any shortest path in a 10 x 10 grid
FAR = 1e4  # the cost-to-go before value iteration has reached a cell
MIN_STEP_COST = -1.0  # cells: cost-to-go estimates of off-centre points are approximate
# Reachability reads the learned costs hard: a cell whose crossing costs more than this many
# cells extra is an obstacle (training only makes obstacles dear enough that no step crosses
# them, a few cells, so their exact cost carries no meaning; free cells learn ~0 extra).
OBSTACLE_EXTRA = 2.0
UNREACHABLE = 1e3  # cost-to-go beyond which no path exists on the hard map
_DIRS = [(di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1) if di or dj]


class CellCosts(nn.Module):
    """The learned cost of crossing each cell, from its channels (a 1x1 convolution)."""

    def __init__(self) -> None:
        super().__init__()
        self.blocked = nn.Conv2d(len(CHANNELS), 1, kernel_size=1)
        nn.init.zeros_(self.blocked.weight)
        nn.init.constant_(self.blocked.bias, -4.0)  # start believing every cell is open

    def forward(self, channels: torch.Tensor) -> torch.Tensor:
        """(S, C, PAD, PAD) -> (S, PAD, PAD) costs >= 1."""
        return 1.0 + BLOCKED * torch.sigmoid(self.blocked(channels)[:, 0])


def obstacle_costs(costs: torch.Tensor) -> torch.Tensor:
    """The maps' costs read hard: 1 for a free cell, ``UNREACHABLE`` for an obstacle."""
    return torch.where(costs - 1.0 > OBSTACLE_EXTRA, torch.full_like(costs, UNREACHABLE),
                       torch.ones_like(costs))


def map_costs(cell_costs: torch.Tensor, batch: Batch) -> torch.Tensor:
    """Each map's costs (M, PAD, PAD): its situation's, with the target's own cell open (a
    lock drawn on the barrier, an object on its cell, can still be reached)."""
    costs = cell_costs[batch.map_situation].reshape(len(batch.map_situation), -1)
    target = F.one_hot(batch.map_target_cell, PAD * PAD).bool()
    return torch.where(target, torch.ones_like(costs), costs).reshape(-1, PAD, PAD)


def value_iteration(costs: torch.Tensor, target_cell: torch.Tensor,
                    iterations: int = ITERATIONS) -> torch.Tensor:
    """Cost-to-go fields (M, PAD, PAD) of the targets on the maps' costs (frame: FAR)."""
    m = costs.shape[0]
    inner = costs[:, 1:-1, 1:-1]
    edges = []
    for di, dj in _DIRS:
        there = costs[:, 1 + di:1 + di + GRID, 1 + dj:1 + dj + GRID]
        worst = torch.maximum(inner, there)
        if di and dj:
            worst = torch.maximum(worst, costs[:, 1 + di:1 + di + GRID, 1:-1])
            worst = torch.maximum(worst, costs[:, 1:-1, 1 + dj:1 + dj + GRID])
        edges.append(math.hypot(di, dj) * worst)
    edge = torch.stack(edges)  # (8, M, GRID, GRID)
    is_target = F.one_hot(target_cell, PAD * PAD).bool().reshape(m, PAD, PAD)[:, 1:-1, 1:-1]
    zero = torch.zeros_like(inner)
    values = torch.where(is_target, zero, torch.full_like(inner, FAR))
    for _ in range(iterations):
        padded = F.pad(values, (1, 1, 1, 1), value=FAR)
        around = torch.stack([padded[:, 1 + di:1 + di + GRID, 1 + dj:1 + dj + GRID]
                              for di, dj in _DIRS])
        values = torch.minimum(values, (around + edge).amin(0))
        values = torch.where(is_target, zero, values)
    return F.pad(values, (1, 1, 1, 1), value=FAR)


def query_values(values: torch.Tensor, costs: torch.Tensor, batch: Batch) -> torch.Tensor:
    """Cost-to-go (Q,) of every query point on its map: the best cell of the 3x3 around it,
    reached in a straight line at the dearer of the two cells' costs; in the target's own
    cell, the straight distance to the target."""
    base = (batch.query_map * PAD * PAD)[:, None]
    flat_v, flat_c = values.reshape(-1), costs.reshape(-1)
    around_v = flat_v[base + batch.query_cells]
    around_c = flat_c[base + batch.query_cells]
    own_c = flat_c[base[:, 0] + batch.query_own]
    via = around_v + batch.query_dist * torch.maximum(around_c, own_c[:, None])
    return torch.minimum(via.amin(1), batch.query_straight * own_c)


def row_log_likelihood(values_q: torch.Tensor, costs: torch.Tensor, batch: Batch,
                       beta: torch.Tensor) -> torch.Tensor:
    """log P(observed step | the row's target) for every row (R,), Boltzmann at ``beta``."""
    if batch.row_queries.shape[0] == 0:
        return values_q.new_zeros(0)
    maps = batch.query_map[batch.row_queries[:, 0]]
    flat_c = costs.reshape(costs.shape[0], -1)[maps]  # (R, PAD * PAD)
    rows, k, x = batch.row_sweep.shape
    sweep = flat_c.gather(1, batch.row_sweep.reshape(rows, k * x)).reshape(rows, k, x).amax(2)
    observed = flat_c.gather(1, batch.row_end[:, None])  # the step happened: its end cell only
    sweep = torch.cat([observed, sweep[:, 1:]], dim=1)
    v = values_q[batch.row_queries]  # (R, K + 1): candidates' ends, then the start
    cost = batch.row_length[:, None] * sweep + v[:, :-1] - v[:, -1:]
    logits = -beta * torch.clamp(cost, min=MIN_STEP_COST)
    return logits[:, 0] - torch.logsumexp(logits, dim=1)

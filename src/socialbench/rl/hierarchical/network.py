"""The learned high level: one small network scores every option from its feature row.

The same weights score each option (a door is a door whatever its colour or slot), so what is
learned about one door or NPC carries over to the others. The value head reads the mean and
the maximum of the available options' hidden vectors.
"""

from __future__ import annotations

import torch
from torch import nn

from socialbench.rl.hierarchical.features import N_COLUMNS

_MASKED = -1e9


class OptionPolicy(nn.Module):
    """Feature rows (B, K, C) and availability (B, K) -> option logits (B, K), values (B,)."""

    def __init__(self, hidden: int = 64) -> None:
        super().__init__()
        self.hidden = hidden
        self.body = nn.Sequential(nn.Linear(N_COLUMNS, hidden), nn.Tanh(),
                                  nn.Linear(hidden, hidden), nn.Tanh())
        self.score = nn.Linear(hidden, 1)
        self.value = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, feats: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(feats)
        logits = self.score(h).squeeze(-1).masked_fill(~mask, _MASKED)
        weight = mask.unsqueeze(-1).to(h.dtype)
        mean = (h * weight).sum(1) / weight.sum(1).clamp(min=1.0)
        peak = h.masked_fill(~mask.unsqueeze(-1), -2.0).amax(1)  # tanh outputs are above -1
        return logits, self.value(torch.cat([mean, peak], -1)).squeeze(-1)

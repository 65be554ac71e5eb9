"""The trained hierarchical agent for one environment (``reset`` / ``act(obs)``), as the
reference agents are played: used to render its episodes and in tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from socialbench.rl.hierarchical.features import build_features
from socialbench.rl.hierarchical.network import OptionPolicy
from socialbench.rl.hierarchical.options import EXPLORE, OptionController

_RETRIES = 3


class HierarchicalAgent:
    """Options chosen by ``policy`` (sampled from ``rng``, or the likeliest with
    ``greedy``); ``choices`` lists (step, option) of the episode so far."""

    def __init__(self, policy: OptionPolicy, rng: np.random.Generator, t_max: int = 40,
                 ablation: str = "full", greedy: bool = False) -> None:
        self.policy, self.rng, self.t_max = policy, rng, t_max
        self.ablation, self.greedy = ablation, greedy
        self.reset()

    def reset(self) -> None:
        self.ctl = OptionController(self.rng)
        self.choices: list[tuple[int, int]] = []

    @torch.no_grad()
    def _choose(self, explore_only: bool) -> None:
        feats, mask = build_features(self.ctl, self.t_max, self.ablation)
        if explore_only:
            mask[EXPLORE + 1:] = False
        logits, _ = self.policy(torch.from_numpy(feats)[None], torch.from_numpy(mask)[None])
        probs = torch.softmax(logits[0].float(), 0).numpy().astype(np.float64)
        option = int(probs.argmax()) if self.greedy else \
            int(self.rng.choice(len(probs), p=probs / probs.sum()))
        self.choices.append((self.ctl.steps, option))
        self.ctl.start(option)

    def act(self, obs: Mapping[str, Any]) -> tuple[int, int, int]:
        self.ctl.observe(obs)
        for attempt in range(_RETRIES + 1):
            if self.ctl.needs_decision:
                self._choose(explore_only=attempt == _RETRIES)
            action = self.ctl.act()
            if action is not None:
                return action
        self.ctl.start(EXPLORE)
        return self.ctl.act() or (7, 4, 16)

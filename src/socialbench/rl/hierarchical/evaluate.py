"""The trained hierarchical agent on TalkItOut's fixed test set (sampled options, as the paper
samples actions), in the reference agents' JSON."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from socialbench.core.errors import UserError
from socialbench.core.seeding import derive_seed
from socialbench.rl.hierarchical.network import OptionPolicy
from socialbench.rl.hierarchical.rollout import play
from socialbench.rl.hierarchical.trainer import HierarchicalConfig, load_policy
from socialbench.talkitout.evaluate import TEST_EPISODES, EvalResult, check_variant, layout_seed

BATCH = 1000  # test episodes played side by side


def test_rewards(policy: OptionPolicy, config: HierarchicalConfig, variant: str, seed: int,
                 episodes: int = TEST_EPISODES, device: str = "cpu") -> np.ndarray:
    """Final reward of each of the first ``episodes`` test layouts, options sampled with
    ``seed``."""
    sampler = torch.Generator().manual_seed(derive_seed(seed, "talkitout-eval"))
    rewards = []
    for first in range(0, episodes, BATCH):
        seeds = [layout_seed(i) for i in range(first, min(first + BATCH, episodes))]
        played = play(policy, seeds, check_variant(variant), config.t_max,
                      derive_seed(seed, "hierarchical-eval-agent", first), sampler,
                      config.ablation, device)
        rewards.append(played.reward)
    return np.concatenate(rewards)


def evaluate_hierarchical(checkpoint: str | Path, variant: str | None = None,
                          episodes: int = TEST_EPISODES, seeds: int = 1,
                          device: str = "cpu") -> EvalResult:
    """Success rate per sampling seed on the first ``episodes`` test layouts."""
    if episodes < 1 or seeds < 1:
        raise UserError(f"--episodes and --seeds must be at least 1 (got {episodes}, {seeds})")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise UserError("--device cuda asked for, but PyTorch sees no CUDA GPU here")
    policy, config, frames = load_policy(checkpoint, device)
    variant = variant or config.variant
    check_variant(variant)
    per_seed = [float((test_rewards(policy, config, variant, s, episodes, device) > 0).mean())
                for s in range(seeds)]
    return EvalResult(agent=f"{config.label} (seed {config.seed}, {frames:,} frames)",
                      variant=variant, episodes=episodes, seeds=seeds,
                      success_mean=float(np.mean(per_seed)), success_std=float(np.std(per_seed)),
                      per_seed=per_seed)

"""A trained agent on TalkItOut's fixed test set (SocialAI 0.1's protocol: sampled actions).

The test episodes are the same layouts the reference agents are scored on
(:func:`socialbench.talkitout.evaluate.layout_seed`); they are played side by side in one
batched environment, each environment seeded with its test episode's seed and scored on its
first episode. The model runs in evaluation mode (BatchNorm's running statistics), as
torch-ac's evaluation agent does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from gymnasium.vector import AutoresetMode

from socialbench.core.errors import UserError
from socialbench.core.seeding import derive_seed
from socialbench.rl.model import MHBabyAI
from socialbench.rl.policy import Actor, env_actions, sample_heads
from socialbench.rl.train import RunConfig, load_checkpoint
from socialbench.talkitout.evaluate import (
    TEST_EPISODES,
    EvalResult,
    check_variant,
    layout_seed,
)
from socialbench.talkitout.vector_env import TalkItOutVectorEnv

BATCH = 1000  # test episodes played side by side


def load_agent(checkpoint: str | Path, device: str = "cpu"
               ) -> tuple[MHBabyAI, RunConfig, int]:
    """The trained model of a checkpoint (in evaluation mode), the run that made it and the
    frames it was trained on."""
    state = load_checkpoint(checkpoint)
    run = RunConfig.from_dict(state["run"])
    model = MHBabyAI(run.model).to(device)
    try:
        model.load_state_dict(state["trainer"]["model"])
    except (KeyError, RuntimeError) as exc:
        raise UserError(f"{checkpoint}: the weights do not fit the model its config "
                        f"describes ({exc})") from None
    model.eval()
    return model, run, int(state["trainer"]["frames"])


@torch.no_grad()
def success_rate(model: MHBabyAI, run: RunConfig, variant: str, seed: int,
                 episodes: int = TEST_EPISODES, device: str = "cpu") -> float:
    """Share of the first ``episodes`` test layouts the model solves, sampling with ``seed``."""
    dev = torch.device(device)
    sampler = torch.Generator().manual_seed(derive_seed(seed, "talkitout-eval"))
    wins = 0
    for first in range(0, episodes, BATCH):
        count = min(BATCH, episodes - first)
        envs = TalkItOutVectorEnv(count, liar=check_variant(variant), t_max=run.t_max,
                                  npc_direction_channel=run.model.channels == 4,
                                  autoreset_mode=AutoresetMode.SAME_STEP)
        obs, _ = envs.reset(seed=[layout_seed(first + i) for i in range(count)])
        actor = Actor(model, count, dev, autocast=run.precision == "bf16")
        actor.observe(obs["utterance"], np.zeros(count, dtype=bool))
        memory = torch.zeros(count, model.memory_size, device=dev)
        running = np.ones(count, dtype=bool)
        reward_of = np.zeros(count)
        while running.any():
            # the model runs on the episodes still going; every environment is still sampled
            # and stepped, so the random draws and the dialogues heard stay those of a pass
            # over all of them (an agent that ends its episodes early is scored in a fraction
            # of the time)
            logits, memory = actor.forward_some(obs["image"], memory, np.flatnonzero(running))
            obs, reward, terminated, truncated, _ = envs.step(
                env_actions(sample_heads(logits, sampler)))
            ended = np.logical_or(terminated, truncated) & running
            reward_of[ended] = reward[ended]
            running &= ~ended
            actor.observe(obs["utterance"], ended)
        wins += int((reward_of > 0).sum())
    return wins / episodes


def evaluate_checkpoint(checkpoint: str | Path, variant: str | None = None,
                        episodes: int = TEST_EPISODES, seeds: int = 1,
                        device: str = "cpu") -> EvalResult:
    """Success rate of a trained agent per sampling seed, in the reference agents' JSON."""
    if episodes < 1 or seeds < 1:
        raise UserError(f"--episodes and --seeds must be at least 1 (got {episodes}, {seeds})")
    model, run, frames = load_agent(checkpoint, device)
    variant = variant or run.variant
    check_variant(variant)
    per_seed = [success_rate(model, run, variant, s, episodes, device) for s in range(seeds)]
    return EvalResult(agent=f"{run.label} (seed {run.seed}, {frames:,} frames)",
                      variant=variant, episodes=episodes, seeds=seeds,
                      success_mean=float(np.mean(per_seed)), success_std=float(np.std(per_seed)),
                      per_seed=per_seed)

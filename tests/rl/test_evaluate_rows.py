"""Evaluation runs the model on the episodes still going only (``Actor.forward_some``): the
numbers of a pass over every environment, up to the rounding of matrix kernels that a batch's
size can change (none on the machine of docs/talkitout.md in bf16, ~1e-7 in fp32)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium.vector import AutoresetMode

from socialbench.core.seeding import derive_seed
from socialbench.rl.evaluate import success_rate
from socialbench.rl.model import MHBabyAI, ModelConfig
from socialbench.rl.policy import Actor, env_actions, sample_heads
from socialbench.rl.train import RunConfig
from socialbench.talkitout.evaluate import layout_seed
from socialbench.talkitout.grammar import PRIMITIVES
from socialbench.talkitout.vector_env import TalkItOutVectorEnv


def heard_actor(model: MHBabyAI, n: int, autocast: bool) -> tuple[Actor, np.ndarray]:
    """An actor on ``n`` environments some steps in (dialogues heard), and their image."""
    envs = TalkItOutVectorEnv(n, liar=True, t_max=40, autoreset_mode=AutoresetMode.SAME_STEP)
    obs, _ = envs.reset(seed=[layout_seed(i) for i in range(n)])
    actor = Actor(model, n, torch.device("cpu"), autocast=autocast)
    actor.observe(obs["utterance"], np.zeros(n, dtype=bool))
    rng = np.random.default_rng(0)
    for _ in range(6):  # walk and ask, so the rows hear different dialogues
        action = np.stack([rng.integers(0, 3, n), np.zeros(n, int), rng.integers(0, 16, n)], 1)
        obs, _, terminated, truncated, _ = envs.step(action)
        actor.observe(obs["utterance"], terminated | truncated)
    return actor, obs["image"]


@pytest.mark.parametrize("deaf", [False, True])
@pytest.mark.parametrize("autocast", [False, True])
def test_the_rows_still_going_get_the_numbers_of_a_pass_over_all(deaf, autocast):
    torch.manual_seed(0)
    model = MHBabyAI(ModelConfig(deaf=deaf)).eval()
    actor, image = heard_actor(model, 12, autocast)
    memory = torch.randn(12, model.memory_size)
    with torch.no_grad():
        full, _, full_memory = actor.forward(image, memory)
        for envs in (np.array([0, 3, 4, 11]), np.array([7]), np.arange(12)):
            some, some_memory = actor.forward_some(image, memory, envs)
            for name, logits in full.items():
                torch.testing.assert_close(some[name][envs], logits[envs], rtol=1e-3,
                                           atol=1e-4 if autocast else 1e-6, msg=name)
                others = np.setdiff1d(np.arange(12), envs)
                assert not some[name][others].any()
            torch.testing.assert_close(some_memory[envs], full_memory[envs], rtol=1e-3,
                                       atol=1e-4 if autocast else 1e-6)
            assert torch.equal(some_memory[np.setdiff1d(np.arange(12), envs)],
                               memory[np.setdiff1d(np.arange(12), envs)])


@torch.no_grad()
def every_row_success(model: MHBabyAI, run: RunConfig, seed: int, episodes: int) -> float:
    """The evaluation loop as it was: the model run on every environment at every step."""
    sampler = torch.Generator().manual_seed(derive_seed(seed, "talkitout-eval"))
    envs = TalkItOutVectorEnv(episodes, liar=False, t_max=run.t_max,
                              autoreset_mode=AutoresetMode.SAME_STEP)
    obs, _ = envs.reset(seed=[layout_seed(i) for i in range(episodes)])
    actor = Actor(model, episodes, torch.device("cpu"))
    actor.observe(obs["utterance"], np.zeros(episodes, dtype=bool))
    memory = torch.zeros(episodes, model.memory_size)
    running, reward_of = np.ones(episodes, dtype=bool), np.zeros(episodes)
    while running.any():
        logits, _, memory = actor.forward(obs["image"], memory)
        obs, reward, terminated, truncated, _ = envs.step(env_actions(sample_heads(logits,
                                                                                   sampler)))
        ended = (terminated | truncated) & running
        reward_of[ended] = reward[ended]
        running &= ~ended
        actor.observe(obs["utterance"], ended)
    return float((reward_of > 0).mean())


def door_guesser() -> MHBabyAI:
    """An untrained model nudged to walk on and say "Open sesame" (never toggle or done): it
    opens a random door, right in about a quarter of its episodes, at a step of its own."""
    torch.manual_seed(3)
    model = MHBabyAI(ModelConfig()).eval()
    nudges = (("template", 1, 3.0), ("noun", 0, 3.0),
              ("primitive", PRIMITIVES.index("forward"), 2.0),
              ("primitive", PRIMITIVES.index("toggle"), -20.0),
              ("primitive", PRIMITIVES.index("done"), -20.0))
    with torch.no_grad():
        for head, choice, bias in nudges:
            model.heads[head][2].bias[choice] += bias
    return model


def test_the_success_rate_is_that_of_the_pass_over_every_environment():
    model, run = door_guesser(), RunConfig(variant="no-liar", t_max=320)
    rate = success_rate(model, run, "no-liar", seed=1, episodes=24)
    assert 0 < rate < 1
    # equal here; elsewhere a rounding difference could, rarely, change one sampled action
    assert abs(rate - every_row_success(model, run, 1, 24)) <= 1 / 24

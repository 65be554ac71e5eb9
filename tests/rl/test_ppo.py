"""Recurrent PPO: the exploration bonus, the per-head masked loss, the update's equivalence to
torch-ac's step-by-step calls, and exact resumption from a checkpoint."""

import csv

import numpy as np
import pytest
import torch

from socialbench.rl.exploration import EpisodicLanguageBonus
from socialbench.rl.policy import env_actions
from socialbench.rl.ppo import PPOConfig, PPOTrainer
from socialbench.rl.train import Run, RunConfig, load_checkpoint, make_envs
from socialbench.talkitout.grammar import NO_NOUN, NO_TEMPLATE
from socialbench.talkitout.vocabulary import encode

SMALL = PPOConfig(num_envs=4, frames_per_env=20, recurrence=10, epochs=2)


def tokens(*lines):
    rows = np.zeros((len(lines), 15), dtype=np.uint8)
    for i, line in enumerate(lines):
        ids = encode(line) if line else []
        rows[i, :len(ids)] = ids
    return rows


def test_bonus_is_c_for_a_new_utterance_and_nearly_nothing_for_a_repeat():
    bonus = EpisodicLanguageBonus(2)
    first = bonus.reward(tokens("Gandalf: Ask John.\n", ""))
    assert first.tolist() == [0.125, 0.0]  # C / (0 + 1)^50; nothing heard earns nothing
    again = bonus.reward(tokens("Gandalf: Ask John.\n", "John: go to the red door\n"))
    assert again[0] == pytest.approx(0.125 / 2**50) and again[1] == 0.125
    bonus.forget(0)  # a new episode: counts start again
    assert bonus.reward(tokens("Gandalf: Ask John.\n", ""))[0] == 0.125


def test_head_samples_become_env_actions():
    actions = {"primitive": torch.tensor([2, 7]), "speak": torch.tensor([1, 0]),
               "template": torch.tensor([1, 0]), "noun": torch.tensor([0, 1])}
    assert env_actions(actions).tolist() == [[2, 1, 0], [7, NO_TEMPLATE, NO_NOUN]]


def trainer(seed=0, ppo=SMALL, **run):
    config = RunConfig(variant="no-liar", ppo=ppo, **run)
    return PPOTrainer(make_envs(config), config.model, config.ppo, seed)


def test_template_and_noun_heads_learn_only_from_spoken_frames():
    tr = trainer()
    rollout, _ = tr.collect()
    rollout.actions["speak"].zero_()  # pretend the agent never spoke
    starts = torch.arange(0, SMALL.frames_per_update, SMALL.recurrence)
    loss, _ = tr._loss(rollout, starts)
    tr.optimizer.zero_grad()
    loss.backward()
    for name in ("template", "noun"):
        head = tr.model.heads[name]
        # Only the entropy term could reach them, and it is masked too.
        assert all(p.grad is None or not p.grad.any() for p in head.parameters()), name
    assert tr.model.heads["primitive"][0].weight.grad.any()


def test_joined_update_equals_torch_ac_step_by_step_calls():
    """The convolutions run on all recurrence steps at once with per-step BatchNorm; torch-ac
    calls the model once per step. Same loss, same gradients."""
    tr = trainer()
    rollout, _ = tr.collect()
    starts = torch.arange(0, SMALL.frames_per_update, SMALL.recurrence)
    before = {k: v.clone() for k, v in tr.model.state_dict().items()}
    memories = rollout.memories.clone()
    joined, _ = tr._loss(rollout, starts)
    joined_stats = tr.model.image_conv[1].running_mean.clone()
    tr.model.load_state_dict(before)  # undo the running-statistics updates
    rollout.memories = memories
    stepwise, _ = tr._loss(rollout, starts, step_by_step=True)
    torch.testing.assert_close(joined, stepwise, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(joined_stats, tr.model.image_conv[1].running_mean)


def test_resumed_run_gives_the_uninterrupted_curve(tmp_path):
    kwargs = dict(variant="no-liar", ppo=PPOConfig(num_envs=4, frames_per_env=20, epochs=1,
                                                   exploration_bonus=True),
                  checkpoint_every=2)
    Run(tmp_path / "whole", RunConfig(frames=80 * 4, **kwargs)).train()
    Run(tmp_path / "split", RunConfig(frames=80 * 2, **kwargs)).train()
    Run(tmp_path / "split", RunConfig(frames=80 * 4, **kwargs), resume=True).train()
    keys = ("frames", "success_rolling", "entropy", "value", "policy_loss", "value_loss")

    def rows(name):
        with open(tmp_path / name / "log.csv") as handle:
            return [[r[k] for k in keys] for r in csv.DictReader(handle)]

    assert len(rows("whole")) == 4 and rows("whole") == rows("split")
    state = load_checkpoint(tmp_path / "split")  # weights_only=True inside
    assert state["trainer"]["frames"] == 320
    assert (tmp_path / "whole" / "curve.png").exists()


def test_an_existing_run_needs_resume(tmp_path):
    from socialbench.core.errors import UserError

    config = RunConfig(frames=80, ppo=PPOConfig(num_envs=4, frames_per_env=20, epochs=1))
    Run(tmp_path, config).train()
    with pytest.raises(UserError, match="--resume"):
        Run(tmp_path, config)
    other = RunConfig(frames=80, seed=3, ppo=config.ppo)
    with pytest.raises(UserError, match="different run"):
        Run(tmp_path, other, resume=True)


class OneStepBandit:
    """One-step episodes that pay 1 for "forward + Open sesame" and 0 otherwise: every head has
    to learn (primitive, speak switch, template and noun)."""

    def __init__(self, n):
        self.n = n
        self.obs = {"image": np.full((n, 7, 7, 3), 1, dtype=np.uint8),
                    "utterance": np.zeros((n, 15), dtype=np.uint8)}

    def reset(self, seed=None):
        return {k: v.copy() for k, v in self.obs.items()}, {}

    def step(self, actions):
        paid = (actions[:, 0] == 2) & (actions[:, 1] == 1) & (actions[:, 2] == 0)
        done = np.ones(self.n, dtype=bool)
        return self.reset()[0], paid.astype(float), done, ~done, {}


@pytest.mark.slow  # about 40 s of CPU
def test_ppo_learns_what_pays_through_all_four_heads():
    from socialbench.rl.model import ModelConfig

    config = PPOConfig(num_envs=8, frames_per_env=20, recurrence=10, epochs=4, lr=1e-3)
    tr = PPOTrainer(OneStepBandit(8), ModelConfig(), config, seed=0)

    def paid_share():
        rollout, logs = tr.collect()
        return float(np.mean(logs["successes"])), rollout

    before, _ = paid_share()  # 1/8 * 1/2 * 1/4 * 1/16 = 0.4% at random
    for _ in range(25):
        tr.update()
    after = np.mean([paid_share()[0] for _ in range(3)])
    assert before < 0.05 and after > 0.5, (before, after)

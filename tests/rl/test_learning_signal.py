"""What issue #10 checked when the PPO agents stayed flat on TalkItOut: the advantage recursion
on a hand-computed case, and the dialogue input every frame starts from (the released
environment opens each history with "This is what you hear.", so the FiLM blocks modulate the
vision features from the first frame; an empty history zeroes their modulation)."""

import numpy as np
import pytest
import torch

from socialbench.rl.dialogue import DialogueTable, Listener
from socialbench.rl.model import HISTORY_START, MHBabyAI, ModelConfig
from socialbench.rl.ppo import PPOConfig, PPOTrainer
from socialbench.rl.train import Run, RunConfig, load_checkpoint, make_envs
from socialbench.talkitout.vocabulary import encode


def test_gae_on_a_hand_computed_case():
    """torch-ac's recursion: masks[t] = 0 where frame t starts an episode, so the value after an
    episode's last frame is not bootstrapped and the advantage does not leak across."""
    config = PPOConfig(num_envs=1, frames_per_env=3, recurrence=1, gamma=0.5, gae_lambda=0.5)
    trainer = PPOTrainer.__new__(PPOTrainer)
    trainer.config = config
    trainer.mask = torch.tensor([1.0])  # the episode after the rollout goes on
    rewards = torch.tensor([[1.0], [0.0], [2.0]])
    values = torch.tensor([[0.5], [1.0], [0.25]])
    masks = torch.tensor([[1.0], [1.0], [0.0]])  # frame 2 starts a new episode
    next_value = torch.tensor([4.0])
    advantages = trainer._gae(rewards, values, masks, next_value)
    a2 = 2.0 + 0.5 * 4.0 - 0.25  # bootstrapped from the value after the rollout
    a1 = 0.0 - 1.0  # frame 1 ended its episode: no bootstrap, nothing from frame 2
    a0 = 1.0 + 0.5 * 1.0 - 0.5 + 0.25 * a1
    torch.testing.assert_close(advantages, torch.tensor([[a0], [a1], [a2]]))


def test_history_opens_with_the_released_line_and_reopens_after_each_episode():
    listener = Listener(2, "history", HISTORY_START)
    assert listener.inputs == [HISTORY_START, HISTORY_START]
    heard = np.zeros((2, 15), dtype=np.uint8)
    wizard = encode("Gandalf: Ask John.\n")
    heard[1, :3] = wizard
    listener.hear(heard)
    assert listener.inputs == [HISTORY_START, HISTORY_START + tuple(wizard)]
    listener.forget(1)
    assert listener.inputs[1] == HISTORY_START
    with pytest.raises(ValueError, match="opening line"):
        Listener(1, "current", HISTORY_START)


def test_only_the_hearing_history_model_gets_an_opening_line():
    assert ModelConfig().start_tokens == HISTORY_START
    assert ModelConfig(history_start=False).start_tokens == ()
    assert ModelConfig(deaf=True).start_tokens == ()
    assert ModelConfig(dialogue="current").start_tokens == ()


def film_modulation(config):
    """How much the two FiLM blocks change the vision features of frames that heard nothing."""
    torch.manual_seed(0)
    model = MHBabyAI(config).train()
    table = DialogueTable()
    row = table.add(config.start_tokens)
    tokens, lengths = table.padded()
    dialogue = model.encode_dialogue(tokens, lengths)[[row] * 16]
    image = torch.randint(0, 12, (16, 7, 7, 3), dtype=torch.uint8)
    with torch.no_grad():
        x = model.image_conv(image.permute(0, 3, 1, 2).float())
        y = x
        for film in model.films:
            y = film(y, dialogue) + y
    return float((y - x).abs().mean())


def test_an_empty_history_switches_the_film_blocks_off_and_the_opening_line_does_not():
    # y = 0 gives x * W(0) + B(0) = 0 (zero biases at init): both blocks add nothing.
    assert film_modulation(ModelConfig(history_start=False)) == 0.0
    assert film_modulation(ModelConfig()) > 0.1


def test_runs_made_before_the_option_resume_with_an_empty_history(tmp_path):
    old = RunConfig(frames=80, variant="no-liar",
                    ppo=PPOConfig(num_envs=4, frames_per_env=20, epochs=1),
                    model=ModelConfig(history_start=False))
    Run(tmp_path, old).train()
    state = load_checkpoint(tmp_path)
    del state["run"]["model"]["history_start"]  # as written before the option existed
    torch.save(state, tmp_path / "checkpoint.pt")
    assert ModelConfig.from_dict(state["run"]["model"]).history_start is False
    resumed = Run(tmp_path, RunConfig(frames=160, variant="no-liar", ppo=old.ppo), resume=True)
    assert resumed.run.model.history_start is False
    resumed.train()
    assert resumed.trainer.frames == 160


def test_a_rollout_reads_the_opening_line_before_anyone_speaks():
    config = RunConfig(variant="no-liar", ppo=PPOConfig(num_envs=4, frames_per_env=10))
    trainer = PPOTrainer(make_envs(config), config.model, config.ppo, seed=0)
    rollout, _ = trainer.collect()
    assert all(row[:len(HISTORY_START)] == HISTORY_START for row in rollout.table.rows[1:])
    assert rollout.table.rows[rollout.rows[0]] == HISTORY_START


def test_next_to_a_door_is_where_open_sesame_ends_the_episode():
    from socialbench.rl.behaviour import next_to_a_door
    from socialbench.talkitout.vector_env import TalkItOutVectorEnv

    envs = TalkItOutVectorEnv(256, liar=False, agent_start_in_front_of_door=True)
    envs.reset(seed=0)
    near = next_to_a_door(envs)
    assert 0 < near.sum() < 256
    _, _, terminated, _, _ = envs.step(np.tile([7, 1, 0], (256, 1)))  # stay, "Open sesame"
    assert (terminated == near).all()


@pytest.mark.parametrize("liar", [False, True])
def test_heard_the_exit_is_the_true_guide_naming_the_exit_door(liar):
    from socialbench.rl.behaviour import heard_the_exit
    from socialbench.talkitout.vector_env import TalkItOutVectorEnv
    from socialbench.talkitout.world import SEVEN_COLOURS

    envs = TalkItOutVectorEnv(64, liar=liar)
    envs.reset(seed=1)
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(60):  # walk about at random, asking "Where is the exit" at every step
        envs.step(np.stack([rng.integers(0, 3, 64), np.zeros(64, int), np.ones(64, int)], 1))
        colours = envs._colour_draws[envs._colours]
        exit_colour = colours[np.arange(64), envs._target]
        texts = [history for _, history in envs.utterance_texts()]
        truth = [f"go to the {SEVEN_COLOURS[c]} door" in t
                 for c, t in zip(exit_colour.tolist(), texts, strict=True)]
        assert heard_the_exit(envs).tolist() == truth
        seen.update(truth)
    assert seen == {False, True}


def test_behaviour_report_of_an_untrained_agent():
    from socialbench.rl.behaviour import behaviour

    torch.manual_seed(0)
    report = behaviour(MHBabyAI(ModelConfig()), liar=False, steps=30, num_envs=8)
    assert report["episodes"] > 20  # toggle and done end most episodes within a few steps
    assert sum(report["moves"].values()) == pytest.approx(1.0)
    assert sum(report["ends"].values()) == pytest.approx(1.0)
    assert 0 < report["p_open_sesame_elsewhere"] < 0.05
    assert 0 <= report["heard_the_exit_share"] <= 1
    doors = (report["door_endings_after_hearing_the_exit"]
             + report["door_endings_without_hearing_it"])
    assert doors == round(report["episodes"] * (report["ends"].get("success", 0)
                                                + report["ends"].get("wrong door", 0)))


@pytest.mark.slow  # about 20 s of CPU: the held-out frames go through the whole network
def test_door_probe_reports_a_held_out_auc():
    from socialbench.rl.behaviour import door_probe

    aucs = door_probe(history_start=True, steps=2, every=1)
    assert [s for s, _ in aucs] == [1, 2] and all(0.0 <= a <= 1.0 for _, a in aucs)

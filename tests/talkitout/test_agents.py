"""Reference agents: the oracle solves from observations, door-guess earns ~1/4, random is the
paper's, and the informed planner measures what t_max leaves solvable."""

import numpy as np
import pytest
from talkitout_layouts import BASIC, WALLED_IN, layout, start

from socialbench.core.errors import UserError
from socialbench.talkitout.agents import (
    DoorGuessAgent,
    OracleAgent,
    RandomAgent,
    heard_lines,
    make_agent,
)
from socialbench.talkitout.env import TalkItOutEnv
from socialbench.talkitout.evaluate import success_rate
from socialbench.talkitout.planner import shortest_plan


def play(env, obs, agent):
    agent.reset()
    trace = []
    while True:
        action = agent.act(obs)
        trace.append(action)
        obs, reward, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            return reward, trace


def test_oracle_asks_wizard_then_named_guide_then_opens_the_exit():
    env, obs = start(BASIC)
    best = shortest_plan(env).steps
    reward, trace = play(env, obs, OracleAgent(np.random.default_rng(0)))
    assert reward > 0
    heard = env.utterance_history.splitlines()
    assert heard[0] == "Gandalf: Ask John."
    assert heard[-1] == "John: go to the green door"
    assert trace[-1][1:] == (1, 0)  # ended with "Open sesame"
    assert best <= len(trace) <= best + 6  # plus a few steps to look around


def test_oracle_exposes_the_liar_when_the_wizard_is_walled_in():
    wins = 0
    for seed in range(10):
        env, obs = start(WALLED_IN, seed=seed)
        assert shortest_plan(env).wizard_walled_in
        reward, _ = play(env, obs, OracleAgent(np.random.default_rng(seed)))
        wins += reward > 0
        assert "Gandalf" not in env.utterance_history
    assert wins == 10


def test_oracle_follows_the_wizard_not_the_nearest_guide():
    # Jack (the liar) stands next to the start; the oracle must still ask John.
    lay = layout(true_guide_name="John", agent=((3, 3), 3))
    env, obs = start(lay)
    reward, _ = play(env, obs, OracleAgent(np.random.default_rng(1)))
    assert reward > 0


def test_oracle_and_door_guess_on_generated_layouts():
    env = TalkItOutEnv()
    assert success_rate("oracle", "original", seed=0, episodes=150, env=env) >= 0.9
    rate = success_rate("door-guess", "original", seed=0, episodes=300, env=env)
    assert 0.17 < rate < 0.33  # one door in four


def test_door_guess_walks_to_a_door_and_says_the_passphrase():
    env, obs = start(BASIC)
    reward, trace = play(env, obs, DoorGuessAgent(np.random.default_rng(0)))
    assert trace[-1][1:] == (1, 0)
    assert tuple(env.agent_pos) in env.door_fronts
    assert "Gandalf" not in env.utterance_history  # never asks anybody


def test_random_agent_samples_the_papers_raw_choices():
    agent = RandomAgent(np.random.default_rng(0))
    actions = np.array([agent.act({}) for _ in range(8000)])
    assert set(actions[:, 0]) == set(range(8))  # 7 primitives and "no move"
    silent = actions[:, 1] == 4
    assert abs(silent.mean() - 0.5) < 0.03  # the speak switch is a fair coin
    assert np.all((actions[:, 2] == 16) == silent)  # template and noun come together
    assert set(actions[~silent, 1]) == set(range(4)) and set(actions[~silent, 2]) == set(range(16))
    again = RandomAgent(np.random.default_rng(0))
    assert [again.act({}) for _ in range(50)] == [tuple(a) for a in actions[:50].tolist()]


def test_heard_lines_and_unknown_agent():
    assert heard_lines("Gandalf: Ask John.\nJohn: go to the red door\n") == [
        ("Gandalf", "Ask John."), ("John", "go to the red door")]
    assert heard_lines("NA\n") == []
    with pytest.raises(UserError, match="unknown TalkItOut agent 'bob'"):
        make_agent("bob", np.random.default_rng(0))


def test_planner_counts_turns_and_speaks_on_arrival():
    # Start next to the exit, facing it: the plan still needs the wizard and the guide.
    env, _ = start(layout(agent=((3, 4), 1)))
    plan = shortest_plan(env)
    assert not plan.wizard_walled_in and plan.steps is not None and plan.steps > 4
    # Wizard and guide both next to the start and the exit in front: ask once, turn... the
    # shortest plan is 1 step to ask both, then 1 step to reach the exit and speak.
    lay = layout(npcs=[("wizard", "Gandalf", "grey", (2, 3)), ("guide", "John", "red", (4, 3)),
                       ("liar", "Jack", "red", (1, 1))], agent=((3, 3), 1))
    env, _ = start(lay)
    assert shortest_plan(env).steps == 2

"""The hierarchical TalkItOut agent: its options do what they say, its features hold no hidden
state, and its training command, checkpoint and evaluation work end to end."""

import json

import numpy as np
import pytest
import torch
from click.testing import CliRunner

from socialbench.cli import main
from socialbench.core.errors import UserError
from socialbench.rl.hierarchical.dialogue_memory import COLOUR_WORDS, DialogueMemory
from socialbench.rl.hierarchical.features import GLOBAL_COLUMNS, OPTION_COLUMNS, build_features
from socialbench.rl.hierarchical.options import (
    DOOR_OPTIONS,
    EXPLORE,
    NPC_OPTIONS,
    OptionController,
)
from socialbench.rl.hierarchical.trainer import (
    HierarchicalConfig,
    HierarchicalRun,
    load_checkpoint,
    read_log,
)
from socialbench.talkitout.grammar import OPEN_SESAME, WHERE_IS_THE_EXIT, words_from_action
from tests.talkitout.talkitout_layouts import BASIC, layout, start

COL = {name: i for i, name in enumerate((*OPTION_COLUMNS, *GLOBAL_COLUMNS))}
OBSERVATION_KEYS = {"image", "direction", "utterance"}


class RecordingObs(dict):
    """An observation dict that remembers which keys were read."""

    def __init__(self, obs, read):
        super().__init__(obs)
        self.read = read

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)


def run_option(env, ctl, option, read=None):
    """Run one option to its end; the (action, reward, terminated) of each step."""
    ctl.start(option)
    steps = []
    while not ctl.needs_decision:
        action = ctl.act()
        if action is None:
            break
        obs, reward, terminated, truncated, _ = env.step(action)
        steps.append((action, reward, terminated))
        if terminated or truncated:
            break
        ctl.observe(RecordingObs(obs, read) if read is not None else obs)
    return steps


def controller(obs):
    ctl = OptionController(np.random.default_rng(0))
    ctl.observe(obs)
    return ctl


def test_dialogue_memory_parses_who_said_what():
    d = DialogueMemory()
    assert d.hear("NA\n") == []
    assert d.hear("Gandalf: Ask John.\nJack: go to the red door\n") == ["gandalf", "jack"]
    d.hear("John: go to the green door\n")
    d.hear("Jack: go to the blue door\n")
    assert d.speakers() == ["gandalf", "jack", "john"]
    assert d.named_by_other("john") and not d.named_by_other("jack")
    assert d.names_other("gandalf") and not d.names_other("john")
    assert d.inconsistent("jack") and not d.inconsistent("john")
    assert d.colours_said("john") == ["green"] and d.colours_said("jack") == ["red", "blue"]


def test_npc_option_walks_next_to_the_npc_and_asks_where_the_exit_is():
    env, obs = start(layout(agent=((2, 3), 2)))  # facing left: the wizard at (1, 1) in view
    ctl = controller(obs)
    wizard = next(c for c, t in ctl.map.npc_type.items() if t == 0)
    steps = run_option(env, ctl, NPC_OPTIONS[ctl.npc_cells().index(wizard)])
    assert words_from_action(steps[-1][0])[1] == WHERE_IS_THE_EXIT
    assert all(words_from_action(a)[1] is None for a, _, _ in steps[:-1])  # silent on the way
    ax, ay = env.agent_pos
    assert abs(ax - 1) + abs(ay - 1) == 1  # next to the wizard
    assert ctl.dialogue.lines == [("gandalf", ("ask", "john"))]
    assert ctl.asked == {wizard: 1} and ctl.voices == {wizard: {"gandalf"}}


@pytest.mark.parametrize(("colour", "wins"), [("green", True), ("blue", False)])
def test_door_option_goes_to_the_door_and_says_open_sesame(colour, wins):
    env, obs = start(layout(agent=((2, 3), 1)))  # facing down: green and blue doors in view
    ctl = controller(obs)
    steps = run_option(env, ctl, DOOR_OPTIONS[COLOUR_WORDS.index(colour)])
    action, reward, terminated = steps[-1]
    assert words_from_action(action)[1] == OPEN_SESAME and terminated
    assert (reward > 0) == wins  # the exit is green in BASIC


def test_explore_finds_every_npc_and_door_of_a_room():
    env, obs = start(BASIC)
    ctl = controller(obs)
    for _ in range(8):
        if len(ctl.npc_cells()) == 3 and len(ctl.map.door_colour) == 4:
            break
        assert run_option(env, ctl, EXPLORE)
    assert len(ctl.npc_cells()) == 3 and len(ctl.map.door_colour) == 4


def heard_a_colour(ctl):
    return any(set(words) & set(COLOUR_WORDS) for _, words in ctl.dialogue.lines)


def scripted_features(lay):
    """(features, mask, a colour heard yet) at every decision of a fixed script: explore until
    every NPC is seen, then ask the wizard, then each guide; and the controller and the keys
    read."""
    env, obs = start(lay)
    read: set[str] = set()
    ctl = controller(RecordingObs(obs, read))
    seen = []
    while len(ctl.npc_cells()) < 3:
        seen.append((*build_features(ctl, 40), heard_a_colour(ctl)))
        run_option(env, ctl, EXPLORE, read)
    wizard_first = sorted(NPC_OPTIONS, key=lambda o: ctl.map.npc_type[ctl.npc_cells()[o - 1]])
    for option in wizard_first:
        seen.append((*build_features(ctl, 40), heard_a_colour(ctl)))
        run_option(env, ctl, option, read)
    seen.append((*build_features(ctl, 40), heard_a_colour(ctl)))
    return seen, ctl, read


def test_features_come_from_observations_only():
    # Two layouts that differ only in a hidden fact (the exit, so what the guides answer): the
    # features agree until a guide's answer is heard, and only the observation's three keys
    # are ever read.
    green, _, read = scripted_features(BASIC)
    red, _, _ = scripted_features(layout(target_colour="red"))
    assert read <= OBSERVATION_KEYS
    before = [(g, r) for g, r in zip(green, red, strict=True) if not g[2]]
    assert before[-1][0][0][:, COL["lines_heard"]].max() > 0  # the wizard's answer is in
    for (fg, mg, _), (fr, mr, _) in before:
        np.testing.assert_array_equal(fg, fr)
        np.testing.assert_array_equal(mg, mr)
    assert not np.array_equal(green[-1][0], red[-1][0])  # the answers did reach the features


def test_ablation_zeroes_what_was_heard():
    _, ctl, _ = scripted_features(BASIC)
    full, _ = build_features(ctl, 40)
    deaf, _ = build_features(ctl, 40, "no-dialogue")
    for name in ("colour_said", "colour_said_by_named", "npc_named_by_other", "speakers_heard"):
        assert full[:, COL[name]].any() and not deaf[:, COL[name]].any()
    np.testing.assert_array_equal(full[:, COL["steps"]], deaf[:, COL["steps"]])


def tiny(**changes):
    return HierarchicalConfig(**{"frames": 1, "episodes_per_update": 8, "minibatch": 32,
                                 "checkpoint_every": 1, **changes})


def test_resumed_run_repeats_the_uninterrupted_one(tmp_path):
    part = HierarchicalRun(tmp_path / "part", tiny(frames=1))
    part.train(plot=False)
    two_updates = part.frames + 1
    whole = HierarchicalRun(tmp_path / "whole", tiny(frames=two_updates))
    whole.train(plot=False)
    assert part.updates == 1 and whole.updates == 2
    again = HierarchicalRun(tmp_path / "part", tiny(frames=two_updates), resume=True)
    again.train(plot=False)
    keys = ("update", "frames", "success", "return_mean", "policy_loss")
    rows = [[r[k] for k in keys] for r in read_log(tmp_path / "whole" / "log.csv")]
    assert rows == [[r[k] for k in keys] for r in read_log(tmp_path / "part" / "log.csv")]
    for name, value in whole.policy.state_dict().items():
        assert torch.equal(value, again.policy.state_dict()[name]), name


def test_checkpoint_round_trip_and_refusals(tmp_path):
    run = HierarchicalRun(tmp_path / "r", tiny())
    run.train(plot=False)
    state = torch.load(tmp_path / "r" / "checkpoint.pt", weights_only=True)
    assert state["kind"] == "talkitout-hierarchical" and state["frames"] == run.frames
    loaded = load_checkpoint(tmp_path / "r")
    for name, value in run.policy.state_dict().items():
        assert torch.equal(value, loaded["model"][name])
    with pytest.raises(UserError, match="already holds a run"):
        HierarchicalRun(tmp_path / "r", tiny())
    with pytest.raises(UserError, match="another run"):
        HierarchicalRun(tmp_path / "r", tiny(seed=1), resume=True)
    (tmp_path / "bad.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(UserError, match="not a hierarchical TalkItOut checkpoint"):
        load_checkpoint(tmp_path / "bad.pt")
    with pytest.raises(UserError, match="unknown feature ablation"):
        tiny(ablation="no-ears")


def test_train_and_eval_commands(tmp_path):
    out = tmp_path / "run"
    cli = CliRunner()
    result = cli.invoke(main, ["talkitout", "train", "--model", "hierarchical", "--frames", "1",
                               "--out", str(out), "--threads", "1"])
    assert result.exit_code == 0, result.output
    for name in ("config.json", "log.csv", "checkpoint.pt", "curve.png"):
        assert (out / name).exists(), name
    assert json.loads((out / "config.json").read_text())["model"] == "hierarchical"
    result = cli.invoke(main, ["talkitout", "eval", "--checkpoint", str(out), "--episodes", "20",
                               "--variant", "no-liar", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["variant"] == "no-liar" and data["episodes"] == 20
    assert data["agent"].startswith("Hierarchical (seed 0")
    result = cli.invoke(main, ["talkitout", "train", "--model", "hierarchical",
                               "--exploration-bonus", "--out", str(tmp_path / "x")])
    assert result.exit_code != 0 and "--exploration-bonus" in result.output


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny networks: one PyTorch thread is faster than contending for busy cores."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_ctrl_c_saves_the_update_it_ends(tmp_path):
    import os
    import signal

    run = HierarchicalRun(tmp_path / "r", tiny(frames=10**6, checkpoint_every=50))
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # even in a nohup job
    try:
        with pytest.raises(KeyboardInterrupt, match="checkpoint saved at"):
            run.train(lambda row: os.kill(os.getpid(), signal.SIGINT), plot=False)
    finally:
        signal.signal(signal.SIGINT, before)
    state = torch.load(tmp_path / "r" / "checkpoint.pt", weights_only=True)
    assert run.updates == 1 and state["frames"] == run.frames

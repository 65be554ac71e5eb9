"""The batched TalkItOut against SyncVectorEnv of single environments, in lockstep; vocabulary."""

import itertools

import gymnasium as gym
import numpy as np
import pytest

import socialbench  # noqa: F401  (registers the environments)
from socialbench.talkitout.agents import OracleAgent
from socialbench.talkitout.env import TalkItOutEnv
from socialbench.talkitout.vector_env import TalkItOutVectorEnv
from socialbench.talkitout.vocabulary import (
    EMPTY_INDICATOR,
    MAX_STEP_TOKENS,
    PAD,
    decode,
    encode,
    guide_line,
    wizard_line,
)
from socialbench.talkitout.world import GUIDE_NAMES, SEVEN_COLOURS, WIZARD_NAME

RELEASED = {"t_max": 320, "agent_start_in_front_of_door": True, "n_colours": 7,
            "npc_direction_channel": True}
CONFIGS = {
    "paper": {},
    "paper-no-liar": {"liar": False},
    "released": RELEASED,
    "released-no-liar": {**RELEASED, "liar": False},
}
MODES = ("NextStep", "SameStep")


def pair(n, mode, **kwargs):
    """The batched env and SyncVectorEnv of single envs, same parameters and autoreset mode."""
    batched = TalkItOutVectorEnv(n, autoreset_mode=mode, **kwargs)
    single = gym.vector.SyncVectorEnv([lambda: TalkItOutEnv(**kwargs) for _ in range(n)],
                                      autoreset_mode=mode)
    return batched, single


def assert_same_obs(batched, obs_b, obs_s, where):
    assert np.array_equal(obs_b["image"], obs_s["image"]), where
    assert np.array_equal(obs_b["direction"], obs_s["direction"]), where
    texts = batched.utterance_texts()
    assert [decode(u) for u in obs_b["utterance"]] == [u for u, _ in texts], where
    assert [u for u, _ in texts] == list(obs_s["utterance"]), where
    assert [h for _, h in texts] == list(obs_s["utterance_history"]), where
    lengths = [len(encode(h)) for h in obs_s["utterance_history"]]
    assert obs_b["utterance_history_length"].tolist() == lengths, where


def talkative_actions(rng, n, end_rate):
    """Random actions heavy on "Where is the exit" and forward moves, so that NPCs (liar
    included) answer, doors are opened and episodes run long enough to be truncated."""
    ends = end_rate / 2
    moves = rng.choice(8, n, p=[0.12, 0.12, 0.4, 0.03, 0.03, ends, ends, 0.3 - 2 * ends])
    action = np.stack([moves, rng.integers(0, 5, n), rng.integers(0, 17, n)], axis=1)
    ask = rng.random(n) < 0.4
    action[ask, 1:] = (0, 1)
    sesame = rng.random(n) < 0.01
    action[sesame, 1:] = (1, 0)
    return action


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("config", CONFIGS)
def test_lockstep_with_sync_vector_env_under_random_talkative_actions(config, mode):
    kwargs = CONFIGS[config]
    n, steps = 8, 1500
    batched, single = pair(n, mode, **kwargs)
    obs_b, _ = batched.reset(seed=11)
    obs_s, _ = single.reset(seed=11)
    rng = np.random.default_rng(5)
    end_rate = 0.02 if batched.t_max <= 40 else 0.001
    seen = dict.fromkeys(("answers", "liar answers", "three answers", "wins", "terminated",
                          "truncated"), 0)
    for t in range(steps):
        assert_same_obs(batched, obs_b, obs_s, (config, mode, t))
        action = talkative_actions(rng, n, end_rate)
        obs_b, reward_b, term_b, trunc_b, info_b = batched.step(action)
        obs_s, reward_s, term_s, trunc_s, info_s = single.step(action)
        assert np.array_equal(reward_b, reward_s), t
        assert np.array_equal(term_b, term_s), t
        assert np.array_equal(trunc_b, trunc_s), t
        if "final_obs" in info_s:  # same_step: what the ended envs heard last
            ended = np.flatnonzero(info_s["_final_obs"])
            assert np.array_equal(np.flatnonzero(info_b["_final_obs"]), ended)
            heard = [decode(info_b["final_obs"]["utterance"][i]) for i in ended]
            assert heard == [info_s["final_obs"][i]["utterance"] for i in ended], t
        heard = (obs_b["utterance"] != PAD).sum(axis=1)
        seen["answers"] += int((heard > 0).sum())
        seen["three answers"] += int((heard == MAX_STEP_TOKENS).sum())
        liars = [[n.name for n in env.unwrapped.npcs if n.role == "liar"] for env in single.envs]
        seen["liar answers"] += sum(f"{name}: " in text for names, text
                                    in zip(liars, obs_s["utterance"], strict=True)
                                    for name in names)
        seen["wins"] += int((reward_b > 0).sum())
        seen["terminated"] += int(term_b.sum())
        seen["truncated"] += int(trunc_b.sum())
    assert_same_obs(batched, obs_b, obs_s, (config, mode, steps))
    liar = kwargs.get("liar", True)
    expected = {"answers", "wins", "terminated", "truncated"}
    expected |= {"liar answers"} if liar else set()
    expected |= {"three answers"} if config == "paper" else set()  # rare: this seed has some
    assert all(seen[event] > 0 for event in expected), seen


@pytest.mark.parametrize("config", ["paper", "paper-no-liar"])
def test_lockstep_under_the_oracle_agent(config):
    n, steps = 6, 400
    batched, single = pair(n, "SameStep", **CONFIGS[config])
    obs_b, _ = batched.reset(seed=100)
    obs_s, _ = single.reset(seed=100)
    agents = [OracleAgent(np.random.default_rng(i)) for i in range(n)]
    for agent in agents:
        agent.reset()
    wins = 0
    for t in range(steps):
        action = np.array([agent.act({key: obs_s[key][i] for key in obs_s})
                           for i, agent in enumerate(agents)])
        obs_b, reward_b, term_b, trunc_b, _ = batched.step(action)
        obs_s, reward_s, term_s, trunc_s, _ = single.step(action)
        assert np.array_equal(reward_b, reward_s), t
        assert np.array_equal(term_b, term_s) and np.array_equal(trunc_b, trunc_s), t
        assert_same_obs(batched, obs_b, obs_s, t)
        for i in np.flatnonzero(term_b | trunc_b):
            agents[i].reset()
        wins += int((reward_b > 0).sum())
    assert wins > steps * n / 30  # the oracle solves nearly every episode (~15-20 steps)


def test_history_in_obs_is_a_copy_of_the_accessor():
    envs = TalkItOutVectorEnv(4, history_in_obs=True)
    obs, _ = envs.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(200):
        obs, *_ = envs.step(talkative_actions(rng, 4, 0.02))
        history = envs.utterance_history(copy=False)
        assert np.array_equal(obs["utterance_history"], history)
        assert obs["utterance_history"] is not history
        assert np.array_equal((history != PAD).sum(axis=1), obs["utterance_history_length"])
    assert envs.observation_space.contains(obs)


def test_saved_state_continues_exactly():
    rng = np.random.default_rng(2)
    actions = [talkative_actions(rng, 5, 0.02) for _ in range(300)]
    envs = TalkItOutVectorEnv(5, autoreset_mode="SameStep")
    envs.reset(seed=4)
    for action in actions[:100]:
        envs.step(action)
    saved = envs.get_state()
    later = [envs.step(action) for action in actions[100:]]
    again = TalkItOutVectorEnv(5, autoreset_mode="SameStep")
    again.set_state(saved)
    for action, (obs, reward, *_) in zip(actions[100:], later, strict=True):
        obs_again, reward_again, *_ = again.step(action)
        assert np.array_equal(reward, reward_again)
        assert all(np.array_equal(obs[key], obs_again[key]) for key in obs)


def test_partial_reset_and_list_seeds_match_sync_vector_env():
    batched, single = pair(4, "NextStep")
    seeds = [5, None, 7, 8]  # env 1 draws from entropy: not comparable
    obs_b, _ = batched.reset(seed=seeds)
    obs_s, _ = single.reset(seed=seeds)
    seeded = [0, 2, 3]
    assert np.array_equal(obs_b["image"][seeded], obs_s["image"][seeded])
    mask = np.array([True, False, True, False])
    again_b, _ = batched.reset(seed=[50, 51, 52, 53], options={"reset_mask": mask})
    again_s, _ = single.reset(seed=[50, 51, 52, 53], options={"reset_mask": mask.copy()})
    assert np.array_equal(again_b["image"][seeded], again_s["image"][seeded])
    assert np.array_equal(again_b["image"][3], obs_b["image"][3])  # not in the mask: unchanged


@pytest.mark.parametrize("env_id,liar", [("socialbench/TalkItOut-v0", True),
                                         ("socialbench/TalkItOutNoLiar-v0", False)])
def test_make_vec_uses_the_vector_entry_point_and_passes_kwargs(env_id, liar):
    envs = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point",
                        t_max=320, npc_direction_channel=True, autoreset_mode="same_step")
    assert isinstance(envs.unwrapped, TalkItOutVectorEnv)
    assert envs.unwrapped.liar is liar and envs.unwrapped.t_max == 320
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    obs, _ = envs.reset(seed=0)
    assert obs["image"].shape == (3, 7, 7, 4) and obs["image"].dtype == np.uint8
    assert obs["utterance"].shape == (3, MAX_STEP_TOKENS)
    assert envs.unwrapped.utterance_history().shape == (3, MAX_STEP_TOKENS * 320)
    assert "utterance_history" not in obs
    assert envs.observation_space.contains(obs)
    obs, *_ = envs.step(envs.action_space.sample())
    assert envs.observation_space.contains(obs)
    default = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point")
    assert default.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP


def test_invalid_actions_name_the_environment_and_the_part():
    envs = TalkItOutVectorEnv(4)
    envs.reset(seed=0)
    action = np.tile([7, 4, 16], (4, 1))
    action[2, 1] = 5
    with pytest.raises(ValueError, match=r"environment 2: action template index 5"):
        envs.step(action)
    action[2, 1], action[3, 0] = 0, -1
    with pytest.raises(ValueError, match=r"environment 3: action primitive"):
        envs.step(action)
    with pytest.raises(ValueError, match=r"shape \(4, 3\)"):
        envs.step(action[:3])
    with pytest.raises(ValueError, match="integers"):
        envs.step(np.full((4, 3), 0.5))


def test_unsupported_settings_are_clear_errors():
    with pytest.raises(ValueError, match="see_through_walls=True"):
        TalkItOutVectorEnv(2, see_through_walls=False)
    with pytest.raises(ValueError, match="autoreset_mode"):
        TalkItOutVectorEnv(2, autoreset_mode="Disabled")
    with pytest.raises(RuntimeError, match="reset"):
        TalkItOutVectorEnv(2).step(np.tile([7, 4, 16], (2, 1)))


# ---------------------------------------------------------------- vocabulary
def every_answer():
    names = (WIZARD_NAME, *GUIDE_NAMES)
    wizard = [f"{WIZARD_NAME}: Ask {g}.\n" for g in GUIDE_NAMES]
    guides = [f"{g}: go to the {c} door\n" for g in GUIDE_NAMES for c in SEVEN_COLOURS]
    assert all(line.split(":")[0] in names for line in wizard + guides)
    return wizard, guides


def test_vocabulary_round_trips_every_line_and_every_step():
    wizard, guides = every_answer()
    for line in wizard + guides:
        ids = encode(line)
        assert all(0 < i < 256 for i in ids)
        assert decode(ids) == line
    # Every step: any subset of (wizard, guide, liar) answers, in that order.
    for w, g, liar in itertools.product([None, *wizard], [None, *guides], [None, *guides]):
        text = "".join(x for x in (w, g, liar) if x)
        ids = encode(text) if text else []
        assert len(ids) <= MAX_STEP_TOKENS
        assert decode(ids) == (text or EMPTY_INDICATOR)
        padded = ids + [PAD] * (MAX_STEP_TOKENS - len(ids))
        assert decode(padded, empty="") == text


def test_vocabulary_helpers_and_errors():
    assert encode(EMPTY_INDICATOR) == [] and decode([]) == EMPTY_INDICATOR
    assert decode(wizard_line("Jack")) == "Gandalf: Ask Jack.\n"
    assert decode(guide_line("John", "brown")) == "John: go to the brown door\n"
    with pytest.raises(ValueError, match="hello"):
        encode("John: hello")
    with pytest.raises(ValueError, match="answer"):
        decode(encode("go to the red door"))

"""TalkItOut environment: what the paper and the spec say it does."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from minigrid.minigrid_env import MiniGridEnv
from talkitout_layouts import BASIC, layout, start

import socialbench  # noqa: F401  (registers the environments)
from socialbench.talkitout.env import EMPTY_INDICATOR, TalkItOutEnv
from socialbench.talkitout.grammar import NOUNS, TEMPLATES, action_from_words

ASK = action_from_words("Where is the exit")
SESAME = action_from_words("Open sesame")
NOOP = (7, 4, 16)


def say(sentence, primitive=None):
    return action_from_words(sentence, primitive)


# ---------------------------------------------------------------- NPC answers
def test_wizard_answers_only_where_is_the_exit():
    for t in range(len(TEMPLATES)):
        for n in range(len(NOUNS)):
            env, _ = start(layout(agent=((1, 2), 0)))  # next to the wizard at (1, 1)
            obs, reward, terminated, _, _ = env.step((7, t, n))
            expected = "Gandalf: Ask John.\n" if (t, n) == (0, 1) else EMPTY_INDICATOR
            assert obs["utterance"] == expected, (t, n)
            assert reward == 0 and not terminated


def test_true_guide_names_the_exit_every_time():
    env, _ = start(layout(agent=((4, 3), 0)))  # next to John at (4, 4), diagonal to Jack
    for _ in range(5):
        obs, *_ = env.step(ASK)
        assert obs["utterance"] == "John: go to the green door\n"


def test_liar_draws_a_fresh_wrong_door_every_question():
    env, _ = start(layout(agent=((3, 3), 0)))  # next to Jack at (3, 2) only
    answers = []
    for _ in range(60):
        obs, *_ = env.step(ASK)
        name, text = obs["utterance"].rstrip("\n").split(": ")
        assert name == "Jack"
        answers.append(text.split()[3])
    assert set(answers) == {"red", "blue", "yellow"}  # every wrong door, never the exit
    assert any(a != b for a, b in zip(answers, answers[1:], strict=False))  # contradicts itself


def test_every_adjacent_npc_answers_in_order_wizard_guide_liar():
    lay = layout(npcs=[("liar", "Jack", "red", (2, 3)), ("guide", "John", "red", (3, 2)),
                       ("wizard", "Gandalf", "grey", (1, 2))], agent=((2, 2), 3))
    env, _ = start(lay)
    obs, *_ = env.step(ASK)
    lines = obs["utterance"].splitlines()
    assert lines[0] == "Gandalf: Ask John."
    assert lines[1] == "John: go to the green door"
    assert lines[2].startswith("Jack: go to the ") and "green" not in lines[2]


def test_hearing_needs_4_adjacency_not_facing():
    env, _ = start(layout(agent=((2, 3), 0)))  # no NPC 4-adjacent
    assert env.step(ASK)[0]["utterance"] == EMPTY_INDICATOR
    env, _ = start(layout(agent=((4, 3), 0)))  # Jack (3, 2) is diagonal: silent
    assert "Jack" not in env.step(ASK)[0]["utterance"]
    for direction in range(4):  # wizard heard whichever way the agent faces
        env, _ = start(layout(agent=((1, 2), direction)))
        assert env.step(ASK)[0]["utterance"].startswith("Gandalf:")


def test_agent_does_not_hear_itself_and_history_keeps_answers_only():
    env, _ = start(layout(agent=((1, 2), 0)))
    env.step(say("What is the lamp"))
    env.step(NOOP)
    obs, *_ = env.step(ASK)
    assert obs["utterance_history"] == "Gandalf: Ask John.\n"
    obs, *_ = env.step(NOOP)
    assert obs["utterance"] == EMPTY_INDICATOR
    assert obs["utterance_history"] == "Gandalf: Ask John.\n"


def test_answers_come_after_the_move_of_the_same_step():
    env, _ = start(layout(agent=((2, 2), 2)))  # facing left; one step puts it next to wizard
    obs, *_ = env.step(say("Where is the exit", "forward"))
    assert obs["utterance"] == "Gandalf: Ask John.\n"


# ---------------------------------------------------------------- endings and rewards
def test_open_sesame_at_the_exit_pays_the_paper_reward():
    env, _ = start(layout(agent=((3, 4), 0)))  # in front of the green (target) door
    _, reward, terminated, truncated, _ = env.step(SESAME)
    assert terminated and not truncated
    assert reward == pytest.approx(1 - 0.9 * 1 / 40)  # Eq. 1, t_max = 40
    env, _ = start(layout(agent=((3, 4), 0)))
    for _ in range(3):
        env.step(NOOP)
    assert env.step(SESAME)[1] == pytest.approx(1 - 0.9 * 4 / 40)


def test_reward_uses_t_max_320_in_released_setting():
    env, _ = start(layout(agent=((3, 3), 1)), t_max=320)
    _, reward, terminated, *_ = env.step(say("Open sesame", "forward"))  # arrive and speak
    assert terminated and reward == pytest.approx(1 - 0.9 * 1 / 320)


def test_open_sesame_at_a_wrong_door_ends_with_nothing():
    env, _ = start(layout(agent=((1, 3), 0)))  # in front of the blue door
    _, reward, terminated, *_ = env.step(SESAME)
    assert terminated and reward == 0


def test_open_sesame_away_from_doors_and_other_words_at_the_exit_do_nothing():
    env, _ = start(layout(agent=((2, 3), 0)))
    _, reward, terminated, truncated, _ = env.step(SESAME)
    assert (reward, terminated, truncated) == (0, False, False)
    env, _ = start(layout(agent=((3, 4), 0)))
    for words in ("Open the exit", "Close sesame", "Where is sesame"):
        _, reward, terminated, *_ = env.step(say(words))
        assert (reward, terminated) == (0, False)


@pytest.mark.parametrize("primitive", ["toggle", "done"])
def test_toggle_and_done_end_with_zero_even_with_the_passphrase(primitive):
    env, _ = start(layout(agent=((3, 4), 1)))  # facing the target door
    _, reward, terminated, *_ = env.step(say("Open sesame", primitive))
    assert terminated and reward == 0


def test_pickup_drop_and_no_move_do_nothing():
    env, _ = start(BASIC)
    for primitive in ("pickup", "drop", None):
        env.step(action_from_words(None, primitive))
        assert tuple(env.agent_pos) == (2, 3) and env.agent_dir == 0


def test_turning_and_blocked_moves():
    env, _ = start(layout(agent=((3, 3), 3)))  # facing up, Jack at (3, 2)
    env.step(action_from_words(None, "forward"))
    assert tuple(env.agent_pos) == (3, 3)  # NPCs block
    env, _ = start(layout(agent=((3, 4), 1)))  # facing the door
    env.step(action_from_words(None, "forward"))
    assert tuple(env.agent_pos) == (3, 4)  # closed doors block
    env.step(action_from_words(None, "left"))
    assert env.agent_dir == 0
    env.step(action_from_words(None, "forward"))
    assert tuple(env.agent_pos) == (4, 4) or tuple(env.agent_pos) == (3, 4)


def test_timeout_truncates_at_t_max():
    env, _ = start(BASIC, t_max=3)
    results = [env.step(NOOP)[2:4] for _ in range(3)]
    assert results == [(False, False), (False, False), (False, True)]


# ---------------------------------------------------------------- layouts
@pytest.mark.parametrize("liar", [True, False])
def test_generated_layouts_follow_the_spec(liar):
    env = TalkItOutEnv(liar=liar)
    sizes, targets = set(), [0] * 4
    for seed in range(400):
        env.reset(seed=seed)
        w, h = env.room_size
        sizes.add((w, h))
        doors = [tuple(d.cur_pos) for d in env.doors]
        (tx, ty), (bx, by), (lx, ly), (rx, ry) = doors
        assert ty == 0 and by == h - 1 and lx == 0 and rx == w - 1
        assert 2 <= tx <= w - 3 and 2 <= bx <= w - 3 and 2 <= ly <= h - 3 and 2 <= ry <= h - 3
        assert len({d.color for d in env.doors}) == 4
        assert env.doors[env.target_index].color == env.target_colour
        targets[env.target_index] += 1
        cells = [tuple(n.cur_pos) for n in env.npcs]
        assert len(set(cells)) == len(cells)
        for x, y in [*cells, tuple(env.agent_pos)]:
            assert 1 <= x <= w - 2 and 1 <= y <= h - 2
            assert (x, y) not in env.door_fronts  # paper: nobody starts in front of a door
        assert tuple(env.agent_pos) not in cells
        roles = [n.role for n in env.npcs]
        names = [n.name for n in env.npcs]
        if liar:
            assert roles == ["wizard", "guide", "liar"]
            assert sorted(names[1:]) == ["Jack", "John"]
            assert env.true_guide_name == names[1]
        else:
            assert roles == ["wizard", "guide"] and names[1] == "Jack"
        assert names[0] == "Gandalf"
    assert sizes == {(w, h) for w in range(5, 9) for h in range(5, 9)}
    assert all(70 < n < 130 for n in targets)  # uniform over the four doors


def test_released_settings_brown_npc_direction_and_door_starts():
    env = TalkItOutEnv(n_colours=7, npc_direction_channel=True,
                       agent_start_in_front_of_door=True)
    colours, front_starts = set(), 0
    for seed in range(300):
        obs, _ = env.reset(seed=seed)
        assert obs["image"].shape == (7, 7, 4)
        assert env.observation_space.contains(obs)
        colours |= {d.color for d in env.doors}
        front_starts += tuple(env.agent_pos) in env.door_fronts
        npc_cells = obs["image"][..., 0] == 11
        for npc in env.npcs:
            assert npc.encode()[3] == npc.direction
        assert np.all(obs["image"][~npc_cells][:, 3] == 0)
    assert "brown" in colours
    assert front_starts > 30


def test_npc_encoding_is_the_papers():
    env, obs = start(layout(npcs=[("wizard", "Gandalf", "blue", (2, 2)),
                                  ("guide", "John", "blue", (4, 4)),
                                  ("liar", "Jack", "blue", (3, 2))], agent=((2, 4), 3)))
    cells = {tuple(obs["image"][i, j]) for i in range(7) for j in range(7)}
    assert (11, 2, 0) in cells and (11, 2, 1) in cells  # A.1.2: blue wizard, blue guide
    assert (4, 0, 1) in cells  # the closed red door


# ---------------------------------------------------------------- observations, seeding
def test_view_matches_minigrids_own_encoding():
    env = TalkItOutEnv()
    rng = np.random.default_rng(0)
    for seed in range(60):
        env.reset(seed=seed)
        for _ in range(12):
            assert np.array_equal(env.view(), MiniGridEnv.gen_obs(env)["image"])
            env.step((int(rng.choice([0, 1, 2, 2])), 4, 16))


def test_same_seed_same_episode_different_seed_different_layout():
    def rollout(seed):
        env = gym.make("socialbench/TalkItOut-v0")
        rng = np.random.default_rng(7)
        obs, _ = env.reset(seed=seed)
        trace = [obs["image"].tobytes()]
        for _ in range(30):
            obs, reward, terminated, truncated, _ = env.step(rng.integers(0, [8, 5, 17]))
            trace.append((obs["image"].tobytes(), obs["utterance"], reward))
            if terminated or truncated:
                obs, _ = env.reset()
        return trace

    assert rollout(3) == rollout(3)
    assert rollout(3) != rollout(4)


def test_no_liar_variant_is_registered_and_has_one_guide():
    env = gym.make("socialbench/TalkItOutNoLiar-v0")
    env.reset(seed=0)
    assert [n.role for n in env.unwrapped.npcs] == ["wizard", "guide"]


@pytest.mark.parametrize("env_id", ["socialbench/TalkItOut-v0", "socialbench/TalkItOutNoLiar-v0"])
def test_gymnasium_env_checker_passes(env_id):
    check_env(gym.make(env_id).unwrapped, skip_render_check=True)
    check_env(TalkItOutEnv(n_colours=7, npc_direction_channel=True), skip_render_check=True)


def test_every_action_in_the_space_is_valid_and_others_say_which_part_is_wrong():
    env = TalkItOutEnv()
    env.reset(seed=0)
    for _ in range(200):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    for bad, part in (((8, 0, 0), "primitive"), ((0, 5, 0), "template"), ((0, 0, 17), "noun"),
                      ((-1, 0, 0), "primitive"), ((0, 0), "3 integers"), ("abc", "3 integers")):
        with pytest.raises(ValueError, match=part):
            env.step(bad)


def test_rgb_array_draws_the_grid_and_what_was_said():
    env = TalkItOutEnv(render_mode="rgb_array", tile_size=16)
    env.reset(seed=0, options={"layout": layout(agent=((1, 2), 0))})
    silent = env.render()
    assert silent.dtype == np.uint8 and silent.shape[1] == 8 * 16 and silent.shape[0] > 8 * 16
    env.step(ASK)
    spoken = env.render()
    assert spoken.shape == silent.shape  # a fixed frame size, whatever is said
    assert np.array_equal(spoken[:8 * 16], silent[:8 * 16])  # nobody moved
    assert not np.array_equal(spoken[8 * 16:], silent[8 * 16:])  # the text band changed
    assert (spoken[8 * 16:] < 128).any()  # dark text on the white band


def test_layout_round_trip_and_occluding_walls_option():
    env = TalkItOutEnv()
    obs, _ = env.reset(seed=11)
    replay = TalkItOutEnv()
    again, _ = replay.reset(options={"layout": env.describe()})
    assert np.array_equal(obs["image"], again["image"]) and replay.describe() == env.describe()
    with pytest.raises(ValueError, match="layout"):
        replay.reset(options={"layout": {"room_size": (6, 6)}})
    occluded = TalkItOutEnv(see_through_walls=False)
    check_env(occluded, skip_render_check=True)
    obs, _ = occluded.reset(seed=1)
    assert (obs["image"][..., 0] == 0).any()  # cells behind walls are unseen

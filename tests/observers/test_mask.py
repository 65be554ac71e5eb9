"""The BIB mask model: tensorization, network shapes, training, checkpoints and surprise."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from socialbench.bib.schema import Block, Episode, Frame, Sprite, Trial  # noqa: E402
from socialbench.core.errors import UserError  # noqa: E402
from socialbench.observers.bib import mask_data as md  # noqa: E402
from socialbench.observers.bib.mask import (  # noqa: E402
    MaskConfig,
    MaskNet,
    MaskObserver,
    precision_recall,
    step_surprise,
)


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny networks run fastest on one thread (and the test machine's cores are shared)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


BORDER = tuple(Block(x, y) for x in range(0, 200, 20) for y in range(0, 200, 20)
               if x in (0, 180) or y in (0, 180))


def _sprite(cell: tuple[int, int], shape: str, half: float = 9) -> Sprite:
    """A sprite centred in cell (column, row-from-bottom)."""
    col, row = cell
    return Sprite(col * 20 + 10 - half, row * 20 + 10 - half, half, shape, (200, 0, 0))


def _path(start: tuple[int, int], goal: tuple[int, int]) -> list[tuple[float, float]]:
    """Agent centres, 2 px per frame: along x first, then along y (cell centres)."""
    x, y = start[0] * 20 + 10.0, start[1] * 20 + 10.0
    gx, gy = goal[0] * 20 + 10.0, goal[1] * 20 + 10.0
    points = [(x, y)]
    while x != gx:
        x += 2 * np.sign(gx - x)
        points.append((x, y))
    while y != gy:
        y += 2 * np.sign(gy - y)
        points.append((x, y))
    return points


def _trial(start, objects, goal, walls=(), agent_shape="pentagon", hold=5) -> Trial:
    """objects: {shape: (col, row-from-bottom)}; the agent walks to cell ``goal``."""
    sprites = tuple(_sprite(cell, shape) for shape, cell in objects.items())
    home = _sprite(start, "./shapes/home.png", half=6)
    frames = []
    points = _path(start, goal)
    for cx, cy in points + [points[-1]] * hold:
        agent = Sprite(cx - 6, cy - 6, 6, f"./shapes/train/agents/{agent_shape}.png", (0, 0, 9))
        frames.append(Frame(walls=BORDER + tuple(walls), objects=sprites, agent=agent, home=home))
    return Trial(frames)


def _preference_episode(rng: np.random.Generator, expected: bool) -> Episode:
    """Fixed start and places A, B; random which shape is where and which one is preferred.

    Familiarization: the agent always goes to its preferred shape. Test: same layout; expected
    = preferred shape again, unexpected = the other one.
    """
    start, places = (1, 1), [(7, 2), (2, 7)]
    shapes = ["heart", "moon"] if rng.random() < 0.5 else ["moon", "heart"]
    objects = dict(zip(shapes, places, strict=True))
    preferred = shapes[int(rng.integers(2))]
    other = next(s for s in shapes if s != preferred)
    fam = [_trial(start, objects, objects[preferred]) for _ in range(8)]
    test = _trial(start, objects, objects[preferred if expected else other])
    return Episode(fam + [test], name="toy", task="preference", expected=expected)


# ----------------------------------------------------------------------------- tensorization


def test_each_entity_lands_in_its_channel_and_cell():
    trial = _trial((1, 1), {"./shapes/train/objects/heart.png": (7, 2),
                            "./shapes/new/objects/ring.png": (2, 7)}, (7, 2),
                   walls=[Block(100, 100)])
    state = md.trial_state(trial, md.ChannelMap())
    assert state.shape == (md.N_CHANNELS, 10, 10) and md.N_CHANNELS == 26
    # grid rows from the top: a cell at row-from-bottom r is row 9 - r
    assert state[md.OBJECT0 + 0, 7, 7] == 1  # heart: first training object shape
    assert state[md.OTHER_OBJECT, 2, 2] == 1  # ring is not a training shape
    assert state[md.AGENT0 + 0, 8, 1] == 1  # pentagon: first training agent shape
    assert state[md.HOME, 8, 1] == 1
    assert state[md.WALL, 4, 5] == 1  # wall block with corner (100, 100)
    assert state[md.WALL].sum() == 36 + 1  # border ring + the interior wall
    assert state[md.OBJECT0:md.AGENT0].sum() == 1 and state[md.OTHER_OBJECT].sum() == 1


def test_key_lock_and_barrier_channels():
    frame = Frame(walls=BORDER, objects=(), agent=_sprite((1, 1), "kite", 6),
                  fuse_walls=(Block(60, 60), Block(60, 80)), key=(_sprite((3, 1), "key", 7),),
                  lock=(_sprite((5, 5), "lock", 7),))
    state = md.trial_state(Trial([frame]), md.ChannelMap())
    assert state[md.BARRIER, 6, 3] == 1 and state[md.BARRIER, 5, 3] == 1
    assert state[md.KEY, 8, 3] == 1 and state[md.LOCK, 4, 5] == 1
    assert state[md.AGENT0 + 2, 8, 1] == 1  # kite: third training agent


def test_visited_mask_is_the_l_shaped_path():
    trial = _trial((1, 1), {"heart": (4, 3)}, (4, 3))
    mask = md.visited_mask(trial)
    expected = {(8, 1), (8, 2), (8, 3), (8, 4), (7, 4), (6, 4)}  # (row from top, col)
    assert {tuple(map(int, c)) for c in np.argwhere(mask)} == expected
    assert md.visited_mask(trial, upto=0).sum() == 1  # only the start before moving


REAL = Path("/work/shared/data/bib_real_samples/000010loe.json")


@pytest.mark.skipif(not REAL.exists(), reason="released BIB samples not available")
def test_released_sample_tensorizes_to_a_connected_path_from_home():
    from socialbench.bib.io import load_episode

    states, masks = md.episode_arrays(load_episode(REAL), md.ChannelMap())
    for state, mask in zip(states, masks, strict=True):
        assert state[md.HOME].sum() == 1 and mask[state[md.HOME] == 1].all()  # starts at home
        assert state[md.OBJECT0:md.AGENT0].sum() == 2  # capsule and flag, training shapes
        assert not (mask & state[md.WALL]).any()  # never inside a wall
        cells = {tuple(c) for c in np.argwhere(mask)}
        reached, frontier = set(), [next(iter(cells))]
        while frontier:  # 8-connected: the agent moves along axes and diagonals
            r, c = frontier.pop()
            if (r, c) in reached:
                continue
            reached.add((r, c))
            frontier += [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                         if (r + dr, c + dc) in cells]
        assert reached == cells


def test_unknown_shapes_share_one_channel_per_kind():
    channels = md.ChannelMap()
    assert channels.object_channel("./shapes/new/objects/ring.png") == md.OTHER_OBJECT
    assert channels.object_channel("mushroom") == md.OTHER_OBJECT
    assert channels.agent_channel("octagon") == md.OTHER_AGENT
    assert channels.object_channel("./shapes/train/objects/bell.png") == 13


def test_cache_round_trip_and_stale_key(tmp_path):
    rng = np.random.default_rng(0)
    arrays = md.tensorize([_preference_episode(rng, True) for _ in range(3)], md.ChannelMap())
    assert arrays.states.shape == (3, 9, md.N_CHANNELS, 10, 10)
    path = tmp_path / "cache.npz"
    md.save_arrays(path, arrays, key="abc")
    back = md.load_arrays(path, key="abc")
    assert back is not None and back.fingerprint() == arrays.fingerprint()
    assert md.load_arrays(path, key="other") is None
    path.write_bytes(b"garbage")
    assert md.load_arrays(path, key="abc") is None


# ----------------------------------------------------------------------------- the model


def test_network_shapes():
    net = MaskNet(MaskConfig()).eval()
    logits = net(torch.zeros(3, 8, md.N_CHANNELS, 10, 10), torch.zeros(3, 8, 10, 10),
                 torch.zeros(3, md.N_CHANNELS, 10, 10))
    assert logits.shape == (3, 10, 10)
    embedding = net.encoder(torch.zeros(5, md.N_CHANNELS, 10, 10), torch.zeros(5, 10, 10))
    assert embedding.shape == (5, MaskConfig().embedding_dim)


def test_step_surprise_by_hand():
    proba = np.full((10, 10), 0.5)
    proba[0, 0], proba[0, 1] = 0.9, 0.01
    cells = [(0, 0)] * 10 + [(0, 1)] * 5
    steps = step_surprise(proba, cells, rate=10)  # rated frames 0, 10 and the last (14)
    assert steps == pytest.approx([-np.log(0.9), -np.log(0.01), 0.0])
    mean = step_surprise(proba, cells, rate=10, mode="path-mean")
    assert mean == pytest.approx([-np.log(0.9), -(np.log(0.9) + np.log(0.01)) / 2] * 1
                                 + [-(np.log(0.9) + np.log(0.01)) / 2])


def test_precision_recall_by_hand():
    predicted = np.array([True, True, False, False])
    truth = np.array([True, False, True, False])
    assert precision_recall(predicted, truth) == (0.5, 0.5)


@pytest.fixture(scope="module")
def toy_sets():
    rng = np.random.default_rng(1)
    channels = md.ChannelMap()
    train = md.tensorize([_preference_episode(rng, True) for _ in range(32)], channels)
    val = md.tensorize([_preference_episode(rng, True) for _ in range(16)], channels)
    return train, val


@pytest.fixture(scope="module")
def trained(toy_sets):
    observer = MaskObserver()
    metrics = observer.fit(*toy_sets, epochs=4, batch_size=8, lr=3e-3, seed=0, progress=False)
    return observer, metrics


def test_tiny_fit_lowers_the_loss(trained):
    observer, metrics = trained
    history = observer.training_info["history"]
    assert history[-1]["train_loss"] < 0.5 * history[0]["train_loss"]
    assert history[-1]["val_loss"] < 0.5 * history[0]["val_loss"]
    assert metrics["recall/preference"] > 0.9 and metrics["precision/preference"] > 0.9


def test_surprise_higher_against_the_familiarized_goal(trained):
    observer, _ = trained
    rng = np.random.default_rng(7)
    wins = 0
    for _ in range(10):
        state = rng.bit_generator.state
        expected = _preference_episode(rng, True)
        rng.bit_generator.state = state  # the same layout and preference, other test path
        unexpected = _preference_episode(rng, False)
        wins += observer.surprise(expected) < observer.surprise(unexpected)
    assert wins == 10


def test_the_test_prediction_follows_the_familiarization(trained):
    # the diagnosis of preference at chance (docs/mask.md) asked whether familiarization
    # reaches the prediction at all: with the same test state, the predicted goal moves with
    # the familiarized goal, and zeroed familiarization masks leave neither place predicted
    observer, _ = trained
    rng = np.random.default_rng(11)
    channels = md.ChannelMap()
    places = {(7, 2): (7, 7), (2, 7): (2, 2)}  # (col, row-from-bottom) -> (row, col) on the grid
    for _ in range(4):
        episode = _preference_episode(rng, True)
        states, masks = md.episode_arrays(episode, channels)
        goal = md.point_cell(*episode.test.agent_path[-1])
        other = next(cell for cell in places.values() if cell != goal)
        swapped = masks.copy()
        # the familiarization of an agent that went to the other place (the same objects)
        other_place = next(p for p, cell in places.items() if cell == other)
        swapped[:8] = md.visited_mask(_trial((1, 1), {}, other_place))
        zeroed = masks.copy()
        zeroed[:8] = 0
        as_is, to_other, none = (observer.predict_proba(md.EpisodeArrays(
            states[None], m[None], np.array([""]), np.array([""])))[0]
            for m in (masks, swapped, zeroed))
        assert as_is[goal] > 0.5 > as_is[other]
        assert to_other[other] > 0.5 > to_other[goal]
        assert none[goal] < 0.5 and none[other] < 0.5


def test_save_load_round_trip_gives_identical_surprises(trained, tmp_path):
    observer, _ = trained
    path = tmp_path / "mask.pt"
    observer.save(path)
    # a plain dict of tensors and strings: loadable with weights_only
    raw = torch.load(path, weights_only=True)
    assert set(raw) == {"format", "config", "model", "training"}
    loaded = MaskObserver.load(path)
    episode = _preference_episode(np.random.default_rng(3), False)
    assert np.array_equal(observer.surprise_per_step(episode), loaded.surprise_per_step(episode))
    loaded.save(tmp_path / "copy" / "mask.pt")  # same weights and name -> the same bytes
    assert (tmp_path / "copy" / "mask.pt").read_bytes() == path.read_bytes()
    again = MaskObserver(checkpoint=path, surprise_mode="path-mean")
    assert again.config.surprise_mode == "path-mean"


@pytest.mark.parametrize("content", [b"", b"not a checkpoint at all", b"PK\x03\x04broken"])
def test_corrupt_checkpoint_is_one_line_user_error(tmp_path, content):
    path = tmp_path / "bad.pt"
    path.write_bytes(content)
    with pytest.raises(UserError) as info:
        MaskObserver.load(path)
    assert "\n" not in str(info.value) and "retrain" in str(info.value)


def test_foreign_tensor_file_is_rejected(tmp_path):
    path = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, path)
    with pytest.raises(UserError, match="not a mask checkpoint"):
        MaskObserver.load(path)


def test_resume_gives_the_same_weights_as_one_run(toy_sets, tmp_path):
    train, val = toy_sets
    small = train.subset(range(8))
    options = {"batch_size": 4, "lr": 3e-3, "seed": 5, "progress": False}
    light = {"decoder_blocks": 1}  # determinism does not need the full decoder
    straight = MaskObserver(**light)
    straight.fit(small, epochs=3, **options)
    state = tmp_path / "state.pt"
    interrupted = MaskObserver(**light)
    interrupted.fit(small, epochs=2, state_path=state, **options)
    resumed = MaskObserver(**light)
    resumed.fit(small, epochs=3, state_path=state, **options)
    assert len(resumed.training_info["history"]) == 3
    for (name, a), b in zip(straight.net.state_dict().items(),
                            resumed.net.state_dict().values(), strict=True):
        assert torch.equal(a, b), name
    with pytest.raises(UserError, match="other training data"):
        MaskObserver(**light).fit(train.subset(range(6)), epochs=3, state_path=state, **options)


# ----------------------------------------------------------------------------- the command


def test_train_command_writes_a_checkpoint_and_resumes(tmp_path):
    from click.testing import CliRunner

    from socialbench.bib.io import dump_episode
    from socialbench.cli import main

    rng = np.random.default_rng(11)
    for i in range(10):
        folder = tmp_path / "train" / ("preference" if i % 2 else "single_object")
        folder.mkdir(parents=True, exist_ok=True)
        dump_episode(_preference_episode(rng, True), folder / f"{i:06d}pre.json")
    out = tmp_path / "ck" / "mask.pt"
    args = ["bib", "train", "--train", str(tmp_path / "train"), "--out", str(out),
            "--batch-size", "4", "--quiet", "--epochs"]
    first = CliRunner().invoke(main, [*args, "1"])
    assert first.exit_code == 0, first.output
    assert out.is_file() and len(list(out.parent.glob("mask.pt.data-*.npz"))) == 2
    assert "single_object" in first.output and "0.88" in first.output  # paper's precision beside
    loaded = MaskObserver.load(out)
    assert loaded.training_info["train_episodes"] == 8  # 80/20 within each task of 5
    assert loaded.training_info["validation_episodes"] == 2
    again = CliRunner().invoke(main, [*args, "2"])  # resumes from epoch 1
    assert again.exit_code == 0, again.output
    assert len(MaskObserver.load(out).training_info["history"]) == 2


def test_train_command_rejects_an_observer_without_parameters(tmp_path):
    from click.testing import CliRunner

    from socialbench.cli import main

    result = CliRunner().invoke(main, ["bib", "train", "--observer", "no-such", "--train",
                                       str(tmp_path), "--out", str(tmp_path / "x.pt")])
    assert result.exit_code == 2 and "unknown bib observer" in result.output


# ----------------------------------------------------------------------------- visit rules


def test_body_rule_marks_every_cell_the_agents_icon_overlaps():
    # an agent (12 px) centred on a cell corner overlaps 4 cells; its centre is in one
    agent = Sprite(54, 54, 6, "./shapes/train/agents/pentagon.png", (0, 0, 9))
    trial = Trial([Frame(walls=BORDER, objects=(), agent=agent)])
    assert md.visit_cells(trial, "centre") == [frozenset({(6, 3)})]
    assert md.visit_cells(trial, "body") == [frozenset({(6, 2), (6, 3), (7, 2), (7, 3)})]
    # an icon edge on a cell boundary is no overlap: centred in a cell, it overlaps that cell
    centred = Sprite(44, 44, 6, "./shapes/train/agents/pentagon.png", (0, 0, 9))
    assert md.visit_cells(Trial([Frame(walls=BORDER, objects=(), agent=centred)]),
                          "body") == [frozenset({(7, 2)})]
    with pytest.raises(UserError, match="visit rule"):
        md.visit_cells(trial, "corner")


def test_body_rule_marks_the_goal_the_agent_stops_against():
    # BIB agents stop touching the goal (centres 7-12.5 px apart): the centre can stay in the
    # cell before the object's, the icon reaches into it. The centre rule then never shows
    # which object the agent went to (docs/mask.md: why preference was at chance).
    heart = _sprite((7, 2), "./shapes/train/objects/heart.png")
    points = [(x, 50.0) for x in range(30, 140, 2)]  # stops with its centre 12 px before
    frames = [Frame(walls=BORDER, objects=(heart,),
                    agent=Sprite(x - 6, y - 6, 6, "./shapes/train/agents/pentagon.png", (0, 0, 9)))
              for x, y in points]
    trial = Trial(frames)
    goal = md.point_cell(*heart.center)
    assert md.visited_mask(trial, rule="centre")[goal] == 0
    assert md.visited_mask(trial, rule="body")[goal] == 1
    assert (md.visited_mask(trial, rule="body") >= md.visited_mask(trial)).all()


def test_step_surprise_takes_cell_sets():
    proba = np.full((10, 10), 0.5)
    proba[0, 0], proba[0, 1] = 0.9, 0.01
    as_cells = step_surprise(proba, [(0, 0)] * 10 + [(0, 1)] * 5, rate=10)
    as_sets = step_surprise(proba, [frozenset({(0, 0)})] * 10 + [frozenset({(0, 1)})] * 5,
                            rate=10)
    assert as_sets == pytest.approx(as_cells)
    both = step_surprise(proba, [frozenset({(0, 0), (0, 1)})], rate=10)
    assert both == pytest.approx([-np.log(0.01)])


def test_visit_rule_is_part_of_the_config_and_checkpoints_without_it_are_centre():
    with pytest.raises(UserError, match="visit_rule"):
        MaskConfig(visit_rule="corner")
    data = MaskConfig().to_json()
    del data["visit_rule"]  # a checkpoint written before the option
    assert MaskConfig.from_json(data).visit_rule == "centre"
    episode = _preference_episode(np.random.default_rng(0), True)
    body = MaskObserver(visit_rule="body")
    _, masks = md.episode_arrays(episode, md.ChannelMap(), "body")
    assert (masks >= md.episode_arrays(episode, md.ChannelMap())[1]).all()
    assert len(body.surprise_per_step(episode)) > 0

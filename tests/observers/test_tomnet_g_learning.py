"""ToMnet-G learns from a small synthetic goal-preference world: two goals of different
colours, the agents always walking to the one coloured 1 whatever its side (sides drawn at random
per video). After a short training the network rates a test video in which the agent walks to
the other goal as more surprising than one in which it walks to the colour-1 goal, in both
readings of surprise, and the loss falls on training and held-out episodes. (Each agent's own
preference, read from its familiarization videos alone, is not learned in such a short training:
docs/agent_observers.md.) Also: offsets from the agent, and the graph cache."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from socialbench.core.errors import DataFileError  # noqa: E402
from socialbench.observers.agent.tomnet_g.graphs import (  # noqa: E402
    FEATURES,
    N_COLOURS,
    NODE_CLASSES,
    VideoGraphs,
    position_slice,
)
from socialbench.observers.agent.tomnet_g.model import ToMnetG, relative_to_agent  # noqa: E402
from socialbench.observers.agent.tomnet_g.samples import read_sample, write_sample  # noqa: E402
from socialbench.observers.agent.tomnet_g.surprise import surprise  # noqa: E402
from socialbench.observers.agent.tomnet_g.training import (  # noqa: E402
    Sample,
    mean_loss,
    train,
)

FRAMES, SPEED = 10, 0.1  # rated frames per video; metres per rated frame


def node(cls: str, centre: np.ndarray, colour: int = 0) -> np.ndarray:
    row = np.zeros(FEATURES, np.float32)
    row[NODE_CLASSES.index(cls)] = 1
    at = position_slice()
    row[at] = centre
    row[at.stop:at.stop + 3] = 0.2  # a 20 cm box
    row[at.stop + 4] = 1  # yaw 0: cos 1
    row[at.stop + 5 + colour] = 1
    row[-1] = 1
    return row


def walk(target_colour: int, left_colour: int, right_colour: int,
         frames: int = FRAMES) -> VideoGraphs:
    """The agent starts between two goals (x = -1 and +1) and walks to the one coloured
    ``target_colour``, 0.1 m per rated frame."""
    side = -1.0 if left_colour == target_colour else 1.0
    agent = np.zeros((frames, 3), np.float32)
    agent[:, 0] = side * SPEED * np.arange(frames)
    nodes = np.stack([np.stack([node("agent", a, N_COLOURS - 1),
                                node("goal", np.array([-1.0, 0, 0]), left_colour),
                                node("goal", np.array([1.0, 0, 0]), right_colour)])
                      for a in agent])
    return VideoGraphs(nodes=nodes, agent=agent)


def episode(rng: np.random.Generator, surprising: bool = False) -> Sample:
    """Two familiarization videos toward the preferred colour (1), then a test video toward the
    preferred (expected) or the other (surprising) colour; sides drawn at random each video."""
    preferred, other = 1, int(rng.integers(2, 9))

    def sides() -> tuple[int, int]:
        return (preferred, other) if rng.random() < 0.5 else (other, preferred)

    fam = tuple(walk(preferred, *sides()) for _ in range(2))
    return Sample(fam, walk(other if surprising else preferred, *sides()))


def test_relative_to_agent_gives_offsets_and_keeps_absent_nodes_empty():
    nodes = torch.zeros(1, 3, FEATURES)
    at = position_slice()
    nodes[0, 0, 0], nodes[0, 1, 1] = 1, 1  # an agent and a goal; node 2 absent
    nodes[0, 0, at] = torch.tensor([1.0, 2.0, 0.0])
    nodes[0, 1, at] = torch.tensor([4.0, 2.0, 1.0])
    out = relative_to_agent(nodes)
    torch.testing.assert_close(out[0, 0, at], torch.tensor([1.0, 2.0, 0.0]))
    torch.testing.assert_close(out[0, 1, at], torch.tensor([3.0, 0.0, 1.0]))
    assert out[0, 2].abs().sum() == 0
    torch.testing.assert_close(out[..., :at.start], nodes[..., :at.start])


@pytest.mark.parametrize("mode", [pytest.param("rollout", marks=pytest.mark.slow),
                                  "teacher-forced"])
def test_it_learns_which_goal_agents_walk_to(mode):
    rng = np.random.default_rng(0)
    samples = [episode(rng) for _ in range(96)]
    validation = [episode(rng) for _ in range(16)]
    torch.manual_seed(0)
    model = ToMnetG()
    before = mean_loss(model, validation, mode=mode)
    history = train(model, samples, epochs=20, progress=False, validation=validation,
                    mode=mode)["history"]
    assert history["train"][-1] < history["train"][0] / 5
    assert history["validation"][-1] < before / 5
    # held-out episodes: the same familiarization and scene, the agent to either goal
    for k in range(8):
        expected = episode(np.random.default_rng(1000 + k))
        surprising = episode(np.random.default_rng(1000 + k), surprising=True)
        np.testing.assert_array_equal(surprising.test.nodes[0], expected.test.nodes[0])
        for reading in ("rollout", "teacher-forced"):
            assert surprise(model, surprising, reading) > surprise(model, expected, reading)


def test_graph_cache_round_trip_and_bad_file(tmp_path):
    rng = np.random.default_rng(0)
    sample = episode(rng)
    write_sample(tmp_path / "a" / "t.npz", sample)
    back = read_sample(tmp_path / "a" / "t.npz")
    assert len(back.familiarization) == 2
    np.testing.assert_array_equal(back.test.nodes, sample.test.nodes)
    np.testing.assert_array_equal(back.familiarization[1].agent, sample.familiarization[1].agent)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(DataFileError, match="graph cache"):
        read_sample(tmp_path / "bad.npz")


def test_two_datasets_in_one_cache_keep_their_own_graphs(tmp_path):
    """Datasets name their trials alike: a second dataset rated with the same checkpoints
    folder gets its own graphs, not the first one's under the same trial name."""
    from socialbench.observers.agent.tomnet_g import samples as cache

    made = {}
    for name, seed in (("one", 0), ("two", 1)):
        root = tmp_path / name
        video = root / "scenario_1_goal_preferences" / "type_1.1" / "test_set" / "Trial_0"
        video.mkdir(parents=True)
        (root / "manifest.json").write_text(f'{{"dataset": "{name}"}}\n')
        made[name] = (root, video, episode(np.random.default_rng(seed)))
    assert cache.dataset_key(made["one"][0]) != cache.dataset_key(made["two"][0])
    assert cache.dataset_key(made["one"][0]) == cache.dataset_key(made["one"][0])
    original = cache.test_sample
    try:
        for root, video, sample in made.values():
            cache.test_sample = lambda _folder, sample=sample: sample  # built from its files
            got = cache.cached(video, root, tmp_path / "ckpt", "test")
            np.testing.assert_array_equal(got.test.nodes, sample.test.nodes)
        for root, video, sample in made.values():  # read back from the cache
            cache.test_sample = None  # type: ignore[assignment]  # must not be called
            got = cache.cached(video, root, tmp_path / "ckpt", "test")
            np.testing.assert_array_equal(got.test.nodes, sample.test.nodes)
    finally:
        cache.test_sample = original
    assert len(list((tmp_path / "ckpt").rglob("*.npz"))) == 2

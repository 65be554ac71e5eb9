"""ToMnet-G reads an agent's goal preference from its familiarization (AGENT scenario 1): two
kinds of agent, one always walking to the goal coloured 1 and one to the goal coloured 5, sides
drawn at random per video, so nothing in a test video's first frame tells which way its agent
will go. After a short training the network's first predicted step points toward the goal this
agent went to in its familiarization, for either kind; with the character embedding zeroed it
does not (the embedding is what carries the preference), and the expected test video rates less
surprising than the surprising one."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from socialbench.observers.agent.tomnet_g.graphs import VideoGraphs, position_slice  # noqa: E402
from socialbench.observers.agent.tomnet_g.model import ToMnetG  # noqa: E402
from socialbench.observers.agent.tomnet_g.surprise import surprise  # noqa: E402
from socialbench.observers.agent.tomnet_g.training import Sample, character, train  # noqa: E402
from tests.observers.test_tomnet_g_learning import walk as two_goal_walk  # noqa: E402

FRAMES = 4  # rated frames per video (0.1 m apart)
COLOURS = (1, 5)  # the two kinds of agent prefer one each


def walk(goal_colour: int, left_colour: int) -> VideoGraphs:
    """Two goals (x = -1 and +1, ``left_colour`` on the left); the agent walks toward the one
    coloured ``goal_colour``."""
    right_colour = COLOURS[1] if left_colour == COLOURS[0] else COLOURS[0]
    return two_goal_walk(goal_colour, left_colour, right_colour, frames=FRAMES)


def episode(rng: np.random.Generator, surprising: bool = False) -> Sample:
    preferred, other = COLOURS if rng.random() < 0.5 else COLOURS[::-1]
    fam = tuple(walk(preferred, COLOURS[int(rng.integers(2))]) for _ in range(2))
    return Sample(fam, walk(other if surprising else preferred, COLOURS[int(rng.integers(2))]))


def first_steps_right(model: ToMnetG, samples: list[Sample], zero_character: bool) -> float:
    """The share of test videos whose first predicted step (x) has the observed one's sign."""
    with torch.no_grad():
        char = character(model, samples, "cpu")
        if zero_character:
            char = torch.zeros_like(char)
        first = torch.from_numpy(np.stack([s.test.nodes[:1] for s in samples]))
        predicted, _ = model.eval()(first, char)
    observed = np.array([s.test.agent[1, 0] for s in samples])
    return float(np.mean(np.sign(predicted[:, 0, 0].numpy()) == np.sign(observed)))


@pytest.fixture(scope="module")
def trained() -> ToMnetG:
    rng = np.random.default_rng(0)
    samples = [episode(rng) for _ in range(32)]
    torch.manual_seed(0)
    model = ToMnetG()
    # 300 epochs: at 200 the share of right first steps sat at the 0.9 bar (0.84 on one
    # machine's CPU kernels, above it on another's); at 300 it is 0.97 there
    train(model, samples, epochs=300, progress=False, mode="teacher-forced")
    return model


def test_the_first_step_points_to_the_goal_the_familiarization_showed(trained):
    held_out = [episode(np.random.default_rng(100 + k)) for k in range(32)]
    assert first_steps_right(trained, held_out, zero_character=False) >= 0.9
    # without the character the two kinds look alike: no better than a coin
    assert first_steps_right(trained, held_out, zero_character=True) <= 0.75


def test_going_to_the_other_goal_is_the_more_surprising(trained):
    for k in range(8):
        expected = episode(np.random.default_rng(200 + k))
        surprising = episode(np.random.default_rng(200 + k), surprising=True)
        np.testing.assert_array_equal(surprising.test.nodes[0], expected.test.nodes[0])
        assert surprise(trained, surprising) > surprise(trained, expected)


def test_the_agents_heading_is_left_out_unless_asked_for():
    """A turned agent gives away which goal it is about to walk to: by default the network does
    not see the yaw (the paper's nodes: class, bounding box, colour code)."""
    nodes = torch.from_numpy(walk(COLOURS[0], COLOURS[0]).nodes[None, :1].copy())
    turned = nodes.clone()
    yaw = position_slice().stop + 3
    turned[..., 0, yaw:yaw + 2] = torch.tensor([1.0, 0.0])  # facing +y instead of +x
    for orientation in (False, True):
        torch.manual_seed(0)
        model = ToMnetG(orientation=orientation).eval()
        with torch.no_grad():
            same = torch.equal(model.frame_embeddings(nodes), model.frame_embeddings(turned))
        assert same != orientation

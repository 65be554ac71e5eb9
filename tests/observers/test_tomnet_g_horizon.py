"""ToMnet-G's optional horizon head (``--horizon N``): the target is the agent's displacement N
rated frames ahead, clipped at the video's end; the loss adds it to the next step's; the rating
reads it, so an agent that walks to the other goal than its familiarization's costs metres at
the first moving frame rather than a centimetre; the choice survives a checkpoint. And a test
split in its own folder rates with the training split read from ``--train-states`` (the graph
cache, as with one folder)."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from click.testing import CliRunner  # noqa: E402

from socialbench.cli import main  # noqa: E402
from socialbench.observers.agent.tomnet_g.model import ToMnetG  # noqa: E402
from socialbench.observers.agent.tomnet_g.surprise import step_errors  # noqa: E402
from socialbench.observers.agent.tomnet_g.training import (  # noqa: E402
    Sample,
    batch_loss,
    displacement_ahead,
    train,
)
from tests.observers.test_tomnet_g_learning import walk  # noqa: E402

COLOURS = (1, 5)


def test_the_target_is_the_displacement_ahead_clipped_at_the_end():
    agent = np.array([[0.0, 0, 0], [1, 0, 0], [3, 0, 0], [6, 0, 0]], np.float32)
    ahead = displacement_ahead(agent, 2)
    np.testing.assert_allclose(ahead[:, 0], [3, 5, 3])  # 0->2, 1->3, 2->3 (the end)
    np.testing.assert_allclose(displacement_ahead(agent, 1), np.diff(agent, axis=0))


def test_the_head_is_there_only_with_a_horizon_and_adds_to_the_loss():
    torch.manual_seed(0)
    plain, ahead = ToMnetG(), ToMnetG(horizon=3)
    assert plain.ahead is None and ahead.ahead is not None
    with pytest.raises(ValueError, match="horizon"):
        ToMnetG(horizon=-1)
    sample = Sample((walk(1, 1, 5, frames=6),), walk(1, 5, 1, frames=6))
    test = torch.from_numpy(sample.test.nodes)[None]
    steps, far, _ = ahead.trajectory(test, torch.zeros(1, 64))
    assert steps.shape == far.shape == (1, 6, 3)
    # the horizon head's weights get gradients from the loss, which is the plain model's with
    # the same weights plus the far term
    loss = batch_loss(ahead, [sample], "cpu", "teacher-forced")
    loss.backward()
    assert ahead.ahead.weight.grad.abs().sum() > 0
    plain.load_state_dict({k: v for k, v in ahead.state_dict().items()
                           if not k.startswith("ahead.")})
    with torch.no_grad():
        assert float(batch_loss(plain, [sample], "cpu", "teacher-forced")) < float(loss)


def episode(rng: np.random.Generator, surprising: bool = False, frames: int = 4) -> Sample:
    preferred, other = COLOURS if rng.random() < 0.5 else COLOURS[::-1]
    left = [COLOURS[int(rng.integers(2))] for _ in range(3)]

    def video(goal: int, left_colour: int):
        right = COLOURS[1] if left_colour == COLOURS[0] else COLOURS[0]
        return walk(goal, left_colour, right, frames=frames)

    fam = tuple(video(preferred, c) for c in left[:2])
    return Sample(fam, video(other if surprising else preferred, left[2]))


def test_walking_to_the_other_goal_costs_metres_ahead():
    rng = np.random.default_rng(0)
    samples = [episode(rng) for _ in range(32)]
    torch.manual_seed(0)
    model = ToMnetG(horizon=3)
    train(model, samples, epochs=150, progress=False, mode="teacher-forced")
    rng = np.random.default_rng(1)
    gaps = []
    for _ in range(8):
        state = rng.bit_generator.state
        expected = episode(rng)
        rng.bit_generator.state = state
        surprising = episode(rng, surprising=True)
        gaps.append(step_errors(model, surprising)[0] - step_errors(model, expected)[0])
    # the first frame's prediction 3 frames (0.3 m) ahead: wrong way is most of 0.6 m off
    assert np.mean(np.array(gaps) > 0) >= 0.75 and np.median(gaps) > 0.2


def test_the_horizon_survives_a_checkpoint(tmp_path):
    from socialbench.observers.agent.tomnet_g.observer import ToMnetGObserver

    ToMnetGObserver(horizon=4).save(tmp_path / "m.pt")
    assert ToMnetGObserver.load(tmp_path / "m.pt").model.horizon == 4


def test_the_training_split_may_come_from_another_folder(tiny_agent, tmp_path):
    args = ["agent", "evaluate", "--data", str(tiny_agent), "--observer", "tomnet-g",
            "--protocol", "all", "--json", "--epochs", "1", "--horizon", "2"]
    one = CliRunner().invoke(main, args)
    assert one.exit_code == 0, one.output
    other = CliRunner().invoke(main, [*args, "--train-states", str(tiny_agent),
                                      "--checkpoints", str(tmp_path)])
    assert other.exit_code == 0, other.output
    assert json.loads(other.output.splitlines()[-1]) == json.loads(one.output.splitlines()[-1])
    # read as the one-folder run reads: one graph file per training trial and test video
    assert len(list((tmp_path / "graphs-v3").rglob("train_set/*.npz"))) == 2
    assert list(tmp_path.glob("tomnet-g_all-*_h2_path.pt"))

"""ToMnet-G: shapes through the graph network and the recurrent predictor, gradients to every
weight, a tiny overfit, checkpoints that resume and load with weights_only=True, and the
evaluate command (with BIPaCK) on a tiny generated set, its bad input as one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from click.testing import CliRunner  # noqa: E402

from socialbench.cli import main  # noqa: E402
from socialbench.observers.agent.tomnet_g.graphs import FEATURES, VideoGraphs  # noqa: E402
from socialbench.observers.agent.tomnet_g.model import HIDDEN, ToMnetG  # noqa: E402
from socialbench.observers.agent.tomnet_g.training import (  # noqa: E402
    Sample,
    batch_loss,
    rollout,
    train,
)


def graphs(frames: int, nodes: int, seed: int, step=(0.05, 0.0, 0.0)) -> VideoGraphs:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(frames, nodes, FEATURES)).astype(np.float32)
    agent = np.cumsum(np.tile(np.array(step, np.float32), (frames, 1)), axis=0)
    x[:, 0, 4:7] = agent
    return VideoGraphs(nodes=x, agent=agent)


def test_shapes_and_gradients():
    torch.manual_seed(0)
    model = ToMnetG()
    test = torch.randn(2, 7, 4, FEATURES)
    fam = torch.randn(3, 5, 4, FEATURES)
    char = model.character_embedding(fam, torch.tensor([5, 3, 4]), torch.tensor([0, 0, 1]), 2)
    assert char.shape == (2, HIDDEN)
    pred, _ = model(test, char)
    assert pred.shape == (2, 7, 3)
    pred.pow(2).sum().backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())


def test_a_missing_entity_sends_no_message():
    torch.manual_seed(0)
    model = ToMnetG().eval()
    nodes = torch.randn(1, 1, 3, FEATURES)
    padded = torch.cat([nodes, torch.zeros(1, 1, 2, FEATURES)], dim=2)
    with torch.no_grad():
        torch.testing.assert_close(model.frame_embeddings(nodes),
                                   model.frame_embeddings(padded))


@pytest.mark.slow  # several seconds of CPU: the default suite keeps its 5-minute budget
def test_it_overfits_a_tiny_set_and_rolls_out_the_path():
    samples = [Sample((graphs(12, 3, k),), graphs(12, 3, 10 + k, step=(0.05 * (k + 1), 0, 0)))
               for k in range(2)]
    torch.manual_seed(0)
    model = ToMnetG()
    with torch.no_grad():
        before = float(batch_loss(model, samples, "cpu"))
    train(model, samples, epochs=150, progress=False)
    with torch.no_grad():
        after = float(batch_loss(model, samples, "cpu"))
    assert after < before / 20
    path = rollout(model, samples[1])
    assert path.shape == (12, 3)
    assert np.abs(path - samples[1].test.agent).max() < 0.1


def test_checkpoints_resume_and_load_with_weights_only(tmp_path):
    from socialbench.observers.agent.tomnet_g.observer import ToMnetGObserver

    samples = [Sample((graphs(6, 3, 1),), graphs(6, 3, 2))]
    state = tmp_path / "state.pt"
    train(ToMnetG(), samples, epochs=2, state_path=state, progress=False)
    assert torch.load(state, weights_only=True)["epoch"] == 2
    train(ToMnetG(), samples, epochs=3, state_path=state, progress=False)  # one more epoch
    assert torch.load(state, weights_only=True)["epoch"] == 3
    observer = ToMnetGObserver(relative=False, surprise="rollout")
    observer.save(tmp_path / "m.pt")
    loaded = ToMnetGObserver.load(tmp_path / "m.pt")
    assert loaded.reading == "rollout" and loaded.model.relative is False
    for a, b in zip(observer.model.parameters(), loaded.model.parameters(), strict=True):
        torch.testing.assert_close(a, b)


def test_evaluate_command_json(tiny_agent):
    result = CliRunner().invoke(main, ["agent", "evaluate", "--data", str(tiny_agent), "--observer",
                                       "tomnet-g", "--protocol", "G1", "--json", "--epochs", "1"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output.strip().splitlines()[-1])
    assert out["observer"] == "tomnet-g" and out["protocol"] == "G1"
    assert set(out["types"]) == {"2.1", "2.2"} and set(out["scenarios"]) == {"AE"}
    assert 0.0 <= out["overall"] <= 1.0


@pytest.mark.slow
def test_evaluate_resumes_from_its_checkpoints_and_refuses_a_foreign_one(tiny_agent, tmp_path):
    args = ["agent", "evaluate", "--data", str(tiny_agent), "--observer", "tomnet-g",
            "--protocol", "G1", "--json", "--epochs", "1", "--checkpoints", str(tmp_path),
            "--workers", "2"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    saved = sorted(tmp_path.glob("tomnet-g_*.pt"))
    assert len(saved) == 2  # one per fold (2.1 and 2.2 held out)
    again = CliRunner().invoke(main, args)  # resumed: nothing trained, the same ratings
    assert again.stdout == first.stdout  # (stderr: progress lines, with their clocks)
    saved[0].write_bytes(b"not a checkpoint")
    bad = CliRunner().invoke(main, args)
    assert bad.exit_code != 0 and bad.stdout == "" and "Traceback" not in bad.output
    # one line says what is wrong (the progress lines before it are a log's, not a terminal's)
    assert "not a checkpoint of this ToMnet-G" in bad.stderr.strip().splitlines()[-1]


@pytest.mark.slow
def test_evaluate_g3_writes_a_matrix_and_heat_map(tiny_agent, tmp_path):
    png = tmp_path / "g3.png"
    result = CliRunner().invoke(main, ["agent", "evaluate", "--data", str(tiny_agent), "--observer",
                                       "bipack", "--protocol", "G3", "--json",
                                       "--heatmap", str(png)])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output.strip().splitlines()[-1])
    assert out["observer"] == "bipack" and set(out["scenarios"]) == {"AE"}
    assert set(out["matrix"]) == {"2.1", "2.2"} and set(out["matrix"]["2.1"]) == {"2.1", "2.2"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args,message", [
    (["--data", "/nonexistent/agent"], "no such dataset folder"),
    (["--data", "."], "no AGENT test trials"),
    (["--data", ".", "--heatmap", "x.png"], "use it with --protocol G3 or G4"),
])
def test_evaluate_bad_input_is_a_one_line_error(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["agent", "evaluate", "--observer", "bipack", *args])
    assert result.exit_code != 0 and message in result.output
    assert len(result.output.strip().splitlines()) == 1

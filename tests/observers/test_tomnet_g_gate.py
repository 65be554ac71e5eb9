"""ToMnet-G's ``conditioning="gate"`` (``--conditioning gate``): the test video's network gates
each entity's message by 2 sigmoid(q(character) . k(entity)), in (0, 2); the gate is what the
character changes (another character, another weighting of the same scene); gradients reach
the query and key; absent entities still send nothing; the choice survives a checkpoint."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from socialbench.observers.agent.tomnet_g.graphs import FEATURES  # noqa: E402
from socialbench.observers.agent.tomnet_g.model import (  # noqa: E402
    HIDDEN,
    GatedEdgePool,
    ToMnetG,
    frame_graph_edges,
)


def test_the_gate_scales_each_message_by_a_factor_the_character_sets():
    torch.manual_seed(0)
    pool = GatedEdgePool()
    nodes = torch.randn(1, 1, 3, FEATURES)
    x, edges = frame_graph_edges(nodes)
    x = torch.cat([x, torch.zeros(x.shape[0], 4)], dim=1)  # the geometry columns
    char = torch.randn(1, HIDDEN).expand(3, -1)
    with torch.no_grad():
        h = pool.node(x) * (1 + pool.gain(char))
        gate = 2 * torch.sigmoid((pool.query(char) * pool.key(x)).sum(-1) / 4)
        by_hand = sum(pool.edge(torch.cat([h[0], h[j]])) * gate[j] for j in range(3))
        torch.testing.assert_close(pool(x, edges, char)[0], by_hand)
        assert ((gate > 0) & (gate < 2)).all()
        other = torch.randn(1, HIDDEN).expand(3, -1)
        assert not torch.allclose(pool(x, edges, char), pool(x, edges, other))


def test_the_gated_model_trains_every_weight_and_keeps_absent_nodes_silent():
    torch.manual_seed(0)
    model = ToMnetG(conditioning="gate", end=True)
    fam = torch.randn(2, 5, 4, FEATURES)
    char = model.character_embedding(fam, torch.tensor([5, 4]), torch.tensor([0, 1]), 2)
    steps, _, to_end, _ = model.predictions(torch.randn(2, 6, 4, FEATURES), char)
    (steps.pow(2).sum() + to_end.pow(2).sum()).backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())
    nodes = torch.randn(1, 2, 3, FEATURES)
    padded = torch.cat([nodes, torch.zeros(1, 2, 2, FEATURES)], dim=2)
    with torch.no_grad():
        one = char[:1].detach()
        torch.testing.assert_close(model.frame_embeddings(nodes, one),
                                   model.frame_embeddings(padded, one))


def test_the_gate_survives_a_checkpoint(tmp_path):
    from socialbench.observers.agent.tomnet_g.observer import ToMnetGObserver

    saved = ToMnetGObserver(conditioning="gate")
    saved.save(tmp_path / "m.pt")
    loaded = ToMnetGObserver.load(tmp_path / "m.pt")
    assert loaded.model.conditioning == "gate"
    assert isinstance(loaded.model.test_gnn, GatedEdgePool)
    for name, value in saved.model.state_dict().items():
        assert torch.equal(value, loaded.model.state_dict()[name]), name

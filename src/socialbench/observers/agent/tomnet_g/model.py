"""ToMnet-G (AGENT paper, Section 4.2, Figure 5) in PyTorch Geometric.

Per frame, a graph whose nodes are the entities: node encoders (32-d), an edge encoder (64-d)
on every (entity, agent) pair, the agent node sum-pooling its edges into a 64-d embedding.
Familiarization videos: one 64-unit LSTM over each video's embeddings; the character
embedding is the sum over videos. Test video: the frame embedding with the character
embedding, two 64-d layers, a 64-unit LSTM and a linear head predicting the agent's next
displacement.

Our choices (each documented in docs/agent_observers.md):

- ``relative`` (default; an option): every other entity's box centre enters as its offset
  from the agent's, computed inside the network from the absolute positions (so a rollout that
  moves the agent moves the offsets too).
- Every node's input also holds its distance from the agent and the unit vector toward it,
  computed inside the network as well.
- ``orientation=False`` (default): the nodes' yaw is left out, as the paper's node inputs
  (class, bounding box, colour code) leave it out. With it, the agent's heading gives away which
  goal it is about to walk to (it turns on the spot before it moves), so the network predicted
  the first step from the heading and had no use for the familiarization: on scale 0.2's
  scenario-1 test videos its first moving step pointed to the familiarization's goal 28 of 28
  times with the character zeroed, and 14 of 28 (chance) with the heading hidden.
- ``conditioning="gain"`` (default): the test video has its own graph network whose node codes
  the character embedding scales unit by unit, as the original ToMnet feeds the character
  embedding into the query state's encoder. Joined only to the pooled frame embedding
  (``"embedding"``), the character cannot say which of the scene's goals this agent is after
  (sum-pooling has already mixed them): with that, zeroing the character left the held-out loss
  unchanged at scale 0.2 (unused), and a synthetic world of agents with opposite preferences was
  not learned.
- ``horizon`` (default 0, off): a second linear head predicts, at every rated frame, the
  agent's displacement ``horizon`` rated frames ahead (clipped at the video's end), trained
  with the next step (``training.batch_loss``) and rated instead of it (``surprise.py``). One
  step ahead, a wrong choice of goal costs a centimetre or two before the network sees which
  way the agent went; a second ahead it costs metres, as the paper's trajectory deviation does.
- ``end`` (default False, off): a third linear head predicts, at every rated frame, the agent's
  displacement to where the test video leaves it (its last rated frame), as the original ToMnet
  (Rabinowitz et al., 2018) predicts which object an agent will consume beside its next action.
  The next-step loss learns almost nothing about which goal an agent prefers: the agent stands
  still for a random 3-7 s and then its first step is about 13 mm, after which the network sees
  the way it went. With the end head every still frame asks "where will it go", metres off if
  the character does not say. Trained beside the next step in metres squared
  (``training.batch_loss``); the rating adds its error to the next step's (``surprise.py``).
"""

from __future__ import annotations

import torch
from torch import nn
from torch_geometric.nn import MessagePassing

from socialbench.observers.agent.tomnet_g.graphs import FEATURES, position_slice

NODE_DIM, EDGE_DIM, HIDDEN = 32, 64, 64
GEOMETRY = 4  # per node: distance from the agent and the unit vector toward it
GATE_DIM = 16  # the query and key of conditioning="gate"


class AgentEdgePool(MessagePassing):
    """Encodes nodes, then each (entity -> agent) edge, summed at the agent node. With
    ``condition`` (the test video's network), every node's 32-d code is scaled, unit by unit,
    by a gain the character embedding sets (1 + a linear map of it): the edge encoder then sees
    an entity's code weighed by what this agent is after."""

    def __init__(self, condition: bool = False) -> None:
        super().__init__(aggr="add")
        self.node = nn.Sequential(nn.Linear(FEATURES + GEOMETRY, NODE_DIM), nn.ReLU())
        self.gain = nn.Linear(HIDDEN, NODE_DIM) if condition else None
        self.edge = nn.Sequential(nn.Linear(2 * NODE_DIM, EDGE_DIM), nn.ReLU(),
                                  nn.Linear(EDGE_DIM, EDGE_DIM), nn.ReLU())

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor,
                char: torch.Tensor | None = None) -> torch.Tensor:
        h = self.node(x)
        if self.gain is not None and char is not None:
            h = h * (1 + self.gain(char))
        return self.propagate(edge_index, h=h)

    def message(self, h_i: torch.Tensor, h_j: torch.Tensor) -> torch.Tensor:
        return self.edge(torch.cat([h_i, h_j], dim=-1))


class GatedEdgePool(AgentEdgePool):
    """The test video's network with ``conditioning="gate"``: node codes gained as in
    :class:`AgentEdgePool`, and each entity's message to the agent scaled by a gate in (0, 2)
    that the character sets: 2 sigmoid(q . k / 4), q a linear map of the character embedding,
    k one of the entity's inputs (its colour code among them). "This agent goes for goals of
    that colour" is then one product per entity, where the gain alone leaves the edge
    encoder to multiply a colour unit by the offset units."""

    def __init__(self) -> None:
        super().__init__(condition=True)
        self.query = nn.Linear(HIDDEN, GATE_DIM)
        self.key = nn.Linear(FEATURES + GEOMETRY, GATE_DIM)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor,
                char: torch.Tensor | None = None) -> torch.Tensor:
        if char is None:
            raise ValueError("the gated network reads a character embedding")
        h = self.node(x) * (1 + self.gain(char))  # type: ignore[misc]
        gate = 2 * torch.sigmoid((self.query(char) * self.key(x)).sum(-1, keepdim=True)
                                 / GATE_DIM ** 0.5)
        return self.propagate(edge_index, h=h, gate=gate)

    def message(self, h_i: torch.Tensor, h_j: torch.Tensor,  # type: ignore[override]
                gate_j: torch.Tensor) -> torch.Tensor:
        return self.edge(torch.cat([h_i, h_j], dim=-1)) * gate_j


def frame_graph_edges(nodes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Flatten (..., N, F) node tensors into PyG form: every present node (and the agent
    itself) has an edge to its frame's agent node (index 0). Returns (x, edge_index)."""
    n, f = nodes.shape[-2:]
    x = nodes.reshape(-1, f)
    present = x.abs().sum(dim=1) > 0
    src = torch.arange(x.shape[0], device=x.device)
    dst = (src // n) * n
    keep = present | (src % n == 0)
    edge_index = torch.stack([src[keep], dst[keep]])
    return x, edge_index


def relative_to_agent(nodes: torch.Tensor) -> torch.Tensor:
    """(..., N, F) nodes with each present non-agent node's centre replaced by its offset from
    the agent's (node 0); absent nodes stay all zeros."""
    where = position_slice()
    centre = nodes[..., where]
    present = nodes.abs().sum(dim=-1, keepdim=True) > 0
    present[..., 0, :] = False
    offset = torch.where(present, centre - centre[..., :1, :], centre)
    return torch.cat([nodes[..., :where.start], offset, nodes[..., where.stop:]], dim=-1)


def agent_geometry(nodes: torch.Tensor) -> torch.Tensor:
    """(..., N, F) nodes -> (..., N, GEOMETRY): each present non-agent node's distance from the
    agent (m) and the unit vector toward it; zeros for the agent and absent nodes. With these a
    node's code can say how near it is, so "the agent went to the goal of this colour" (and
    later "go toward it") is one layer's work, where from offsets alone it needs |x| first."""
    where = position_slice()
    offset = nodes[..., where] - nodes[..., :1, where]
    distance = offset.norm(dim=-1, keepdim=True)
    present = nodes.abs().sum(dim=-1, keepdim=True) > 0
    present[..., 0, :] = False
    out = torch.cat([distance, offset / distance.clamp(min=1e-3)], dim=-1)
    return torch.where(present, out, torch.zeros_like(out))


def without_orientation(nodes: torch.Tensor) -> torch.Tensor:
    """(..., N, F) nodes with every yaw (sine, cosine) zeroed."""
    yaw = position_slice().stop + 3
    return torch.cat([nodes[..., :yaw], torch.zeros_like(nodes[..., yaw:yaw + 2]),
                      nodes[..., yaw + 2:]], dim=-1)


CONDITIONING = ("gain", "gate", "embedding")  # where the test video's network reads the character


class ToMnetG(nn.Module):
    def __init__(self, relative: bool = True, conditioning: str = "gain",
                 orientation: bool = False, horizon: int = 0, end: bool = False) -> None:
        super().__init__()
        if conditioning not in CONDITIONING:
            raise ValueError(f"unknown ToMnet-G conditioning {conditioning!r}; "
                             f"choose {', '.join(CONDITIONING)}")
        self.relative, self.conditioning = relative, conditioning
        self.orientation = orientation
        if horizon < 0:
            raise ValueError(f"ToMnet-G horizon {horizon}: rated frames ahead, 0 or more")
        self.horizon = horizon
        self.gnn = AgentEdgePool()
        self.embed = nn.Sequential(nn.Linear(EDGE_DIM, HIDDEN), nn.ReLU())
        # the test video's own graph network, its node codes gained by the character
        self.test_gnn = GatedEdgePool() if conditioning == "gate" else \
            AgentEdgePool(condition=conditioning == "gain")
        self.test_embed = nn.Sequential(nn.Linear(EDGE_DIM, HIDDEN), nn.ReLU())
        self.character = nn.LSTM(HIDDEN, HIDDEN, batch_first=True)
        self.mental = nn.Sequential(nn.Linear(2 * HIDDEN, HIDDEN), nn.ReLU(),
                                    nn.Linear(HIDDEN, HIDDEN), nn.ReLU())
        self.predict = nn.LSTM(HIDDEN, HIDDEN, batch_first=True)
        self.head = nn.Linear(HIDDEN, 3)
        self.ahead = nn.Linear(HIDDEN, 3) if horizon else None
        self.end = end
        self.to_end = nn.Linear(HIDDEN, 3) if end else None

    def frame_embeddings(self, nodes: torch.Tensor,
                         char: torch.Tensor | None = None) -> torch.Tensor:
        """(B, T, N, F) -> (B, T, HIDDEN): the agent node's pooled embedding per frame; with
        ``char`` (B, HIDDEN), the test video's network."""
        b, t, n, _ = nodes.shape
        _, edge_index = frame_graph_edges(nodes)
        if not self.orientation:
            nodes = without_orientation(nodes)
        x = torch.cat([relative_to_agent(nodes) if self.relative else nodes,
                       agent_geometry(nodes)], dim=-1).reshape(b * t * n, -1)
        if char is None:
            pooled = self.gnn(x, edge_index)
        else:
            per_node = char[:, None, None].expand(b, t, n, -1).reshape(b * t * n, -1)
            pooled = self.test_gnn(x, edge_index, per_node)
        embed = self.embed if char is None else self.test_embed
        return embed(pooled.reshape(b, t, n, EDGE_DIM)[:, :, 0])

    def character_embedding(self, fam_nodes: torch.Tensor, fam_lengths: torch.Tensor,
                            fam_owner: torch.Tensor, batch: int) -> torch.Tensor:
        """Familiarization videos (V, T, N, F), their lengths (V,) and episode (V,) ->
        (batch, HIDDEN): the sum over each episode's videos of the LSTM's last state."""
        emb = self.frame_embeddings(fam_nodes)
        packed = nn.utils.rnn.pack_padded_sequence(emb, fam_lengths.cpu(), batch_first=True,
                                                   enforce_sorted=False)
        _, (h, _) = self.character(packed)
        out = torch.zeros(batch, HIDDEN, device=emb.device, dtype=emb.dtype)
        return out.index_add(0, fam_owner, h[-1])

    def forward(self, test_nodes: torch.Tensor, char: torch.Tensor,
                state: tuple[torch.Tensor, torch.Tensor] | None = None
                ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """(B, T, N, F) test frames + (B, HIDDEN) character -> (B, T, 3) displacements."""
        steps, _, state = self.trajectory(test_nodes, char, state)
        return steps, state

    def trajectory(self, test_nodes: torch.Tensor, char: torch.Tensor,
                   state: tuple[torch.Tensor, torch.Tensor] | None = None
                   ) -> tuple[torch.Tensor, torch.Tensor | None,
                              tuple[torch.Tensor, torch.Tensor]]:
        """As :meth:`forward`, with the ``horizon`` head's (B, T, 3) displacements ``horizon``
        rated frames ahead (None without one)."""
        steps, ahead, _, state = self.predictions(test_nodes, char, state)
        return steps, ahead, state

    def predictions(self, test_nodes: torch.Tensor, char: torch.Tensor,
                    state: tuple[torch.Tensor, torch.Tensor] | None = None
                    ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None,
                               tuple[torch.Tensor, torch.Tensor]]:
        """As :meth:`trajectory`, with the ``end`` head's (B, T, 3) displacements to the
        video's last frame (None without one)."""
        emb = self.frame_embeddings(test_nodes, char)
        both = torch.cat([emb, char[:, None].expand(-1, emb.shape[1], -1)], dim=-1)
        out, state = self.predict(self.mental(both), state)
        ahead = self.ahead(out) if self.ahead is not None else None
        to_end = self.to_end(out) if self.to_end is not None else None
        return self.head(out), ahead, to_end, state

"""ToMnet-G's path pace: the agent's path resampled by its length, on hand-made tracks."""

from __future__ import annotations

import numpy as np
import pytest

from socialbench.observers.agent.tomnet_g.graphs import (
    FEATURES,
    VideoGraphs,
    paced,
    position_slice,
)
from socialbench.observers.agent.tomnet_g.samples import paced_sample
from socialbench.observers.agent.tomnet_g.training import Sample


def track(points: list[tuple[float, float, float]]) -> VideoGraphs:
    agent = np.array(points, np.float32)
    nodes = np.zeros((len(points), 2, FEATURES), np.float32)
    nodes[:, 0, position_slice()] = agent
    nodes[:, 1, 0] = np.arange(len(points))  # which rated frame each row came from
    return VideoGraphs(nodes=nodes, agent=agent)


def test_standing_drops_out_and_steps_are_the_spacing_long():
    # stands 3 rated frames, walks 0.15 m a frame along x for 2 frames, then rises 0.1 m, stands
    still = [(0.0, 0.0, 0.0)] * 3
    walk = [(0.15, 0.0, 0.0), (0.30, 0.0, 0.0), (0.30, 0.0, 0.10), (0.30, 0.0, 0.10)]
    kept = paced(track(still + walk), "path", spacing=0.1)
    assert np.allclose(kept.agent, [(0, 0, 0), (0.1, 0, 0), (0.2, 0, 0), (0.3, 0, 0),
                                    (0.3, 0, 0.1)], atol=1e-6)
    # the agent node moves with the points; the other nodes are the frame each point falls in
    assert np.allclose(kept.nodes[:, 0, position_slice()], kept.agent)
    frames = kept.nodes[:, 1, 0].tolist()
    assert frames == sorted(frames) and frames[0] == 2 and frames[-1] >= 4


def test_a_shorter_last_step_reaches_where_the_agent_ends():
    kept = paced(track([(0, 0, 0), (0.25, 0, 0)]), "path", spacing=0.1)
    assert np.allclose(kept.agent[:, 0], [0, 0.1, 0.2, 0.25])


def test_time_pace_keeps_everything_and_unknown_pace_is_refused():
    g = track([(0, 0, 0), (0.2, 0, 0)])
    assert paced(g, "time") is g
    with pytest.raises(ValueError, match="pace"):
        paced(g, "speed")


def test_an_agent_that_stays_put_keeps_its_first_and_last_frames():
    kept = paced(track([(0.5, 0.2, 0.1)] * 5 + [(0.52, 0.2, 0.1)]), "path")
    assert kept.nodes[:, 1, 0].tolist() == [0, 5]


def test_every_video_of_a_sample_is_paced():
    walk = track([(0, 0, 0), (0, 0, 0), (0.4, 0, 0)])  # 0.2 m apart: three points
    sample = paced_sample(Sample((walk, walk), walk), "path")
    assert [len(g.agent) for g in (*sample.familiarization, sample.test)] == [3, 3, 3]


def test_the_observer_keeps_its_pace_in_its_checkpoint(tmp_path):
    pytest.importorskip("torch_geometric")
    from socialbench.observers.agent.tomnet_g.observer import ToMnetGObserver

    ToMnetGObserver(pace="path").save(tmp_path / "m.pt")
    assert ToMnetGObserver.load(tmp_path / "m.pt").pace == "path"
    with pytest.raises(ValueError, match="pace"):
        ToMnetGObserver(pace="speed")

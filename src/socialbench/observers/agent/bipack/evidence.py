"""What one video tells BIPaCK: per cost weight ``w_v`` and per goal, the cost of reaching the
goal and the DTW distance between the observed path and the predicted one (and the distance to
staying put, the prediction when the agent gives up)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from dtaidistance import dtw_ndim

from socialbench.agent3d.schema import VideoStates
from socialbench.observers.agent.bipack.planner import build_graph, plan_paths
from socialbench.observers.agent.bipack.terrain import build_terrain
from socialbench.observers.agent.bipack.trajectory import WALK_SPEED, observed_path, predicted_path
from socialbench.observers.agent.tracks import video_tracks

W_V = (0.1, 0.2, 0.3, 0.5, 1.0, 10.0)  # agent spec: the weights of vertical effort
STRIDE = 1  # every frame (35 fps): D sums distances over all of them, as beta = 0.2 expects


@dataclass(frozen=True)
class VideoEvidence:
    """``goals``: colour codes of the goals in view; ``cost`` and ``distance`` (len(W_V),
    len(goals)): effort to each goal (metres + w_v x metres lifted; inf if unreachable) and the
    DTW distance to its predicted path; ``stay``: the distance to staying put."""

    goals: tuple[int, ...]
    cost: np.ndarray
    distance: np.ndarray
    stay: float


def dtw(a: np.ndarray, b: np.ndarray) -> float:
    """The DTW distance between two (N, 3) paths: the sum of the Euclidean distances between
    the points the warping pairs (so it grows with how long and how far they differ)."""
    return float(dtw_ndim.distance_fast(np.ascontiguousarray(a, dtype=np.double),
                                        np.ascontiguousarray(b, dtype=np.double),
                                        inner_dist="euclidean"))


def video_evidence(video: VideoStates, w_v: tuple[float, ...] = W_V,
                   stride: int = STRIDE) -> VideoEvidence:
    """Rebuild the video's scene, plan to every goal under every ``w_v`` and compare."""
    tracks = video_tracks(video)
    track, visible = tracks.agent_track()
    observed = observed_path(track, visible, stride)
    start = observed[0]
    half_height = float(tracks.sizes[tracks.agent][2] / 2)
    spacing = WALK_SPEED * stride / tracks.fps
    goal_cols = [i for i in tracks.index("goal") if tracks.seen(i)]
    goals = tuple(int(tracks.labels[i]) for i in goal_cols)
    positions = {int(tracks.labels[i]): tracks.last_seen_box(i)[0] for i in goal_cols}
    terrain = build_terrain(tracks)
    graph = build_graph(terrain)
    cost = np.full((len(w_v), len(goals)), np.inf)
    distance = np.full((len(w_v), len(goals)), np.inf)
    for k, weight in enumerate(w_v):
        plans = plan_paths(graph, start, positions, weight)
        for j, goal in enumerate(goals):
            options = plans[goal]
            if not options:
                continue
            cost[k, j] = options[0].horizontal + weight * options[0].vertical
            # near-equal ways (either end of a wall): the agent took one of them
            distance[k, j] = min(dtw(observed, predicted_path(terrain, p, start, half_height,
                                                              spacing)) for p in options)
    return VideoEvidence(goals=goals, cost=cost, distance=distance,
                         stay=dtw(observed, start[None]))

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
from socialbench.observers.agent.tracks import VideoTracks, video_tracks

W_V = (0.1, 0.2, 0.3, 0.5, 1.0, 10.0)  # agent spec: the weights of vertical effort
REACHED = 0.5  # metres: an agent ending this close to a goal (horizontally) went there
STRIDE = 1  # every frame (35 fps): D sums distances over all of them, as beta = 0.2 expects


@dataclass(frozen=True)
class VideoEvidence:
    """``goals``: colour codes of the goals in view; ``cost`` and ``distance`` (len(W_V),
    len(goals)): effort to each goal (metres + w_v x metres lifted; inf if unreachable) and the
    DTW distance to its predicted path; ``stay``: the distance to staying put.

    ``hidden_cost`` (len(W_V),), only where the agent passed unseen behind an occluder that
    still stands at the video's end: the effort of the observed path to goal ``reached``, the
    cost it has if something unseen behind the occluder made that path the efficient one."""

    goals: tuple[int, ...]
    cost: np.ndarray
    distance: np.ndarray
    stay: float
    hidden_cost: np.ndarray | None = None
    reached: int = -1


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
                                                              spacing, positions[goal]))
                                 for p in options)
    hidden_cost, reached = None, -1
    if goals and may_hide_constraint(tracks):
        ends = np.array([positions[g][:2] for g in goals])
        near = np.linalg.norm(ends - observed[-1, :2], axis=1)
        if near.min() <= REACHED:
            reached = int(np.argmin(near))
            horizontal, vertical = path_effort(observed)
            hidden_cost = horizontal + np.asarray(w_v) * vertical
    return VideoEvidence(goals=goals, cost=cost, distance=distance,
                         stay=dtw(observed, start[None]), hidden_cost=hidden_cost,
                         reached=reached)


def may_hide_constraint(tracks: VideoTracks) -> bool:
    """Whether an occluder may hide what shaped the agent's path: the agent was unseen between
    two sightings and an occluder still stands (taller than thick) where it was last seen, so
    what lies behind it was never shown (a fallen one has revealed it)."""
    _, visible = tracks.agent_track()
    seen = np.flatnonzero(visible)
    if seen.size == 0 or visible[seen[0]:seen[-1] + 1].all():
        return False
    for i in tracks.index("occluder"):
        if tracks.seen(i):
            _, half = tracks.last_seen_box(i)
            if half[2] > min(half[0], half[1]):
                return True
    return False


def path_effort(path: np.ndarray) -> tuple[float, float]:
    """The effort terms of a (N, 3) path as the planner counts them: metres travelled
    horizontally and metres the agent's centre rose (a jump: its apex above the take-off)."""
    steps = np.diff(path, axis=0)
    return (float(np.linalg.norm(steps[:, :2], axis=1).sum()),
            float(np.maximum(steps[:, 2], 0.0).sum()))

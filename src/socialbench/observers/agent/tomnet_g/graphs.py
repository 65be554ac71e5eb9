"""ToMnet-G's inputs: one scene graph per rated frame of a video, as dense arrays.

Nodes are the entities the video shows (agent first, then goals, obstacles and raised floor
pieces; the occluder is left out, as the paper reconstructs occluded videos): entity class,
box centre and size, orientation (yaw as sine and cosine), colour code and whether the entity is
shown (an entity the video never shows is all zeros). As the paper reconstructs occluded videos
before ToMnet-G reads them, an entity first seen late (scenario 3's wall, revealed when the
occluder drops) is shown from the first frame with the box it is first seen with, and the agent's
occluded positions are filled by the same second-order curve fit as BIPaCK's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from socialbench.agent3d.schema import VideoStates
from socialbench.observers.agent.bipack.trajectory import fill_occluded, resample_path
from socialbench.observers.agent.tracks import VideoTracks, video_tracks

NODE_CLASSES = ("agent", "goal", "obstacle", "floor")
N_COLOURS = 9  # goal colour codes 1-8, and none
FEATURES = len(NODE_CLASSES) + 3 + 3 + 2 + N_COLOURS + 1
STRIDE = 5  # rate every 5th frame (7 per second at 35 fps)


@dataclass(frozen=True)
class VideoGraphs:
    """``nodes`` (T, N, FEATURES) with the agent at node 0; ``agent`` (T, 3) its centre."""

    nodes: np.ndarray
    agent: np.ndarray


def video_graphs(video: VideoStates, stride: int = STRIDE) -> VideoGraphs:
    tracks = video_tracks(video)
    keep = np.unique(np.append(np.arange(0, tracks.frames, stride), tracks.frames - 1))
    track, visible = tracks.agent_track()
    agent = fill_occluded(track, visible)[keep]
    order = [tracks.agent] + [i for i, c in enumerate(tracks.classes)
                              if c in NODE_CLASSES[1:] and i != tracks.agent
                              and not (c == "floor" and tracks.sizes[i][0] > 8)]
    nodes = np.zeros((len(keep), len(order), FEATURES), np.float32)
    for n, i in enumerate(order):
        centre, half, yaw = (a[keep] for a in _from_first_sighting(tracks, i))
        seen = np.full(len(keep), tracks.seen(i))
        if n == 0:
            centre, seen = agent, np.ones(len(keep), bool)
        row = np.zeros((len(keep), FEATURES), np.float32)
        row[:, NODE_CLASSES.index(tracks.classes[i])] = 1
        at = len(NODE_CLASSES)
        row[:, at:at + 3] = np.nan_to_num(centre)
        row[:, at + 3:at + 6] = np.nan_to_num(2 * half)
        row[:, at + 6] = np.sin(yaw)
        row[:, at + 7] = np.cos(yaw)
        label = int(tracks.labels[i])
        row[:, at + 8 + (label if 1 <= label <= 8 else 0)] = 1
        row[:, -1] = 1
        row[~seen] = 0
        nodes[:, n] = row
    return VideoGraphs(nodes=nodes, agent=agent.astype(np.float32))


def _from_first_sighting(tracks: VideoTracks,
                         i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Entity ``i``'s centres, half extents (T, 3) and yaw (T,), unseen frames holding the last
    sighting and those before the first sighting given the first one (the tracks leave NaN)."""
    centre, half, yaw = tracks.centres[:, i].copy(), tracks.half[:, i].copy(), tracks.yaw[:, i]
    seen = tracks.visible[:, i]
    frames = np.flatnonzero(seen)
    if frames.size:
        centre[:frames[0]] = centre[frames[0]]
        half[:frames[0]] = half[frames[0]]
        last = np.maximum.accumulate(np.where(seen, np.arange(len(seen)), frames[0]))
        yaw = yaw[last]
    return centre, half, yaw


PACES = ("time", "path")  # which rated frames a sample keeps (paced)
PATH_SPACING = 0.2  # m along the agent's path between rated points, with the "path" pace


def paced(graphs: VideoGraphs, pace: str = "time", spacing: float = PATH_SPACING
          ) -> VideoGraphs:
    """The rated frames a model reads. ``time``: all of them (every 5th video frame).
    ``path``: the agent's path resampled every ``spacing`` metres of its length (3D, so a
    jump's rise counts), from its start to where it ends: the frames where the agent stands
    still or turns on the spot drop out, and every step is ``spacing`` long, so a step says
    which way the agent went, not when it set off or how fast (the agent waits a random 3-7 s
    before it walks, which no network can time; docs/agent_observers.md). The agent's centre
    is interpolated along the rated frames' path; the other nodes are those of the rated frame
    the point falls in."""
    if pace == "time":
        return graphs
    if pace != "path":
        raise ValueError(f"unknown ToMnet-G pace {pace!r}; choose {', '.join(PACES)}")
    agent = graphs.agent.astype(np.float64)
    if np.linalg.norm(np.diff(agent, axis=0), axis=1).sum() < spacing:
        keep = [0, len(agent) - 1]  # an agent that (nearly) stays put: first and last frames
        return VideoGraphs(nodes=graphs.nodes[keep], agent=graphs.agent[keep])
    # a shorter last step to where the agent ends; the other nodes from the rated frame each
    # point falls after
    points, frame = resample_path(agent, spacing, end_within=1e-6)
    nodes = graphs.nodes[frame].copy()
    nodes[:, 0, position_slice()] = points
    return VideoGraphs(nodes=nodes, agent=points.astype(np.float32))


def position_slice() -> slice:
    """Where a node's centre sits in its features (the rollout moves the agent's)."""
    return slice(len(NODE_CLASSES), len(NODE_CLASSES) + 3)

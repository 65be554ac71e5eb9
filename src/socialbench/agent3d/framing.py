"""Can a person judge a rendered video? Framing figures read from its segmentation.

For one rendered video (its ``segmentation`` frames, entity id per pixel): how large the agent
is (pixel extent: the larger side of its box of pixels), whether every goal object lies wholly
inside the frame (none of its pixels on the image's border in any frame where it is seen) and
in what share of the frames the agent is seen at all. ``framing_problems`` turns them into
one-line problems against the thresholds below; ``agent validate`` runs ``check_rendered`` on
every video rendered with ``frames.npz``.

Thresholds: issue 11 asks for the agent >= 15 px across at the default size. Two-goal scenes
must show goals 3.5 m apart in a square frame, which leaves a 0.2 m sphere ~10 px at 200 x 200;
the default render is 320 x 320 (render.RenderOptions: as tall as the authors' two-goal frames),
where spheres between two goals measure 15-17 px, cubes and cones more, and one-goal scenes
24 px and more (docs/agent.md, contact sheets). The check asks for ``MIN_AGENT_PIXELS`` = 15 at
``REFERENCE_SIDE`` = 320, scaled to the frame's shorter side for other sizes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from socialbench.agent3d.bodies import quaternion_matrices
from socialbench.agent3d.render import NPZ_NAME, read_frames
from socialbench.agent3d.schema import SceneConfig, Video
from socialbench.agent3d.visibility import PixelRays

MIN_AGENT_PIXELS = 15  # at the default 320 x 320 (issue 11)
MIN_AGENT_VISIBLE = 0.6  # ours: most frames (76-100 % on the contact sheets: detours)
REFERENCE_SIDE = 320  # the agent size threshold is for 320-pixel frames; scaled for others


@dataclass(frozen=True)
class Framing:
    agent_extent_px: float  # median over frames where the agent is seen (0: never seen)
    agent_visible: float  # share of frames with at least one agent pixel
    goals_cut: tuple[int, ...]  # goal ids touching the image border in some frame
    goals_unseen: tuple[int, ...]  # goal ids not seen in any frame
    width: int
    height: int


def measure_framing(config: SceneConfig, segmentation: np.ndarray | Iterable[np.ndarray]
                    ) -> Framing:
    """Framing figures of one video from its (N, H, W) entity-id segmentation."""
    agent_ids = [e.id for e in config.entities if e.kind == "agent"]
    goal_ids = [e.id for e in config.entities if e.kind == "goal"]
    extents, seen_agent, frames = [], 0, 0
    goals_cut: set[int] = set()
    goals_seen: set[int] = set()
    height = width = 0
    for frame in segmentation:
        frames += 1
        height, width = frame.shape
        agent = np.isin(frame, agent_ids)
        if agent.any():
            seen_agent += 1
            rows, cols = np.flatnonzero(agent.any(axis=1)), np.flatnonzero(agent.any(axis=0))
            extents.append(max(rows[-1] - rows[0] + 1, cols[-1] - cols[0] + 1))
        border = np.concatenate([frame[0], frame[-1], frame[:, 0], frame[:, -1]])
        for goal in goal_ids:
            if goal in goals_seen or (frame == goal).any():
                goals_seen.add(goal)
                if (border == goal).any():
                    goals_cut.add(goal)
    return Framing(agent_extent_px=float(np.median(extents)) if extents else 0.0,
                   agent_visible=seen_agent / frames if frames else 0.0,
                   goals_cut=tuple(sorted(goals_cut)),
                   goals_unseen=tuple(sorted(set(goal_ids) - goals_seen)),
                   width=width, height=height)


def agent_frames_outside(video: Video) -> int:
    """Frames in which part of the agent's box (its 8 corners, at the frame's pose) lies outside
    the picture of the video's camera, framed square as ours films: from the states alone, no
    rendering. Frames that do not list the agent (scenario 3's camera view) are not counted."""
    agent = next((e for e in video.config.entities if e.kind == "agent"), None)
    if agent is None:
        return 0
    states = [s for frame in video.frames for s in frame if s.id == agent.id]
    if not states:
        return 0
    rays = PixelRays.of(video.config.camera)  # a square frame: the size does not matter
    rotation = quaternion_matrices(np.array([s.orientation for s in states], dtype=float))
    signs = np.array([(a, b, c) for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], float)
    offsets = signs * np.asarray(agent.size, dtype=float) / 2
    corners = np.array([s.position for s in states])[:, None] + \
        np.einsum("cj,kij->kci", offsets, rotation)
    rel = corners - rays.eye
    depth = rel @ rays.forward
    reach = rays.tan_half * depth
    outside = (depth <= 0) | (np.abs(rel @ rays.right) > reach) | (np.abs(rel @ rays.up) > reach)
    return int(outside.any(axis=1).sum())


def framing_problems(framing: Framing, check_visibility: bool = True) -> list[str]:
    """One line per framing figure below its threshold (agent size scaled to the frame)."""
    problems = []
    needed = MIN_AGENT_PIXELS * min(framing.width, framing.height) / REFERENCE_SIDE
    if framing.agent_extent_px < needed:
        problems.append(f"agent {framing.agent_extent_px:.0f} px across (median), below "
                        f"{needed:.0f} px for a {framing.width}x{framing.height} frame")
    if framing.goals_cut:
        problems.append(f"goal(s) {list(framing.goals_cut)} cut by the image's edge")
    if framing.goals_unseen:
        problems.append(f"goal(s) {list(framing.goals_unseen)} never in view")
    if check_visibility and framing.agent_visible < MIN_AGENT_VISIBLE:
        problems.append(f"agent seen in {framing.agent_visible:.0%} of the frames, below "
                        f"{MIN_AGENT_VISIBLE:.0%}")
    return problems


def check_rendered(video: Video, video_dir: Path, scenario: int) -> list[str]:
    """Framing problems of a video rendered with ``frames.npz`` (none when not rendered).
    Scenario 3's agent is meant to be hidden part of the time: its visibility is checked by
    ``scenarios/unobserved_constraints.py`` instead."""
    if not (Path(video_dir) / NPZ_NAME).is_file():
        return []
    segmentation = read_frames(video_dir)["segmentation"]
    return framing_problems(measure_framing(video.config, segmentation),
                            check_visibility=scenario != 3)

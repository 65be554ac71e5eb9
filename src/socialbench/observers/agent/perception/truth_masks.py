"""The upper bound: the same pipeline fed the renderer's instance segmentation instead of
segmenting RGB-D itself. Classes come from the generator's entity-id ranges (the ground truth
a perfect segmenter would give); goal colour codes, boxes and the floor still come from colour
and depth, as in the RGB-D mode. Obstacles that touch (a doorway's posts and lintel, a ramp
and its platform) are handed on as one, as RGB-D segmentation sees them, so the box fitting
that tells their parts apart is the same in both modes."""

from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from socialbench.agent3d.layout.constants import (
    AGENT_ID,
    FIRST_FLOOR_ID,
    FIRST_GOAL_ID,
    FIRST_OBSTACLE_ID,
    OCCLUDER_ID,
)
from socialbench.observers.agent.perception.camera import PinholeCamera
from socialbench.observers.agent.perception.frames import RenderedVideo
from socialbench.observers.agent.perception.palette import goal_codes
from socialbench.observers.agent.perception.regions import walkable_level
from socialbench.observers.agent.perception.sightings import (
    MIN_VISIBLE_PIXELS,
    StaticThing,
    VideoSightings,
)


def _class_of(entity_id: int) -> str | None:
    if entity_id == AGENT_ID:
        return "agent"
    if FIRST_GOAL_ID <= entity_id < FIRST_OBSTACLE_ID:
        return "goal"
    if FIRST_OBSTACLE_ID <= entity_id < OCCLUDER_ID:
        return "obstacle"
    if entity_id == OCCLUDER_ID:
        return "occluder"
    return None  # floor pieces and the room: the floor comes from depth, as in RGB-D mode


def segment_truth(video: RenderedVideo) -> VideoSightings:
    if video.segmentation is None:
        raise ValueError("the upper-bound mode needs the rendered segmentation")
    seg, depth = video.segmentation, video.depth_mm
    frames, height, width = depth.shape
    camera = PinholeCamera.of(video.camera, width, height)
    background_mm = depth.max(axis=0)
    background, valid = camera.back_project(background_mm)
    floor_z = walkable_level(background, valid, goal_codes(video.background_colours()) > 0)
    static: list[StaticThing] = []
    agent: list[np.ndarray | None] = [None] * frames
    occluder: list[np.ndarray | None] = [None] * frames
    for entity_id in np.unique(seg):
        cls = _class_of(int(entity_id))
        if cls is None or entity_id >= FIRST_FLOOR_ID:
            continue
        where = seg == entity_id
        counts = where.sum(axis=(1, 2))
        if cls in ("agent", "occluder"):
            track = agent if cls == "agent" else occluder
            for t in np.flatnonzero(counts):
                track[t] = camera.points_at(depth[t], where[t])
            continue
        # a static body: each pixel where it ever shows, at a frame that shows it there
        ever = where.any(axis=0)
        first = where.argmax(axis=0)
        depth_at = np.take_along_axis(depth, first[None], 0)[0]
        points, _ = camera.back_project(depth_at)
        rgb_at = np.take_along_axis(video.rgb, first[None, ..., None], 0)[0]
        code = 0
        if cls == "goal":
            codes = goal_codes(rgb_at[ever])
            code = int(np.bincount(codes, minlength=9)[1:].argmax() + 1)
        static.append(StaticThing(cls, code, points[ever], counts >= MIN_VISIBLE_PIXELS))
    static = [s for s in static if s.cls != "obstacle"] + \
        _join_touching([s for s in static if s.cls == "obstacle"])
    return VideoSightings(static=static, agent=agent, occluder=occluder, floor_z=floor_z,
                          background=background, background_valid=valid,
                          forward=camera.forward, eye=camera.eye,
                          pixel_angle=2 * camera.tan_half / height, fps=video.fps)


TOUCH = 0.03  # m: obstacles whose surfaces seen come this close are parts of one body


def _join_touching(things: list[StaticThing]) -> list[StaticThing]:
    """Obstacles whose points come within ``TOUCH`` of each other, joined (transitively)."""
    if not things:
        return []
    trees = [cKDTree(t.points) for t in things]
    touching = np.array([[a.count_neighbors(b, TOUCH) > 0 for b in trees] for a in trees])
    count, label = connected_components(touching, directed=False)
    groups = [[t for t, k in zip(things, label, strict=True) if k == g] for g in range(count)]
    return [StaticThing("obstacle", 0, np.concatenate([p.points for p in group]),
                        np.any([p.visible for p in group], axis=0))
            for group in groups]

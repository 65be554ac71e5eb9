"""Segment a rendered video from RGB and depth alone.

- The background is each pixel's farthest depth over the video: what moves (the agent, a
  falling occluder) passes in front of the scene, so the farthest view of a pixel shows the
  static scene behind it. The floor is the height most background pixels see, or in a chasm
  scene the wide level the goals stand on (``regions.walkable_level``); a pixel higher than it
  belongs to a body.
- Static bodies are the background's regions above the floor, cut at depth edges. Goal pixels
  are told by colour (``palette``), one goal per colour code; the room's walls by their height;
  the rest is an obstacle, a standing occluder (a panel at least ``OCCLUDER_HEIGHT`` tall) or,
  small, an agent that never moved.
- In each frame, pixels nearer than the background and above the floor are what moves: the
  agent is the largest small region of them, a large one is a falling occluder.
- A static body shows in a frame when enough of its pixels show its background depth (scenario
  3's wall only once the occluder has fallen).
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from socialbench.observers.agent.perception.camera import FAR_MM, PinholeCamera
from socialbench.observers.agent.perception.frames import RenderedVideo
from socialbench.observers.agent.perception.palette import goal_codes
from socialbench.observers.agent.perception.regions import regions, walkable_level
from socialbench.observers.agent.perception.sightings import (
    MIN_VISIBLE_PIXELS,
    THING_HEIGHT,
    StaticThing,
    VideoSightings,
)

ROOM_HEIGHT = 1.6  # m: a region reaching this high is the room's wall (walls <= 0.9, panel 1.1)
ROOM_WIDTH = 3.6  # m: or this wide (the longest obstacle is 3 m)
OCCLUDER_HEIGHT = 1.0  # m: a standing panel this tall is the occluder
SMALL = 0.4  # m: a body no wider than this (and no taller than SMALL_HEIGHT) is agent-sized
SMALL_HEIGHT = 0.45
MOVED_MM = 30  # nearer than the background by this much: something moving in front
EDGE_MM = 5  # the agent's outline pixels: nearer than the background and above the floor by this
USUAL_STRIDE = 3  # frames sampled for each pixel's usual (median) depth
SAME_MM = 20  # within this of the background: the static scene shows there
AGENT_JOIN = 0.35  # m: moving pieces this close to the chosen one are the same agent
MAX_STEP = 0.6  # m: a piece farther than this (plus MAX_SPEED x the time since the agent was
MAX_SPEED = 3.0  # m/s  last seen) from where it was is not the agent (jumps reach ~2.8 m/s)


def segment_rgbd(video: RenderedVideo) -> VideoSightings:
    frames, height, width = video.depth_mm.shape
    camera = PinholeCamera.of(video.camera, width, height)
    background_mm = video.depth_mm.max(axis=0)
    points, valid = camera.back_project(background_mm)
    codes = goal_codes(video.background_colours())
    floor_z = walkable_level(points, valid, codes > 0)
    static = [StaticThing(cls, code, points[mask], _visible(mask, video.depth_mm, background_mm))
              for cls, code, mask in _static_masks(points, valid, codes, floor_z,
                                                   background_mm / 1000.0)]
    agent: list[np.ndarray | None] = []
    occluder: list[np.ndarray | None] = []
    # what each pixel shows most of the time: a panel that stands, then falls, is "usual"
    usual_mm = np.median(video.depth_mm[::USUAL_STRIDE], axis=0).astype(np.int32)
    last: np.ndarray | None = None  # where the agent was last seen, and when
    last_t = 0
    for t in range(frames):
        reach = MAX_STEP + MAX_SPEED * (t - last_t) / video.fps
        a, o = _moving(camera, video.depth_mm[t], background_mm, usual_mm, floor_z, last,
                       reach)
        if a is not None:
            last, last_t = a.mean(axis=0), t
        agent.append(a)
        occluder.append(o)
    still = [s for s in static if s.cls == "agent"]
    if still and all(a is None for a in agent):  # an agent that never moves (gives up at once)
        agent = [still[0].points if still[0].visible[t] else None for t in range(frames)]
    return VideoSightings(static=[s for s in static if s.cls != "agent"], agent=agent,
                          occluder=occluder, floor_z=floor_z, background=points,
                          background_valid=valid, forward=camera.forward, eye=camera.eye,
                          pixel_angle=2 * camera.tan_half / height, fps=video.fps)


def _static_masks(points: np.ndarray, valid: np.ndarray, codes: np.ndarray, floor_z: float,
                  depth_m: np.ndarray) -> list[tuple[str, int, np.ndarray]]:
    """(class, colour code, background pixels) of every static body but the room's walls;
    ``codes``: each background pixel's goal colour code (``palette.goal_codes``)."""
    above = valid & (points[..., 2] > floor_z + THING_HEIGHT)
    out: list[tuple[str, int, np.ndarray]] = []
    for region in regions(above, depth_m, 8):
        pts = points[region]
        extent = np.ptp(pts[:, :2], axis=0)
        if pts[:, 2].max() - floor_z > ROOM_HEIGHT or extent.max() > ROOM_WIDTH:
            continue  # the room's walls
        for code in np.unique(codes[region]):
            if code == 0 or (codes[region] == code).sum() < MIN_VISIBLE_PIXELS:
                continue
            out.append(("goal", int(code), region & (codes == code)))
        rest = region & (codes == 0)
        labels, count = ndimage.label(rest)
        for k in range(1, count + 1):
            part = labels == k
            if part.sum() < 8:
                continue
            pts = points[part]
            top = pts[:, 2].max() - floor_z
            wide = np.ptp(pts[:, :2], axis=0).max()
            if top >= OCCLUDER_HEIGHT:
                cls = "occluder"
            elif wide <= SMALL and top <= SMALL_HEIGHT:
                cls = "agent"
            else:
                cls = "obstacle"
            out.append((cls, 0, part))
    return out


def _visible(mask: np.ndarray, depth_mm: np.ndarray, background_mm: np.ndarray) -> np.ndarray:
    """(T,) the frames showing enough of a static body's pixels at their background depth."""
    seen = np.abs(depth_mm[:, mask].astype(np.int32) - background_mm[mask].astype(np.int32))
    return (seen <= SAME_MM).sum(axis=1) >= MIN_VISIBLE_PIXELS


def _moving(camera: PinholeCamera, depth_mm: np.ndarray, background_mm: np.ndarray,
            usual_mm: np.ndarray, floor_z: float, last: np.ndarray | None,
            reach: float) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The agent's and a falling occluder's points in one frame. What moves is nearer than
    the pixel's usual depth; a panel standing where it usually stands, in front of what it
    later reveals, is the occluder (never cut into agent-sized pieces)."""
    now = depth_mm.astype(np.int32)
    nearer = now < np.minimum(usual_mm, background_mm.astype(np.int32)) - MOVED_MM
    # where something stands most of the video in front of what it leaves: a large one is the
    # panel before it falls, a small one the agent (standing still for long)
    standing = (np.abs(now - usual_mm) <= SAME_MM) & (usual_mm < background_mm - MOVED_MM)
    stood = []
    for region in regions(standing, depth_mm / 1000.0, 3) if standing.any() else []:
        pts = camera.points_at(depth_mm, region)
        if _big(pts, floor_z):
            stood.append(pts)
        else:
            nearer |= region
    stood_points = np.concatenate(stood) if stood else None
    if not nearer.any():
        return None, stood_points
    # work inside the box round what moved (a few hundred pixels of the frame's 40,000)
    rows, cols = np.nonzero(nearer)
    box = (slice(max(rows.min() - 3, 0), rows.max() + 4),
           slice(max(cols.min() - 3, 0), cols.max() + 4))
    depth, background = depth_mm[box], background_mm[box].astype(np.int32)
    inside = np.zeros(depth_mm.shape, bool)
    inside[box] = True
    points = camera.points_at(depth_mm, inside).reshape(depth.shape + (3,))
    valid = depth < FAR_MM
    moved = nearer[box] & valid & (points[..., 2] > floor_z + THING_HEIGHT)
    agent_parts, occluder_parts = [], []
    for region in regions(moved, depth / 1000.0, 3):
        (occluder_parts if _big(points[region], floor_z) else agent_parts).append(region)
    centre = _agent_piece(points, agent_parts, last, reach)
    agent = None
    if centre is not None:
        mask = np.any([r for r in agent_parts
                       if np.linalg.norm(points[r].mean(axis=0) - centre) < AGENT_JOIN], axis=0)
        # its outline, where it nearly touches what is behind or under it, joins it
        near = (valid & (depth.astype(np.int32) < np.minimum(usual_mm[box], background)
                         - EDGE_MM)
                & (points[..., 2] > floor_z + EDGE_MM / 1000.0))
        mask |= ndimage.binary_dilation(mask, iterations=2) & near
        agent = points[mask]
    pieces = [points[r] for r in occluder_parts] + stood
    return agent, (np.concatenate(pieces) if pieces else None)


def _agent_piece(points: np.ndarray, parts: list[np.ndarray], last: np.ndarray | None,
                 reach: float) -> np.ndarray | None:
    """The centre of the small moving piece that is the agent: the largest at first, then the
    one nearest where the agent was (a sliver of a falling panel may be larger); none when no
    piece is within ``reach`` of it (the agent is hidden)."""
    if not parts:
        return None
    centres = [points[r].mean(axis=0) for r in parts]
    if last is None:
        return centres[0]
    distance = [float(np.linalg.norm(c - last)) for c in centres]
    pick = int(np.argmin(distance))
    return centres[pick] if distance[pick] <= reach else None


def _big(points: np.ndarray, floor_z: float) -> bool:
    """Larger than the agent could look: wider, taller, or reaching the occluder's height."""
    return bool(np.ptp(points[:, :2], axis=0).max() > SMALL
                or points[:, 2].max() - floor_z >= OCCLUDER_HEIGHT - 0.1
                or np.ptp(points[:, 2]) > SMALL_HEIGHT)

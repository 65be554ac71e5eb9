"""Sightings to the states an observer reads: one entity per perceived body, its box in every
frame that shows it, in the same ``VideoStates`` the state files give (so ``tracks.py`` turns
them into tracks as it does the files').

Static bodies keep one box (fitted on every point seen of them); the agent gets a box per frame
whose size is its median over the frames that show it best; a falling occluder a box per frame.
Ids follow the generator's ranges (agent 1, goals from 2, obstacles from 10, occluder 30, floor
pieces from 40), labels the release's (goal colour code, 9, 10, 11).
"""

from __future__ import annotations

import math

import numpy as np

from socialbench.agent3d import schema
from socialbench.agent3d.schema import Camera, EntitySpec, EntityState, VideoStates
from socialbench.observers.agent.perception.boxes import (
    Box,
    compact_box,
    compact_extent,
    extent,
    obstacle_boxes,
    view_axis,
)
from socialbench.observers.agent.perception.floor import floor_boxes
from socialbench.observers.agent.perception.sightings import VideoSightings

TYPICAL = (0.7, 1.4)  # frames showing this share of the agent's median pixel count set its size
# (fewer: partly hidden; more: joined by a sliver of something else moving, a falling panel)
MIN_AGENT_POINTS = 3
AGENT_REACH = 0.25  # m from the median of its points: farther ones are not the agent's
MIN_SHOWN = 0.3  # an agent showing less of its usual points is taken as unseen
TOP_BAND = 0.03  # m: the agent's points this close to its highest one are its top
MIN_TOP_POINTS = 4
TOP_WHOLE = 0.7  # a top seen this much narrower than usual is partly hidden: not used
WHOLE_POINTS = 0.6  # nor one of an agent seen with this share of its usual points or fewer


def _quat(yaw: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, math.sin(yaw / 2) + 0.0, math.cos(yaw / 2))


def _spec(entity_id: int, kind: str, label: int, box: Box) -> EntitySpec:
    return EntitySpec(id=entity_id, name=f"{kind}_{entity_id}", kind=kind,  # type: ignore[arg-type]
                      shape=box.shape, size=tuple(float(v) for v in box.size),  # type: ignore[arg-type]
                      position=tuple(float(v) for v in box.centre),  # type: ignore[arg-type]
                      orientation=_quat(box.yaw), label=label, static=kind != "agent")


def _state(entity_id: int, centre: np.ndarray, yaw: float = 0.0) -> EntityState:
    return EntityState(id=entity_id, position=tuple(float(v) for v in centre),  # type: ignore[arg-type]
                       orientation=_quat(yaw))


def perceived_states(sightings: VideoSightings, camera: Camera) -> VideoStates:
    frames = sightings.frames
    specs: list[EntitySpec] = []
    rows: list[list[EntityState]] = [[] for _ in range(frames)]
    always = np.ones(frames, bool)

    def add(spec: EntitySpec, visible: np.ndarray) -> None:
        specs.append(spec)
        for t in np.flatnonzero(visible):
            rows[t].append(_state(spec.id, np.asarray(spec.position),
                                  2 * math.atan2(spec.orientation[2], spec.orientation[3])))

    agent_spec, agent_centres = _agent(sightings)
    if agent_spec is not None:
        specs.append(agent_spec)
        for t, centre in agent_centres.items():
            rows[t].append(_state(agent_spec.id, centre))
    goals = sorted((s for s in sightings.static if s.cls == "goal"), key=lambda s: s.code)
    for k, goal in enumerate(goals):
        box = compact_box(*compact_extent(goal.points, sightings.eye,
                                         sightings.pixel_angle, sightings.floor_z),
                          sightings.forward)
        add(_spec(2 + k, "goal", goal.code, box), goal.visible)
    next_id = 10
    for thing in sightings.static:
        if thing.cls != "obstacle":
            continue
        for box in obstacle_boxes(thing.points, sightings.floor_z):
            add(_spec(next_id, "obstacle", schema.OBSTACLE_LABEL, box), thing.visible)
            next_id += 1
    pieces, bridges = floor_boxes(sightings.background, sightings.background_valid,
                                  sightings.floor_z)
    for box in bridges:
        add(_spec(next_id, "obstacle", schema.OBSTACLE_LABEL, box), always)
        next_id += 1
    _occluder(sightings, specs, rows)
    for k, box in enumerate(pieces):
        add(_spec(40 + k, "floor", 0, box), always)
    by_id = sorted(specs, key=lambda s: s.id)
    return VideoStates(entities=tuple(by_id), camera=camera, fps=sightings.fps,
                       frames=[sorted(r, key=lambda s: s.id) for r in rows])


def _agent(sightings: VideoSightings) -> tuple[EntitySpec | None, dict[int, np.ndarray]]:
    # a stray point (a pixel of an edge it passes) would stretch the box: only the agent's own
    seen = {t: _own_points(p) for t, p in enumerate(sightings.agent) if p is not None}
    seen = {t: p for t, p in seen.items() if len(p) >= MIN_AGENT_POINTS}
    if not seen:
        return None, {}
    middle = float(np.median([len(p) for p in seen.values()]))
    # a sliver at an occluder's edge tells too little: unseen instead
    seen = {t: p for t, p in seen.items() if len(p) >= MIN_SHOWN * middle}
    a = 1 - int(np.argmax(np.abs(sightings.forward[:2])))  # the axis across the view
    bounds = {t: compact_extent(p, sightings.eye, sightings.pixel_angle, sightings.floor_z)
              for t, p in seen.items()}
    spans = np.array([bounds[t][1] - bounds[t][0] for t, p in seen.items()
                      if TYPICAL[0] * middle <= len(p) <= TYPICAL[1] * middle])
    side, tall = float(np.median(spans[:, a])), float(np.median(spans[:, 2]))
    centres = {t: compact_box(*bounds[t], sightings.forward, side, tall).centre for t in seen}
    _centre_on_top(seen, centres)
    partial = [t for t, p in seen.items() if len(p) <= WHOLE_POINTS * middle]
    _anchor_cut_sides(partial, bounds, centres, a, side)
    if not centres:  # only ever seen cut short of its middle
        return None, {}
    first = next(iter(centres.values()))
    spec = _spec(1, "agent", schema.AGENT_LABEL, Box("box", first, np.array([side, side, tall])))
    return spec, centres


def _anchor_cut_sides(partial: list[int], bounds: dict[int, tuple[np.ndarray, np.ndarray]],
                      centres: dict[int, np.ndarray], across: int, side: float) -> None:
    """Partly hidden frames (an upright edge, the occluder's or a wall's, cuts one side of
    the agent): its centre across the view is half its width in from the side that shows its
    true outline, the one whose centre lies nearer to where the frames that show it whole put
    it (their line through the nearest frame on each side, or on the one side there is). A
    frame cut short of the agent's middle is dropped: its top may be hidden too, and with it
    the agent's height."""
    for t in partial:
        low, high = bounds[t]
        if high[across] - low[across] < side / 2:
            del centres[t]
    partial = [t for t in partial if t in centres]
    partial_set = set(partial)
    whole = sorted(t for t in centres if t not in partial_set)
    if not whole:
        return
    times = np.array(whole)
    places = np.array([centres[t][across] for t in whole])
    for t in partial:
        low, high = bounds[t]
        if high[across] - low[across] >= side * 0.9:  # not cut across the view
            continue
        k = int(np.searchsorted(times, t))
        near = [i for i in (k - 2, k - 1) if i >= 0] if k == len(times) else \
            [i for i in (k, k + 1) if i < len(times)] if k == 0 else [k - 1, k]
        if len(near) == 2 and times[near[1]] != times[near[0]]:
            slope = (places[near[1]] - places[near[0]]) / (times[near[1]] - times[near[0]])
            guess = places[near[0]] + slope * (t - times[near[0]])
        else:
            guess = places[near[0]]
        options = (low[across] + side / 2, high[across] - side / 2)
        centres[t][across] = min(options, key=lambda c: abs(c - guess))


def _own_points(points: np.ndarray) -> np.ndarray:
    """The points within ``AGENT_REACH`` of their median (the agent is 0.2 m across)."""
    middle = np.median(points, axis=0)
    return points[np.linalg.norm(points - middle, axis=1) <= AGENT_REACH]


def _centre_on_top(seen: dict[int, np.ndarray], centres: dict[int, np.ndarray]) -> None:
    """Each frame's horizontal centre from the agent's top, where the agent is seen whole.

    The camera looks down on the agent, so it sees all of its top (a cube's face, a sphere's
    crown, a cone's tip), whose outline is centred on the body whatever its yaw; the side
    facing the camera, which ``compact_box`` starts from, comes nearer as a cube turns (by up to
    0.04 m) and is sampled coarsely along the view. The middle of the top's extent is used in
    frames that show the agent whole (more than ``WHOLE_POINTS`` of its usual number of
    points: a turning cube shows one side or two; a top ``TOP_WHOLE`` as wide as usual); a
    partly hidden agent keeps the box's centre."""
    middle = float(np.median([len(p) for p in seen.values()]))
    tops = {}
    for t, points in seen.items():
        top = points[points[:, 2] >= points[:, 2].max() - TOP_BAND, :2]
        if len(top) >= MIN_TOP_POINTS and len(points) > WHOLE_POINTS * middle:
            low, high = top.min(axis=0), top.max(axis=0)
            tops[t] = ((low + high) / 2, float(np.linalg.norm(high - low)))
    if not tops:
        return
    usual = float(np.median([width for _, width in tops.values()]))
    for t, (centre, width) in tops.items():
        if width >= TOP_WHOLE * usual:
            centres[t] = np.array([centre[0], centre[1], centres[t][2]])


def _occluder(sightings: VideoSightings, specs: list[EntitySpec],
              rows: list[list[EntityState]]) -> None:
    """The occluder: upright where it stands, and in each frame it moves, the box its points
    fill, tilted so that its own size (as it stood) covers them: a panel falling toward or
    away from the camera leans about the axis across the view, and lies flat once down (what
    BIPaCK reads as the occluder having revealed what it hid)."""
    standing = [s for s in sightings.static if s.cls == "occluder"]
    moving = {t: p for t, p in enumerate(sightings.occluder) if p is not None and len(p) >= 6}
    if not standing and not moving:
        return
    boxes: dict[int, Box] = {}
    if standing:
        lo, hi = extent(np.concatenate([s.points for s in standing]))
        lo[2] = sightings.floor_z
        box = Box("box", (lo + hi) / 2, hi - lo)
        boxes = {t: box for t in np.flatnonzero(np.any([s.visible for s in standing], axis=0))}
    for t, points in moving.items():
        lo, hi = extent(points)
        boxes[t] = Box("box", (lo + hi) / 2, hi - lo)
    sizes = np.median([b.size for b in boxes.values()], axis=0)  # mostly standing
    first = boxes[min(boxes)]
    specs.append(_spec(30, "occluder", schema.OCCLUDER_LABEL, Box("box", first.centre, sizes)))
    along = view_axis(sightings.forward)
    for t, box in boxes.items():
        tilt = _lean(box, sizes, first.centre, along) if t in moving else (0.0, 0.0, 0.0, 1.0)
        rows[t].append(EntityState(id=30, position=tuple(float(v) for v in box.centre),  # type: ignore[arg-type]
                                   orientation=tilt))


def _lean(box: Box, upright: np.ndarray, start: np.ndarray, along: int
          ) -> tuple[float, float, float, float]:
    """The rotation (a quaternion) of a panel of ``upright`` size filling ``box``, leaning
    along the view axis ``along``, from its extents along the view and up (a panel of height h
    and thickness d tilted by a spans h sin a + d cos a along, h cos a + d sin a up), toward
    the side its centre has moved to from where it stood (``start``): the way its top went."""
    height, thick = float(upright[2]), float(upright[along])
    angle = math.atan2(max(float(box.size[along]) - thick, 0.0),
                       max(float(box.size[2]) - thick, 0.0))
    if angle < 1e-3 or height <= thick:
        return (0.0, 0.0, 0.0, 1.0)
    lean = np.zeros(3)
    lean[along] = 1.0 if box.centre[along] >= start[along] else -1.0
    axis = np.cross([0.0, 0.0, 1.0], lean)  # turning up toward ``lean`` about it
    half = angle / 2
    return (*(float(v) * math.sin(half) + 0.0 for v in axis), math.cos(half))

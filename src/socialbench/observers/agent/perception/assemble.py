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
)
from socialbench.observers.agent.perception.floor import floor_boxes
from socialbench.observers.agent.perception.sightings import VideoSightings

TYPICAL = (0.7, 1.4)  # frames showing this share of the agent's median pixel count set its size
# (fewer: partly hidden; more: joined by a sliver of something else moving, a falling panel)
MIN_AGENT_POINTS = 3


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
    seen = {t: p for t, p in enumerate(sightings.agent)
            if p is not None and len(p) >= MIN_AGENT_POINTS}
    if not seen:
        return None, {}
    middle = float(np.median([len(p) for p in seen.values()]))
    a = 1 - int(np.argmax(np.abs(sightings.forward[:2])))  # the axis across the view
    bounds = {t: compact_extent(p, sightings.eye, sightings.pixel_angle, sightings.floor_z)
              for t, p in seen.items()}
    spans = np.array([bounds[t][1] - bounds[t][0] for t, p in seen.items()
                      if TYPICAL[0] * middle <= len(p) <= TYPICAL[1] * middle])
    side, tall = float(np.median(spans[:, a])), float(np.median(spans[:, 2]))
    centres = {t: compact_box(*bounds[t], sightings.forward, side, tall).centre for t in seen}
    first = next(iter(centres.values()))
    spec = _spec(1, "agent", schema.AGENT_LABEL, Box("box", first, np.array([side, side, tall])))
    return spec, centres


def _occluder(sightings: VideoSightings, specs: list[EntitySpec],
              rows: list[list[EntityState]]) -> None:
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
    sizes = np.median([b.size for b in boxes.values()], axis=0)
    first = boxes[min(boxes)]
    specs.append(_spec(30, "occluder", schema.OCCLUDER_LABEL, Box("box", first.centre, sizes)))
    for t, box in boxes.items():
        rows[t].append(_state(30, box.centre))

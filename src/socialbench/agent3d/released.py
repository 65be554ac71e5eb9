"""Read the released AGENT data (made in TDW, y up, left-handed) into typed trials (z up).

The released folder layout is the one ``io.py`` writes (``scenario_*/type_X.Y/{split}_set/
Trial_N/{Familiarization_video_k, expected, surprising}/state_info.json``); scenario, type,
split and trial number are read from the folder names. The papers do not document the JSON keys,
so this reader follows the agent spec's list of what ``state_info.json`` holds and accepts the
likely spellings; the assumptions, in one place:

- The file is a list of frames, or an object whose ``frames`` (or ``states``) is that list.
  A frame is a list of entity objects, or an object mapping entity id -> entity object
  (possibly under ``objects`` / ``entities``).
- Per entity: ``id`` (or ``object_id``, or the mapping key); ``position``; ``rotation`` (a
  quaternion x, y, z, w); ``velocity``; ``angular_velocity``; ``bounds`` (or ``bbox``) with
  ``center`` and the six faces ``top bottom left right front back``; ``label`` (or ``type``):
  1-8 goal colour code, 9 agent, 10 obstacle, 11 occluder (agent spec), or the words agent /
  goal / obstacle / occluder; ``color`` (RGBA, 0-1 or 0-255); ``size`` (full extents).
  Vectors may be lists or objects ``{"x":, "y":, "z":[, "w":]}``.
- A frame lists the entities the camera sees: in scenario 3 an entity the occluder hides may
  be missing from a frame, or listed with ``"occluded": true`` or ``"visible": false`` (and no
  position); either way it has no state in that frame. Each entity's body is built from the
  first frame that shows it.
- An optional ``camera`` with ``position`` and ``rotation`` (Euler degrees, TDW's pitch, yaw,
  roll) or a ``look_at`` point; without one, the spec's default camera for one-goal or
  two-goal scenes is used.

TDW -> ours: the one conversion the generator's layouts use too (``layout.constants``): points
(x, y, z) -> (-x, -z, y), quaternions (x, y, z, w) -> (x, z, -y, w). It is a reflection, which
turns TDW's left-handed frame into our right-handed one without mirroring the scene: what the
released camera shows on the image's left, ours shows on the left.
Entities are rebuilt as BIPaCK does (agent spec): obstacles and occluders as
boxes, the agent and goal objects as spheres, each sized by its 3D box in the first frame; a
body that moves during the video is dynamic, the rest static.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from socialbench.agent3d.io import (
    CONFIG_FILE,
    EXPECTED,
    MAX_ENTITIES,
    MAX_FAMILIARIZATION,
    MAX_FRAMES,
    STATES_FILE,
    SURPRISING,
    familiarization_folder,
    read_json,
)
from socialbench.agent3d.layout.constants import tdw_camera as tdw_eye_target
from socialbench.agent3d.layout.constants import tdw_point, tdw_quaternion
from socialbench.agent3d.schema import (
    AGENT_LABEL,
    OBSTACLE_LABEL,
    OCCLUDER_LABEL,
    Camera,
    EntitySpec,
    EntityState,
    SceneConfig,
    Trial,
    Video,
    VideoKind,
)
from socialbench.core.errors import DataFileError

# agent spec, released generator's cameras (TDW: position, Euler degrees pitch/yaw/roll)
ONE_GOAL_CAMERA = ((1.0, 1.45, 0.69), (23.06, -154.9, 0.0))
TWO_GOAL_CAMERA = ((0.0, 1.678, 1.168), (14.45, 180.0, 0.0))
MOVING = 1e-3  # m: a body that moves more than this during a video is dynamic
_KINDS = {"agent": AGENT_LABEL, "obstacle": OBSTACLE_LABEL, "occluder": OCCLUDER_LABEL}
_FOLDER = {
    "scenario": re.compile(r"^scenario_([1-4])(_|$)"),
    "type": re.compile(r"^type_([1-4]\.[1-5])$"),
    "split": re.compile(r"^(train|validation|test)_set$"),
    "trial": re.compile(r"^Trial_(\d{1,9})$"),
}


def tdw_position(vector: Sequence[float]) -> tuple[float, float, float]:
    """A TDW point or vector (y up) in our coordinates (z up): ``constants.tdw_point``."""
    return tdw_point(tuple(vector))


def tdw_camera(position: Sequence[float], euler_deg: Sequence[float]) -> Camera:
    """A TDW camera (position, Euler pitch/yaw/roll in degrees) as a z-up look-at camera."""
    eye, target = tdw_eye_target(tuple(position), tuple(euler_deg), distance=1.0)  # type: ignore[arg-type]
    return Camera(position=eye, target=target)


def load_released_trial(trial_dir: Path) -> Trial:
    """Read a released AGENT trial folder (TDW states) into a typed, z-up Trial."""
    trial_dir = Path(trial_dir)
    found = _from_folder_names(trial_dir)
    familiar = []
    for k in range(1, MAX_FAMILIARIZATION + 1):
        folder = trial_dir / familiarization_folder(k)
        if not folder.is_dir():
            break
        familiar.append(folder)
    if not familiar or not (trial_dir / EXPECTED).is_dir():
        raise DataFileError(trial_dir, "a released trial needs Familiarization_video_1 and "
                            "expected/ folders")

    def video(folder: Path, kind: VideoKind) -> Video:
        return load_released_video(folder, found["scenario"], found["type"], kind)

    surprising = trial_dir / SURPRISING
    return Trial(scenario=found["scenario"], trial_type=found["type"],
                 split=found["split"], index=found["trial"],  # type: ignore[arg-type]
                 familiarization=[video(f, "familiarization") for f in familiar],
                 expected=video(trial_dir / EXPECTED, "expected"),
                 surprising=video(surprising, "surprising") if surprising.is_dir() else None)


def _from_folder_names(trial_dir: Path) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for part in trial_dir.resolve().parts:
        for key, pattern in _FOLDER.items():
            match = pattern.match(part)
            if match:
                found[key] = match.group(1)
    missing = [key for key in _FOLDER if key not in found]
    if missing:
        raise DataFileError(trial_dir, f"cannot tell the {', '.join(missing)} from the folder "
                            f"names; keep the released scenario_*/type_X.Y/*_set/Trial_N layout")
    found["scenario"], found["trial"] = int(found["scenario"]), int(found["trial"])
    if not found["type"].startswith(f"{found['scenario']}."):
        raise DataFileError(trial_dir, f"type {found['type']} is not in scenario "
                            f"{found['scenario']}")
    return found


def load_released_video(video_dir: Path, scenario: int, trial_type: str,
                        kind: VideoKind) -> Video:
    """Read one released video folder's ``state_info.json`` into a z-up Video."""
    where = Path(video_dir) / STATES_FILE
    data = read_json(where)
    raw_frames = data.get("frames", data.get("states")) if isinstance(data, dict) else data
    if not isinstance(raw_frames, list) or not raw_frames:
        raise DataFileError(where, "expected a non-empty list of frames (or 'frames': [...])")
    if len(raw_frames) > MAX_FRAMES:
        raise DataFileError(where, f"{len(raw_frames)} frames, more than the {MAX_FRAMES} "
                            f"this reader accepts")
    parsed = [_frame(raw, where, index) for index, raw in enumerate(raw_frames)]
    first: dict[int, dict[str, Any]] = {}  # each entity's row in the first frame showing it
    for rows in parsed:
        for row in rows:
            first.setdefault(row["id"], row)
    moved = _moving_ids(parsed, first)
    entities = [_spec(row, row["id"] in moved) for row in first.values()]
    frames = []
    for index, rows in enumerate(parsed):
        if len({row["id"] for row in rows}) != len(rows):
            raise DataFileError(where, f"frame {index} lists an entity twice")
        frames.append([EntityState(r["id"], r["position"], r["rotation"], r["velocity"],
                                   r["angular_velocity"]) for r in rows])
    camera = _camera(data.get("camera") if isinstance(data, dict) else None, entities, where)
    annotations: dict[str, Any] = {"source": "released AGENT (TDW)"}
    if (Path(video_dir) / CONFIG_FILE).is_file():
        annotations["scene_config"] = read_json(Path(video_dir) / CONFIG_FILE)
    config = SceneConfig(scenario=scenario, trial_type=trial_type, video=kind,
                         entities=entities, camera=camera, annotations=annotations)
    return Video(config=config, frames=frames)


def _frame(raw: Any, where: Path, index: int) -> list[dict[str, Any]]:
    if isinstance(raw, dict):
        inner = raw.get("objects", raw.get("entities"))
        if inner is not None:
            raw = inner
    if isinstance(raw, dict):
        rows = [dict(value, id=value.get("id", key)) if isinstance(value, dict) else value
                for key, value in raw.items()]
    elif isinstance(raw, list):
        rows = raw
    else:
        raise DataFileError(where, f"frame {index} is neither a list nor an object of entities")
    if len(rows) > MAX_ENTITIES:
        raise DataFileError(where, f"frame {index} has {len(rows)} entities, more than "
                            f"{MAX_ENTITIES}")
    return [_entity(row, where, index) for row in rows if not _unseen(row)]


def _unseen(row: Any) -> bool:
    """A row flagged as out of the camera's view (scenario 3: hidden by the occluder)."""
    return isinstance(row, dict) and (row.get("occluded") is True or row.get("visible") is False)


def _entity(row: Any, where: Path, index: int) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise DataFileError(where, f"frame {index}: every entity must be an object")
    context = f"frame {index}"
    raw_id = row.get("id", row.get("object_id"))
    try:
        entity_id = int(raw_id)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise DataFileError(where, f"{context}: entity id {raw_id!r:.40} is not a number") \
            from None
    bounds = row.get("bounds", row.get("bbox"))
    box = None
    if isinstance(bounds, dict):
        box = {face: tdw_position(_numbers(bounds.get(face), 3, where, context))
               for face in ("center", "top", "bottom", "left", "right", "front", "back")
               if face in bounds}
    return {
        "id": entity_id,
        "position": tdw_position(_numbers(row.get("position"), 3, where, context)),
        "rotation": tdw_quaternion(_numbers(row.get("rotation", (0, 0, 0, 1)), 4, where,
                                            context)),
        "velocity": tdw_position(_numbers(row.get("velocity", (0, 0, 0)), 3, where, context)),
        "angular_velocity": tdw_position(_numbers(row.get("angular_velocity", (0, 0, 0)), 3,
                                                  where, context)),
        "box": box,
        "label": _label(row.get("label", row.get("type")), where, context),
        "color": row.get("color"),
        "size": row.get("size"),
        "where": where,
    }


def _numbers(value: Any, length: int, where: Path, context: str) -> tuple[float, ...]:
    if isinstance(value, Mapping):
        value = [value.get(axis) for axis in "xyzw"[:length]]
    if not isinstance(value, list | tuple) or len(value) != length or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            for v in value):
        raise DataFileError(where, f"{context}: expected {length} finite numbers, got "
                            f"{value!r:.60}")
    return tuple(float(v) for v in value)


def _label(value: Any, where: Path, context: str) -> int:
    if isinstance(value, str) and value.lower() in _KINDS:
        return _KINDS[value.lower()]
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= OCCLUDER_LABEL:
        return value
    if isinstance(value, str) and value.lower() in ("goal", "object"):
        return 1
    raise DataFileError(where, f"{context}: entity label {value!r:.40} is not 1-11 or agent, "
                        f"goal, obstacle, occluder")


def _moving_ids(frames: list[list[dict[str, Any]]], first: Mapping[int, dict[str, Any]]
                ) -> set[int]:
    start = {entity_id: row["position"] for entity_id, row in first.items()}
    moving = set()
    for rows in frames:
        for row in rows:
            if row["id"] in start and math.dist(row["position"], start[row["id"]]) > MOVING:
                moving.add(row["id"])
    return moving


def _spec(row: dict[str, Any], dynamic: bool) -> EntitySpec:
    label = row["label"]
    kind = {AGENT_LABEL: "agent", OBSTACLE_LABEL: "obstacle",
            OCCLUDER_LABEL: "occluder"}.get(label, "goal")
    box, size = row["box"], row["size"]
    if box and {"top", "bottom", "left", "right", "front", "back"} <= set(box):
        extents = (box["right"][0] - box["left"][0], box["back"][1] - box["front"][1],
                   box["top"][2] - box["bottom"][2])
        size = tuple(abs(e) for e in extents)
        centre = box.get("center", row["position"])
    elif size is not None:
        size = tuple(abs(v) for v in tdw_position(_numbers(size, 3, row["where"], "size")))
        centre = row["position"]
    else:
        raise DataFileError(row["where"], f"entity {row['id']} has neither bounds nor size")
    if min(size) <= 0:
        raise DataFileError(row["where"], f"entity {row['id']} has a zero-size box")
    shape = "box" if kind in ("obstacle", "occluder") else "sphere"  # as BIPaCK rebuilds them
    if shape == "sphere":
        size = (max(size),) * 3
    return EntitySpec(id=row["id"], name=f"{kind}_{row['id']}", kind=kind,  # type: ignore
                      shape=shape, size=size, position=tuple(centre),  # type: ignore[arg-type]
                      label=label, rgba=_rgba(row["color"]), static=not dynamic,
                      mass=1.0 if dynamic else 0.0)


def _rgba(color: Any) -> tuple[float, float, float, float]:
    if isinstance(color, Mapping):
        color = [color.get(c, 1.0) for c in "rgba"]
    if not isinstance(color, list | tuple) or len(color) not in (3, 4) or not all(
            isinstance(c, int | float) and math.isfinite(c) for c in color):
        return (0.5, 0.5, 0.5, 1.0)
    values = [float(c) for c in color] + [1.0] * (4 - len(color))
    if max(values) > 1.0:
        values = [c / 255.0 for c in values]
    return tuple(min(1.0, max(0.0, c)) for c in values)  # type: ignore[return-value]


def _camera(raw: Any, entities: list[EntitySpec], where: Path) -> Camera:
    if isinstance(raw, dict) and "position" in raw:
        position = _numbers(raw["position"], 3, where, "camera")
        if "look_at" in raw:
            return Camera(position=tdw_position(position),
                          target=tdw_position(_numbers(raw["look_at"], 3, where, "camera")))
        if "rotation" in raw:
            return tdw_camera(position, _numbers(raw["rotation"], 3, where, "camera"))
    goals = sum(1 for e in entities if e.kind == "goal")
    return tdw_camera(*(TWO_GOAL_CAMERA if goals >= 2 else ONE_GOAL_CAMERA))

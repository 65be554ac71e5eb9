"""AGENT trial files: write and read trials in the released folder layout.

Layout (as the released AGENT data)::

    scenario_2_action_efficiency/type_2.1/test_set/Trial_7/
        trial.json                       # written last: a trial without it is incomplete
        Familiarization_video_1/         # 1 in scenarios 1-3, 4 in scenario 4
            scene_config.json            # the generation parameters: rebuilds the scene exactly
            state_info.json              # per frame, per entity states (+ camera, entity table)
            [rgb.mp4, frames.npz | rgb/ depth/ segmentation/]   # with --render (render.py)
        expected/
        surprising/                      # test split only
    _meta/scenario_2_action_efficiency/type_2.1/test_set/Trial_7.json
                                         # per video: what the agent does and why (annotations)

The annotations (the goal pursued, the plan and its costs, rewards and the preferred goal,
swapped sides, entities the agent passes through) give the answer away, so they live in
``_meta/`` beside the dataset, as BIB's design facts do, never in the files a model reads;
which test video is which is said by its folder's name alone. ``load_trial(...,
annotations=True)`` puts them back for the validator and the tour.

Scenario 3 (videos with an occluder; ``visibility.hides_unseen``): a video's files hold what
the camera sees (``visibility.camera_view``, AGENT paper): a frame lists only the entities
visible in it (the agent is missing while the occluder hides it, the wall until the falling
occluder reveals it) and ``scene_config.json`` / the entity table list only entities seen in
some frame. The ground truth of such a video, its files as they would be otherwise, lives in
``_meta/<scenario>/<type>/<split>_set/Trial_N/<video folder>/`` (:func:`truth_dir`).

``scene_config.json``: ``format``, ``scenario``, ``trial_type``, ``entities`` (one spec per
body), ``camera``, ``seed`` (the trial's) and ``fps``.

``trial.json``: ``format``, ``scenario`` (1-4) and its folder name, ``trial_type`` ("2.1"),
``split``, ``index``, ``videos`` (the folders in order) and, for the test split,
``test = {"expected": "expected", "surprising": "surprising"}``: what the evaluation needs.

``state_info.json``: ``fps``, ``num_frames``, ``camera`` (position, target, fov_deg, up),
``entities`` (per entity: id, name, class, shape, label, color (RGBA), size (full extents),
segmentation_color) and ``frames``: one list per frame of, per entity (per entity the camera
sees, in scenario 3), ``id``, ``class``,
``label``, ``position``, ``rotation`` (quaternion x, y, z, w), ``velocity``,
``angular_velocity`` and ``bbox``: the world axis-aligned 3D box as ``center`` plus the centres
of its six faces ``top``/``bottom`` (+z/-z), ``right``/``left`` (+x/-x), ``back``/``front``
(+y/-y). Coordinates are PyBullet's (metres, z up); floats have 5 decimals.

Readers raise a one-line ``DataFileError`` for anything corrupt and bound what they allocate.
The released AGENT states layout (TDW, y up) is read by ``released.py``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from socialbench.agent3d.bodies import ROUND_DIGITS, quaternion_matrices, shape_mesh
from socialbench.agent3d.json_rows import filled_rows
from socialbench.agent3d.render import RenderOptions, render_video, segmentation_color
from socialbench.agent3d.schema import (
    FPS,
    SCENARIOS,
    Camera,
    EntitySpec,
    EntityState,
    SceneConfig,
    Trial,
    Video,
)
from socialbench.agent3d.state_columns import LAYOUTS, columns_text, read_columns
from socialbench.agent3d.visibility import camera_view, hides_unseen
from socialbench.core.errors import DataFileError
from socialbench.core.files import atomic_write
from socialbench.core.gc_pause import gc_paused
from socialbench.core.runner import META_DIR

FORMAT = "socialbench-agent3d/2"  # /1 stored what scenario 3's occluder hides
CONFIG_FORMAT = "socialbench-agent3d-scene/3"  # /2: scenario 3 listed hidden entities; /1 held
# the annotations and the video's kind
TRIAL_FILE = "trial.json"
CONFIG_FILE = "scene_config.json"
STATES_FILE = "state_info.json"
EXPECTED, SURPRISING = "expected", "surprising"
SPLITS = ("train", "validation", "test")
MAX_JSON_BYTES = 64 * 1024 * 1024  # refuse larger files before parsing (a 25 s video: ~3 MB)
MAX_FRAMES = 35 * 120  # two minutes at 35 fps; AGENT's longest video is 25.2 s (agent spec)
MAX_ENTITIES = 256
MAX_FAMILIARIZATION = 16  # AGENT has 1 or 4 (agent spec)


def familiarization_folder(k: int) -> str:
    """The released name of the k-th (1-based) familiarization video's folder."""
    return f"Familiarization_video_{k}"


def trial_relpath(scenario: int, trial_type: str, split: str, index: int) -> str:
    """``scenario_*/type_X.Y/{split}_set/Trial_N``: where a trial lives under a dataset root."""
    return f"{SCENARIOS[scenario]}/type_{trial_type}/{split}_set/Trial_{index}"


# ---------------------------------------------------------------------------------- writing


def write_trial(trial: Trial, trial_dir: Path, render: RenderOptions | None = None,
                states: str = LAYOUTS[0]) -> None:
    """Write a trial's videos (and, with ``render``, their frames) into ``trial_dir``;
    ``states``: the layout of ``state_info.json`` (``columns``, ``rows``: :func:`states_text`).

    Every file is written under a temporary name and renamed when complete; ``trial.json``
    comes last, so an interrupted write never leaves a trial that looks complete. The garbage
    collector is paused meanwhile (``gc_pause``: speed only).
    """
    with gc_paused():
        _write_trial_files(trial, Path(trial_dir), render, states)


def _write_trial_files(trial: Trial, trial_dir: Path, render: RenderOptions | None,
                       states: str) -> None:
    trial_dir.mkdir(parents=True, exist_ok=True)
    (trial_dir / TRIAL_FILE).unlink(missing_ok=True)  # rewriting: incomplete until the end
    videos = named_videos(trial)
    meta = meta_path(trial_dir)
    for folder, video in videos:
        # no file of the trial needs its own atomic write: the trial is incomplete until
        # trial.json, written last (speed: a rename and an unlink less per file)
        write_video(video, trial_dir / folder, render, truth_dir(meta) / folder, states,
                    atomic=False)
    meta.parent.mkdir(parents=True, exist_ok=True)
    write_json(meta, {"format": FORMAT, "annotations": {folder: video.config.annotations
                                                        for folder, video in videos}}, indent=1)
    info: dict[str, Any] = {
        "format": FORMAT,
        "scenario": trial.scenario,
        "scenario_name": SCENARIOS[trial.scenario],
        "trial_type": trial.trial_type,
        "split": trial.split,
        "index": trial.index,
        "videos": [folder for folder, _ in videos],
    }
    if trial.surprising is not None:
        info["test"] = {"expected": EXPECTED, "surprising": SURPRISING}
    write_json(trial_dir / TRIAL_FILE, info, indent=1)


def write_video(video: Video, video_dir: Path, render: RenderOptions | None = None,
                truth: Path | None = None, states: str = LAYOUTS[0],
                atomic: bool = True) -> None:
    """Write ``scene_config.json`` and ``state_info.json`` (and rendered frames) of one video.

    A video whose files keep only what the camera sees (``visibility.hides_unseen``: scenario
    3) is written as :func:`visibility.camera_view` gives it, and its ground truth (every
    entity in every frame) into the folder ``truth`` (under ``_meta/``: :func:`truth_dir`);
    the frames are rendered from the ground truth, which holds what the occluder hides.
    ``atomic=False``: the state files are written in place (for a caller whose own last file
    marks the whole as complete, as :func:`write_trial`'s ``trial.json`` does)."""
    shown = video
    if hides_unseen(video):
        if truth is None:
            raise ValueError("a video that hides what the camera does not see needs a folder "
                             "for its ground truth")
        _write_states(video, Path(truth), states, atomic)
        shown = camera_view(video)
    _write_states(shown, Path(video_dir), states, atomic)
    if render is not None:
        render_video(video, video_dir, render)


def _write_states(video: Video, video_dir: Path, states: str, atomic: bool = True) -> None:
    video_dir.mkdir(parents=True, exist_ok=True)
    write_json(video_dir / CONFIG_FILE, config_to_json(video.config), indent=1, atomic=atomic)
    (_write_line if atomic else _write_in_place)(video_dir / STATES_FILE,
                                                 states_text(video, states))


def write_json(path: Path, data: Any, indent: int | None = None, atomic: bool = True) -> None:
    """Write ``data`` as JSON and a newline; the file is complete or absent (``atomic=False``:
    written in place, for a caller whose own last file marks the whole as complete)."""
    separators = (",", ": ") if indent is not None else (",", ":")
    text = json.dumps(data, indent=indent, separators=separators, allow_nan=False)
    (_write_line if atomic else _write_in_place)(path, text)


def _write_line(path: Path, text: str) -> None:
    with atomic_write(path) as tmp:
        tmp.write_text(text + "\n")


def _write_in_place(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
        file.write("\n")


def named_videos(trial: Trial) -> list[tuple[str, Video]]:
    """(folder name, video) for every video of a trial, in the released order."""
    videos = [(familiarization_folder(k + 1), v) for k, v in enumerate(trial.familiarization)]
    videos.append((EXPECTED, trial.expected))
    if trial.surprising is not None:
        videos.append((SURPRISING, trial.surprising))
    return videos


def config_to_json(config: SceneConfig) -> dict[str, Any]:
    """``scene_config.json``: the SceneConfig's fields, tuples as lists, but for the video's
    kind (its folder's name says it) and the annotations (``_meta/``): the answer stays out."""
    # asdict's fields, built directly (asdict would deep-copy the annotations only to drop
    # them): the same JSON, tuples written as lists
    return {"format": CONFIG_FORMAT, "scenario": config.scenario,
            "trial_type": config.trial_type, "entities": [vars(e).copy() for e in config.entities],
            "camera": vars(config.camera).copy(), "seed": config.seed, "fps": config.fps}


def meta_path(trial_dir: Path) -> Path:
    """Where a trial's annotations live: ``ROOT/_meta/<scenario>/<type>/<split>_set/Trial_N.json``
    for a trial in the released layout under ROOT, else ``_meta/<folder>.json`` beside it."""
    trial_dir = Path(trial_dir)
    parts = trial_dir.parts[-4:]
    if len(parts) == 4 and parts[0] in SCENARIOS.values() and parts[1].startswith("type_") \
            and parts[2].endswith("_set") and parts[3].startswith("Trial_"):
        return trial_dir.parents[3].joinpath(META_DIR, *parts[:3], f"{parts[3]}.json")
    return trial_dir.parent / META_DIR / f"{trial_dir.name}.json"


def truth_dir(meta: Path) -> Path:
    """Where the ground truth of a trial's videos that hide what the camera does not see lives:
    beside its annotations file ``meta``, ``.../Trial_N/<video folder>/``."""
    return Path(meta).with_suffix("")


def state_info_json(video: Video) -> dict[str, Any]:
    """``state_info.json``: the camera, an entity table and per-frame per-entity states."""
    specs = {spec.id: spec for spec in video.config.entities}
    boxes = {spec.id: world_boxes(spec, [_state(frame, spec.id) for frame in video.frames])
             for spec in video.config.entities}
    frames = []
    for index, frame in enumerate(video.frames):
        rows = []
        for state in frame:
            spec = specs[state.id]
            rows.append({
                "id": state.id, "class": spec.kind, "label": spec.label,
                "position": list(state.position), "rotation": list(state.orientation),
                "velocity": list(state.velocity), "angular_velocity": list(state.angular_velocity),
                "bbox": boxes[state.id][index],
            })
        frames.append(rows)
    return {
        "format": FORMAT,
        "fps": video.config.fps,
        "num_frames": len(video.frames),
        "camera": asdict(video.config.camera),
        "entities": entity_table(video.config.entities),
        "frames": frames,
    }


def states_text(video: Video, layout: str = LAYOUTS[0]) -> str:
    """``state_info.json``'s text in a layout: ``rows`` (:func:`state_info_text`: every
    entity's full row, 3D box included, in every frame) or ``columns`` (``state_columns``:
    each entity once, its numbers in one block; ~10x smaller, faster to write and read; the
    same states read back). Frames whose entity order fits no single list are written as
    ``rows``."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown state layout {layout!r}; use {' or '.join(LAYOUTS)}")
    if layout == "columns":
        specs = {spec.id: spec for spec in video.config.entities}
        columns = columns_text(video.frames, specs, _row_head)
        if columns is not None:
            return f"{_states_head(video)[:-1]},{columns}}}"
    return state_info_text(video)


def _states_head(video: Video) -> str:
    """``state_info.json`` but for its states, as compact JSON."""
    return _compact({
        "format": FORMAT, "fps": video.config.fps, "num_frames": len(video.frames),
        "camera": asdict(video.config.camera), "entities": entity_table(video.config.entities)})


def state_info_text(video: Video) -> str:
    """``state_info.json``'s text: the bytes of compact ``json.dumps(state_info_json(video))``,
    built faster. Each state object (a static body's is the same object in every frame) gets
    its 3D box computed and its row encoded once, and an entity's rows are encoded together
    (``json_rows.filled_rows``: the digits JSON writes for 5-decimal floats, laid out for all
    rows at once; tests/agent3d/test_io.py compares the bytes)."""
    specs = {spec.id: spec for spec in video.config.entities}
    head = _states_head(video)
    columns = _entity_columns(video.frames)
    frames = _frames_by_column(columns, specs) if columns is not None \
        else _frames_by_state(video.frames, specs)
    return f'{head[:-1]},"frames":[{frames}]}}'


def _entity_columns(frames: Sequence[Sequence[EntityState]]) -> list[tuple] | None:
    """Per place in a frame, its state in every frame, when every frame lists the same
    entities in the same order (a simulated video; not the camera's view of scenario 3);
    else None."""
    if not frames or not frames[0] or any(len(frame) != len(frames[0]) for frame in frames):
        return None
    columns = list(zip(*frames, strict=True))
    if any(len({state.id for state in column}) != 1 for column in columns):
        return None
    return columns


def _frames_by_column(columns: list[tuple], specs: Mapping[int, EntitySpec]) -> str:
    """The frames' text from :func:`_entity_columns`: a column whose states are all one object
    (a body that cannot move) is encoded once, any other state by state; the rows of all
    columns are encoded at once, then laid out frame by frame."""
    count = len(columns[0])
    distinct = [column[:1] if len(set(map(id, column))) == 1 else column for column in columns]
    texts = iter(_encoded_rows([(column[0].id, states) for column, states
                                in zip(columns, distinct, strict=True)], specs))
    laid_out = []
    for states in distinct:
        rows = [next(texts) for _ in states]
        laid_out.append(rows * count if len(states) == 1 else rows)
    return "[" + "],[".join(map(",".join, zip(*laid_out, strict=True))) + "]"


def _frames_by_state(frames: Sequence[Sequence[EntityState]],
                     specs: Mapping[int, EntitySpec]) -> str:
    """The frames' text for frames that list entities differently: each distinct state object
    (by identity) encoded once."""
    distinct: dict[int, list[EntityState]] = {spec_id: [] for spec_id in specs}
    seen: set[int] = set()
    for frame in frames:
        for state in frame:
            if id(state) not in seen:
                seen.add(id(state))
                distinct[state.id].append(state)
    groups = [(entity_id, states) for entity_id, states in distinct.items() if states]
    rows = {id(state): text for (_, states), texts in
            zip(groups, _grouped(_encoded_rows(groups, specs), groups), strict=True)
            for state, text in zip(states, texts, strict=True)}
    return ",".join("[" + ",".join([rows[id(s)] for s in frame]) + "]" for frame in frames)


def _grouped(texts: list[str], groups: Sequence[tuple[int, Sequence]]) -> list[list[str]]:
    """``texts`` cut into the groups' lengths."""
    cut, start = [], 0
    for _, states in groups:
        cut.append(texts[start:start + len(states)])
        start += len(states)
    return cut


def _encoded_rows(groups: Sequence[tuple[int, Sequence[EntityState]]],
                  specs: Mapping[int, EntitySpec]) -> list[str]:
    """Every state's row (id, class, label, its 13 numbers and 3D box) as compact JSON, groups
    of one entity's states in order: one table of numbers for all of them, encoded at once."""
    groups = [(entity_id, states) for entity_id, states in groups if states]
    if not groups:
        return []
    numbers = np.concatenate([
        np.concatenate([np.array([s.position for s in states], dtype=float).reshape(-1, 3),
                        np.array([s.orientation for s in states], dtype=float).reshape(-1, 4),
                        np.array([s.velocity for s in states], dtype=float).reshape(-1, 3),
                        np.array([s.angular_velocity for s in states],
                                 dtype=float).reshape(-1, 3),
                        (np.round(box_points(specs[entity_id], states), ROUND_DIGITS)
                         + 0.0).reshape(len(states), -1)], axis=1)
        for entity_id, states in groups])
    if not np.isfinite(numbers).all():  # nan, inf: not JSON (json.dumps refuses them too)
        raise ValueError(f"a state holds a number JSON cannot write: "
                         f"{numbers[~np.isfinite(numbers)][0]}")
    texts = iter(filled_rows(_ROW_PIECES, numbers))
    rows = []
    for entity_id, states in groups:
        head = _row_head(entity_id, specs[entity_id])
        rows += [head + next(texts) for _ in states]
    return rows


def _row_head(entity_id: int, spec: EntitySpec) -> str:
    """The start of an entity's state rows as compact JSON (then ``_ROW_PIECES``)."""
    return (f'{{"id":{_compact(entity_id)},"class":{_compact(spec.kind)},'
            f'"label":{_compact(spec.label)},')


def _row_pieces() -> list[str]:
    """A state row after its head, cut where its 34 numbers go (position, rotation, velocity,
    angular velocity, then the box's 7 points): 35 pieces."""
    pieces = ['"position":[', ",", ",", '],"rotation":[', ",", ",", ",",
              '],"velocity":[', ",", ",", '],"angular_velocity":[', ",", ","]
    for index, name in enumerate(FACE_NAMES):
        pieces += [('],"bbox":{' if index == 0 else "],") + f'"{name}":[', ",", ","]
    return [*pieces, "]}}"]


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), allow_nan=False)


def entity_table(entities: Sequence[EntitySpec]) -> list[dict[str, Any]]:
    """``state_info.json``'s ``entities``: what each entity is, once per video."""
    return [{"id": s.id, "name": s.name, "class": s.kind, "shape": s.shape, "label": s.label,
             "color": list(s.rgba), "size": list(s.size),
             "segmentation_color": list(segmentation_color(s.id))} for s in entities]


def _state(frame: Sequence[EntityState], entity_id: int) -> EntityState | None:
    return next((s for s in frame if s.id == entity_id), None)


def world_boxes(spec: EntitySpec, states: Sequence[EntityState | None]) -> list[dict | None]:
    """The world axis-aligned box (centre + six face centres) of one entity in each frame."""
    present = [s for s in states if s is not None]
    if not present:
        return [None] * len(states)
    # rint(x * 1e5) / 1e5 is the double nearest a 5-decimal number, as round() gives; + 0.0
    # turns -0.0 into 0.0
    points = (np.round(box_points(spec, present), ROUND_DIGITS) + 0.0).tolist()
    boxes = iter(dict(zip(FACE_NAMES, frame, strict=True)) for frame in points)
    return [next(boxes) if s is not None else None for s in states]


def box_points(spec: EntitySpec, states: Sequence[EntityState]) -> np.ndarray:
    """(N, 7, 3): per state, the world box's centre and face centres (``FACE_NAMES`` order)."""
    vertices, _ = shape_mesh(spec.shape, spec.size)
    positions = np.array([s.position for s in states], dtype=float).reshape(-1, 3)
    # the box's extent around the position depends on the orientation alone (often repeated:
    # an agent walking straight, a body at rest): rotate the mesh once per distinct one.
    # min over vertices of (p + a) is p + min(a) exactly (adding p is monotonic), so the
    # boxes are those of the world vertices, bit for bit
    index: dict[tuple[float, ...], int] = {}
    which = [index.setdefault(tuple(s.orientation), len(index)) for s in states]
    rotations = quaternion_matrices(np.array(list(index), dtype=float).reshape(-1, 4))
    turned = rotations @ vertices.T  # (orientations, 3, vertices): reduced along rows, fast
    low = positions + turned.min(axis=2)[which]
    high = positions + turned.max(axis=2)[which]
    centre, half = (low + high) / 2, (high - low) / 2
    return centre[:, None, :] + _FACE_OFFSETS[None] * half[:, None, :]


# the box centre, then the centres of its faces: +z, -z, +x, -x, +y, -y
FACE_NAMES = ("center", "top", "bottom", "right", "left", "back", "front")
_FACE_OFFSETS = np.array([(0, 0, 0), (0, 0, 1), (0, 0, -1), (1, 0, 0), (-1, 0, 0), (0, 1, 0),
                          (0, -1, 0)], dtype=float)
_ROW_PIECES = _row_pieces()


# ---------------------------------------------------------------------------------- reading


def find_trials(root: Path) -> list[Path]:
    """Trial folders (those holding ``trial.json``) under ``root``, in path order; hidden
    folders (the generation runner's staging area) are not part of the dataset."""
    root = Path(root)
    return sorted(path.parent for path in root.rglob(TRIAL_FILE)
                  if not any(part.startswith(".") for part in path.relative_to(root).parts))


def load_trial(path: Path, raw_states: dict[str, Any] | None = None, *,
               annotations: bool = False) -> Trial:
    """Read a trial folder written by ``write_trial`` into typed objects.

    ``raw_states``, when given, receives each video folder's parsed ``state_info.json`` by
    folder name (for checks of what is stored beyond the typed states, such as the boxes).
    ``annotations``: also read each video's annotations from ``_meta/`` (:func:`meta_path`)
    into its config and, for a video whose files keep only what the camera sees (scenario 3),
    read its ground truth from ``_meta/`` (:func:`truth_dir`) instead: the validator and the
    tour; never for an observer.
    """
    path = Path(path)
    meta = read_json(path / TRIAL_FILE)
    where = path / TRIAL_FILE
    found = meta.get("format") if isinstance(meta, dict) else None
    if isinstance(found, str) and found.startswith("socialbench-agent3d/") and found != FORMAT:
        raise DataFileError(where, f"format {found!r}, not {FORMAT!r}: written by an older "
                            f"socialbench; regenerate the dataset")
    if found != FORMAT:
        raise DataFileError(where, f"not a socialbench AGENT trial (format {FORMAT!r} expected); "
                            f"released AGENT folders are read with agent3d.released")
    scenario = _field(meta, "scenario", int, where)
    if scenario not in SCENARIOS:
        raise DataFileError(where, f"scenario {scenario} is not one of 1-4")
    split = _field(meta, "split", str, where)
    if split not in SPLITS:
        raise DataFileError(where, f"split {split!r} is not one of {', '.join(SPLITS)}")
    folders = _field(meta, "videos", list, where)
    familiar = [f for f in folders if isinstance(f, str) and f.startswith("Familiarization_")]
    if not familiar or len(familiar) > MAX_FAMILIARIZATION or \
            familiar != [familiarization_folder(k + 1) for k in range(len(familiar))]:
        raise DataFileError(where, f"videos {folders!r}: expected Familiarization_video_1..N "
                            f"(N <= {MAX_FAMILIARIZATION}), then expected [and surprising]")
    has_surprise = SURPRISING in folders
    if EXPECTED not in folders or has_surprise != ("test" in meta):
        raise DataFileError(where, "the video list must hold 'expected', and 'surprising' "
                            "exactly when the trial has a 'test' entry")
    notes = _annotations(path) if annotations else {}
    truth = truth_dir(meta_path(path))

    def video(folder: str) -> Video:
        source = truth / folder if annotations and (truth / folder / STATES_FILE).is_file() \
            else path / folder
        loaded = load_video(source, raw_states)
        loaded.config.annotations = notes.get(folder, {})
        return loaded

    return Trial(
        scenario=scenario, trial_type=_field(meta, "trial_type", str, where), split=split,
        index=_field(meta, "index", int, where),
        familiarization=[video(f) for f in familiar], expected=video(EXPECTED),
        surprising=video(SURPRISING) if has_surprise else None,
    )


def _annotations(trial_dir: Path) -> dict[str, dict]:
    where = meta_path(trial_dir)
    data = read_json(where)
    notes = data.get("annotations") if isinstance(data, dict) else None
    if not isinstance(notes, dict) or not all(isinstance(v, dict) for v in notes.values()):
        raise DataFileError(where, "expected {'annotations': {video folder: {...}}}")
    return notes


def video_kind(folder: str) -> str:
    """A video's kind, from its folder's name: familiarization, expected or surprising."""
    return "familiarization" if folder.startswith("Familiarization_") else folder


def load_video(video_dir: Path, raw_states: dict[str, Any] | None = None) -> Video:
    """Read one video folder: its scene config and per-frame states (``raw_states``: see
    ``load_trial``); its kind comes from the folder's name, its config has no annotations."""
    video_dir = Path(video_dir)
    config = config_from_json(read_json(video_dir / CONFIG_FILE), video_dir / CONFIG_FILE,
                              video_kind(video_dir.name))
    where = video_dir / STATES_FILE
    info = read_json(where)
    if not isinstance(info, dict):
        raise DataFileError(where, "expected a JSON object with 'frames'")
    if raw_states is not None:
        raw_states[video_dir.name] = info
    known = {spec.id for spec in config.entities}
    if info.get("layout") == "columns":  # state_columns.py; else the rows of every frame
        frames = read_columns(info, where, MAX_FRAMES, MAX_ENTITIES)
        for index, frame in enumerate(frames):
            unknown = {s.id for s in frame} - known
            if unknown:
                raise DataFileError(where, f"frame {index} has entities {sorted(unknown)} that "
                                    f"{CONFIG_FILE} does not define")
        return Video(config=config, frames=frames)
    raw_frames = _field(info, "frames", list, where)
    if len(raw_frames) > MAX_FRAMES:
        raise DataFileError(where, f"{len(raw_frames)} frames, more than the {MAX_FRAMES} "
                            f"this reader accepts")
    checked = _all_states(raw_frames)  # None: some row is off, read row by row to name it
    frames = []
    for index, raw in enumerate(raw_frames):
        if not isinstance(raw, list) or len(raw) > MAX_ENTITIES:
            raise DataFileError(where, f"frame {index} must be a list of at most "
                                f"{MAX_ENTITIES} entity states")
        frame = checked[index] if checked is not None else \
            [_entity_state(row, where, index) for row in raw]
        unknown = {s.id for s in frame} - known
        if unknown:
            raise DataFileError(where, f"frame {index} has entities {sorted(unknown)} that "
                                f"{CONFIG_FILE} does not define")
        frames.append(frame)
    return Video(config=config, frames=frames)


def config_from_json(data: Any, where: Path, video: str) -> SceneConfig:
    """Parse ``scene_config.json`` into a SceneConfig (strict types, bounded sizes) of a video
    of kind ``video``."""
    if not isinstance(data, dict):
        raise DataFileError(where, "expected a JSON object")
    if data.get("format") != CONFIG_FORMAT:
        raise DataFileError(where, f"format {data.get('format')!r}, not {CONFIG_FORMAT!r}: "
                            f"written by an older socialbench; regenerate the dataset")
    raw_entities = _field(data, "entities", list, where)
    if len(raw_entities) > MAX_ENTITIES:
        raise DataFileError(where, f"{len(raw_entities)} entities, more than {MAX_ENTITIES}")
    entities = [_entity_spec(raw, where) for raw in raw_entities]
    if len({e.id for e in entities}) != len(entities):
        raise DataFileError(where, "two entities share an id")
    camera = _field(data, "camera", dict, where)
    if video not in ("familiarization", EXPECTED, SURPRISING):
        raise DataFileError(where, f"video folder {where.parent.name!r} is not "
                            f"Familiarization_video_N, expected or surprising")
    return SceneConfig(
        scenario=_field(data, "scenario", int, where),
        trial_type=_field(data, "trial_type", str, where),
        video=video,  # type: ignore[arg-type]  # checked just above
        entities=entities,
        camera=Camera(position=_vector(camera, "position", 3, where),
                      target=_vector(camera, "target", 3, where),
                      fov_deg=_number(camera, "fov_deg", where),
                      up=_vector(camera, "up", 3, where)),
        seed=_field(data, "seed", int, where),
        fps=_field(data, "fps", int, where) if "fps" in data else FPS,
    )


def read_json(path: Path) -> Any:
    """Parse a JSON file, refusing files over ``MAX_JSON_BYTES``; one-line errors."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise DataFileError(path, "missing; the trial is incomplete (regenerate it)") from None
    if size > MAX_JSON_BYTES:
        raise DataFileError(path, f"{size} bytes, more than the {MAX_JSON_BYTES} this reader "
                            f"accepts")
    try:
        # orjson (a dependency): 1.6x faster than json on state files; it refuses NaN and
        # Infinity as JSON does
        return orjson.loads(path.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError) as exc:
        raise DataFileError(path, f"not valid JSON ({exc}); regenerate the file") from None


def _entity_spec(raw: Any, where: Path) -> EntitySpec:
    if not isinstance(raw, dict):
        raise DataFileError(where, "every entity must be a JSON object")
    kind = _field(raw, "kind", str, where)
    if kind not in ("agent", "goal", "obstacle", "occluder", "floor", "room"):
        raise DataFileError(where, f"entity kind {kind!r} is unknown")
    return EntitySpec(
        id=_field(raw, "id", int, where), name=_field(raw, "name", str, where),
        kind=kind,  # type: ignore[arg-type]  # checked just above
        shape=_field(raw, "shape", str, where), size=_vector(raw, "size", 3, where),
        position=_vector(raw, "position", 3, where),
        orientation=_vector(raw, "orientation", 4, where),
        label=_field(raw, "label", int, where), rgba=_vector(raw, "rgba", 4, where),
        static=_field(raw, "static", bool, where), mass=_number(raw, "mass", where),
    )


_STATE_VECTORS = (("position", 3), ("rotation", 4), ("velocity", 3), ("angular_velocity", 3))


def _all_states(raw_frames: list) -> list[list[EntityState]] | None:
    """Every frame's states checked at once, as ``_entity_state`` checks one row (int ids,
    lists of finite numbers of the right length, no bools): a video's ~10^5 values in a few
    bulk passes instead of a Python check per value (most of the reading time). None when
    anything is off, so that the row-by-row reading finds and names it."""
    if not all(isinstance(raw, list) and len(raw) <= MAX_ENTITIES for raw in raw_frames):
        return None
    rows = [row for raw in raw_frames for row in raw]
    if not rows:
        return [[] for _ in raw_frames]
    try:
        ids = [row["id"] for row in rows]
        columns = [[row[key] for row in rows] for key, _ in _STATE_VECTORS]
    except (TypeError, KeyError):  # a row that is not an object, or lacks a field
        return None
    if set(map(type, ids)) - {int} or any(set(map(type, c)) - {list} for c in columns):
        return None
    arrays = []
    for (_, length), column in zip(_STATE_VECTORS, columns, strict=True):
        flat = list(chain.from_iterable(column))
        kinds = set(map(type, flat))  # a string, bool, null or nested list is refused
        if set(map(len, column)) != {length} or kinds - {float, int} or \
                not np.isfinite(np.array(flat, dtype=float)).all():
            return None
        arrays.append(list(map(tuple, column)) if kinds == {float} else
                      [tuple(map(float, vector)) for vector in column])
    states = iter(list(map(EntityState, ids, *arrays)))
    return [[next(states) for _ in raw] for raw in raw_frames]


def _entity_state(row: Any, where: Path, frame: int) -> EntityState:
    if not isinstance(row, dict):
        raise DataFileError(where, f"frame {frame}: every entity state must be an object")
    return EntityState(id=_field(row, "id", int, where),
                       position=_vector(row, "position", 3, where),
                       orientation=_vector(row, "rotation", 4, where),
                       velocity=_vector(row, "velocity", 3, where),
                       angular_velocity=_vector(row, "angular_velocity", 3, where))


def _field(data: Mapping[str, Any], key: str, kind: type, where: Path) -> Any:
    value = data.get(key)
    # bool is an int in Python: a flag is not an id, and an id is not a flag
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise DataFileError(where, f"field {key!r} must be a {kind.__name__}, got {value!r:.60}")
    return value


def _number(data: Mapping[str, Any], key: str, where: Path) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise DataFileError(where, f"field {key!r} must be a finite number, got {value!r:.60}")
    return float(value)


def _vector(data: Mapping[str, Any], key: str, length: int, where: Path) -> tuple[float, ...]:
    value = data.get(key)
    # type() rather than isinstance: a bool is not a coordinate
    if isinstance(value, list) and len(value) == length and \
            all(type(v) is float or type(v) is int for v in value):
        vector = tuple(map(float, value))
        if all(math.isfinite(v) for v in vector):
            return vector
    raise DataFileError(where, f"field {key!r} must be a list of {length} finite numbers, "
                        f"got {value!r:.60}")

"""AGENT scene building and trial files: shapes, layout, round trip, determinism, bad input."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from socialbench.agent3d import io
from socialbench.agent3d.bodies import (
    AGENT_DYNAMICS,
    SHAPES,
    build_scene,
    physics_client,
    read_states,
)
from socialbench.agent3d.io import load_trial, trial_relpath, write_trial
from socialbench.agent3d.physics import p
from socialbench.agent3d.samples import AGENT, sample_trial, walk_video
from socialbench.agent3d.schema import EntitySpec, EntityState
from socialbench.core.errors import DataFileError, UserError

MESH_MARGIN = 0.003  # PyBullet pads convex meshes by a 2 mm collision margin


def test_every_shape_fills_exactly_its_configured_box():
    size = (0.3, 0.4, 0.5)
    specs = [EntitySpec(i, shape, "goal", shape, size, (i * 1.0, 2.0, 0.25))
             for i, shape in enumerate(SHAPES)]
    with physics_client() as client:
        ids = build_scene(specs, client)
        for spec in specs:
            low, high = p.getAABB(ids[spec.id], physicsClientId=client)
            np.testing.assert_allclose(np.subtract(high, low), size, atol=2 * MESH_MARGIN)
            position, _ = p.getBasePositionAndOrientation(ids[spec.id], physicsClientId=client)
            np.testing.assert_allclose(position, spec.position, atol=1e-9)


def test_ramp_rises_towards_plus_x_and_a_ball_rolls_down_it():
    ramp = EntitySpec(0, "ramp", "obstacle", "ramp", (1.0, 0.7, 0.5), (0.0, 0.0, 0.25))
    with physics_client() as client:
        ids = build_scene([ramp], client)

        def surface_height(x: float) -> float:
            hit = p.rayTest((x, 0, 2), (x, 0, -1), physicsClientId=client)[0]
            return hit[3][2] if hit[0] == ids[0] else 0.0

        # the slope: height 0.5 * (x + 0.5) over the 1 m run
        for x in (-0.3, 0.0, 0.3):
            assert surface_height(x) == pytest.approx(0.5 * (x + 0.5), abs=MESH_MARGIN)


def test_agent_gets_the_released_dynamics_and_falls_under_gravity():
    trial = sample_trial()
    with physics_client() as client:
        ids = build_scene(trial.expected.config, client)
        info = p.getDynamicsInfo(ids[AGENT], -1, physicsClientId=client)
        assert info[0] == 1.0 and info[1] == AGENT_DYNAMICS["lateralFriction"]
        assert info[5] == pytest.approx(AGENT_DYNAMICS["restitution"])
        p.resetBasePositionAndOrientation(ids[AGENT], (0, 0, 1.0), (0, 0, 0, 1),
                                          physicsClientId=client)
        for _ in range(20):  # 0.1 s of free fall: z = 1 - g t^2 / 2
            p.stepSimulation(physicsClientId=client)
        agent = next(s for s in read_states(client, ids) if s.id == AGENT)
        assert agent.position[2] == pytest.approx(1.0 - 9.81 * 0.1 ** 2 / 2, abs=0.01)


def test_scene_building_refuses_bad_entities():
    good = EntitySpec(0, "box", "obstacle", "box", (1, 1, 1), (0, 0, 0))
    with physics_client() as client:
        with pytest.raises(UserError, match="appears twice"):
            build_scene([good, good], client)
        with pytest.raises(UserError, match="unknown shape"):
            build_scene([replace(good, shape="torus")], client)
        with pytest.raises(UserError, match="positive finite"):
            build_scene([replace(good, size=(1, 0, 1))], client)
        with pytest.raises(UserError, match="positive mass"):
            build_scene([replace(good, static=False, mass=0.0)], client)


def test_trial_folder_has_the_released_layout_and_test_metadata(tmp_path):
    trial = sample_trial("test", scenario=2, trial_type="2.1", index=7)
    root = tmp_path / trial_relpath(2, "2.1", "test", 7)
    assert root.relative_to(tmp_path).as_posix() == \
        "scenario_2_action_efficiency/type_2.1/test_set/Trial_7"
    write_trial(trial, root)
    assert sorted(p.name for p in root.iterdir()) == \
        ["Familiarization_video_1", "expected", "surprising", "trial.json"]
    for video in ("Familiarization_video_1", "expected", "surprising"):
        assert sorted(p.name for p in (root / video).iterdir()) == \
            ["scene_config.json", "state_info.json"]
    meta = json.loads((root / "trial.json").read_text())
    assert meta["test"] == {"expected": "expected", "surprising": "surprising"}
    assert (meta["scenario"], meta["trial_type"], meta["split"]) == (2, "2.1", "test")

    train = tmp_path / "train"
    write_trial(sample_trial("train"), train)
    assert "test" not in json.loads((train / "trial.json").read_text())
    assert not (train / "surprising").exists()


def test_state_info_lists_every_entity_per_frame_with_its_box(tmp_path):
    video = walk_video()
    io.write_video(video, tmp_path, states="rows")  # the former layout, one option away
    info = json.loads((tmp_path / "state_info.json").read_text())
    assert info["fps"] == 35 and info["num_frames"] == len(video.frames)
    assert [e["class"] for e in info["entities"]] == ["floor", "agent", "goal", "obstacle"]
    row = next(r for r in info["frames"][0] if r["id"] == AGENT)
    assert row["label"] == 9 and row["class"] == "agent"  # agent spec: 9 = agent
    box = row["bbox"]
    assert box["center"] == [-1.5, 0.0, 0.1]
    assert box["top"] == [-1.5, 0.0, 0.2] and box["bottom"] == [-1.5, 0.0, 0.0]
    assert box["left"] == [-1.6, 0.0, 0.1] and box["back"] == [-1.5, 0.1, 0.1]


def test_a_box_turned_a_quarter_about_z_swaps_its_box_extents():
    wall = EntitySpec(0, "wall", "obstacle", "box", (0.2, 1.0, 0.4), (0.0, 0.0, 0.2))
    turn = (0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4))
    box = io.world_boxes(wall, [EntityState(0, (0.0, 0.0, 0.2), turn)])[0]
    assert box["right"][0] == pytest.approx(0.5) and box["back"][1] == pytest.approx(0.1)


def test_round_trip_gives_back_the_same_trial(tmp_path):
    trial = sample_trial("test")
    write_trial(trial, tmp_path / "t")
    assert load_trial(tmp_path / "t", annotations=True) == trial
    plain = load_trial(tmp_path / "t")  # what a model may read: no annotations
    assert all(v.config.annotations == {} for v in (*plain.familiarization, plain.expected,
                                                     plain.surprising))


def test_the_answer_stays_out_of_the_files_a_model_reads(tmp_path):
    trial = sample_trial("test")
    write_trial(trial, tmp_path / "t")
    for folder in ("Familiarization_video_1", "expected", "surprising"):
        config = json.loads((tmp_path / "t" / folder / "scene_config.json").read_text())
        assert "annotations" not in config and "video" not in config
    meta = json.loads(io.meta_path(tmp_path / "t").read_text())
    assert meta["annotations"]["expected"] == trial.expected.config.annotations
    assert io.meta_path(tmp_path / "t") == tmp_path / "_meta" / "t.json"
    released = tmp_path / "scenario_2_action_efficiency" / "type_2.1" / "test_set" / "Trial_3"
    assert io.meta_path(released) == (tmp_path / "_meta" / "scenario_2_action_efficiency"
                                      / "type_2.1" / "test_set" / "Trial_3.json")


def test_the_same_trial_is_written_byte_identically(tmp_path):
    for name in ("a", "b"):
        write_trial(sample_trial("test"), tmp_path / name)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*")
                   if p.is_file())
    assert len(files) == 7
    for rel in files:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
    meta = tmp_path / "_meta"
    assert (meta / "a.json").read_bytes() == (meta / "b.json").read_bytes()
    assert not list(tmp_path.rglob(".*.tmp"))


def _written(tmp_path: Path) -> Path:
    write_trial(sample_trial("test"), tmp_path / "t", states="rows")  # the former layout
    return tmp_path / "t"


def test_a_trial_without_trial_json_is_incomplete(tmp_path):
    root = _written(tmp_path)
    (root / "trial.json").unlink()
    with pytest.raises(DataFileError, match="missing"):
        load_trial(root)


@pytest.mark.parametrize("damage", ["truncate", "nan", "bad_type", "unknown_entity", "kind"])
def test_corrupt_files_give_one_line_errors(tmp_path, damage):
    root = _written(tmp_path)
    states = root / "expected" / "state_info.json"
    config = root / "expected" / "scene_config.json"
    if damage == "truncate":
        states.write_text(states.read_text()[:500])
    elif damage == "nan":
        states.write_text(states.read_text().replace("0.1", "NaN", 1))
    elif damage == "bad_type":
        data = json.loads(states.read_text())
        data["frames"][3][1]["position"] = [0, 0]
        states.write_text(json.dumps(data))
    elif damage == "unknown_entity":
        data = json.loads(states.read_text())
        data["frames"][3][1]["id"] = 99
        states.write_text(json.dumps(data))
    else:
        data = json.loads(config.read_text())
        data["entities"][0]["kind"] = "dragon"
        config.write_text(json.dumps(data))
    with pytest.raises(DataFileError) as error:
        load_trial(root)
    assert "\n" not in str(error.value) and "expected" in str(error.value)


def test_readers_refuse_files_that_claim_too_much(tmp_path, monkeypatch):
    root = _written(tmp_path)
    monkeypatch.setattr(io, "MAX_FRAMES", 10)
    with pytest.raises(DataFileError, match="frames, more than"):
        load_trial(root)
    monkeypatch.setattr(io, "MAX_JSON_BYTES", 1000)
    with pytest.raises(DataFileError, match="bytes, more than"):
        load_trial(root)


def test_a_trial_json_from_elsewhere_is_refused(tmp_path):
    root = _written(tmp_path)
    meta = json.loads((root / "trial.json").read_text())
    (root / "trial.json").write_text(json.dumps({**meta, "videos": ["../../etc", "expected"]}))
    with pytest.raises(DataFileError, match="Familiarization_video_1"):
        load_trial(root)


# ------------------------------------------------------------ the released (TDW) layout


def _tdw(vector):
    """Our z-up point in TDW's y-up coordinates (the inverse of ``constants.tdw_point``)."""
    x, y, z = vector
    return [-x, z, -y]


def _write_released_video(folder: Path, video, rotation=(0.0, 0.0, 0.0, 1.0)) -> None:
    """A state_info.json in the layout this reader assumes for the released data."""
    specs = {spec.id: spec for spec in video.config.entities}
    frames = []
    for frame in video.frames:
        objects = {}
        for state in frame:
            spec = specs[state.id]
            half = np.asarray(spec.size) / 2
            centre = np.asarray(state.position)
            bounds = {"center": _tdw(centre)}
            for face, axis, sign in (("top", 2, 1), ("bottom", 2, -1), ("right", 0, 1),
                                     ("left", 0, -1), ("back", 1, 1), ("front", 1, -1)):
                point = centre.copy()
                point[axis] += sign * half[axis]
                bounds[face] = _tdw(point)
            objects[str(state.id + 100)] = {
                "position": dict(zip("xyz", _tdw(state.position), strict=True)),
                "rotation": list(rotation) if spec.kind == "agent" else [0, 0, 0, 1],
                "velocity": _tdw(state.velocity), "angular_velocity": [0, 0, 0],
                "bounds": bounds, "color": [int(c * 255) for c in spec.rgba],
                "label": {"agent": 9, "obstacle": 10, "floor": 10}.get(spec.kind, 3),
            }
        frames.append(objects)
    folder.mkdir(parents=True)
    (folder / "state_info.json").write_text(json.dumps({"frames": frames}))


def test_released_trials_are_read_into_z_up_coordinates(tmp_path):
    from socialbench.agent3d.released import load_released_trial

    trial = sample_trial("test")
    root = tmp_path / "scenario_2_action_efficiency" / "type_2.1" / "test_set" / "Trial_3"
    yaw = (0.0, math.sin(math.pi / 4), 0.0, math.cos(math.pi / 4))  # TDW: +90 deg about y (up)
    for name, video in (("Familiarization_video_1", trial.familiarization[0]),
                        ("expected", trial.expected), ("surprising", trial.surprising)):
        _write_released_video(root / name, video, rotation=yaw)
    loaded = load_released_trial(root)
    assert (loaded.scenario, loaded.trial_type, loaded.split, loaded.index) == (2, "2.1", "test", 3)
    assert len(loaded.familiarization) == 1 and loaded.surprising is not None
    np.testing.assert_allclose(loaded.expected.track(AGENT + 100),
                               trial.expected.track(AGENT), atol=1e-9)
    kinds = {spec.id - 100: spec.kind for spec in loaded.expected.config.entities}
    assert kinds[AGENT] == "agent" and kinds[3] == "obstacle"
    agent = next(s for s in loaded.expected.config.entities if s.kind == "agent")
    assert not agent.static and agent.size == pytest.approx((0.2, 0.2, 0.2))
    wall = next(s for s in loaded.expected.config.entities if s.id == 103)
    assert wall.static and wall.size == pytest.approx((0.2, 0.6, 0.4))  # our x, y, z extents
    assert wall.rgba == pytest.approx((0.2, 0.3, 0.9, 1.0), abs=0.005)
    # Unity's yaw +90 turns forward (+z, our -y) to +x (our -x): -90 degrees about our z
    quaternion = loaded.expected.frames[0][AGENT].orientation
    forward = io.quaternion_matrices(np.array([quaternion]))[0] @ np.array([0.0, 1.0, 0.0])
    np.testing.assert_allclose(forward, [1.0, 0.0, 0.0], atol=1e-9)
    # the released one-goal camera (agent spec) looks down at the agents' rows, 2-3 m away
    camera = loaded.expected.config.camera
    assert camera.position == pytest.approx((-1.0, -0.69, 1.45))
    assert camera.target[2] < camera.position[2] and camera.target[1] > camera.position[1]


def test_released_reader_refuses_unknown_layouts_and_bad_states(tmp_path):
    from socialbench.agent3d.released import load_released_trial

    with pytest.raises(DataFileError, match="folder names"):
        load_released_trial(tmp_path)
    root = tmp_path / "scenario_1_goal_preferences" / "type_1.1" / "train_set" / "Trial_0"
    trial = sample_trial("train", scenario=1, trial_type="1.1")
    _write_released_video(root / "Familiarization_video_1", trial.familiarization[0])
    _write_released_video(root / "expected", trial.expected)
    assert load_released_trial(root).surprising is None
    states = root / "expected" / "state_info.json"
    data = json.loads(states.read_text())
    data["frames"][2]["101"]["position"] = {"x": 1, "y": "up", "z": 0}
    states.write_text(json.dumps(data))
    with pytest.raises(DataFileError, match="frame 2: expected 3 finite numbers"):
        load_released_trial(root)
    states.write_text(json.dumps([[{"id": 1, "position": [0, 0, 0], "label": "dragon"}]]))
    with pytest.raises(DataFileError, match="label 'dragon'"):
        load_released_trial(root)


def test_an_interrupted_rewrite_leaves_the_trial_incomplete(tmp_path, monkeypatch):
    root = _written(tmp_path)

    def crash(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(io, "write_json", crash)
    with pytest.raises(KeyboardInterrupt):
        write_trial(sample_trial("test"), root)
    with pytest.raises(DataFileError, match="trial.json: missing"):
        load_trial(root)


def test_the_fast_state_writer_gives_the_bytes_of_plain_json(tmp_path):
    from socialbench.agent3d.io import state_info_json, state_info_text

    video = sample_trial("test").expected
    # a camera's view (scenario 3): frames that leave out an entity, written state by state
    agent = video.frames[0][0].id
    view = replace(video, frames=[[s for s in frame if s.id != agent or t % 3]
                                  for t, frame in enumerate(video.frames)])
    for each in (video, walk_video(), view):
        plain = json.dumps(state_info_json(each), separators=(",", ":"), allow_nan=False)
        assert state_info_text(each) == plain

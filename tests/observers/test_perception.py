"""AGENT perception from RGB-D: back-projection and box fitting on hand-made depth, tracks from
a small rendered trial, and that from-frames mode never reads the answer-bearing files."""

from __future__ import annotations

import builtins
import io
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from socialbench.agent3d.generate import make_trial
from socialbench.agent3d.io import load_video, write_trial
from socialbench.agent3d.render import RenderOptions, read_frames
from socialbench.agent3d.schema import Camera, Video, VideoStates
from socialbench.core.errors import UserError
from socialbench.observers.agent.perception.boxes import compact_box, compact_extent, obstacle_boxes
from socialbench.observers.agent.perception.camera import PinholeCamera
from socialbench.observers.agent.perception.episodes import FrameEpisodes, perceive_video
from socialbench.observers.agent.perception.iou import box_iou, video_iou
from socialbench.observers.agent.tracks import video_tracks

CAMERA = Camera(position=(0.0, 0.0, 2.5), target=(0.0, 3.0, 0.0))


Boxes = list[tuple[np.ndarray, np.ndarray]]


def _depth_of_boxes(camera: PinholeCamera, boxes: Boxes) -> np.ndarray:
    """Depth (mm) of a floor at z = 0 and axis-aligned boxes (centre, half), ray by ray."""
    rays = camera.rays()
    with np.errstate(divide="ignore", invalid="ignore"):
        depth = np.where(rays[..., 2] < 0, -camera.eye[2] / rays[..., 2], np.inf)
        for centre, half in boxes:
            t0 = (centre - half - camera.eye) / rays
            t1 = (centre + half - camera.eye) / rays
            near = np.minimum(t0, t1).max(axis=-1)
            far = np.maximum(t0, t1).min(axis=-1)
            hit = (near <= far) & (near > 0)
            depth = np.where(hit & (near < depth), near, depth)
    return np.rint(np.minimum(depth * 1000, 65535)).astype(np.uint16)


def test_back_projection_lands_on_the_surfaces_it_saw():
    camera = PinholeCamera.of(CAMERA, 120, 120)
    depth = _depth_of_boxes(camera, [])
    points, valid = camera.back_project(depth)
    assert valid.sum() > 5000 and np.abs(points[valid][:, 2]).max() < 0.002
    # and projecting a point back gives its pixel
    px, along = camera.project(points[60, 30])
    assert px == pytest.approx([30, 60], abs=0.3) and along == pytest.approx(depth[60, 30] / 1000)


def test_a_wall_seen_from_one_side_is_recovered_as_its_box():
    camera = PinholeCamera.of(CAMERA, 160, 160)
    centre, half = np.array([0.3, 3.0, 0.2]), np.array([0.6, 0.1, 0.2])  # a 1.2 m wall
    points, valid = camera.back_project(_depth_of_boxes(camera, [(centre, half)]))
    body = points[valid & (points[..., 2] > 0.02)]
    (box,) = obstacle_boxes(body, floor_z=0.0)
    assert box.shape == "box"
    assert box_iou(box.centre, box.size / 2, centre, half) > 0.8
    assert box.size[2] == pytest.approx(0.4, abs=0.02)


def test_a_wall_with_a_doorway_keeps_its_opening():
    # a wall along y, seen from its side as scenario 2's turned camera sees it: two posts and
    # a lintel over a 0.7 m opening (0.42 m high) become three boxes, not one block
    camera = PinholeCamera.of(Camera(position=(0.0, 0.0, 2.5), target=(0.9, 3.0, 0.0)), 200, 200)
    posts = [(np.array([0.6, y, 0.3]), np.array([0.1, 0.325, 0.3])) for y in (2.325, 3.675)]
    lintel = (np.array([0.6, 3.0, 0.51]), np.array([0.1, 0.35, 0.09]))
    points, valid = camera.back_project(_depth_of_boxes(camera, [*posts, lintel]))
    body = points[valid & (points[..., 2] > 0.02)]
    boxes = obstacle_boxes(body, floor_z=0.0)
    assert len(boxes) == 3
    for centre, half in [*posts, lintel]:
        assert max(box_iou(b.centre, b.size / 2, centre, half) for b in boxes) > 0.6
    (over,) = [b for b in boxes if b.centre[2] - b.size[2] / 2 > 0.3]
    assert over.centre[2] - over.size[2] / 2 == pytest.approx(0.42, abs=0.03)
    # the same wall without its opening stays one box
    whole = (np.array([0.6, 3.0, 0.3]), np.array([0.1, 1.0, 0.3]))
    points, valid = camera.back_project(_depth_of_boxes(camera, [whole]))
    assert len(obstacle_boxes(points[valid & (points[..., 2] > 0.02)], floor_z=0.0)) == 1


def test_a_ramp_is_told_from_the_platform_it_leads_up_to():
    camera = PinholeCamera.of(CAMERA, 200, 200)
    platform = (np.array([0.8, 3.0, 0.25]), np.array([0.35, 0.35, 0.25]))
    # a wedge rising 0.5 m over 0.9 m toward the platform, in 1 cm steps
    steps = [(np.array([-0.445 + 0.01 * k, 3.0, 0.0025 * (k + 1)]),
              np.array([0.005, 0.35, 0.0025 * (k + 1)])) for k in range(90)]
    points, valid = camera.back_project(_depth_of_boxes(camera, [platform, *steps]))
    body = points[valid & (points[..., 2] > 0.02)]
    boxes = obstacle_boxes(body, floor_z=0.0)
    ramps = [b for b in boxes if b.shape == "ramp"]
    flats = [b for b in boxes if b.shape == "box"]
    assert len(ramps) == 1 and ramps[0].yaw == 0.0  # rises toward +x, the platform
    assert any(box_iou(b.centre, b.size / 2, *platform) > 0.7 for b in flats)


def test_a_small_body_seen_from_the_front_gets_its_full_depth():
    camera = PinholeCamera.of(CAMERA, 200, 200)
    centre, half = np.array([-0.4, 2.6, 0.1]), np.full(3, 0.1)
    points, valid = camera.back_project(_depth_of_boxes(camera, [(centre, half)]))
    body = points[valid & (points[..., 2] > 0.02)]
    box = compact_box(*compact_extent(body, camera.eye, 2 * camera.tan_half / 200, 0.0),
                      camera.forward)
    assert np.abs(box.centre - centre).max() < 0.02
    assert box_iou(box.centre, box.size / 2, centre, half) > 0.75


@pytest.fixture(scope="module")
def rendered_trial(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scenario-2 test trial (a wall), every 8th frame, rendered at 120 x 120."""
    trial = make_trial("2.1", "test", 0, 3)

    def short(video: Video) -> Video:
        return Video(video.config, video.frames[::8])

    trial = replace(trial, familiarization=[short(v) for v in trial.familiarization],
                    expected=short(trial.expected), surprising=short(trial.surprising))
    folder = tmp_path_factory.mktemp("perception") / "Trial_0"
    write_trial(trial, folder, RenderOptions(width=120, height=120, mp4=False))
    return folder


@pytest.mark.parametrize("segmentation", ["rgbd", "truth"])
def test_perceived_tracks_have_the_classes_of_the_states(rendered_trial: Path,
                                                         segmentation: str):
    for name in ("Familiarization_video_1", "expected"):
        truth = video_tracks(VideoStates.of(load_video(rendered_trial / name)))
        seen = video_tracks(perceive_video(rendered_trial / name, segmentation))
        shown = {c for i, c in enumerate(truth.classes) if truth.seen(i) and c != "floor"}
        assert {c for c in seen.classes if c != "floor"} == shown
        assert sorted(seen.labels[seen.index("goal")]) == sorted(truth.labels[truth.index("goal")])
        # the agent's path, in every frame that shows it, within a few centimetres
        seg = read_frames(rendered_trial / name)["segmentation"]
        shown = np.stack([(seg == i).sum(axis=(1, 2)) >= 6 for i in truth.ids], axis=1)
        a, b = truth.agent, seen.agent
        assert seen.visible[shown[:, a], b].mean() > 0.9
        both = shown[:, a] & seen.visible[:, b]
        error = np.linalg.norm(truth.centres[both, a] - seen.centres[both, b], axis=1)
        assert np.median(error) < 0.05
        scores = video_iou(truth, seen, shown)
        # the agent is 8-9 px across at 120 x 120: a pixel is 12 % of its width
        least = {"agent": 0.35, "goal": 0.5, "obstacle": 0.5}
        assert {c: round(float(np.mean(v)), 2) >= least[c] for c, v in scores.items()} == {
            c: True for c in scores}, {c: np.mean(v) for c, v in scores.items()}


def test_from_frames_never_opens_the_states_or_meta(rendered_trial: Path,
                                                    monkeypatch: pytest.MonkeyPatch):
    from socialbench.observers.agent.bipack.evidence import video_evidence

    real_open = io.open
    opened: list[str] = []

    def guarded(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(str(file))
        if "state_info" in str(file) or "_meta" in str(file):
            raise AssertionError(f"perception opened {file}")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", guarded)
    monkeypatch.setattr(builtins, "open", guarded)
    episode = FrameEpisodes("rgbd").test(rendered_trial / "expected")
    evidence = video_evidence(episode.trials[-1])
    assert any(p.endswith("frames.npz") for p in opened)
    assert evidence.goals and np.isfinite(evidence.cost).any()


def test_a_pairs_familiarization_is_perceived_once(rendered_trial: Path, monkeypatch):
    from socialbench.observers.agent.perception import episodes as module

    perceived: list[str] = []
    real = module.perceive_video

    def counted(video_dir: Path, segmentation: str = "rgbd") -> VideoStates:
        perceived.append(Path(video_dir).name)
        return real(video_dir, segmentation)

    monkeypatch.setattr(module, "perceive_video", counted)
    source = FrameEpisodes("truth")
    expected = source.test(rendered_trial / "expected")
    surprising = source.test(rendered_trial / "surprising")
    fam = [f"Familiarization_video_{k + 1}" for k in range(len(expected.trials) - 1)]
    assert perceived == [*fam, "expected", "surprising"]  # the familiarization once
    assert expected.trials[:-1] == surprising.trials[:-1]
    assert expected.expected and not surprising.expected


def test_a_dataset_without_frames_is_one_clear_error(tmp_path: Path):
    with pytest.raises(UserError, match="no rendered frames"):
        perceive_video(tmp_path)


def test_a_video_where_perception_finds_no_agent_is_one_clear_error(rendered_trial: Path,
                                                                      monkeypatch):
    from socialbench.observers.agent.perception import episodes

    real = episodes.perceived_states

    def without_agent(sightings, camera):  # what a missed agent would give
        states = real(sightings, camera)
        return replace(states, entities=[e for e in states.entities if e.kind != "agent"])

    monkeypatch.setattr(episodes, "perceived_states", without_agent)
    with pytest.raises(UserError, match="no agent in any frame"):
        perceive_video(rendered_trial / "expected")


def test_a_chasm_between_raised_floor_pieces_is_found_with_its_edges():
    from socialbench.observers.agent.perception.floor import floor_boxes
    from socialbench.observers.agent.perception.regions import floor_level

    camera = PinholeCamera.of(CAMERA, 160, 160)
    pieces = [(np.array([-1.65, 3.0, 0.15]), np.array([1.35, 2.0, 0.15])),
              (np.array([1.65, 3.0, 0.15]), np.array([1.35, 2.0, 0.15]))]  # a 0.6 m gap
    points, valid = camera.back_project(_depth_of_boxes(camera, pieces))
    level = floor_level(points[..., 2], valid)
    assert level == pytest.approx(0.3, abs=0.01)
    floors, bridges = floor_boxes(points, valid, level)
    room, left, right = floors
    assert room.centre[2] + room.size[2] / 2 == pytest.approx(0.0, abs=0.02)
    assert left.centre[0] + left.size[0] / 2 == pytest.approx(-0.3, abs=0.06)
    assert right.centre[0] - right.size[0] / 2 == pytest.approx(0.3, abs=0.06)
    assert not bridges


def _goal_pixels(points: np.ndarray, centre: np.ndarray, half: np.ndarray) -> np.ndarray:
    """The pixels that see a box (what the goal's colour picks out)."""
    return np.all(np.abs(points - centre) <= half + 0.01, axis=-1)


def test_the_walkable_floor_is_the_raised_one_when_the_chasm_fills_more_of_the_view():
    from socialbench.observers.agent.perception.regions import floor_level, walkable_level

    camera = PinholeCamera.of(CAMERA, 160, 160)
    goal = (np.array([1.4, 3.0, 0.4]), np.array([0.1, 0.1, 0.1]))
    pieces = [(np.array([-1.5, 3.0, 0.15]), np.array([0.5, 2.0, 0.15])),
              (np.array([1.5, 3.0, 0.15]), np.array([0.5, 2.0, 0.15]))]  # a 2 m chasm
    points, valid = camera.back_project(_depth_of_boxes(camera, [*pieces, goal]))
    assert floor_level(points[..., 2], valid) == pytest.approx(0.0, abs=0.01)  # the case
    level = walkable_level(points, valid, _goal_pixels(points, *goal))
    assert level == pytest.approx(0.3, abs=0.01)
    _, left, right = _floor_pieces(points, valid, level)
    assert left.centre[0] + left.size[0] / 2 == pytest.approx(-1.0, abs=0.06)
    assert right.centre[0] - right.size[0] / 2 == pytest.approx(1.0, abs=0.06)


def test_a_goal_on_a_platform_or_a_wall_top_does_not_lift_the_floor():
    from socialbench.observers.agent.perception.regions import walkable_level

    camera = PinholeCamera.of(CAMERA, 160, 160)
    platform = (np.array([0.8, 2.5, 0.4]), np.array([0.35, 0.35, 0.4]))  # 0.8 m, 0.7 m top
    goal = (np.array([0.8, 2.5, 0.9]), np.array([0.1, 0.1, 0.1]))
    wall = (np.array([-0.8, 3.0, 0.3]), np.array([0.25, 1.5, 0.3]))  # 0.5 x 3 m, 0.6 m tall
    points, valid = camera.back_project(_depth_of_boxes(camera, [platform, goal, wall]))
    assert walkable_level(points, valid, _goal_pixels(points, *goal)) == \
        pytest.approx(0.0, abs=0.01)


def _floor_pieces(points: np.ndarray, valid: np.ndarray, level: float) -> list:
    from socialbench.observers.agent.perception.floor import floor_boxes

    return floor_boxes(points, valid, level)[0]


def test_evaluate_from_frames_on_a_states_only_dataset_is_one_line(tmp_path: Path):
    from click.testing import CliRunner

    from socialbench.agent3d.io import trial_relpath
    from socialbench.cli import main as cli

    write_trial(make_trial("2.1", "test", 0, 3), tmp_path / trial_relpath(2, "2.1", "test", 0))
    result = CliRunner().invoke(cli, ["agent", "evaluate", "--data", str(tmp_path),
                                      "--observer", "bipack", "--from-frames"])
    assert result.exit_code != 0 and "no rendered frames" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    result = CliRunner().invoke(cli, ["agent", "evaluate", "--data", str(tmp_path),
                                      "--observer", "bipack", "--gt-segmentation"])
    assert result.exit_code != 0 and "--from-frames" in result.output
    result = CliRunner().invoke(cli, ["agent", "evaluate", "--data", str(tmp_path),
                                      "--observer", "bipack", "--train-states",
                                      str(tmp_path / "missing")])
    assert result.exit_code != 0 and "--train-states" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_train_states_trains_on_another_datasets_truth_and_rates_the_source(tiny_agent: Path,
                                                                           tmp_path: Path):
    from socialbench.observers.agent.evaluation import TrainedOnStates

    class FramesOnly:
        def test(self, video_dir: Path) -> str:
            return f"perceived {video_dir.name}"

        def training(self, *args: object, **kwargs: object) -> list:
            raise AssertionError("training must come from the state files")

    source = TrainedOnStates(FramesOnly(), tiny_agent)  # type: ignore[arg-type]
    episodes = source.training(tmp_path, ("2.1", "2.2"))  # tmp_path (empty) is not read
    assert sorted(e.task for e in episodes) == ["2.1", "2.2"]
    assert all(e.expected and len(e.trials) == 2 for e in episodes)  # familiarization, expected
    assert source.test(tmp_path / "expected") == "perceived expected"


def _turned_cube_points(centre: np.ndarray, yaw: float, side: float = 0.2) -> np.ndarray:
    """What a camera above and in front (-y) sees of a cube turned by ``yaw``: its whole top
    and the two side faces toward -y, sampled every 5 mm."""
    grid = np.arange(-side / 2, side / 2 + 1e-9, 0.005)
    u, v = np.meshgrid(grid, grid)
    turn = np.array([[np.cos(yaw), -np.sin(yaw)], [np.sin(yaw), np.cos(yaw)]])
    faces = [np.column_stack([u.ravel(), v.ravel(), np.full(u.size, side / 2)])]
    for normal in ((0.0, -1.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 1.0)):
        if (turn @ np.array(normal))[1] < 0:  # faces the camera
            across = np.array([-normal[1], normal[0]])
            face = np.column_stack([np.outer(u.ravel(), across) + np.array(normal) * side / 2,
                                    v.ravel()])
            faces.append(face)
    local = np.concatenate(faces)
    world = local.copy()
    world[:, :2] = local[:, :2] @ turn.T
    return world + centre


def test_the_agent_centre_comes_from_its_top_whatever_its_yaw():
    from socialbench.observers.agent.perception.assemble import _centre_on_top

    centre = np.array([0.4, 2.5, 0.1])
    seen = {t: _turned_cube_points(centre, yaw) for t, yaw in enumerate((0.0, 0.4, np.pi / 4))}
    # the box fitted from the near side is off along the view by up to 4 cm as the cube turns
    guess = {t: centre + np.array([0.0, -0.04, 0.0]) for t in seen}
    _centre_on_top(seen, guess)
    for t in seen:
        assert guess[t][:2] == pytest.approx(centre[:2], abs=0.004)
        assert guess[t][2] == centre[2]  # the height is the box's
    # half hidden (a wall nearer the camera covers its right half, top and side): that frame
    # keeps the box's centre
    hidden = _turned_cube_points(centre, 0.0)
    seen[3] = hidden[hidden[:, 0] < centre[0]]
    guess[3] = centre + np.array([0.0, -0.04, 0.0])
    _centre_on_top(seen, guess)
    assert guess[3][1] == pytest.approx(centre[1] - 0.04)


def test_a_stray_point_does_not_stretch_the_agent():
    from socialbench.observers.agent.perception.assemble import _own_points

    cube = _turned_cube_points(np.array([0.7, 2.1, 0.1]), 0.3)
    stray = np.array([[0.41, 1.09, 0.86]])  # a pixel of the occluder's edge beside it
    kept = _own_points(np.concatenate([cube, stray]))
    assert len(kept) == len(cube) and kept[:, 2].max() <= 0.2 + 1e-9


def test_a_partly_hidden_agent_is_placed_from_the_side_that_shows():
    from socialbench.observers.agent.perception.assemble import _anchor_cut_sides

    side = 0.2
    # walking +x at 5 cm a frame; frames 3 and 4 cut by an upright edge: 3 loses its leading
    # (right) side going behind it, 4 its trailing (left) side coming out
    truth = {t: -0.3 + 0.05 * t for t in range(8)}
    bounds = {t: (np.array([x - side / 2, 2.0, 0.0]), np.array([x + side / 2, 2.2, 0.2]))
              for t, x in truth.items()}
    bounds[3] = (bounds[3][0], np.array([truth[3] + 0.02, 2.2, 0.2]))
    bounds[4] = (np.array([truth[4] - 0.03, 2.0, 0.0]), bounds[4][1])
    centres = {t: np.array([(b[0][0] + b[1][0]) / 2, 2.1, 0.1]) for t, b in bounds.items()}
    _anchor_cut_sides([3, 4], bounds, centres, 0, side)
    for t in range(8):
        assert centres[t][0] == pytest.approx(truth[t], abs=1e-9)
    # cut short of its middle (under half its width shows): its height is unknown, dropped
    bounds[5] = (bounds[5][0], np.array([truth[5] - 0.02, 2.2, 0.2]))
    _anchor_cut_sides([5], bounds, centres, 0, side)
    assert 5 not in centres and len(centres) == 7


def test_a_falling_panel_leans_toward_where_it_went():
    from socialbench.observers.agent.perception.assemble import _lean
    from socialbench.observers.agent.perception.boxes import Box

    upright = np.array([0.3, 0.05, 1.2])
    standing = np.array([0.2, 1.6, 0.6])
    # fallen toward the camera (-y): lying flat in front of where it stood
    flat = Box("box", np.array([0.2, 1.0, 0.025]), np.array([0.3, 1.2, 0.05]))
    quat = _lean(flat, upright, standing, along=1)
    assert quat == pytest.approx((np.sin(np.pi / 4), 0.0, 0.0, np.cos(np.pi / 4)), abs=0.03)
    # half way down: about 45 degrees; still standing: no turn
    tilt = Box("box", np.array([0.2, 1.3, 0.45]), np.array([0.3, 0.05 + 1.2 * 0.7071, 0.9]))
    angle = 2 * np.arcsin(abs(_lean(tilt, upright, standing, along=1)[0]))
    assert angle == pytest.approx(np.pi / 4, abs=0.08)
    assert _lean(Box("box", standing, upright), upright, standing, along=1) == (0.0, 0.0, 0.0, 1.0)


def test_the_upper_bound_joins_touching_obstacles_as_rgbd_sees_them():
    from socialbench.observers.agent.perception.sightings import StaticThing
    from socialbench.observers.agent.perception.truth_masks import _join_touching

    def slab(low: tuple[float, float, float], high: tuple[float, float, float]) -> StaticThing:
        axes = [np.linspace(a, b, 8) for a, b in zip(low, high, strict=True)]
        points = np.stack(np.meshgrid(*axes), -1).reshape(-1, 3)
        return StaticThing("obstacle", 0, points, np.array([True, False]))

    post_a = slab((0.5, 2.0, 0.0), (0.6, 2.65, 0.6))
    post_b = slab((0.5, 3.35, 0.0), (0.6, 4.0, 0.6))
    lintel = slab((0.5, 2.65, 0.42), (0.6, 3.35, 0.6))
    apart = slab((-0.5, 2.0, 0.0), (-0.4, 2.5, 0.3))
    joined = _join_touching([post_a, apart, lintel, post_b])
    assert sorted(len(t.points) for t in joined) == [len(apart.points), 3 * len(lintel.points)]
    assert all(t.visible.tolist() == [True, False] for t in joined)

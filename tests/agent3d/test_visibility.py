"""What the camera sees: ray counts agree with the rendered segmentation, and scenario 3's
files hide what its occluder hides (AGENT paper: states are those of the camera's view)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from socialbench.agent3d import visibility
from socialbench.agent3d.generate import make_trial
from socialbench.agent3d.io import (
    CONFIG_FILE,
    STATES_FILE,
    load_trial,
    meta_path,
    named_videos,
    truth_dir,
    write_trial,
)
from socialbench.agent3d.layout.constants import AGENT_ID
from socialbench.agent3d.render import RenderOptions, render_frames
from socialbench.agent3d.samples import AGENT, OCCLUDER, WALL, walk_video
from socialbench.agent3d.scenarios.unobserved_constraints import (
    MIN_AGENT_SHOWN,
    picture_problems,
)
from socialbench.agent3d.schema import Camera, EntitySpec, EntityState, SceneConfig, Video
from socialbench.agent3d.validate import validate_trial
from socialbench.agent3d.visibility import (
    MIN_VISIBLE_PIXELS,
    REFERENCE_SIZE,
    camera_view,
    occlusion,
    video_visibility,
)

SHAPES = ("box", "sphere", "cone", "cylinder", "pyramid", "octahedron", "bowl", "ramp")
# pixels are counted on the reference grid, whatever the default render's size
AT_REFERENCE = RenderOptions(width=REFERENCE_SIZE[0], height=REFERENCE_SIZE[1])


def _agree(counted: int, painted: np.ndarray) -> bool:
    """Ray counts and TinyRenderer's rasterisation differ only on edge pixels: by at most the
    painted mask's outline (its pixels with a neighbour outside it; an occluding edge that
    runs along a pixel row flips that whole row)."""
    padded = np.pad(painted, 1)
    inner = padded[:-2, 1:-1] & padded[2:, 1:-1] & padded[1:-1, :-2] & padded[1:-1, 2:]
    outline = int((painted & ~inner).sum())
    return abs(counted - int(painted.sum())) <= max(4, outline)


def _segmentation_counts(video: Video, frames: list[int]) -> list[np.ndarray]:
    short = Video(video.config, [video.frames[t] for t in frames])
    return [f.segmentation for f in render_frames(short, AT_REFERENCE)]


def _shapes_scene() -> Video:
    """Every shape in a row behind a panel that half covers the row, turned and tipped."""
    entities = [EntitySpec(0, "floor", "floor", "box", (12.0, 12.0, 0.1), (0.0, 0.0, -0.05))]
    for k, shape in enumerate(SHAPES):
        entities.append(EntitySpec(
            10 + k, shape, "obstacle", shape, (0.3, 0.25, 0.35),
            (-1.75 + 0.5 * k, 0.3 * (k % 2), 0.2), orientation=(0.0, 0.0, 0.2588, 0.9659)))
    entities.append(EntitySpec(30, "occluder", "occluder", "box", (1.7, 0.05, 0.5),
                               (-0.4, -0.9, 0.25), orientation=(0.0871, 0.0, 0.0, 0.9962)))
    camera = Camera(position=(0.3, -3.2, 1.6), target=(0.0, 0.3, 0.1))
    config = SceneConfig(3, "3.1", "familiarization", entities, camera)
    return Video(config, [[EntityState(e.id, e.position, e.orientation) for e in entities]])


def test_ray_counts_agree_with_the_segmentation_for_every_shape():
    video = _shapes_scene()
    counted = video_visibility(video)
    painted = _segmentation_counts(video, [0])[0]
    partly = 0
    for spec in video.config.entities:
        if spec.kind != "obstacle":
            continue
        k = counted.column(spec.id)
        showing, whole = int(counted.showing[0, k]), int(counted.silhouette[0, k])
        assert _agree(showing, painted == spec.id), spec.shape
        partly += 0 < showing < whole
    assert partly >= 2  # the panel covers some shapes in part: the test sees occlusion at work


def test_ray_counts_agree_with_the_segmentation_on_a_generated_trial():
    trial = make_trial("3.1", "test", 0, 11)
    video = trial.expected
    counted = video_visibility(video)
    fall = visibility.occlusion(video, counted).reveal
    frames = [0, len(video.frames) // 3, len(video.frames) // 2, fall + 8, len(video.frames) - 1]
    for t, painted in zip(frames, _segmentation_counts(video, frames), strict=True):
        for spec in video.config.entities:
            if spec.kind in ("agent", "goal", "obstacle"):
                k = counted.column(spec.id)
                seen = int((painted == spec.id).sum())
                assert _agree(int(counted.showing[t, k]), painted == spec.id), (t, spec.name)
                if abs(seen - MIN_VISIBLE_PIXELS) > 4:  # clear of the threshold: same verdict
                    assert counted.visible[t, k] == (seen >= MIN_VISIBLE_PIXELS), (t, spec.name)


def test_the_camera_view_drops_what_the_occluder_hides():
    video = walk_video("familiarization", scenario=3, trial_type="3.1")
    seen = video_visibility(video)
    view = camera_view(video, seen)
    assert WALL not in {s.id for s in view.config.entities}  # hidden in every frame
    assert all(WALL not in {s.id for s in frame} for frame in view.frames)
    agent = [AGENT in {s.id for s in frame} for frame in view.frames]
    assert not all(agent) and sum(agent) > len(agent) / 2  # hidden in the middle of the walk
    assert agent[0] and agent[-1]  # start and end in view
    assert all(OCCLUDER in {s.id for s in frame} for frame in view.frames)
    # a frame's rows are the truth's rows of the entities it keeps
    assert view.frames[0] == [s for s in video.frames[0] if s.id != WALL]


def test_picture_checks_catch_an_occluder_that_hides_too_much():
    video = walk_video("familiarization", scenario=3, trial_type="3.1")
    assert picture_problems(video, video_visibility(video)) == []
    wide = [replace(s, size=(2.6, 0.05, 1.0)) if s.id == OCCLUDER else s
            for s in video.config.entities]
    hidden = Video(replace(video.config, entities=wide), video.frames)
    problems = picture_problems(hidden, video_visibility(hidden))
    assert any("of the frames in which it moves" in p for p in problems)
    assert occlusion(hidden, video_visibility(hidden)).agent_moving < MIN_AGENT_SHOWN


@pytest.mark.slow  # several seconds of CPU: the default suite keeps its 5-minute budget
@pytest.mark.parametrize("trial_type, seed", [("3.1", 5), ("3.2", 6)])
def test_scenario_3_files_show_only_what_the_camera_sees(tmp_path, trial_type, seed):
    trial = make_trial(trial_type, "test", 0, seed)
    folder = tmp_path / "scenario_3_unobserved_constraints" / f"type_{trial_type}" / \
        "test_set" / "Trial_0"
    write_trial(trial, folder, states="rows")  # frame by frame, as this test reads them
    assert validate_trial(folder) == []
    stored = {name: json.loads((folder / name / STATES_FILE).read_text())
              for name, _ in named_videos(trial)}
    configs = {name: json.loads((folder / name / CONFIG_FILE).read_text())
               for name, _ in named_videos(trial)}

    def kinds(rows: list[dict]) -> set[str]:
        return {row["class"] for row in rows}

    # familiarization never shows the wall: not in a frame, the entity table or the config
    fam = "Familiarization_video_1"
    assert all("obstacle" not in kinds(frame) for frame in stored[fam]["frames"])
    assert "obstacle" not in {e["class"] for e in stored[fam]["entities"]}
    assert "obstacle" not in {e["kind"] for e in configs[fam]["entities"]}
    # the agent is missing while hidden, yet shows in most of its moving frames
    for name, video in named_videos(trial):
        missing = sum(AGENT_ID not in {r["id"] for r in frame} for frame in
                      stored[name]["frames"])
        assert 0 < missing < len(video.frames) / 2, name
    # expected and surprising are the same rows, byte for byte, until the occluder falls
    fall = occlusion(trial.expected, video_visibility(trial.expected)).reveal
    assert fall is not None and fall > 0
    for t in range(fall):
        assert stored["expected"]["frames"][t] == stored["surprising"]["frames"][t]
    # after the fall the expected video reveals its wall
    assert any("obstacle" in kinds(frame) for frame in stored["expected"]["frames"][fall:])
    if trial_type == "3.1":  # nothing behind: no wall anywhere in the surprising files
        assert "obstacle" not in json.dumps(stored["surprising"]) + \
            json.dumps(configs["surprising"])
    # the ground truth, every entity in every frame, is under _meta/ and read back with it
    truth = truth_dir(meta_path(folder))
    assert (truth / fam / STATES_FILE).is_file()
    back = load_trial(folder, annotations=True)
    for (name, video), (_, read) in zip(named_videos(trial), named_videos(back), strict=True):
        assert read.frames == video.frames, name
        assert [s.id for s in read.config.entities] == [s.id for s in video.config.entities]



def test_the_released_reader_takes_frames_that_hide_entities(tmp_path):
    from socialbench.agent3d.released import load_released_trial
    from tests.agent3d.test_io import _write_released_video

    root = tmp_path / "scenario_3_unobserved_constraints" / "type_3.1" / "train_set" / "Trial_0"
    views = {name: camera_view(walk_video(kind, scenario=3, trial_type="3.1"))
             for name, kind in (("Familiarization_video_1", "familiarization"),
                                ("expected", "expected"))}
    for name, view in views.items():
        _write_released_video(root / name, view)
    states = root / "expected" / STATES_FILE
    data = json.loads(states.read_text())
    data["frames"][0][str(AGENT + 100)] = {"occluded": True}  # flagged rather than left out
    states.write_text(json.dumps(data))
    loaded = load_released_trial(root)
    fam = loaded.familiarization[0]
    hidden = [AGENT + 100 not in {s.id for s in frame} for frame in fam.frames]
    assert hidden == [AGENT not in {s.id for s in frame} for frame in
                      views["Familiarization_video_1"].frames]
    assert any(hidden) and AGENT + 100 in {s.id for s in fam.config.entities}
    assert AGENT + 100 not in {s.id for s in loaded.expected.frames[0]}


@pytest.mark.parametrize("trial_type, seed", [("3.1", 21), ("3.2", 22)])
def test_expected_and_surprising_pictures_are_the_same_until_the_occluder_falls(trial_type,
                                                                                 seed):
    """The occluder hides the wall and its drop shadow: nothing in the picture tells what is
    behind it before it falls."""
    trial = make_trial(trial_type, "test", 0, seed)
    fall = occlusion(trial.expected, video_visibility(trial.expected)).reveal
    chosen = [0, fall // 2, fall - 1]
    pictures = [[f.rgb for f in render_frames(Video(v.config, [v.frames[t] for t in chosen]),
                                              AT_REFERENCE)]
                for v in (trial.expected, trial.surprising)]
    for expected, surprising in zip(*pictures, strict=True):
        assert np.array_equal(expected, surprising)
    after = [next(render_frames(Video(v.config, [v.frames[-1]]), AT_REFERENCE)).rgb
             for v in (trial.expected, trial.surprising)]
    assert not np.array_equal(*after)  # the fall reveals different scenes


@pytest.mark.slow
def test_a_rendered_trial_lists_exactly_the_entities_its_segmentation_shows(tmp_path):
    """Every frame of every video of a rendered 3.1 trial: an agent, goal or wall is in the
    state file's frame exactly when the segmentation shows enough of it."""
    from socialbench.agent3d.render import read_frames

    trial = make_trial("3.1", "test", 0, 4242)
    folder = tmp_path / "scenario_3_unobserved_constraints" / "type_3.1" / "test_set" / "Trial_0"
    write_trial(trial, folder, replace(AT_REFERENCE, mp4=False), states="rows")
    for name, video in named_videos(trial):
        segmentation = read_frames(folder / name)["segmentation"]
        stored = json.loads((folder / name / STATES_FILE).read_text())["frames"]
        ids = [s.id for s in video.config.entities if s.kind in ("agent", "goal", "obstacle")]
        for t, frame in enumerate(stored):
            listed = {row["id"] for row in frame}
            for entity_id in ids:
                painted = int((segmentation[t] == entity_id).sum())
                if abs(painted - MIN_VISIBLE_PIXELS) > 4:  # clear of the threshold
                    assert (painted >= MIN_VISIBLE_PIXELS) == (entity_id in listed), (name, t)


def test_pose_keys_round_each_coordinate_to_the_millimetre_as_round_does():
    rng = np.random.default_rng(3)
    states = [EntityState(1, tuple(rng.normal(0, 2, 3).tolist()),
                          tuple((rng.normal(0, 1, 4) / 2).tolist())) for _ in range(500)]
    states.append(EntityState(1, (0.0005, -0.0005, 1.0625), (0.0, 0.0, -0.0, 1.0)))  # ties, -0
    keys = visibility._pose_keys(states)
    for state, key in zip(states, keys, strict=True):
        assert key == (tuple(round(v, 3) for v in state.position),
                       tuple(round(v, 3) for v in state.orientation))


def _slab_reference(half: np.ndarray, origin: np.ndarray, local: np.ndarray) -> np.ndarray:
    """The slab test written plainly (enter: the largest near slab side, leave: the smallest
    far one, along each row), for rays with no zero component."""
    with np.errstate(divide="ignore"):
        low, high = (-half - origin) / local, (half - origin) / local
    enter = np.minimum(low, high).max(axis=1)
    leave = np.maximum(low, high).min(axis=1)
    return np.where((enter <= leave) & (leave > 0), np.maximum(enter, 0.0), np.inf)


def test_box_hits_by_hand_and_bit_for_bit_as_the_plain_slab_test():
    spec = EntitySpec(5, "box", "obstacle", "box", (2.0, 1.0, 4.0), (0.0, 0.0, 0.0))
    body = visibility.PlacedBody(spec, np.zeros(3), np.eye(3))
    eye = np.array([-5.0, 0.0, 0.0])
    rays = np.array([[1.0, 0.0, 0.0],  # straight at the face x = -1: t = 4
                     [2.0, 0.0, 0.0],  # the same, twice as long a step: t = 2
                     [1.0, 0.2, 0.0],  # y at x = -1 is 0.8, outside the half-width 0.5
                     [0.0, 1.0, 0.0],  # parallel to the x slabs and outside them: a miss
                     [-1.0, 0.0, 0.0]])  # away from the box
    assert body.hit_distance(eye, rays).tolist() == [4.0, 2.0, np.inf, np.inf, np.inf]
    inside = np.array([0.5, 0.0, 0.0])  # from inside the box: hits at once
    assert body.hit_distance(inside, rays[:2]).tolist() == [0.0, 0.0]
    # random turned boxes and rays: the same bits as the plain formula
    rng = np.random.default_rng(5)
    for _ in range(20):
        quaternion = rng.normal(size=4)
        rotation = visibility._rotation(quaternion / np.linalg.norm(quaternion))
        turned = visibility.PlacedBody(spec, rng.normal(size=3), rotation)
        eye = rng.normal(0, 4, 3)
        directions = turned.position + rng.normal(0, 1.5, (300, 3)) - eye  # about half hit
        expected = _slab_reference(np.asarray(spec.size) / 2, (eye - turned.position) @ rotation,
                                   directions @ rotation)
        assert np.array_equal(turned.hit_distance(eye, directions), expected)
        assert 0 < np.isfinite(expected).sum() < len(expected)


def test_video_counts_equal_each_frame_counted_alone():
    """The video's counts (shared per pose, frames where nothing moved repeated) are each
    frame's own count with every body in the scene (``count_pixels``), each body at the first
    state of its pose to the millimetre (the pose a count is shared by)."""
    _check_each_frame(walk_video("familiarization", scenario=3, trial_type="3.1"))


@pytest.mark.slow  # a generated trial: seconds of CPU on a busy machine
@pytest.mark.parametrize("trial_type, seed", [("3.1", 11), ("3.2", 6)])
def test_generated_scenario_3_counts_equal_each_frame_counted_alone(trial_type, seed):
    trial = make_trial(trial_type, "test", 0, seed)
    for video in (*trial.familiarization, trial.expected, trial.surprising):
        _check_each_frame(video, every=5)


def _check_each_frame(video: Video, every: int = 1) -> None:
    seen = video_visibility(video)
    rays = visibility.PixelRays.of(video.config.camera)
    specs = {s.id: s for s in video.config.entities if s.kind not in ("floor", "room")}
    states = [s for frame in video.frames for s in frame if s.id in specs]
    first: dict[tuple, EntityState] = {}
    for state, key in zip(states, visibility._pose_keys(states), strict=True):
        first.setdefault((state.id, key), state)
    keyed = dict(zip(map(id, states), visibility._pose_keys(states), strict=True))
    checked = 0
    for t, frame in list(enumerate(video.frames))[::every]:
        here = [first[(s.id, keyed[id(s)])] for s in frame if s.id in specs]
        placed = [visibility.PlacedBody.at(specs[s.id], s) for s in here]
        for k, state in enumerate(here):
            if specs[state.id].kind == "occluder":
                continue
            others = placed[:k] + placed[k + 1:]
            column = seen.column(state.id)
            assert visibility.count_pixels(rays, placed[k], others) == \
                (seen.showing[t, column], seen.silhouette[t, column]), (t, state.id)
            checked += 1
    assert checked >= 2 * len(video.frames) // every
    assert (seen.showing[:, seen.column(AGENT)] == 0).any()  # hidden for a while


def test_windows_of_a_video_at_once_are_each_pose_window():
    """The windows of every state of a video, worked out at once, are those of
    ``PixelRays.window`` on each placed body's corners (and None out of view or behind)."""
    rng = np.random.default_rng(8)
    camera = Camera(position=(0.3, -3.2, 1.6), target=(0.0, 0.3, 0.1))
    rays = visibility.PixelRays.of(camera)
    specs = {k: EntitySpec(k, "body", "obstacle", "box", tuple(rng.uniform(0.1, 1.5, 3)),
                           (0.0, 0.0, 0.0)) for k in range(5)}
    states = []
    for _ in range(400):
        quaternion = rng.normal(size=4)
        quaternion /= np.linalg.norm(quaternion)
        states.append(EntityState(int(rng.integers(5)), tuple(rng.normal(0, 3, 3).tolist()),
                                  tuple(quaternion.tolist())))
    at_once = visibility._windows(rays, states, specs)
    one_by_one = [rays.window(visibility.PlacedBody.at(specs[s.id], s).corners())
                  for s in states]
    assert at_once == one_by_one
    assert any(w is None for w in at_once) and any(w is not None for w in at_once)


def test_a_still_body_cast_once_hides_as_cast_per_target():
    """A body standing still in front, cast once on its whole window and read per target
    (``_cast``), gives each target ray the distance the body's own test on it gives."""
    video = _shapes_scene()
    rays = visibility.PixelRays.of(video.config.camera)
    grid = rays.grid()
    specs = {s.id: s for s in video.config.entities}
    states = {s.id: s for s in video.frames[0]}
    panel = visibility.PlacedBody.at(specs[30], states[30])
    window = rays.window(panel.corners())
    depth = visibility._cast(rays, grid, [panel], [window])[0]
    row0, row1, col0, col1 = window
    rows, cols = np.divmod(np.arange((row1 - row0) * (col1 - col0)), col1 - col0)
    directions = rays.directions((rows + row0).astype(float), (cols + col0).astype(float))
    assert np.array_equal(grid[row0:row1, col0:col1].reshape(-1, 3), directions)
    assert np.array_equal(depth.ravel(), panel.hit_distance(rays.eye, directions))
    assert np.isfinite(depth).any()


def test_a_count_does_not_depend_on_the_videos_counted_before():
    """Counts are shared between videos by the exact states they come from, not by the poses
    rounded to the millimetre: a video counted right after one whose agent stood within a
    millimetre of its own (the same rounded poses, other pixels) gets the counts it gets
    alone. The generator's workers and the validator count videos in other orders."""
    base = walk_video("familiarization", scenario=3, trial_type="3.1")

    def shifted(by: float) -> Video:
        frames = [[replace(s, position=(s.position[0] + by, *s.position[1:]))
                   if s.id == AGENT else s for s in frame] for frame in base.frames]
        return Video(base.config, frames)

    def fresh(video: Video) -> visibility.VideoVisibility:
        visibility._SHARED.clear()
        visibility._RECENT.clear()
        return video_visibility(video)

    agent_states = lambda video: [s for f in video.frames for s in f if s.id == AGENT]  # noqa: E731
    alone_base = fresh(base)
    column = alone_base.column(AGENT)
    for by in np.arange(1, 5) * 1e-4:  # m: the first shift that moves a pixel in some frame
        video = shifted(by)
        same_keys = np.array([a == b for a, b in zip(
            visibility._pose_keys(agent_states(base)), visibility._pose_keys(
                agent_states(video)), strict=True)])
        alone = fresh(video)
        differs = alone.silhouette[:, column] != alone_base.silhouette[:, column]
        if (same_keys & differs).any():
            break
    else:
        pytest.fail("no shift under a millimetre moved a pixel")
    fresh(base)
    after = video_visibility(video)  # counted after ``base``, its rounded poses the same
    assert np.array_equal(after.showing, alone.showing)
    assert np.array_equal(after.silhouette, alone.silhouette)


def test_many_poses_cast_at_once_give_each_pose_its_own_bits(monkeypatch):
    """``_cast`` solves the rays of many poses of one shape together (in batches): each
    body's distances are those its own ``hit_distance`` gives on its window's rays, bit for
    bit, for every shape, turned and moved, whatever the batches."""
    monkeypatch.setattr(visibility, "_CAST_RAYS", 500)  # several batches a shape
    rng = np.random.default_rng(3)
    rays = visibility.PixelRays.of(Camera(position=(0.3, -3.2, 1.6), target=(0.0, 0.3, 0.1)))
    grid = rays.grid()
    bodies, windows = [], []
    for shape in SHAPES:
        spec = EntitySpec(1, shape, "agent", shape, (0.3, 0.25, 0.35), (0.0, 0.0, 0.0))
        for _ in range(6):
            quaternion = rng.normal(size=4)
            state = EntityState(1, tuple(rng.uniform(-1.0, 1.0, 3) * (1.5, 1.0, 0.2)),
                                tuple(quaternion / np.linalg.norm(quaternion)))
            body = visibility.PlacedBody.at(spec, state)
            bodies.append(body)
            windows.append(rays.window(body.corners()))
    cast = visibility._cast(rays, grid, bodies, windows)
    for body, (row0, row1, col0, col1), depth in zip(bodies, windows, cast, strict=True):
        directions = grid[row0:row1, col0:col1].reshape(-1, 3)
        assert np.array_equal(depth.ravel(), body.hit_distance(rays.eye, directions))
        assert depth.shape == (row1 - row0, col1 - col0)
    assert sum(np.isfinite(d).any() for d in cast) == len(bodies)


def test_many_faced_shapes_solve_alike_in_blocks_of_any_size(monkeypatch):
    """``_solve`` takes the rays of a many-faced shape a block at a time: the distances are the
    same bits whatever the block size, for one pose's rays and for many poses' at once."""
    rays = visibility.PixelRays.of(Camera(position=(0.3, -3.2, 1.6), target=(0.0, 0.3, 0.1)))
    grid = rays.grid()
    rng = np.random.default_rng(5)
    for shape in ("cone", "cylinder", "bowl", "ramp"):
        spec = EntitySpec(1, shape, "agent", shape, (0.4, 0.3, 0.45), (0.0, 0.0, 0.0))
        bodies, windows = [], []
        for _ in range(3):
            quaternion = rng.normal(size=4)
            state = EntityState(1, tuple(rng.uniform(-0.5, 0.5, 3)),
                                tuple(quaternion / np.linalg.norm(quaternion)))
            bodies.append(visibility.PlacedBody.at(spec, state))
            windows.append(rays.window(bodies[-1].corners()))
        results = []
        for block in (1 << 20, 333, 7):
            monkeypatch.setattr(visibility, "_SOLVE_BLOCK", block)
            cast = visibility._cast(rays, grid, bodies, windows)
            (row0, row1, col0, col1) = windows[0]
            alone = bodies[0].hit_distance(rays.eye, grid[row0:row1, col0:col1].reshape(-1, 3))
            results.append((cast, alone))
        (first_cast, first_alone), *others = results
        assert np.isfinite(first_alone).any()
        for cast, alone in others:
            assert np.array_equal(alone, first_alone)
            assert all(np.array_equal(a, b) for a, b in zip(cast, first_cast, strict=True))

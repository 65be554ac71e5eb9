"""AGENT rendering: what each pixel of RGB, depth and segmentation shows; files; bad input."""

from __future__ import annotations

import io as pyio
import math
import zipfile
from dataclasses import replace

import numpy as np
import pytest

from socialbench.agent3d.io import write_trial
from socialbench.agent3d.render import (
    RenderOptions,
    read_frames,
    render_frames,
    render_video,
    segmentation_color,
)
from socialbench.agent3d.samples import AGENT, FLOOR, GOAL, WALL, sample_trial, walk_video
from socialbench.agent3d.schema import Camera, EntitySpec, EntityState, SceneConfig, Video
from socialbench.core.errors import DataFileError, UserError
from socialbench.core.video import count_frames

SMALL = RenderOptions(width=32, height=24)


def _short(video: Video, frames: int = 4) -> Video:
    return Video(video.config, video.frames[:frames])


def test_a_box_seen_head_on_fills_the_centre_at_its_distance():
    box = EntitySpec(5, "box", "obstacle", "box", (1.0, 1.0, 1.0), (0.0, 0.0, 0.0),
                     rgba=(1.0, 0.0, 0.0, 1.0))
    camera = Camera(position=(0.0, -3.0, 0.0), target=(0.0, 0.0, 0.0))
    config = SceneConfig(2, "2.1", "expected", [box], camera)
    frame = next(render_frames(Video(config, [[EntityState(5, box.position, box.orientation)]]),
                               SMALL))
    assert frame.segmentation[12, 16] == 5 and frame.segmentation[0, 0] == -1
    # the face nearest the camera is 2.5 m away along its axis
    assert frame.depth_mm[12, 16] == pytest.approx(2500, abs=15)
    red, green, blue = frame.rgb[12, 16].astype(int)
    assert red > 100 and green < 40 and blue < 40
    # a 1 m box at 2.5 m spans 2 * atan(0.5 / 2.5) of the 53 degree vertical field of view
    rows = np.flatnonzero(frame.segmentation[:, 16] == 5)
    expected_rows = 24 * math.tan(math.atan(0.5 / 2.5)) / math.tan(math.radians(53 / 2))
    assert len(rows) == pytest.approx(expected_rows, abs=1.5)


def test_segmentation_follows_the_stored_states():
    video = walk_video()
    options = RenderOptions(width=64, height=48)
    first, last = (next(render_frames(Video(video.config, [f]), options))
                   for f in (video.frames[0], video.frames[-1]))
    for frame in (first, last):
        assert {FLOOR, AGENT, GOAL, WALL} <= set(np.unique(frame.segmentation))
    # the agent walked from x = -1.5 towards x = +1.5: its pixels moved right
    columns = [np.flatnonzero((f.segmentation == AGENT).any(axis=0)).mean() for f in (first, last)]
    assert columns[1] > columns[0] + 10


def test_render_video_writes_mp4_and_frames_identically_twice(tmp_path):
    video = _short(walk_video(), 6)
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        render_video(video, tmp_path / name, SMALL)
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["frames.npz", "rgb.mp4"]
    for name in ("frames.npz", "rgb.mp4"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert count_frames(tmp_path / "a" / "rgb.mp4") == 6
    arrays = read_frames(tmp_path / "a")
    assert arrays["rgb"].shape == (6, 24, 32, 3) and arrays["depth_mm"].dtype == np.uint16
    assert arrays["segmentation"].shape == (6, 24, 32)


def test_png_frames_paint_each_entity_in_its_segmentation_colour(tmp_path):
    from PIL import Image

    video = _short(walk_video(), 2)
    render_video(video, tmp_path, replace(SMALL, frames="png", mp4=False))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["depth", "rgb", "segmentation"]
    assert sorted(p.name for p in (tmp_path / "rgb").iterdir()) == ["0000.png", "0001.png"]
    painted = np.asarray(Image.open(tmp_path / "segmentation" / "0000.png"))
    ids = next(render_frames(video, SMALL)).segmentation
    assert (painted[ids == FLOOR] == segmentation_color(FLOOR)).all()
    assert np.asarray(Image.open(tmp_path / "depth" / "0000.png")).dtype == np.uint16
    assert not list(tmp_path.glob(".render-*"))


def test_write_trial_with_render_renders_every_video(tmp_path):
    trial = sample_trial("test")
    trial.familiarization = [_short(v) for v in trial.familiarization]
    trial.expected, trial.surprising = _short(trial.expected), _short(trial.surprising)
    write_trial(trial, tmp_path, RenderOptions(width=16, height=16, frames="none"))
    for video in ("Familiarization_video_1", "expected", "surprising"):
        assert count_frames(tmp_path / video / "rgb.mp4") == 4


@pytest.mark.parametrize("options", [dict(width=31), dict(height=0), dict(width=10_000),
                                     dict(frames="gif"), dict(near=5.0, far=1.0)])
def test_bad_render_options_are_refused_in_one_line(options):
    with pytest.raises(UserError) as error:
        RenderOptions(**options)
    assert "\n" not in str(error.value)


def _npz(tmp_path, arrays: dict[str, np.ndarray], *, allow_pickle: bool = False) -> None:
    with zipfile.ZipFile(tmp_path / "frames.npz", "w") as archive:
        for name, array in arrays.items():
            buffer = pyio.BytesIO()
            np.lib.format.write_array(buffer, array, allow_pickle=allow_pickle)
            archive.writestr(f"{name}.npy", buffer.getvalue())


def test_frame_reader_refuses_objects_huge_claims_and_garbage(tmp_path, monkeypatch):
    _npz(tmp_path, {"rgb": np.array([{"evil": 1}], dtype=object)}, allow_pickle=True)
    with pytest.raises(DataFileError, match="Python objects"):
        read_frames(tmp_path)
    _npz(tmp_path, {"rgb": np.zeros((10, 10), dtype=np.uint8)})
    monkeypatch.setattr("socialbench.agent3d.render.MAX_NPZ_ELEMENTS", 50)
    with pytest.raises(DataFileError, match="claims shape"):
        read_frames(tmp_path)
    (tmp_path / "frames.npz").write_bytes(b"not a zip")
    with pytest.raises(DataFileError, match="not a readable npz"):
        read_frames(tmp_path)
    with pytest.raises(DataFileError, match="missing"):
        read_frames(tmp_path / "nowhere")


def _floor_scene(agent_height: float) -> Video:
    from socialbench.agent3d.layout.constants import FLOOR_LOOKS

    floor = EntitySpec(40, "floor", "floor", "box", (12.0, 12.0, 0.1), (0.0, 0.0, -0.05),
                       rgba=FLOOR_LOOKS[0][1])
    agent = EntitySpec(1, "agent", "agent", "box", (0.2, 0.2, 0.2), (0.0, 0.0, agent_height),
                       label=9, rgba=(0.9, 0.1, 0.1, 1.0), static=False, mass=1.0)
    camera = Camera(position=(0.0, -2.5, 2.0), target=(0.0, 0.0, 0.2))
    config = SceneConfig(2, "2.1", "expected", [floor, agent], camera)
    return Video(config, [[EntityState(e.id, e.position, e.orientation)
                           for e in config.entities]])


def test_a_higher_agent_casts_its_shadow_farther_from_itself():
    options = RenderOptions(width=96, height=96)
    gaps = []
    for height in (0.1, 0.5, 0.9):
        video = _floor_scene(height)
        lit = next(render_frames(video, replace(options, shadows=False)))
        shaded = next(render_frames(video, options))
        # shadows change the picture only: the same depth and segmentation
        assert (lit.depth_mm == shaded.depth_mm).all()
        assert (lit.segmentation == shaded.segmentation).all()
        shadow = (shaded.rgb.astype(int).sum(-1) < lit.rgb.astype(int).sum(-1) - 30)
        assert shadow.sum() > 20 and (shaded.segmentation[shadow] == 40).all()
        agent = np.argwhere(shaded.segmentation == 1).mean(axis=0)
        gaps.append(np.linalg.norm(np.argwhere(shadow).mean(axis=0) - agent))
    assert gaps[0] < gaps[1] < gaps[2] and gaps[2] > gaps[0] + 10


def test_textures_change_the_floor_colours_not_depth_or_segmentation():
    video = _floor_scene(0.1)
    options = RenderOptions(width=64, height=64, shadows=False)
    plain = next(render_frames(video, replace(options, textures=False)))
    textured = next(render_frames(video, options))
    assert (plain.segmentation == textured.segmentation).all()
    assert np.abs(plain.depth_mm.astype(int) - textured.depth_mm.astype(int)).max() <= 1
    floor = textured.segmentation == 40
    assert textured.rgb[floor].std(axis=0).mean() > 3 * plain.rgb[floor].std(axis=0).mean()


def test_every_room_look_has_a_texture_tinted_to_its_colour():
    from socialbench.agent3d.layout.constants import FLOOR_LOOKS, WALL_LOOKS
    from socialbench.agent3d.textures import texture_array

    for name, color in (*FLOOR_LOOKS, *WALL_LOOKS):
        tile = texture_array(name)
        assert tile.shape == (256, 256, 3) and tile.dtype == np.uint8
        assert tile.reshape(-1, 3).mean(axis=0) == pytest.approx(np.asarray(color[:3]) * 255,
                                                                 abs=4)
        assert tile.reshape(-1, 3).std(axis=0).max() > 1.5  # a pattern, not a flat colour
        assert (texture_array(name) == tile).all()  # drawn from a fixed seed


def test_a_frame_where_nothing_moved_is_the_one_drawn_before_and_its_own_arrays():
    """Frames repeating the last one's poses are copied, not drawn: the same pixels as drawing
    them afresh, in arrays of their own (changing one leaves the next intact)."""
    video = walk_video()
    options = RenderOptions(width=64, height=48)
    still, moved = video.frames[0], video.frames[-1]
    frames = render_frames(Video(video.config, [still, still, moved, moved]), options)
    first = next(frames)
    first.rgb[:] = 0  # a consumer changing what it was given
    second, third, fourth = frames
    fresh = [next(render_frames(Video(video.config, [f]), options)) for f in (still, moved)]
    for got, want in ((second, fresh[0]), (third, fresh[1]), (fourth, fresh[1])):
        assert np.array_equal(got.rgb, want.rgb)
        assert np.array_equal(got.depth_mm, want.depth_mm)
        assert np.array_equal(got.segmentation, want.segmentation)
        assert got.segmentation.dtype == np.int16 and got.depth_mm.dtype == np.uint16
    assert not np.shares_memory(third.rgb, fourth.rgb)


def test_frames_drawn_ahead_come_in_order_and_failures_and_early_stops_reach_both_threads():
    import threading

    from socialbench.agent3d.render import drawn_ahead

    assert list(drawn_ahead(iter(range(10)), 2)) == list(range(10))

    def failing():
        yield 1
        raise ValueError("drawing failed")

    got = []
    with pytest.raises(ValueError, match="drawing failed"):
        for item in drawn_ahead(failing(), 3):
            got.append(item)
    assert got == [1]

    closed = threading.Event()

    def endless():
        try:
            k = 0
            while True:
                yield k
                k += 1
        finally:
            closed.set()  # the drawing's generator is closed, in its own thread

    ahead = drawn_ahead(endless(), 2)
    assert [next(ahead) for _ in range(3)] == [0, 1, 2]
    ahead.close()  # the writer stops early (an error there): the drawing stops too
    assert closed.is_set()
    assert not any(t.name == "render-draw" for t in threading.enumerate())


def test_a_video_written_with_and_without_the_drawing_thread_is_the_same_bytes(tmp_path):
    video = walk_video("familiarization")
    video = Video(video.config, video.frames[:12])
    for ahead in (0, 4):
        (tmp_path / str(ahead)).mkdir()
        render_video(video, tmp_path / str(ahead), RenderOptions(width=64, height=64,
                                                                  draw_ahead=ahead))
    for name in ("rgb.mp4", "frames.npz"):
        assert (tmp_path / "0" / name).read_bytes() == (tmp_path / "4" / name).read_bytes()

"""The video model on 3D videos (BIB paper, Table 1's 3D column): its frames drawn from the JSON
in the 3D scene (``--frames 3d``), agreeing with the ``--render 3d`` videos, kept apart from 2D."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("pybullet")

from click.testing import CliRunner  # noqa: E402
from scipy.ndimage import center_of_mass  # noqa: E402

from socialbench.bib.io import EpisodeFiles, dump_episode  # noqa: E402
from socialbench.bib.render3d import Renderer3D  # noqa: E402
from socialbench.bib.video import write_episode_videos  # noqa: E402
from socialbench.cli import main  # noqa: E402
from socialbench.core.errors import UserError  # noqa: E402
from socialbench.observers.bib import handmade  # noqa: E402
from socialbench.observers.bib.video_model.frame_cache import (  # noqa: E402
    prepare_shards,
    read_key,
    read_shard,
    shards_key,
)
from socialbench.observers.bib.video_model.frames import (  # noqa: E402
    decoded_frames,
    rendered_frames,
    sample_indices,
    shrink,
)
from socialbench.observers.bib.video_model.frames3d import (  # noqa: E402
    rendered_frames_3d,
    renderer_3d,
)
from socialbench.observers.bib.video_model.network import VideoConfig  # noqa: E402
from socialbench.observers.bib.video_model.observer import VideoObserver  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")

SMALL = {"side": 32, "encoder_widths": (4, 4, 4, 4), "stem_width": 4, "frame_dim": 8,
         "lstm_hidden": 4, "unet_widths": (8, 8)}
OBJECTS = [("heart", (7, 2)), ("moon", (2, 7))]


def _trial(goal: int):
    place = OBJECTS[goal][1]
    path = [(2, 2), (place[0], 2), place] if goal == 0 else [(2, 2), (2, place[1]), place]
    return handmade.trial(handmade.OPEN, OBJECTS, path, goal=goal)


def _episode(preferred: int = 0, test_goal: int = 1):
    """Eight familiarization trials that are one Trial object (drawn and encoded once) and a
    test: an episode's video in seconds."""
    familiar = _trial(preferred)
    return handmade.episode([familiar] * 8, _trial(test_goal), task="preference",
                            expected=preferred == test_goal)


def _centroid(frame: np.ndarray) -> np.ndarray:
    """Centre of the coloured pixels (agent, objects, home), weighted by saturation: the floor
    and the walls are grey and weigh nothing."""
    return np.array(center_of_mass(np.ptp(frame, axis=2).astype(float)))


def test_3d_frames_agree_with_the_decoded_render_3d_video(tmp_path):
    episode = _episode()
    video = tmp_path / "e.mp4"
    write_episode_videos([(episode, video)], render="3d")  # as `bib generate --render 3d`
    drawn, counts = rendered_frames_3d(episode.trials)
    decoded, decoded_counts = decoded_frames(video, [len(t) for t in episode.trials])
    assert drawn.shape == decoded.shape and drawn.shape[1:] == (64, 64, 3)
    assert counts.tolist() == decoded_counts.tolist() == rendered_frames(episode.trials)[1].tolist()
    gap = np.abs(drawn.astype(int) - decoded.astype(int))
    # drawn at 64 px without antialiasing vs shrunk from 200 px: edges differ, nothing else
    # (measured 6-8 grey levels on generated episodes; 0.3-0.4 when drawn at 200 px)
    assert gap.mean() < 10
    # the same bodies in the same places: TinyRenderer snaps vertices to whole pixels, which at
    # 64 px moves the coloured pixels' centre by up to a pixel (measured 0.6-1.04; 0.1-0.35 at
    # 128 px), never by a cell (6.4 px)
    for a, b in zip(drawn, decoded, strict=True):
        assert np.abs(_centroid(a) - _centroid(b)).max() < 1.5


def test_drawing_only_the_sampled_frames_gives_the_video_renderers_pixels():
    # the kept frames alone, drawn at the videos' 200 px and shrunk, are exactly the frames of
    # the full 25-fps trial that the 3D videos encode
    episode = _episode()
    with renderer_3d(200) as renderer:
        drawn, counts = rendered_frames_3d(episode.trials[-2:], renderer)
    expected = []
    with Renderer3D() as video_renderer:
        for trial in episode.trials[-2:]:
            every = list(video_renderer.trial_frames(trial))
            expected += [shrink(every[i]) for i in sample_indices(len(trial))]
    assert counts.sum() == len(expected)
    assert np.array_equal(drawn, np.stack(expected))


def test_2d_and_3d_frames_show_the_same_trial_differently():
    episode = _episode()
    flat, flat_counts = rendered_frames(episode.trials[-1:])
    scene, scene_counts = rendered_frames_3d(episode.trials[-1:])
    assert flat_counts.tolist() == scene_counts.tolist()
    assert np.abs(flat.astype(int) - scene.astype(int)).mean() > 20  # white page vs a scene


def test_a_2d_shard_is_never_taken_for_3d_frames(tmp_path):
    path = tmp_path / "000000pre.json"
    dump_episode(_episode(), path)
    files = EpisodeFiles([path])
    assert shards_key(files.paths, 32, 3.0, "3d") != shards_key(files.paths, 32, 3.0)
    flat = prepare_shards(files, tmp_path / "cache", 32, 3.0)
    assert read_shard(flat[0]).source == "2d"
    scene = prepare_shards(files, tmp_path / "cache", 32, 3.0, source="3d")  # same file names
    assert scene == flat
    shard = read_shard(scene[0])
    assert shard.source == "3d"  # drawn again in 3D, not reused
    assert read_key(scene[0]).startswith(shards_key(files.paths, 32, 3.0, "3d"))
    assert np.array_equal(shard.frames, rendered_frames_3d(files[0].trials, side=32)[0])


def test_a_shard_from_before_the_source_was_recorded_reads_as_2d(tmp_path):
    path = tmp_path / "old.npz"
    np.savez(path, format=np.array("socialbench-video-frames/1"), key=np.array("k"),
             frames=np.zeros((2, 4, 4, 3), np.uint8), counts=np.ones((1, 2), np.int64),
             tasks=np.array(["preference"]), names=np.array(["a"]))
    assert read_shard(path).source == "2d"


def test_frames_source_is_checked_and_kept_in_the_checkpoint(tmp_path):
    with pytest.raises(UserError, match="unknown video frames '4d'"):
        VideoConfig(frames="4d")
    assert "frames" not in VideoConfig().to_json()  # 2D checkpoints and resume keys unchanged
    observer = VideoObserver(frames="3d", **SMALL)
    episode = _episode()
    frames, counts = observer.frames_of(episode.trials)
    assert np.array_equal(frames, rendered_frames_3d(episode.trials, side=32)[0])
    observer.save(tmp_path / "v.pt")
    loaded = VideoObserver.load(tmp_path / "v.pt")
    assert loaded.config.frames == "3d"
    assert np.array_equal(loaded.surprise_per_step(episode), observer.step_errors(frames, counts))


def test_train_and_evaluate_frames_options(tmp_path):
    runner = CliRunner()
    bad = runner.invoke(main, ["bib", "train", "--observer", "video", "--frames", "4d",
                               "--train", str(tmp_path), "--out", str(tmp_path / "v.pt")])
    assert bad.exit_code == 2 and "'4d' is not one of '2d', '3d'" in bad.output
    mask = runner.invoke(main, ["bib", "train", "--observer", "mask", "--frames", "3d",
                                "--train", str(tmp_path), "--out", str(tmp_path / "m.pt")])
    assert mask.exit_code != 0 and "--frames chooses the video model's frames" in mask.output
    assert len(mask.output.strip().splitlines()) == 1 and not list(tmp_path.iterdir())
    VideoObserver(**SMALL).save(tmp_path / "flat.pt")
    data = tmp_path / "data" / "preference"
    data.mkdir(parents=True)
    dump_episode(_episode(0, 0), data / "000000pre.json")
    dump_episode(_episode(0, 1), data / "000000pru.json")
    wrong = runner.invoke(main, ["bib", "evaluate", "--data", str(tmp_path / "data"),
                                 "--observer", "video", "--checkpoint", str(tmp_path / "flat.pt"),
                                 "--frames", "3d"])
    assert wrong.exit_code != 0 and "was trained on 2d frames" in wrong.output
    assert len(wrong.output.strip().splitlines()) == 1

"""The BIB paper's video model (``--observer video``): frames, network, surprise, training."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from socialbench.bib.render import Renderer  # noqa: E402
from socialbench.bib.schema import Trial  # noqa: E402
from socialbench.core.errors import DataFileError, UserError  # noqa: E402
from socialbench.observers.bib import handmade  # noqa: E402
from socialbench.observers.bib.video_model.frame_cache import (  # noqa: E402
    MAX_SHARD_BYTES,
    frame_shard,
    prepare_shards,
    read_shard,
)
from socialbench.observers.bib.video_model.frames import (  # noqa: E402
    decoded_frames,
    rendered_frames,
    sample_indices,
    shrink,
)
from socialbench.observers.bib.video_model.network import VideoConfig, VideoNet  # noqa: E402
from socialbench.observers.bib.video_model.observer import VideoObserver  # noqa: E402
from socialbench.observers.bib.video_model.training import resolve_device  # noqa: E402

# A small network on 32 x 32 frames: the tests train it in seconds.
SMALL = {"side": 32, "encoder_widths": (4, 4, 4, 4), "stem_width": 4, "frame_dim": 8,
         "lstm_hidden": 4, "unet_widths": (8, 8)}
LAYOUT = handmade.OPEN
OBJECTS = [("heart", (7, 2)), ("moon", (2, 7))]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _trial(goal: int, agent: str = "pentagon"):
    place = OBJECTS[goal][1]
    path = [(2, 2), (place[0], 2), place] if goal == 0 else [(2, 2), (2, place[1]), place]
    return handmade.trial(LAYOUT, OBJECTS, path, goal=goal, agent=agent)


def _episode(preferred: int, test_goal: int, task: str = "preference"):
    fam = [_trial(preferred) for _ in range(8)]
    return handmade.episode(fam, _trial(test_goal), task=task,
                            expected=preferred == test_goal)


# ----------------------------------------------------------------------------- frames


def test_sampling_keeps_3_of_every_25_frames_from_each_trials_start():
    assert sample_indices(150).tolist() == [0, 8, 17, 25, 33, 42, 50, 58, 67, 75, 83, 92, 100,
                                            108, 117, 125, 133, 142]
    assert sample_indices(1).tolist() == [0]
    assert sample_indices(0).size == 0


def test_rendered_frames_are_64px_and_counted_per_trial():
    episode = _episode(0, 0)
    frames, counts = rendered_frames(episode.trials)
    assert frames.shape == (int(counts.sum()), 64, 64, 3) and frames.dtype == np.uint8
    assert counts.tolist() == [len(sample_indices(len(t))) for t in episode.trials]


def test_shrink_averages_areas():
    image = np.zeros((200, 200, 3), np.uint8)
    image[:100] = 200  # top half grey, bottom half black
    small = shrink(image)
    assert small[:31].min() == 200 and small[33:].max() == 0  # row 32 straddles the edge


def test_decoded_mp4_agrees_with_the_rendered_frames(tmp_path):
    from socialbench.bib.video import write_episode_video

    episode = _episode(0, 1)
    video = tmp_path / "e.mp4"
    write_episode_video(episode, video)
    drawn, counts = rendered_frames(episode.trials)
    decoded, decoded_counts = decoded_frames(video, [len(t) for t in episode.trials])
    assert decoded_counts.tolist() == counts.tolist()
    gap = np.abs(drawn.astype(int) - decoded.astype(int))
    assert gap.mean() < 1.5  # measured 0.1-0.2 on generated episodes
    # the same things in the same places: the coloured pixels' centre matches frame by frame
    for a, b in zip(drawn, decoded, strict=True):
        assert np.abs(_centroid(a) - _centroid(b)).max() < 0.5


def _centroid(frame: np.ndarray) -> np.ndarray:
    """Centre of the coloured pixels (objects, agent, home), weighted by saturation: walls
    and the background are grey and weigh nothing."""
    weight = frame.max(axis=2).astype(float) - frame.min(axis=2)
    rows, cols = np.indices(weight.shape)
    return np.array([(rows * weight).sum(), (cols * weight).sum()]) / weight.sum()


def test_frame_shards_round_trip_and_resume(tmp_path):
    from socialbench.bib.io import EpisodeFiles, dump_episode

    paths = []
    for i, (p, t) in enumerate([(0, 0), (1, 1), (0, 1)]):
        path = tmp_path / f"{i:06d}pre.json"
        dump_episode(_episode(p, t), path)
        paths.append(path)
    files = EpisodeFiles(paths)
    shards = prepare_shards(files, tmp_path / "cache", 32, 3.0)
    shard = read_shard(shards[0])
    direct = frame_shard([files[i] for i in range(3)], 32, 3.0)
    assert np.array_equal(shard.frames, direct.frames)
    assert np.array_equal(shard.counts, direct.counts)
    before = shards[0].stat().st_mtime_ns
    assert prepare_shards(files, tmp_path / "cache", 32, 3.0) == shards  # kept, not redrawn
    assert shards[0].stat().st_mtime_ns == before
    assert shard.frames.nbytes < MAX_SHARD_BYTES


def test_frame_shards_drawn_by_workers_are_the_same(tmp_path, monkeypatch):
    from socialbench.bib.io import EpisodeFiles, dump_episode
    from socialbench.observers.bib.video_model import frame_cache

    monkeypatch.setattr(frame_cache, "SHARD_EPISODES", 2)  # 5 episodes: 3 shards
    paths = []
    for i in range(5):
        path = tmp_path / f"{i:06d}pre.json"
        dump_episode(_episode(i % 2, (i // 2) % 2), path)
        paths.append(path)
    files = EpisodeFiles(paths)
    alone = prepare_shards(files, tmp_path / "one", 32, 3.0)
    together = prepare_shards(files, tmp_path / "two", 32, 3.0, workers=2)
    assert [p.name for p in together] == ["two-0000.npz", "two-0001.npz", "two-0002.npz"]
    for a, b in zip(alone, together, strict=True):
        first, second = read_shard(a), read_shard(b)
        assert np.array_equal(first.frames, second.frames)
        assert np.array_equal(first.counts, second.counts)
        assert list(first.names) == list(second.names)
    together[1].unlink()  # one shard lost: only it is drawn again
    kept = together[0].stat().st_mtime_ns
    assert prepare_shards(files, tmp_path / "two", 32, 3.0, workers=2) == together
    assert together[1].exists() and together[0].stat().st_mtime_ns == kept


def test_a_damaged_shard_is_one_line_error(tmp_path):
    bad = tmp_path / "x.npz"
    bad.write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(DataFileError, match="damaged frame shard"):
        read_shard(bad)


# ----------------------------------------------------------------------------- network


def test_network_takes_19_channels_and_predicts_a_3x64x64_frame():
    net = VideoNet(VideoConfig())
    first = net.predictor.down[0][0]
    assert first.in_channels == 19  # 3 frame channels + the 16-d embedding tiled
    counts = torch.tensor([[3, 2, 4, 1, 2, 3, 2, 2], [1, 1, 1, 1, 1, 1, 1, 1]])
    fam = torch.rand(int(counts.sum()), 3, 64, 64)
    with torch.no_grad():
        character = net.characteristic(fam, counts)
        assert character.shape == (2, 16)
        test = torch.rand(5, 3, 64, 64)
        out = net(fam, counts, test, torch.tensor([0, 0, 1, 1, 1]))
    assert out.shape == (5, 3, 64, 64)


def test_the_embedding_averages_the_familiarization_trials():
    net = VideoNet(VideoConfig(**SMALL))
    frames = torch.rand(6, 3, 32, 32)
    one = torch.tensor([[2, 2, 2, 2, 2, 2, 2, 2]])
    with torch.no_grad():
        per_trial = net.trials(*_padded(net, frames[:2], 8))
        mean = net.characteristic(frames[:2].repeat(8, 1, 1, 1), one)
    assert torch.allclose(mean[0], per_trial.mean(dim=0), atol=1e-6)


def _padded(net, frames, copies):
    embedded = net.frames(frames)
    padded = embedded[None].repeat(copies, 1, 1)
    return padded, torch.full((copies,), len(frames))


# ----------------------------------------------------------------------------- surprise


def test_surprise_is_the_largest_per_step_prediction_error():
    # An untrained model predicts no change (the U-Net's last layer starts at zero), so each
    # step's error is the mean squared difference of consecutive test frames, by hand.
    observer = VideoObserver(**SMALL)
    episode = _episode(0, 1)
    frames, counts = rendered_frames(episode.trials, side=32)
    test = frames[-counts[-1]:].astype(np.float64) / 255
    by_hand = ((test[1:] - test[:-1]) ** 2).mean(axis=(1, 2, 3))
    steps = observer.surprise_per_step(episode)
    assert np.allclose(steps, by_hand, atol=1e-6)
    assert by_hand.max() > 0 and by_hand.min() == 0  # moving steps and still ones
    assert observer.surprise(episode) == pytest.approx(by_hand.max())
    assert observer.surprise(episode, reduce="mean") == pytest.approx(by_hand.mean())


# ----------------------------------------------------------------------------- training


@pytest.fixture(scope="module")
def toy():
    train = [_episode(0, 0), _episode(1, 1), _episode(0, 0), _episode(1, 1)]
    return train, [_episode(0, 0)]


@pytest.mark.slow  # several seconds of CPU: the default suite keeps its 5-minute budget
def test_one_short_episode_is_learned():
    # the agent's walk alone (trials cut to 52 frames around it): next frames become better
    # predicted than by copying the current one (where an untrained model starts)
    episode = _episode(0, 0)
    episode.trials = [Trial(t.frames[28:80]) for t in episode.trials]
    observer = VideoObserver(**SMALL)
    before = observer.surprise(episode, "mean")
    observer.fit([episode], epochs=150, batch_size=2, lr=1e-3, progress=False)
    history = [h["train_mse"] for h in observer.training_info["history"]]
    assert observer.surprise(episode, "mean") < 0.85 * before
    assert history[-1] < 0.85 * history[0]


def test_checkpoint_loads_with_weights_only_and_rates_the_same(toy, tmp_path):
    train, validation = toy
    observer = VideoObserver(**SMALL)
    metrics = observer.fit(train, validation, epochs=1, batch_size=2, progress=False)
    assert "val_mse/preference" in metrics
    path = tmp_path / "video.pt"
    observer.save(path)
    raw = torch.load(path, weights_only=True)
    assert raw["format"] == "socialbench-video/1"
    loaded = VideoObserver.load(path)
    assert loaded.config == observer.config
    episode = _episode(0, 1)
    assert np.array_equal(loaded.surprise_per_step(episode), observer.surprise_per_step(episode))
    assert VideoObserver(checkpoint=path).training_info["epochs"] == 1


@pytest.mark.parametrize("content", [b"", b"not a torch file", b"PK\x03\x04junk"])
def test_a_damaged_checkpoint_is_one_line_error(tmp_path, content):
    path = tmp_path / "bad.pt"
    path.write_bytes(content)
    with pytest.raises(DataFileError):
        VideoObserver.load(path)


@pytest.mark.parametrize("sampling", [{}, {"test_steps": 2, "fam_trials": 3}])
def test_resume_ends_with_the_same_weights_as_one_run(toy, tmp_path, sampling):
    # sampling: a few random test steps and familiarization trials per episode (the draws
    # resume too)
    train, _ = toy
    options = {"batch_size": 2, "lr": 1e-3, "seed": 3, "progress": False, **sampling}
    whole = VideoObserver(**SMALL)
    whole.fit(train, epochs=2, **options)
    state = tmp_path / "run.resume"
    VideoObserver(**SMALL).fit(train, epochs=1, state_path=state, **options)
    resumed = VideoObserver(**SMALL)
    resumed.fit(train, epochs=2, state_path=state, **options)
    for (name, a), b in zip(whole.net.state_dict().items(), resumed.net.state_dict().values(),
                            strict=True):
        assert torch.equal(a, b), name
    assert len(resumed.training_info["history"]) == 2
    with pytest.raises(UserError, match="other training data"):
        VideoObserver(**SMALL).fit(train[:2], epochs=3, state_path=state, **options)


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present")
def test_cuda_asked_for_and_missing_is_a_clear_error():
    with pytest.raises(UserError, match="no CUDA GPU"):
        resolve_device("cuda")
    with pytest.raises(UserError, match="cpu or cuda"):
        resolve_device("tpu")


def test_train_command_video_without_a_gpu(tmp_path):
    from click.testing import CliRunner

    from socialbench.bib.io import dump_episode
    from socialbench.cli import main

    folder = tmp_path / "train" / "preference"
    folder.mkdir(parents=True)
    dump_episode(_episode(0, 0), folder / "000000pre.json")
    result = CliRunner().invoke(main, ["bib", "train", "--observer", "video", "--train",
                                       str(tmp_path / "train"), "--out", str(tmp_path / "v.pt"),
                                       "--device", "cuda", "--quiet"])
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    assert result.exit_code == 2 and "no CUDA GPU" in result.output
    assert not (tmp_path / "v.pt").exists()


def test_renderer_is_the_generators():
    # the frames the model sees come from the renderer the mp4s are encoded from
    episode = _episode(1, 1)
    image = Renderer().render(episode.test.frames[0])
    assert np.array_equal(shrink(image), rendered_frames([episode.test])[0][0])


def _video_train_command(tmp_path, test_steps: int) -> list[str]:
    """``bib train --observer video`` on two preference episodes written under ``tmp_path``."""
    from socialbench.bib.io import dump_episode

    folder = tmp_path / "train" / "preference"
    folder.mkdir(parents=True)
    for number in range(2):
        dump_episode(_episode(number, 0), folder / f"00000{number}pre.json")
    return ["bib", "train", "--observer", "video", "--train", str(tmp_path / "train"),
            "--quiet", "--test-steps", str(test_steps), "--fam-trials", "1", "--batch-size", "2"]


def test_train_command_mixes_all_shards_and_stops_after_max_updates(tmp_path):
    from click.testing import CliRunner

    from socialbench.cli import main

    base = _video_train_command(tmp_path, test_steps=2)
    out = tmp_path / "v.pt"
    result = CliRunner().invoke(main, [*base, "--out", str(out), "--shards-in-memory", "all",
                                       "--max-updates", "1", "--epochs", "3", "--workers", "2"])
    assert result.exit_code == 0, result.output
    info = VideoObserver.load(out).training_info
    assert info["shards_in_memory"] == "all" and info["updates"] == 1
    assert info["history"][-1]["stopped"]
    bad = CliRunner().invoke(main, [*base, "--out", str(tmp_path / "w.pt"),
                                    "--shards-in-memory", "0"])
    assert bad.exit_code == 2 and "positive number or all" in bad.output
    mask = CliRunner().invoke(main, ["bib", "train", "--train", str(tmp_path / "train"),
                                     "--out", str(tmp_path / "m.pt"), "--max-updates", "3"])
    assert mask.exit_code == 2 and "video model's" in mask.output
    mask = CliRunner().invoke(main, ["bib", "train", "--train", str(tmp_path / "train"),
                                     "--out", str(tmp_path / "m.pt"), "--workers", "2"])
    assert mask.exit_code == 2 and "--workers" in mask.output


def test_train_command_sets_the_unet_widths(tmp_path):
    from click.testing import CliRunner

    from socialbench.cli import main

    base = [*_video_train_command(tmp_path, test_steps=1), "--max-updates", "1", "--epochs", "1"]
    out = tmp_path / "v.pt"
    result = CliRunner().invoke(main, [*base, "--out", str(out), "--unet-widths", "4,8"])
    assert result.exit_code == 0, result.output
    assert VideoObserver.load(out).config.unet_widths == (4, 8)
    assert VideoObserver.load(out).net.predictor.down[1][0].out_channels == 8
    for text in ("4,x", "", "0,8"):
        bad = CliRunner().invoke(main, [*base, "--out", str(tmp_path / "w.pt"),
                                        "--unet-widths", text])
        assert bad.exit_code == 2 and "--unet-widths takes" in bad.output, bad.output
        assert len(bad.output.strip().splitlines()) == 1 and not (tmp_path / "w.pt").exists()
    mask = CliRunner().invoke(main, ["bib", "train", "--train", str(tmp_path / "train"),
                                     "--out", str(tmp_path / "m.pt"), "--unet-widths", "4,8"])
    assert mask.exit_code == 2 and "--unet-widths" in mask.output

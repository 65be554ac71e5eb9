"""BIB videos: each distinct trial of a pair encoded once, a closed GOP per trial, muxed into both
files; the frames as each trial encoded alone; the files deterministic and valid."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import socialbench.bib.video as bib_video
from socialbench.bib import generate as gen
from socialbench.bib.io import find_pairs, load_episode
from socialbench.bib.schema import FPS, Block, Episode, Frame, Sprite, Trial
from socialbench.bib.validate import check_video, validate_dataset
from socialbench.bib.video import (
    episode_frames,
    trial_frames,
    write_episode_video,
    write_episode_videos,
)
from socialbench.core.video import read_mp4, write_mp4

AGENT = "./shapes/train/agents/kite.png"
OBJECT = "./shapes/train/objects/heart.png"


def make_trial(seed: int, length: int = 24) -> Trial:
    """A short trial in the generator's form: the agent holds on home (one Frame object
    repeated), walks right, then holds at its goal."""
    rng = np.random.default_rng(seed)
    walls = tuple(Block(20 * int(x), 20 * int(y)) for x, y in rng.integers(1, 9, size=(6, 2)))
    start = (20 + 2 * int(rng.integers(0, 20)), 20 + 4 * int(rng.integers(0, 30)))
    goal = Sprite(150, start[1], 9, OBJECT, (220, 20, 60))
    home = Sprite(*start, 6, "./shapes/home.png", (255, 105, 180))

    def at(x: int) -> Frame:
        return Frame(walls=walls, objects=(goal,), home=home,
                     agent=Sprite(x, start[1], 6, AGENT, (0, 0, 128)))

    hold, walk = at(start[0]), length // 3
    frames = [hold] * walk + [at(start[0] + 3 * k) for k in range(1, walk + 1)]
    end = frames[-1]
    return Trial(frames + [end] * (length - len(frames)))


@pytest.fixture(scope="module")
def pair() -> tuple[Episode, Episode]:
    """Eight shared familiarization Trial objects, then two different tests (as generated)."""
    familiarization = [make_trial(k, 20 + k) for k in range(8)]
    expected = Episode(familiarization + [make_trial(100, 26)], "000001xx", "preference", True)
    unexpected = Episode(familiarization + [make_trial(101, 30)], "000001xx", "preference",
                         False)
    return expected, unexpected


@pytest.fixture(scope="module")
def written(pair: tuple[Episode, Episode], tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("pair")
    paths = (root / "000001xxe.mp4", root / "000001xxu.mp4")
    assert write_episode_videos(list(zip(pair, paths, strict=True))) == [
        sum(map(len, e.trials)) for e in pair]
    return paths


def packets(path: Path) -> list:
    """The file's video packets in decoding order: (pts in frames, keyframe, bytes)."""
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        rate = stream.time_base * FPS
        return [(int(p.pts * rate), p.is_keyframe, bytes(p))
                for p in container.demux(stream) if p.size]


def starts(episode: Episode) -> list[int]:
    return np.cumsum([0] + [len(t) for t in episode.trials[:-1]]).tolist()


def psnr(video: np.ndarray, drawn: np.ndarray) -> float:
    error = (video - drawn).astype(np.float32)
    return float(10 * np.log10(255 ** 2 / np.mean(error * error)))


def test_each_trial_decodes_exactly_as_encoded_alone(pair: tuple[Episode, Episode],
                                                     written: tuple[Path, Path],
                                                     tmp_path: Path) -> None:
    """The exact criterion: trial k of a video decodes to the very frames that core.video's
    write_mp4 (the earlier writer, same quality settings) gives for trial k alone."""
    for episode, path in zip(pair, written, strict=True):
        video = read_mp4(path)
        assert video.shape == (sum(map(len, episode.trials)), 200, 200, 3)
        for k, (trial, start) in enumerate(zip(episode.trials, starts(episode), strict=True)):
            alone = tmp_path / f"{path.stem}{k}.mp4"
            write_mp4(alone, trial_frames(trial), FPS)
            assert np.array_equal(read_mp4(alone), video[start:start + len(trial)]), (path, k)


def test_close_to_the_old_whole_episode_encode(pair: tuple[Episode, Episode],
                                               written: tuple[Path, Path],
                                               tmp_path: Path) -> None:
    """Against one encode of the whole episode (the earlier files), the keyframes at trial
    boundaries change pixels only as lossy coding does: as close to the drawn frames."""
    episode, path = pair[0], written[0]
    old_path = tmp_path / "old.mp4"
    write_mp4(old_path, episode_frames(episode), FPS)
    old, new = read_mp4(old_path).astype(np.int16), read_mp4(path).astype(np.int16)
    drawn = np.stack(list(episode_frames(episode))).astype(np.int16)
    assert old.shape == new.shape == drawn.shape
    assert np.abs(new - old).mean() < 1.0
    assert psnr(new, drawn) > 35 and psnr(new, drawn) > psnr(old, drawn) - 0.5


def test_shared_trials_are_encoded_once_and_muxed_into_both(
        pair: tuple[Episode, Episode], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    encode = bib_video.encode_segment
    monkeypatch.setattr(bib_video, "encode_segment",
                        lambda frames, fps: calls.append(1) or encode(frames, fps))
    paths = (tmp_path / "e.mp4", tmp_path / "u.mp4")
    write_episode_videos(list(zip(pair, paths, strict=True)))
    assert len(calls) == 10  # 8 shared familiarization trials + 2 tests, of 18 trials
    e, u = (packets(p) for p in paths)
    test_start = starts(pair[0])[8]
    assert [p for p in e if p[0] < test_start] == [p for p in u if p[0] < test_start]
    assert [p for p in e if p[0] >= test_start] != [p for p in u if p[0] >= test_start]


def test_a_keyframe_opens_every_trial(pair: tuple[Episode, Episode],
                                      written: tuple[Path, Path]) -> None:
    for episode, path in zip(pair, written, strict=True):
        found = packets(path)
        keyframes = {pts for pts, key, _ in found if key}
        assert set(starts(episode)) <= keyframes
        # closed GOPs: no frame of a trial is decoded before its trial's keyframe
        decoded_before: set[int] = set()
        begins = starts(episode)
        for pts, _, _ in found:
            trial_start = max(b for b in begins if b <= pts)
            assert trial_start == pts or trial_start in decoded_before
            decoded_before.add(pts)


def test_written_together_or_alone_the_same_bytes(pair: tuple[Episode, Episode],
                                                  written: tuple[Path, Path],
                                                  tmp_path: Path) -> None:
    for episode, path in zip(pair, written, strict=True):
        alone = tmp_path / path.name
        assert write_episode_video(episode, alone) == sum(map(len, episode.trials))
        assert alone.read_bytes() == path.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [p.name for p in written]


def test_a_generated_pair_with_video_validates(tmp_path: Path) -> None:
    """The generator writes a pair's videos this way; `bib validate` checks them as before."""
    gen.generate(tmp_path, "eval", tasks="preference", episodes=1, seed=2, workers=1,
                 show_progress=False)
    assert validate_dataset(tmp_path) == []
    (found,) = find_pairs(tmp_path)
    assert found.expected is not None and found.unexpected is not None
    e, u = found.expected.with_suffix(".mp4"), found.unexpected.with_suffix(".mp4")
    assert check_video(load_episode(found.unexpected), u) == []
    lengths = [len(t) for t in load_episode(found.expected).trials]
    shared = sum(lengths[:8])
    assert [p for p in packets(e) if p[0] < shared] == [p for p in packets(u) if p[0] < shared]


@pytest.mark.slow
def test_same_pair_video_bytes_whatever_the_worker_count(tmp_path: Path) -> None:
    trees = []
    for workers in (1, 2):
        out = tmp_path / str(workers)
        gen.generate(out, "eval", tasks="preference,efficiency_irrational", episodes=2, seed=6,
                     workers=workers, show_progress=False)
        trees.append({p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*.mp4"))})
    assert len(trees[0]) == 8 and trees[0] == trees[1]


@pytest.mark.slow
def test_a_generated_instrumental_pair_decodes_trial_by_trial_as_encoded_alone(
        tmp_path: Path) -> None:
    """Long trials (instrumental: up to ~570 frames, past x264's 250-frame keyframe interval):
    the exact criterion and the closeness to one whole-episode encode, on generated files."""
    gen.generate(tmp_path, "eval", tasks="instrumental_no_barrier", episodes=1, seed=3,
                 workers=1, show_progress=False)
    (found,) = find_pairs(tmp_path)
    for json_path in (found.unexpected,):  # its test walks to the key first: the longest trial
        assert json_path is not None
        episode = load_episode(json_path)
        video = read_mp4(json_path.with_suffix(".mp4"))
        for k, (trial, start) in enumerate(zip(episode.trials, starts(episode), strict=True)):
            write_mp4(tmp_path / "alone.mp4", trial_frames(trial), FPS)
            assert np.array_equal(read_mp4(tmp_path / "alone.mp4"),
                                  video[start:start + len(trial)]), (json_path.name, k)
        write_mp4(tmp_path / "old.mp4", episode_frames(episode), FPS)
        old = read_mp4(tmp_path / "old.mp4")
        assert old.shape == video.shape
        assert np.abs(old.astype(np.int16) - video).mean() < 1.0

"""core.video_segments (what BIB videos are made of): segments encoded once and joined give the
frames, and for one segment the very bytes, of core.video.write_mp4."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from socialbench.core.video import read_mp4, write_mp4
from socialbench.core.video_segments import encode_segment, write_segments_mp4

FPS = 25


def moving_square(count: int, seed: int, size: tuple[int, int] = (64, 48)) -> list[np.ndarray]:
    """A square crossing a textured background, one new array per frame."""
    width, height = size
    rng = np.random.default_rng(seed)
    background = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
    frames = []
    for k in range(count):
        image = background.copy()
        x = (3 * k) % (width - 10)
        image[10:20, x:x + 10] = (255, 0, 0)
        frames.append(image)
    return frames


def test_one_segment_is_write_mp4_byte_for_byte(tmp_path: Path) -> None:
    frames = moving_square(40, 0)
    write_mp4(tmp_path / "old.mp4", frames, FPS)
    assert write_segments_mp4(tmp_path / "new.mp4", [encode_segment(frames, FPS)], FPS) == 40
    assert (tmp_path / "new.mp4").read_bytes() == (tmp_path / "old.mp4").read_bytes()


def test_a_held_read_only_frame_gives_the_same_packets_as_fresh_copies() -> None:
    held = moving_square(1, 1)[0]
    held.setflags(write=False)
    frames = [held] * 12 + moving_square(6, 1)
    assert encode_segment(frames, FPS) == encode_segment([f.copy() for f in frames], FPS)


def test_a_reused_writable_buffer_is_converted_every_time() -> None:
    """A caller drawing into one buffer: the same object, new pixels each time."""
    source = moving_square(10, 2)
    buffer = np.empty_like(source[0])

    def drawn_into_one_buffer():
        for image in source:
            buffer[:] = image
            yield buffer

    assert encode_segment(drawn_into_one_buffer(), FPS) == encode_segment(source, FPS)


@pytest.mark.parametrize("lengths", [(1, 2, 3, 7, 1), (30, 1, 30), (5, 40, 2)])
def test_segments_of_any_length_join_and_decode_as_alone(tmp_path: Path,
                                                         lengths: tuple[int, ...]) -> None:
    """Short segments have less B-frame delay than long ones: decoding times still rise."""
    runs = [moving_square(n, seed) for seed, n in enumerate(lengths)]
    path = tmp_path / "joined.mp4"
    assert write_segments_mp4(path, [encode_segment(r, FPS) for r in runs], FPS) == sum(lengths)
    video = read_mp4(path)
    start = 0
    for k, run in enumerate(runs):
        write_mp4(tmp_path / f"{k}.mp4", run, FPS)
        assert np.array_equal(read_mp4(tmp_path / f"{k}.mp4"), video[start:start + len(run)])
        start += len(run)


def test_segments_that_cannot_be_joined_are_refused(tmp_path: Path) -> None:
    small = encode_segment(moving_square(3, 0), FPS)
    large = encode_segment(moving_square(3, 0, size=(80, 48)), FPS)
    other = encode_segment(moving_square(3, 0), FPS, crf=30)
    with pytest.raises(ValueError, match="cannot be joined"):
        write_segments_mp4(tmp_path / "a.mp4", [small, large], FPS)
    with pytest.raises(ValueError, match="other settings"):
        write_segments_mp4(tmp_path / "b.mp4", [other], FPS)
    with pytest.raises(ValueError, match="no frames"):
        write_segments_mp4(tmp_path / "c.mp4", [encode_segment([], FPS)], FPS)
    assert list(tmp_path.iterdir()) == []  # nothing half-written

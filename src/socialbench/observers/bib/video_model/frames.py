"""A BIB episode as the video model sees it: each trial's frames at 3 fps, 64 x 64 RGB.

BIB paper, section 5: the video model "operates on videos sampled at 3 fps and resized to
64 x 64". Each trial is sampled on its own clock (frame ``round(k * 25 / 3)`` of the trial,
k = 0, 1, ...), so trial boundaries stay exact. Two sources give the same pixels up to the codec:

* :func:`rendered_frames` draws the sampled frames from the JSON states at 200 x 200
  (``bib.render``, the renderer the generator encodes) and shrinks them: no video round trip.
  The default, and ~10x faster than decoding.
* :func:`decoded_frames` decodes the mp4 (PyAV) and samples the same frame indices.

Both shrink 200 -> 64 with the same box filter (each output pixel the area average of the
input pixels it covers; ours: the paper does not say how it resized).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image

from socialbench.bib.render import Renderer
from socialbench.bib.schema import FPS, FRAME_SIZE, Trial
from socialbench.core.errors import DataFileError

SAMPLE_FPS = 3  # bib paper: "videos sampled at 3 fps"
SIDE = 64  # bib paper: "resized to 64 x 64"


def sample_indices(n_frames: int, fps: float = SAMPLE_FPS) -> np.ndarray:
    """Indices of a trial's frames kept at ``fps`` (from its 25-fps frames, first one kept)."""
    if n_frames <= 0:
        return np.zeros(0, dtype=np.int64)
    picked = np.round(np.arange(0.0, n_frames, FPS / fps)).astype(np.int64)
    return np.unique(np.minimum(picked, n_frames - 1))


def shrink(image: np.ndarray, side: int = SIDE) -> np.ndarray:
    """A ``(H, W, 3)`` uint8 image box-filtered to ``(side, side, 3)``."""
    return np.asarray(Image.fromarray(image).resize((side, side), Image.Resampling.BOX))


def rendered_frames(trials: Sequence[Trial], renderer: Renderer | None = None,
                    side: int = SIDE, fps: float = SAMPLE_FPS) -> tuple[np.ndarray, np.ndarray]:
    """``(frames (F, side, side, 3) uint8, per-trial counts (T,))`` drawn from the states."""
    renderer = renderer or Renderer()
    frames: list[np.ndarray] = []
    counts = []
    for trial in trials:
        states = trial.frames
        keep = sample_indices(len(states), fps)
        frames += [shrink(renderer.render(states[i]), side) for i in keep]
        counts.append(len(keep))
    return _stacked(frames, side), np.array(counts, dtype=np.int64)


def decoded_frames(video: Path | str, trial_lengths: Sequence[int], side: int = SIDE,
                   fps: float = SAMPLE_FPS) -> tuple[np.ndarray, np.ndarray]:
    """The same as :func:`rendered_frames`, from an episode's mp4 (``trial_lengths``: each
    trial's 25-fps frame count, from its JSON)."""
    import av  # here: only this path needs PyAV

    wanted: dict[int, int] = {}  # global frame index -> position in the output
    start = 0
    counts = []
    for length in trial_lengths:
        keep = sample_indices(int(length), fps)
        for i in keep:
            wanted[start + int(i)] = len(wanted)
        counts.append(len(keep))
        start += int(length)
    frames: list[np.ndarray | None] = [None] * len(wanted)
    try:
        with av.open(str(video)) as container:
            for index, decoded in enumerate(container.decode(video=0)):
                if (decoded.width, decoded.height) != FRAME_SIZE:
                    raise DataFileError(video, f"video is {decoded.width}x{decoded.height}, "
                                               f"expected {FRAME_SIZE[0]}x{FRAME_SIZE[1]}")
                if index in wanted:
                    frames[wanted[index]] = shrink(decoded.to_ndarray(format="rgb24"), side)
                if index + 1 >= start:
                    break
    except (av.error.FFmpegError, OSError) as exc:
        raise DataFileError(video, f"video cannot be decoded ({exc})") from None
    if any(f is None for f in frames):
        raise DataFileError(video, f"video is shorter than its JSON's {start} frames")
    return _stacked(frames, side), np.array(counts, dtype=np.int64)  # type: ignore[arg-type]


def _stacked(frames: Sequence[np.ndarray], side: int) -> np.ndarray:
    if not frames:
        return np.zeros((0, side, side, 3), dtype=np.uint8)
    return np.stack(frames)

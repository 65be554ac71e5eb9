"""Whether a BIB episode's mp4 shows what its JSON says."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from socialbench.bib.render import Renderer
from socialbench.bib.schema import FRAME_SIZE, Episode, Frame
from socialbench.core.errors import UserError

VIDEO_SAMPLES = 5  # decoded frames compared with the renderer per video
VIDEO_POOL = 4  # compare 4 x 4 block means: H.264 4:2:0 smears colour edges
VIDEO_TOLERANCE = 48.0  # max |difference| of block means; measured on two released episodes
#                         (crf 18): the same frame <= 33, the agent moved by 1 px >= 51. The
#                         rendered frame is first passed through 4:2:0 (``_as_coded``): a thin
#                         pure-blue stroke otherwise differs by 50 from what any encoder can keep;
#                         so compared, generated videos differ by <= 17 (seed 0 and 3, every task).


def _pooled(image: np.ndarray) -> np.ndarray:
    h, w = image.shape[0] // VIDEO_POOL, image.shape[1] // VIDEO_POOL
    crop = image[:h * VIDEO_POOL, :w * VIDEO_POOL].astype(np.float32)
    return crop.reshape(h, VIDEO_POOL, w, VIDEO_POOL, 3).mean(axis=(1, 3))


def _as_coded(image: np.ndarray) -> np.ndarray:
    """The frame as H.264's 4:2:0 colour format holds it (chroma at half resolution)."""
    import av

    frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(image), format="rgb24")
    return frame.reformat(format="yuv420p").to_ndarray(format="rgb24")


def _reference(render: str, stack: contextlib.ExitStack) -> Callable[[Frame], np.ndarray] | None:
    """What a decoded frame is compared with: the 2D renderer, a fresh 3D scene per sampled
    frame (a 3D frame's pixels depend on its state alone), or nothing (``3d`` without
    PyBullet: frame count and size are still checked)."""
    if render == "2d":
        return Renderer().render
    try:
        from socialbench.bib.render3d import Renderer3D
        renderer3d = stack.enter_context(Renderer3D())
    except UserError:
        return None

    def draw(frame: Frame) -> np.ndarray:
        renderer3d.reset()
        return renderer3d.render(frame)
    return draw


def check_video(episode: Episode, path: Path, samples: int = VIDEO_SAMPLES,
                render: str = "2d") -> list[str]:
    """Problems in how an episode's mp4 agrees with its JSON (frame count, size, pixels).
    ``render``: how the videos were drawn (``2d``, or ``3d``: compared with a 3D re-render)."""
    with contextlib.ExitStack() as stack:
        return _check(episode, Path(path), samples, _reference(render, stack))


def _check(episode: Episode, path: Path, samples: int,
           reference_of: Callable[[Frame], np.ndarray] | None) -> list[str]:
    import av  # here, not at the top: generation without video never needs it (~0.1 s)

    path = Path(path)
    if not path.is_file():
        return [f"{path.name}: video missing"]
    frames = [fr for trial in episode.trials for fr in trial.frames]
    wanted = set(np.linspace(0, len(frames) - 1, samples).round().astype(int).tolist())
    if reference_of is None:
        wanted = set()
    problems: list[str] = []
    count = 0
    try:
        with av.open(str(path)) as container:
            for index, decoded in enumerate(container.decode(video=0)):
                count = index + 1
                if (decoded.width, decoded.height) != FRAME_SIZE:
                    return [f"{path.name}: video is {decoded.width}x{decoded.height}, expected "
                            f"{FRAME_SIZE[0]}x{FRAME_SIZE[1]}"]
                if index in wanted and index < len(frames) and not problems:
                    image = decoded.to_ndarray(format="rgb24")
                    reference = _as_coded(reference_of(frames[index]))  # type: ignore[misc]
                    gap = float(np.abs(_pooled(image) - _pooled(reference)).max())
                    if gap > VIDEO_TOLERANCE:
                        problems.append(f"{path.name}: frame {index} does not match the JSON "
                                        f"(block difference {gap:.0f} > {VIDEO_TOLERANCE:g})")
    except (av.error.FFmpegError, OSError) as exc:
        return [f"{path.name}: video cannot be decoded ({exc})"]
    if count != len(frames):
        problems.insert(0, f"{path.name}: video has {count} frames, the JSON {len(frames)}")
    return problems

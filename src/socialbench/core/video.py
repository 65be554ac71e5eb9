"""H.264 mp4 writing, shared by every benchmark that renders videos (PyAV / FFmpeg).

PyAV is imported when a video is first read or written (~0.1 s), not with this module: commands
that write no video start without it."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.core.files import atomic_write


def write_mp4(path: Path, frames: Iterable[np.ndarray], fps: int, *, crf: int = 18,
              preset: str = "veryfast") -> int:
    """Encode RGB ``uint8`` frames (H x W x 3, even sides) as H.264 mp4; return the frame count.

    One encoder thread, so the bytes depend only on the frames (parallelism comes from the
    generation runner's worker processes). The file appears under its name only when complete.
    """
    import av

    count = 0
    with atomic_write(path) as tmp, av.open(str(tmp), mode="w", format="mp4") as container:
        stream = None
        for frame in frames:
            if stream is None:
                height, width = frame.shape[:2]
                stream = container.add_stream("libx264", rate=Fraction(fps))
                configure_h264(stream.codec_context, width, height, crf, preset)
            video_frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")
            for packet in stream.encode(video_frame):
                container.mux(packet)
            count += 1
        if stream is not None:
            for packet in stream.encode():
                container.mux(packet)
    return count


def configure_h264(context: Any, width: int, height: int, crf: int = 18,
                   preset: str = "veryfast") -> None:
    """Set an H.264 encoder's size and quality settings (``write_mp4``'s, and those of the
    segments in :mod:`socialbench.core.video_segments`, which must match it bit for bit)."""
    context.width, context.height = width, height
    context.pix_fmt = "yuv420p"
    context.thread_count = 1
    # no-mbtree: with x264's macroblock-tree rate control, 200-px-wide videos came out
    # different from run to run (measured: 6 distinct files in 20 encodes of the same 63
    # frames; none in 100 without it; files ~25% larger)
    context.options = {"crf": str(crf), "preset": preset, "threads": "1",
                       "x264-params": "no-mbtree=1"}


def read_mp4(path: Path) -> np.ndarray:
    """Decode an mp4 into an (N, H, W, 3) uint8 array (for checks and observers)."""
    import av

    with av.open(str(path)) as container:
        return np.stack([f.to_ndarray(format="rgb24") for f in container.decode(video=0)])


def count_frames(path: Path) -> int:
    import av

    with av.open(str(path)) as container:
        return sum(1 for _ in container.decode(video=0))

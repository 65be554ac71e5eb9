"""Which videos the video model sees: ``2d`` (the BIB grid world) or ``3d`` (the same episodes
as PyBullet scenes, Table 1's 3D column); both drawn from the JSON states at 3 fps, 64 x 64."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from socialbench.bib.render import Renderer
from socialbench.bib.schema import Trial
from socialbench.core.errors import UserError
from socialbench.observers.bib.video_model.frames import rendered_frames
from socialbench.observers.bib.video_model.frames3d import rendered_frames_3d, renderer_3d

FRAME_SOURCES = ("2d", "3d")
Drawer = Callable[[Sequence[Trial]], tuple[np.ndarray, np.ndarray]]


def check_source(source: str) -> str:
    """``source`` if it names a frame source, else a one-line error."""
    if source in FRAME_SOURCES:
        return source
    raise UserError(f"unknown video frames {source!r}; choose one of {', '.join(FRAME_SOURCES)}")


@contextmanager
def frame_drawer(source: str, side: int, fps: float) -> Iterator[Drawer]:
    """A function of trials -> (frames, per-trial counts) drawing ``source``'s frames; one
    renderer serves every call (the 3D one is closed on leaving)."""
    if check_source(source) == "2d":
        flat = Renderer()
        yield lambda trials: rendered_frames(trials, flat, side, fps)
        return
    with renderer_3d() as scene:
        yield lambda trials: rendered_frames_3d(trials, scene, side, fps)

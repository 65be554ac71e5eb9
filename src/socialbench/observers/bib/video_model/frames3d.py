"""The video model's frames from 3D videos (Table 1's 3D column), drawn from the JSON states.

``bib generate --render 3d`` draws every frame of every trial at 200 x 200 (PyBullet's
TinyRenderer, :mod:`socialbench.bib.render3d`) and encodes them; the video model keeps 3 of every
25 and shrinks them to 64 x 64. :func:`rendered_frames_3d` draws only the kept frames, in the
same scene from the same camera, at :data:`RENDER_SIDE_3D` px (box-filtered to 64 x 64 when
drawn larger, as the 2D path shrinks): no video round trip, and no frame drawn that the model
never sees.

Speed: a trial starts from an empty scene (as in the videos); a sampled frame that is the same
state as the one before it (the agent waiting or sitting on its goal: about 70 % of the sampled
frames) is not drawn again.

Drawn at 64 px straight (ours, :data:`RENDER_SIDE_3D`): TinyRenderer does not antialias, so
edges are stair-stepped where the shrunk 200-px frames of the videos are blended; against
frames decoded from ``bib generate --render 3d`` mp4s the mean absolute difference is ~7 grey
levels a pixel (0.35 drawn at 200 px and shrunk, ~3 at 128 px), the same bodies in the same
places. Drawing at 64 px is ~3x faster than at 128 px and ~5x than at 200 px
(``benchmarks/bib_render3d.py``), which decides at our CPU scale; ``render_side`` draws larger.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from socialbench.bib.render3d import Renderer3D
from socialbench.bib.schema import Trial
from socialbench.bib.video import drawn_once
from socialbench.observers.bib.video_model.frames import SAMPLE_FPS, SIDE, sample_indices, shrink

RENDER_SIDE_3D = 64  # ours: drawn at the model's side (see above)


def renderer_3d(render_side: int = RENDER_SIDE_3D) -> Renderer3D:
    """A 3D renderer for the model's frames (the videos' scene and camera; close it after)."""
    return Renderer3D(size=(render_side, render_side))


def rendered_frames_3d(trials: Sequence[Trial], renderer: Renderer3D | None = None,
                       side: int = SIDE, fps: float = SAMPLE_FPS,
                       ) -> tuple[np.ndarray, np.ndarray]:
    """``(frames (F, side, side, 3) uint8, per-trial counts (T,))`` of the trials' 3D frames
    sampled at ``fps`` (the same frames as :func:`.frames.rendered_frames` keeps in 2D)."""
    if renderer is None:
        with renderer_3d() as own:
            return rendered_frames_3d(trials, own, side, fps)

    def draw(state: object) -> np.ndarray:
        image = renderer.render(state)  # type: ignore[arg-type]
        return image if image.shape[0] == side else shrink(image, side)

    frames: list[np.ndarray] = []
    counts = []
    for trial in trials:
        renderer.reset()  # each trial from an empty scene, as the videos draw it
        kept = [trial.frames[int(i)] for i in sample_indices(len(trial.frames), fps)]
        frames += drawn_once(kept, draw)
        counts.append(len(kept))
    stacked = np.stack(frames) if frames else np.zeros((0, side, side, 3), dtype=np.uint8)
    return stacked, np.array(counts, dtype=np.int64)

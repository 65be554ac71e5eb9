"""An episode's video: its 9 trials' frames, rendered from the JSON states, at 25 fps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from socialbench.bib.render import Renderer
from socialbench.bib.schema import FPS, Episode
from socialbench.core.video import write_mp4


def episode_frames(episode: Episode, renderer: Renderer | None = None) -> Iterator[np.ndarray]:
    """Every frame of the episode, trial after trial (global index = earlier trials + index)."""
    renderer = renderer or Renderer()
    for trial in episode.trials:
        for frame in trial.frames:
            yield renderer.render(frame)


def write_episode_video(episode: Episode, path: Path) -> int:
    """Write the episode's H.264 mp4 (200 x 200, 25 fps; bib paper); return the frame count.

    The file appears under its name only when complete (core.video.write_mp4).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_mp4(path, episode_frames(episode), FPS)

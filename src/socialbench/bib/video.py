"""An episode's video: its 9 trials' frames, rendered from the JSON states, at 25 fps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from socialbench.bib.render import Renderer
from socialbench.bib.schema import FPS, Episode, Frame
from socialbench.core.video import write_mp4


def episode_frames(episode: Episode, renderer: Renderer | None = None) -> Iterator[np.ndarray]:
    """Every frame of the episode, trial after trial (global index = earlier trials + index).

    A Frame object repeated in a row (the generator shares one while the agent sits on home,
    waits or holds at its goal: most of a trial) is drawn once and its image yielded again, so
    the yielded arrays are read-only. The pixels are always :meth:`Renderer.render`'s.
    """
    renderer = renderer or Renderer()
    last: Frame | None = None
    image: np.ndarray | None = None
    for trial in episode.trials:
        for frame in trial.frames:
            if frame is not last or image is None:
                image, last = renderer.render(frame), frame
                image.setflags(write=False)
            yield image


def write_episode_video(episode: Episode, path: Path) -> int:
    """Write the episode's H.264 mp4 (200 x 200, 25 fps; bib paper); return the frame count.

    The file appears under its name only when complete (core.video.write_mp4).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_mp4(path, episode_frames(episode), FPS)

"""An episode's video: its 9 trials' frames, rendered from the JSON states, at 25 fps.

Each trial is encoded on its own (``core.video_segments``): its first frame is a keyframe and
no frame refers outside the trial, so the packets of a trial that two videos share (a pair's
eight familiarization trials) are encoded once and muxed into both files. A video decodes,
trial by trial, to exactly what ``core.video.write_mp4`` gives for each trial alone (tested).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from socialbench.bib.render import Renderer
from socialbench.bib.schema import FPS, Episode, Frame, Trial
from socialbench.core.video_segments import Segment, encode_segment, write_segments_mp4


def trial_frames(trial: Trial, renderer: Renderer | None = None) -> Iterator[np.ndarray]:
    """Every frame of a trial. A Frame object repeated in a row (the generator shares one while
    the agent sits on home, waits or holds at its goal: most of a trial) is drawn once and its
    image yielded again, so the yielded arrays are read-only. The pixels are always
    :meth:`Renderer.render`'s."""
    return drawn_once(trial.frames, (renderer or Renderer()).render)


def drawn_once(frames: Iterable[Frame], draw: Callable[[Frame], np.ndarray],
               ) -> Iterator[np.ndarray]:
    """``draw`` of each frame, a Frame object repeated in a row drawn once (read-only images)."""
    last: Frame | None = None
    image: np.ndarray | None = None
    for frame in frames:
        if frame is not last or image is None:
            image, last = draw(frame), frame
            image.setflags(write=False)
        yield image


def episode_frames(episode: Episode, renderer: Renderer | None = None) -> Iterator[np.ndarray]:
    """Every frame of the episode, trial after trial (global index = earlier trials + index);
    read-only arrays, as :func:`trial_frames`."""
    renderer = renderer or Renderer()
    for trial in episode.trials:
        yield from trial_frames(trial, renderer)


RENDER_MODES = ("2d", "3d")  # 3d: PyBullet's TinyRenderer (socialbench.bib.render3d)


def encode_trials(episodes: Sequence[Episode], renderer: Renderer | None = None,
                  frames: Callable[[Trial], Iterable[np.ndarray]] | None = None,
                  ) -> dict[int, Segment]:
    """Each distinct trial of the episodes (by identity: a pair shares its familiarization
    Trial objects) drawn and encoded once, keyed by ``id(trial)``. ``frames`` draws a trial
    (default: :func:`trial_frames` with ``renderer``)."""
    renderer = renderer or Renderer()
    draw = frames or (lambda trial: trial_frames(trial, renderer))
    segments: dict[int, Segment] = {}
    for episode in episodes:
        for trial in episode.trials:
            if id(trial) not in segments:  # the episodes keep their trials (and ids) alive
                segments[id(trial)] = encode_segment(draw(trial), FPS)
    return segments


def _encode(episodes: Sequence[Episode], render: str) -> dict[int, Segment]:
    if render == "2d":
        return encode_trials(episodes)
    if render != "3d":
        raise ValueError(f"render mode {render!r}: choose one of {', '.join(RENDER_MODES)}")
    from socialbench.bib.render3d import Renderer3D  # needs PyBullet (the physics extra)

    with Renderer3D() as renderer3d:
        return encode_trials(episodes, frames=renderer3d.trial_frames)


def write_episode_videos(items: Sequence[tuple[Episode, Path]],
                         render: str = "2d") -> list[int]:
    """Write each episode's H.264 mp4 (200 x 200, 25 fps; bib paper), encoding each distinct
    trial once; return each video's frame count. Each file appears under its name only when
    complete. ``render``: ``2d`` (:mod:`~socialbench.bib.render`) or ``3d``
    (:mod:`~socialbench.bib.render3d`), encoded the same way."""
    segments = _encode([episode for episode, _ in items], render)
    counts = []
    for episode, path in items:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        counts.append(write_segments_mp4(path, [segments[id(t)] for t in episode.trials], FPS))
    return counts


def write_episode_video(episode: Episode, path: Path) -> int:
    """Write the episode's mp4 (as :func:`write_episode_videos`); return the frame count."""
    return write_episode_videos([(episode, path)])[0]

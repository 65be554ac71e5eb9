"""Video clips the browser plays: one trial of a BIB episode, rendered from its JSON states.

``bib generate`` writes one mp4 per episode (all nine trials); the viewer and the rating study
play trials one by one (familiarization, then the test), so each trial is rendered on first
request with the benchmark's own renderer and kept in a cache folder outside the dataset.
AGENT videos are served as ``generate --render`` wrote them.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from socialbench.web.datasets import Dataset, bib_episode

_LOCK = threading.Lock()


def bib_trial_clip(dataset: Dataset, relpath: str, trial: int, cache: Path) -> Path:
    """The mp4 of trial ``trial`` (0-8) of a BIB episode file, rendered once into ``cache``."""
    from socialbench.bib.render import Renderer
    from socialbench.bib.schema import FPS
    from socialbench.core.video import write_mp4

    source = dataset.path(relpath)
    stamp = f"{source}:{source.stat().st_mtime_ns}:{trial}".encode()
    target = cache / f"{hashlib.sha256(stamp).hexdigest()[:24]}.mp4"
    if target.is_file():
        return target
    episode = bib_episode(dataset, relpath)
    if not 0 <= trial < len(episode.trials):
        raise IndexError(trial)
    renderer = Renderer()
    with _LOCK:  # one render at a time: concurrent requests for a clip wait for the first
        if not target.is_file():
            cache.mkdir(parents=True, exist_ok=True)
            write_mp4(target, (renderer.render(f) for f in episode.trials[trial].frames), FPS)
    return target

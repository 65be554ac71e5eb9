"""How well perceived boxes match the true ones: 3D box IoU (AGENT paper: 0.07 for its
derendering model), per entity and frame.

Each true entity of a class is matched one-to-one to a perceived entity of the same class (most
overlap over the frames both show first); in every frame the true entity shows, it scores the
IoU of its world axis-aligned box with its match's, or 0 when the match is missing there or
it has none. A frame counts for a true entity when the renderer's segmentation shows it. The
measurement reads the truth; the observers never do.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

import numpy as np

from socialbench.observers.agent.tracks import VideoTracks

CLASSES = ("agent", "goal", "obstacle", "occluder")


def box_iou(c1: np.ndarray, h1: np.ndarray, c2: np.ndarray, h2: np.ndarray) -> np.ndarray:
    """IoU of axis-aligned boxes given by centres and half extents (..., 3)."""
    lo = np.maximum(c1 - h1, c2 - h2)
    hi = np.minimum(c1 + h1, c2 + h2)
    inter = np.prod(np.clip(hi - lo, 0, None), axis=-1)
    union = np.prod(2 * h1, axis=-1) + np.prod(2 * h2, axis=-1) - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)


def _pair_iou(truth: VideoTracks, i: int, seen: VideoTracks, j: int) -> np.ndarray:
    """(T,) IoU per frame the true entity shows (0 where the perceived one does not)."""
    both = truth.visible[:, i] & seen.visible[:, j]
    out = np.zeros(truth.frames)
    out[both] = box_iou(truth.centres[both, i], truth.half[both, i],
                        seen.centres[both, j], seen.half[both, j])
    return out[truth.visible[:, i]]


def video_iou(truth: VideoTracks, seen: VideoTracks,
              shown: np.ndarray | None = None) -> dict[str, list[float]]:
    """Per class, the IoU of every (true entity, frame showing it). ``shown`` (T, E), when
    given, narrows the truth's frames to those whose picture shows the entity (outside
    scenario 3 the state files list hidden bodies too)."""
    if truth.frames != seen.frames:
        raise ValueError(f"truth has {truth.frames} frames, perception {seen.frames}")
    if shown is not None:
        truth = replace(truth, visible=truth.visible & shown)
    scores: dict[str, list[float]] = defaultdict(list)
    for cls in CLASSES:
        true_ids = [i for i in truth.index(cls) if truth.seen(i)]
        free = set(seen.index(cls))
        table = {(i, j): _pair_iou(truth, i, seen, j) for i in true_ids for j in free}
        order = sorted(table, key=lambda k: -float(table[k].mean()) if table[k].size else 0.0)
        matched: dict[int, int] = {}
        for i, j in order:
            if i not in matched and j in free and table[(i, j)].mean() > 0:
                matched[i] = j
                free.discard(j)
        for i in true_ids:
            row = table[(i, matched[i])] if i in matched else np.zeros(truth.visible[:, i].sum())
            scores[cls].extend(float(v) for v in row)
    return dict(scores)

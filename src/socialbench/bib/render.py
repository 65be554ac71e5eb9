"""Pixels from BIB frame states: every frame is drawn from its :class:`Frame` alone.

So the JSON and the video of an episode always agree. The scene, back to front: background,
black walls, green removable barrier (``fuse_walls``), ``blocking`` cells, the pink home, the
lock, the objects, the key, the agent; each icon is its shape's glyph
(:mod:`socialbench.bib.shapes`) filled with the sprite's colour in a ``2 * half`` px square.
Coordinates are the files' (origin bottom-left, y up), so a block at ``(x, y)`` covers image
rows ``200 - y - h`` to ``200 - y``. Positions are rounded to whole pixels (half up).

Speed: the layer that does not move within a trial (walls, barriers, home, lock, objects) is
drawn once and cached; each frame copies it and stamps the key and the agent from cached masks.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from socialbench.bib.schema import FRAME_SIZE, Block, Frame, Sprite, Trial
from socialbench.bib.shapes import glyph_mask, shape_name

# Colours (ours unless noted: the released renderer is not public).
BACKGROUND = (255, 255, 255)
WALL_COLOR = (0, 0, 0)  # bib paper: "fixed, black barriers"
FUSE_COLOR = (0, 180, 0)  # bib paper: "green removable barrier"
BLOCKING_COLOR = (90, 90, 90)
KEY_COLOR = (255, 215, 0)  # used only when a key/lock sprite's colour is unusable
STATIC_CACHE_SIZE = 64  # static layers kept (one per distinct trial layout seen recently)


def _px(value: float) -> int:
    return int(math.floor(value + 0.5))


class Renderer:
    """Draws frames; keeps the static layers and glyph masks it has drawn, for speed."""

    def __init__(self, size: tuple[int, int] = FRAME_SIZE,
                 background: tuple[int, int, int] = BACKGROUND) -> None:
        self.width, self.height = size
        self.background = np.array(background, dtype=np.uint8)
        self._static: OrderedDict[tuple, np.ndarray] = OrderedDict()

    # --- drawing primitives -------------------------------------------------------------
    def _fill_block(self, image: np.ndarray, block: Block, color: tuple[int, int, int]) -> None:
        x0, y0 = _px(block.x), _px(block.y)
        x1, y1 = x0 + _px(block.width), y0 + _px(block.height)
        r0, r1 = max(self.height - y1, 0), min(self.height - y0, self.height)
        c0, c1 = max(x0, 0), min(x1, self.width)
        if r0 < r1 and c0 < c1:
            image[r0:r1, c0:c1] = color

    def _stamp(self, image: np.ndarray, sprite: Sprite, glyph: str | None = None) -> None:
        side = 2 * _px(sprite.half)
        mask = glyph_mask(glyph or shape_name(sprite.shape), side)
        x0, top = _px(sprite.x), self.height - _px(sprite.y) - side
        r0, c0 = max(top, 0), max(x0, 0)
        r1, c1 = min(top + side, self.height), min(x0 + side, self.width)
        if r0 >= r1 or c0 >= c1:
            return
        sub = mask[r0 - top:r1 - top, c0 - x0:c1 - x0]
        image[r0:r1, c0:c1][sub] = tuple(int(v) for v in sprite.color)

    # --- layers ---------------------------------------------------------------------------
    def static_layer(self, frame: Frame) -> np.ndarray:
        """The part of a frame that does not move within a trial (cached, read-only)."""
        key = (frame.walls, frame.fuse_walls, frame.blocking, frame.home, frame.lock,
               frame.objects)
        layer = self._static.get(key)
        if layer is not None:
            self._static.move_to_end(key)
            return layer
        layer = np.empty((self.height, self.width, 3), dtype=np.uint8)
        layer[:] = self.background
        for block in frame.walls:
            self._fill_block(layer, block, WALL_COLOR)
        for block in frame.fuse_walls:
            self._fill_block(layer, block, FUSE_COLOR)
        for block in frame.blocking:
            self._fill_block(layer, block, BLOCKING_COLOR)
        if frame.home is not None:
            self._stamp(layer, frame.home, "home")
        for lock in frame.lock:
            self._stamp(layer, lock, "lock")
        for obj in frame.objects:
            self._stamp(layer, obj)
        layer.setflags(write=False)
        self._static[key] = layer
        if len(self._static) > STATIC_CACHE_SIZE:
            self._static.popitem(last=False)
        return layer

    def render(self, frame: Frame) -> np.ndarray:
        """A new ``(H, W, 3)`` uint8 image of the frame."""
        image = self.static_layer(frame).copy()
        for key in frame.key:
            self._stamp(image, key, "key")
        if frame.agent is not None:
            self._stamp(image, frame.agent)
        return image


_DEFAULT = Renderer()


def render_frame(frame: Frame, renderer: Renderer | None = None) -> np.ndarray:
    """The frame as a ``(200, 200, 3)`` uint8 RGB image (row 0 at the top)."""
    return (renderer or _DEFAULT).render(frame)


def render_trial(trial: Trial, renderer: Renderer | None = None) -> np.ndarray:
    """All frames of a trial as an ``(N, 200, 200, 3)`` uint8 array."""
    r = renderer or _DEFAULT
    return np.stack([r.render(f) for f in trial.frames])

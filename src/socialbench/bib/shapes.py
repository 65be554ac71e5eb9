"""BIB's icon shapes: names, image paths and a distinct glyph (silhouette) for each.

The released files name every icon by an image path (``./shapes/train/objects/heart.png``); the
images themselves were never published, so each name here gets its own silhouette drawn from
polygons and discs, filled with the sprite's colour by :mod:`socialbench.bib.render`.

Two disjoint sets, as in the paper (a second evaluation set uses shapes never seen in training):

* ``TRAIN``: 14 object shapes and 5 agent shapes (bib paper, mask model: |O| = 24 counts
  "target objects (14), agents (5)"). The 11 object and 3 agent names seen in the released files
  come first; the rest are ours.
* ``NEW``: 6 object and 3 agent shapes for the new-shapes evaluation set (ours).

A name no set knows still renders: it gets a stable random polygon derived from the name, so
two unknown names still look different.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

# A glyph is drawn in a unit box, x right and y UP, as a list of operations:
# ("poly", points, fill) or ("disc", (cx, cy, r), fill); fill False erases (holes, cut-outs).
Op = tuple[str, object, bool]

SUPERSAMPLE = 4  # draw at 4x and average down, so small (12 px) glyphs keep their silhouette

HOME_PATH = "./shapes/home.png"  # bib released files
KEY_PATH = "./shapes/key.png"  # ours: the released key/lock paths are not in the samples
LOCK_PATH = "./shapes/lock.png"


def _disc(cx: float, cy: float, r: float, fill: bool = True) -> Op:
    return ("disc", (cx, cy, r), fill)


def _poly(points: Sequence[tuple[float, float]], fill: bool = True) -> Op:
    return ("poly", tuple(points), fill)


def _rect(x0: float, y0: float, x1: float, y1: float, fill: bool = True) -> Op:
    return _poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], fill)


def _regular(n: int, r: float = 0.45, rotation: float = 90.0, cx: float = 0.5,
             cy: float = 0.5) -> list[tuple[float, float]]:
    return [(cx + r * math.cos(math.radians(rotation + 360 * i / n)),
             cy + r * math.sin(math.radians(rotation + 360 * i / n))) for i in range(n)]


def _star(points: int = 5, outer: float = 0.47, inner: float = 0.2) -> list[tuple[float, float]]:
    pts = []
    for i in range(2 * points):
        r = outer if i % 2 == 0 else inner
        a = math.radians(90 + 180 * i / points)
        pts.append((0.5 + r * math.cos(a), 0.5 + r * math.sin(a)))
    return pts


def _thick_line(a: tuple[float, float], b: tuple[float, float],
                width: float) -> list[tuple[float, float]]:
    dx, dy = b[0] - a[0], b[1] - a[1]
    norm = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / norm * width / 2, dx / norm * width / 2
    return [(a[0] + nx, a[1] + ny), (b[0] + nx, b[1] + ny), (b[0] - nx, b[1] - ny),
            (a[0] - nx, a[1] - ny)]


def _ellipse(cx: float, cy: float, rx: float, ry: float, angle: float = 0.0,
             n: int = 32) -> list[tuple[float, float]]:
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    pts = []
    for i in range(n):
        t = 2 * math.pi * i / n
        x, y = rx * math.cos(t), ry * math.sin(t)
        pts.append((cx + c * x - s * y, cy + s * x + c * y))
    return pts


def _reuleaux(n: int = 12) -> list[tuple[float, float]]:
    """A triangle with bulging sides: each side an arc centred on the opposite corner."""
    corners = _regular(3, r=0.42, cy=0.45)
    side = math.dist(corners[0], corners[1])
    pts = []
    for i in range(3):
        centre, a, b = corners[i], corners[(i + 1) % 3], corners[(i + 2) % 3]
        t0 = math.atan2(a[1] - centre[1], a[0] - centre[0])
        t1 = math.atan2(b[1] - centre[1], b[0] - centre[0])
        if t1 < t0:
            t1 += 2 * math.pi
        pts += [(centre[0] + side * math.cos(t0 + (t1 - t0) * k / n),
                 centre[1] + side * math.sin(t0 + (t1 - t0) * k / n)) for k in range(n)]
    return pts


def _half_disc(cx: float, cy: float, r: float, n: int = 16) -> list[tuple[float, float]]:
    return [(cx + r * math.cos(math.pi * k / n), cy + r * math.sin(math.pi * k / n))
            for k in range(n + 1)]


GLYPHS: dict[str, list[Op]] = {
    # --- training objects: the 11 names seen in the released files, then 3 of ours
    "heart": [_disc(0.3, 0.64, 0.21), _disc(0.7, 0.64, 0.21),
              _poly([(0.1, 0.58), (0.9, 0.58), (0.5, 0.06)])],
    "clove_tree": [_rect(0.42, 0.04, 0.58, 0.42), _disc(0.5, 0.72, 0.22),
                   _disc(0.29, 0.52, 0.18), _disc(0.71, 0.52, 0.18)],
    "moon": [_disc(0.45, 0.5, 0.44), _disc(0.66, 0.6, 0.36, fill=False)],
    "wine": [_poly([(0.18, 0.96), (0.82, 0.96), (0.74, 0.62), (0.56, 0.5), (0.44, 0.5),
                    (0.26, 0.62)]), _rect(0.45, 0.14, 0.55, 0.52), _rect(0.22, 0.04, 0.78, 0.15)],
    "double_dia": [_poly([(0.04, 0.5), (0.29, 0.92), (0.54, 0.5), (0.29, 0.08)]),
                   _poly([(0.46, 0.5), (0.71, 0.92), (0.96, 0.5), (0.71, 0.08)])],
    "flag": [_rect(0.12, 0.04, 0.24, 0.96), _poly([(0.24, 0.96), (0.92, 0.74), (0.24, 0.48)])],
    "capsule": [_disc(0.3, 0.3, 0.2), _disc(0.7, 0.7, 0.2),
                _poly(_thick_line((0.3, 0.3), (0.7, 0.7), 0.4))],
    "vase": [_poly([(0.34, 0.96), (0.66, 0.96), (0.6, 0.8), (0.88, 0.5), (0.66, 0.04),
                    (0.34, 0.04), (0.12, 0.5), (0.4, 0.8)])],
    "curved_triangle": [_poly(_reuleaux())],
    "spoon": [_poly(_ellipse(0.66, 0.66, 0.3, 0.19, angle=45)),
              _poly(_thick_line((0.6, 0.6), (0.06, 0.06), 0.13))],
    "medal": [_disc(0.5, 0.34, 0.3), _poly([(0.18, 0.96), (0.38, 0.96), (0.56, 0.58),
                                           (0.4, 0.56)]),
              _poly([(0.82, 0.96), (0.62, 0.96), (0.44, 0.58), (0.6, 0.56)])],
    "star": [_poly(_star())],
    "cross": [_rect(0.36, 0.04, 0.64, 0.96), _rect(0.04, 0.36, 0.96, 0.64)],
    "bell": [_poly([(0.08, 0.2), (0.92, 0.2), (0.78, 0.38), (0.74, 0.78), (0.5, 0.94),
                    (0.26, 0.78), (0.22, 0.38)]), _disc(0.5, 0.12, 0.1)],
    # --- training agents: the 3 names seen in the released files, then 2 of ours
    "pentagon": [_poly(_regular(5, r=0.48))],
    "clove": [_disc(0.5, 0.71, 0.23), _disc(0.3, 0.37, 0.23), _disc(0.7, 0.37, 0.23)],
    "kite": [_poly([(0.5, 0.97), (0.88, 0.62), (0.5, 0.03), (0.12, 0.62)])],
    "hexagon": [_poly(_regular(6, r=0.48, rotation=0))],
    "arrow": [_poly([(0.5, 0.97), (0.95, 0.5), (0.68, 0.5), (0.68, 0.03), (0.32, 0.03),
                     (0.32, 0.5), (0.05, 0.5)])],
    # --- new-shapes objects (never in training)
    "umbrella": [_poly(_half_disc(0.5, 0.48, 0.46)), _rect(0.45, 0.04, 0.55, 0.5),
                 _rect(0.25, 0.04, 0.5, 0.13)],
    "hourglass": [_poly([(0.1, 0.96), (0.9, 0.96), (0.1, 0.04), (0.9, 0.04)])],
    "lightning": [_poly([(0.66, 0.97), (0.14, 0.42), (0.44, 0.42), (0.3, 0.03), (0.88, 0.6),
                         (0.56, 0.6), (0.8, 0.97)])],
    "mushroom": [_poly(_half_disc(0.5, 0.45, 0.47)), _rect(0.37, 0.04, 0.63, 0.46)],
    "bowtie": [_poly([(0.04, 0.1), (0.04, 0.9), (0.96, 0.1), (0.96, 0.9)])],
    "ring": [_disc(0.5, 0.5, 0.46), _disc(0.5, 0.5, 0.24, fill=False)],
    # --- new-shapes agents
    "octagon": [_poly(_regular(8, r=0.5, rotation=22.5))],
    "chevron": [_poly([(0.5, 0.97), (0.97, 0.45), (0.97, 0.05), (0.5, 0.55), (0.03, 0.05),
                       (0.03, 0.45)])],
    "tee": [_rect(0.04, 0.68, 0.96, 0.96), _rect(0.34, 0.04, 0.66, 0.7)],
    # --- scene elements
    "home": [_rect(0, 0, 1, 1)],
    "key": [_poly([(0.06, 0.08), (0.94, 0.08), (0.5, 0.94)])],  # bib paper: the key is a triangle
    "lock": [_rect(0, 0, 1, 1), _poly([(0.2, 0.2), (0.8, 0.2), (0.5, 0.8)], fill=False)],
}


@dataclass(frozen=True)
class ShapeSet:
    """One disjoint set of object and agent shapes, with the image paths files name them by."""

    name: str
    objects: tuple[str, ...]
    agents: tuple[str, ...]

    def object_path(self, shape: str) -> str:
        return f"./shapes/{self.name}/objects/{shape}.png"

    def agent_path(self, shape: str) -> str:
        return f"./shapes/{self.name}/agents/{shape}.png"


TRAIN = ShapeSet(
    "train",
    objects=("heart", "clove_tree", "moon", "wine", "double_dia", "flag", "capsule", "vase",
             "curved_triangle", "spoon", "medal", "star", "cross", "bell"),
    agents=("pentagon", "clove", "kite", "hexagon", "arrow"),
)
NEW = ShapeSet(
    "new",  # ours: the released folder name of the new-shapes set is not in the samples
    objects=("umbrella", "hourglass", "lightning", "mushroom", "bowtie", "ring"),
    agents=("octagon", "chevron", "tee"),
)
SHAPE_SETS = {s.name: s for s in (TRAIN, NEW)}


def shape_name(image_path: str) -> str:
    """``./shapes/train/objects/heart.png`` -> ``heart``."""
    return image_path.rsplit("/", 1)[-1].removesuffix(".png")


def _unknown_glyph(name: str) -> list[Op]:
    """A stable star-like polygon from the name's CRC, for names no set defines."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    n = int(rng.integers(5, 9))
    radii = rng.uniform(0.2, 0.48, n)
    start = float(rng.uniform(0, 360))
    return [_poly([(0.5 + r * math.cos(math.radians(start + 360 * i / n)),
                    0.5 + r * math.sin(math.radians(start + 360 * i / n)))
                   for i, r in enumerate(radii)])]


@lru_cache(maxsize=1024)
def glyph_mask(name: str, side: int) -> np.ndarray:
    """The boolean ``side x side`` silhouette of a shape, row 0 at the top (image order)."""
    if side <= 0:
        return np.zeros((0, 0), dtype=bool)
    big = side * SUPERSAMPLE
    canvas = Image.new("L", (big, big), 0)
    draw = ImageDraw.Draw(canvas)
    for kind, geometry, fill in GLYPHS.get(name) or _unknown_glyph(name):
        value = 255 if fill else 0
        if kind == "disc":
            cx, cy, r = geometry  # type: ignore[misc]
            draw.ellipse([(cx - r) * big, (1 - cy - r) * big, (cx + r) * big,
                          (1 - cy + r) * big], fill=value)
        else:
            draw.polygon([(x * big, (1 - y) * big) for x, y in geometry], fill=value)  # type: ignore[union-attr]
    small = np.asarray(canvas, dtype=np.float32).reshape(side, SUPERSAMPLE, side, SUPERSAMPLE)
    mask = small.mean(axis=(1, 3)) >= 127.5
    mask.setflags(write=False)
    return mask

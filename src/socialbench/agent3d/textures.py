"""Procedural textures for the AGENT room: the 8 floor and 3 wall looks the paper draws from.

TDW's material textures are not available here, so each look is drawn from a few lines of
numpy (planks, tiles, bricks, noise), tinted so that its mean colour is the look's colour in
``layout.constants`` (the colour the states' entity table records). A texture is one tile of a
repeating pattern, ``TILE_METRES`` wide; the renderer repeats it across the surface by texture
coordinates in metres. Tiles are drawn from a fixed seed, written once as PNG into a cache
folder (PyBullet loads textures from files) and reused by every video and process.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image

from socialbench.agent3d.layout.constants import FLOOR_LOOKS, WALL_LOOKS

TEXTURE_VERSION = 2  # part of the cache folder's name: bump when a drawing changes
SIDE = 256  # pixels of a square tile
_SEED = 20_210_705  # fixed: every run draws the same textures


def _noise(rng: np.random.Generator, cells: int, side: int = SIDE) -> np.ndarray:
    """Smooth value noise in [-1, 1], periodic over the tile: a random grid of ``cells`` x
    ``cells`` values, interpolated with wrap-around (so tiles meet without a seam)."""
    grid = rng.uniform(-1.0, 1.0, (cells, cells))
    at = np.arange(side) * cells / side
    low = np.floor(at).astype(int)
    high = (low + 1) % cells
    weight = at - low
    weight = weight * weight * (3 - 2 * weight)  # smoothstep: no creases at the grid lines
    rows = grid[low] * (1 - weight)[:, None] + grid[high] * weight[:, None]
    return (rows[:, low] * (1 - weight)[None, :] + rows[:, high] * weight[None, :]).astype(
        np.float32)


def _grout(coordinate: np.ndarray, period: float, width: float) -> np.ndarray:
    """1 on the lines between tiles of ``period`` pixels (``width`` pixels wide), else 0."""
    phase = np.mod(coordinate, period)
    return ((phase < width / 2) | (phase > period - width / 2)).astype(np.float32)


def _planks(rng: np.random.Generator, boards: int = 8, contrast: float = 0.16) -> np.ndarray:
    rows, cols = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32)
    board = (rows // (SIDE / boards)).astype(int)
    shift = rng.uniform(0, SIDE, boards)[board]  # staggered board ends
    along = np.mod(cols + shift, SIDE)
    tone = rng.uniform(-1.0, 1.0, boards)[board] * contrast
    grain = 0.06 * np.sin(rows * 1.7 + 6.0 * _noise(rng, 8)) + 0.05 * _noise(rng, 32)
    seams = np.maximum(_grout(rows, SIDE / boards, 2.0), (along < 2.0).astype(np.float32))
    return 1.0 + tone + grain - 0.35 * seams


def _tiles(rng: np.random.Generator, per_side: int, jitter: float, veins: float = 0.0,
           grit: float = 0.05) -> np.ndarray:
    rows, cols = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32)
    size = SIDE / per_side
    tone = rng.uniform(-1.0, 1.0, (per_side, per_side))[(rows // size).astype(int),
                                                         (cols // size).astype(int)] * jitter
    grout = np.maximum(_grout(rows, size, 3.0), _grout(cols, size, 3.0))
    shade = 1.0 + tone + grit * _noise(rng, 16)
    if veins:
        shade -= veins * np.exp(-np.abs(np.sin((cols + rows) / 40.0 + 4.0 * _noise(rng, 4))) * 8)
    return shade - 0.3 * grout


def _bricks(rng: np.random.Generator, courses: int = 8, per_course: int = 4) -> np.ndarray:
    rows, cols = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32)
    height, length = SIDE / courses, SIDE / per_course
    course = (rows // height).astype(int)
    shifted = cols + (course % 2) * length / 2
    brick = (np.mod(shifted // length, per_course)).astype(int)
    tone = rng.uniform(-1.0, 1.0, (courses, per_course))[course, brick] * 0.12
    mortar = np.maximum(_grout(rows, height, 3.0), _grout(shifted, length, 3.0))
    return 1.0 + tone + 0.05 * _noise(rng, 32) + 0.45 * mortar  # light mortar on dark brick


def _smooth(cells: int, amount: float) -> Callable[[np.random.Generator], np.ndarray]:
    def draw(rng: np.random.Generator) -> np.ndarray:
        return 1.0 + amount * _noise(rng, cells) + amount / 2 * _noise(rng, cells * 4)
    return draw


# look name -> (drawing of the shade around 1, metres one tile spans)
PATTERNS: dict[str, tuple[Callable[[np.random.Generator], np.ndarray], float]] = {
    "light_oak": (_planks, 1.2),
    "dark_walnut": (lambda rng: _planks(rng, contrast=0.22), 1.2),
    "grey_concrete": (_smooth(8, 0.08), 2.0),
    "sand_tile": (lambda rng: _tiles(rng, 2, 0.05), 0.8),
    "slate": (lambda rng: _tiles(rng, 2, 0.12, grit=0.12), 1.0),
    "terracotta": (lambda rng: _tiles(rng, 4, 0.08), 1.2),
    "white_marble": (lambda rng: _tiles(rng, 2, 0.03, veins=0.18), 1.2),
    "green_carpet": (_smooth(64, 0.12), 1.0),
    "cream_plaster": (_smooth(16, 0.05), 2.0),
    "blue_paint": (_smooth(8, 0.03), 2.0),
    "brick": (_bricks, 1.0),
}
LOOK_COLORS = {name: color for name, color in (*FLOOR_LOOKS, *WALL_LOOKS)}


def texture_array(look: str) -> np.ndarray:
    """The (SIDE, SIDE, 3) uint8 tile of a look, its mean colour the look's colour."""
    draw, _ = PATTERNS[look]
    rng = np.random.default_rng([_SEED, sorted(PATTERNS).index(look)])
    shade = draw(rng).astype(np.float64)
    shade /= shade.mean()
    rgb = shade[..., None] * np.asarray(LOOK_COLORS[look][:3])[None, None, :] * 255.0
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)


def tile_metres(look: str) -> float:
    """How many metres one repetition of the look's tile spans."""
    return PATTERNS[look][1]


def cache_folder() -> Path:
    """Where the texture PNGs live: $SOCIALBENCH_CACHE, else $XDG_CACHE_HOME or ~/.cache."""
    root = os.environ.get("SOCIALBENCH_CACHE") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "socialbench"
    return Path(root) / f"agent3d-textures-v{TEXTURE_VERSION}"


@cache
def texture_file(look: str) -> Path:
    """The look's tile as a PNG file, written once (atomically: parallel workers may race)."""
    path = cache_folder() / f"{look}.png"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{look}-", suffix=".png")
        os.close(handle)
        try:
            Image.fromarray(texture_array(look)).save(tmp)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return path


def look_of_color(rgba: tuple[float, ...]) -> str | None:
    """The floor or wall look whose colour an entity has (None: not a room surface colour)."""
    for name, color in LOOK_COLORS.items():
        if all(abs(a - b) < 1e-6 for a, b in zip(color, rgba, strict=False)):
            return name
    return None

"""Small BIB episodes built by hand, for tests and examples: layouts from text, paths from cells.

A layout is 10 lines of 10 characters, the top line first (so it reads like the rendered
frame): ``#`` wall, ``g`` green removable barrier, ``.`` free. The agent walks at 2 px per frame
(bib spec) through the centres of the given cells, after sitting 31 frames on its start, and stops
touching its goal (10 px short of the object's centre; bib spec: 7-12.5 px).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from socialbench.bib.schema import CELL, GRID, Block, Episode, Frame, Sprite, Trial

Cell = tuple[int, int]

OPEN = "\n".join(["#" * GRID] + ["#" + "." * (GRID - 2) + "#"] * (GRID - 2) + ["#" * GRID])
HOME_FRAMES = 31  # bib spec: the agent sits on home for the first 31 frames
HOLD_FRAMES = 84  # bib spec: and holds at the goal for the last 84
TOUCH_GAP = 10.0  # px short of the goal's centre where the agent stops (bib spec: 7-12.5)


def parse(layout: str) -> tuple[list[Cell], list[Cell]]:
    """Wall and barrier cells ``(col, row-from-bottom)`` of a 10 x 10 text map."""
    rows = [r for r in layout.strip().splitlines()]
    if len(rows) != GRID or any(len(r) != GRID for r in rows):
        raise ValueError("a layout is 10 lines of 10 characters")
    walls, fuse = [], []
    for top_row, line in enumerate(rows):
        for col, ch in enumerate(line):
            cell = (col, GRID - 1 - top_row)
            if ch == "#":
                walls.append(cell)
            elif ch == "g":
                fuse.append(cell)
    return walls, fuse


def centre(cell: Cell) -> tuple[float, float]:
    return cell[0] * CELL + CELL / 2, cell[1] * CELL + CELL / 2


def sprite(shape: str, point: tuple[float, float], half: float, kind: str) -> Sprite:
    return Sprite(point[0] - half, point[1] - half, half, f"./shapes/train/{kind}/{shape}.png",
                  (200, 100, 50))


def _track(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    out = [points[0]] * HOME_FRAMES
    for a, b in zip(points, points[1:], strict=False):
        steps = max(int(np.ceil(max(abs(b[0] - a[0]), abs(b[1] - a[1])) / 2.0)), 1)
        out += [(a[0] + (b[0] - a[0]) * k / steps, a[1] + (b[1] - a[1]) * k / steps)
                for k in range(1, steps + 1)]
    return out + [points[-1]] * HOLD_FRAMES


def trial(layout: str, objects: Sequence[tuple[str, Cell]], path: Sequence[Cell], *,
          agent: str = "pentagon", goal: int | None = 0, key: Cell | None = None,
          lock: Cell | None = None) -> Trial:
    """A trial: the agent walks through the centres of ``path`` and stops touching ``goal``.

    ``key`` and ``lock`` are drawn where given and stay put (enough for observers that read the
    first frame; the key is not carried).
    """
    walls, fuse = parse(layout)
    things = tuple(sprite(s, centre(c), 9, "objects") for s, c in objects)
    points = [centre(c) for c in path]
    if goal is not None:
        target = np.asarray(centre(objects[goal][1]))
        last = np.asarray(points[-2] if len(points) > 1 and points[-1] == tuple(target)
                          else points[-1])
        gap = target - last
        norm = float(np.hypot(*gap))
        stop = target - gap / norm * TOUCH_GAP if norm > TOUCH_GAP else last
        points = [p for p in points if p != tuple(target)] + [tuple(stop)]
    wall_blocks = tuple(Block(c[0] * CELL, c[1] * CELL) for c in walls)
    fuse_blocks = tuple(Block(c[0] * CELL, c[1] * CELL) for c in fuse)
    home = sprite("home", points[0], 6, "home")
    keys = (sprite("key", centre(key), 6, "key"),) if key else ()
    locks = (sprite("lock", centre(lock), 6, "lock"),) if lock else ()
    frames = [Frame(walls=wall_blocks, objects=things, agent=sprite(agent, p, 6, "agents"),
                    home=home, fuse_walls=fuse_blocks, key=keys, lock=locks)
              for p in _track(points)]
    return Trial(frames)


def episode(familiarization: Sequence[Trial], test: Trial, name: str = "handmade",
            expected: bool | None = None, task: str | None = None) -> Episode:
    return Episode(list(familiarization) + [test], name=name, task=task, expected=expected)

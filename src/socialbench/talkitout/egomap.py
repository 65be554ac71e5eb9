"""An agent-side map of TalkItOut built only from observations (egocentric view + direction).

The agent does not know where it is in the grid, so the map is kept in a frame centred on the
start cell: the room is at most 8x8, so every room cell lies within 7 cells of the start. A
forward move succeeded exactly when the cell ahead (always in view) was free, so dead reckoning
is exact. Planning is breadth-first search over (cell, direction) states, which counts turns as
steps, as the environment does.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

import numpy as np

from socialbench.talkitout.world import COLOUR_INDEX

UNKNOWN, FREE, WALL, DOOR, NPC = -1, 0, 1, 2, 3
SIDE = 15  # cells per side of the map: offsets -7..7 around the start cell
_ORIGIN = SIDE // 2
_DIR_VEC = ((1, 0), (0, 1), (-1, 0), (0, -1))  # MiniGrid directions: right, down, left, up
_DELTA = tuple(dx + dy * SIDE for dx, dy in _DIR_VEC)
_COLOUR_NAME = {i: c for c, i in COLOUR_INDEX.items()}
_KIND_OF_TYPE = {1: FREE, 2: WALL, 4: DOOR, 11: NPC}
LEFT, RIGHT, FORWARD = 0, 1, 2


def _view_offsets(direction: int) -> list[tuple[int, int, int, int]]:
    """(view i, view j, dx, dy): view cell (i, j) lies at agent + f (6 - j) + r (i - 3)."""
    fx, fy = _DIR_VEC[direction]
    rx, ry = -fy, fx
    return [(i, j, fx * (6 - j) + rx * (i - 3), fy * (6 - j) + ry * (i - 3))
            for i in range(7) for j in range(7)]


_VIEW_OFFSETS = [_view_offsets(d) for d in range(4)]


class EgoMap:
    """What the agent has seen: cell kinds, door colours, NPC kinds, and where it stands."""

    def __init__(self) -> None:
        self.kind = [UNKNOWN] * (SIDE * SIDE)
        self.door_colour: dict[int, str] = {}
        self.npc_type: dict[int, int] = {}
        self.cell = _ORIGIN + _ORIGIN * SIDE
        self.dir = 0
        self.version = 0  # bumped whenever a cell becomes known

    @staticmethod
    def xy(cell: int) -> tuple[int, int]:
        return cell % SIDE, cell // SIDE

    def neighbours(self, cell: int) -> Iterable[int]:
        x, y = self.xy(cell)
        for dx, dy in _DIR_VEC:
            if 0 <= x + dx < SIDE and 0 <= y + dy < SIDE:
                yield cell + dx + dy * SIDE

    def ahead(self) -> int | None:
        x, y = self.xy(self.cell)
        dx, dy = _DIR_VEC[self.dir]
        if 0 <= x + dx < SIDE and 0 <= y + dy < SIDE:
            return self.cell + dx + dy * SIDE
        return None

    def moved(self, action: int) -> None:
        """Dead reckoning, called with the primitive just sent (before the next observation)."""
        if action == FORWARD:
            ahead = self.ahead()
            if ahead is not None and self.kind[ahead] == FREE:
                self.cell = ahead

    def observe(self, image: np.ndarray, direction: int) -> None:
        """Write the 7x7 view into the map."""
        self.dir = int(direction)
        types, colours, states = (image[..., k].tolist() for k in range(3))
        x0, y0 = self.xy(self.cell)
        for i, j, dx, dy in _VIEW_OFFSETS[self.dir]:
            x, y = x0 + dx, y0 + dy
            if not (0 <= x < SIDE and 0 <= y < SIDE):
                continue
            kind = _KIND_OF_TYPE.get(types[i][j], UNKNOWN)
            cell = x + y * SIDE
            if kind == UNKNOWN or self.kind[cell] == kind:
                continue
            self.kind[cell] = kind
            self.version += 1
            if kind == DOOR:
                self.door_colour[cell] = _COLOUR_NAME.get(colours[i][j], "unknown")
            elif kind == NPC:
                self.npc_type[cell] = states[i][j]

    # ------------------------------------------------------------------ queries
    def cells_of(self, kind: int) -> list[int]:
        return [c for c, k in enumerate(self.kind) if k == kind]

    def doors_of_colour(self, colour: str) -> list[int]:
        return [c for c, name in self.door_colour.items() if name == colour]

    def free_neighbours(self, cells: Iterable[int]) -> set[int]:
        return {n for c in cells for n in self.neighbours(c) if self.kind[n] in (FREE, UNKNOWN)}

    def adjacent(self, a: int, b: int) -> bool:
        ax, ay = self.xy(a)
        bx, by = self.xy(b)
        return abs(ax - bx) + abs(ay - by) == 1

    # ------------------------------------------------------------------ planning
    def first_step(self, goal: Callable[[int, int], bool], optimistic: bool = True
                   ) -> tuple[int | None, int]:
        """BFS over (cell, direction) from the agent to the nearest state where goal(cell, dir).

        Returns (first primitive, steps): primitive None when the agent is already there;
        steps = -1 when no goal state is reachable. ``optimistic`` lets the path cross unknown
        cells (they are re-checked as they come into view).
        """
        start = self.cell * 4 + self.dir
        if goal(self.cell, self.dir):
            return None, 0
        kind = self.kind
        first = {start: -1}
        frontier = deque([(start, 0)])
        while frontier:
            state, dist = frontier.popleft()
            cell, d = divmod(state, 4)
            for action in (FORWARD, LEFT, RIGHT):
                if action == FORWARD:
                    nxt_cell = cell + _DELTA[d]
                    x, y = self.xy(cell)
                    dx, dy = _DIR_VEC[d]
                    if not (0 <= x + dx < SIDE and 0 <= y + dy < SIDE):
                        continue
                    k = kind[nxt_cell]
                    if k != FREE and not (optimistic and k == UNKNOWN):
                        continue
                    nxt = nxt_cell * 4 + d
                else:
                    nd = (d - 1) % 4 if action == LEFT else (d + 1) % 4
                    nxt_cell, nxt = cell, cell * 4 + nd
                if nxt in first:
                    continue
                first[nxt] = action if state == start else first[state]
                if goal(nxt_cell, nxt % 4):
                    return first[nxt], dist + 1
                frontier.append((nxt, dist + 1))
        return None, -1

    def reachable_unknown(self) -> set[int]:
        """Unknown cells reachable through free or unknown cells (they may be in the room)."""
        seen = {self.cell}
        stack = [self.cell]
        out = set()
        while stack:
            cell = stack.pop()
            for n in self.neighbours(cell):
                if n in seen or self.kind[n] not in (FREE, UNKNOWN):
                    continue
                seen.add(n)
                stack.append(n)
                if self.kind[n] == UNKNOWN:
                    out.add(n)
        return out

    def explore_step(self) -> int | None:
        """First primitive towards the nearest pose whose view shows a reachable unknown cell,
        or None when nothing is left to discover."""
        unknown = self.reachable_unknown()
        if not unknown:
            return None

        def shows_unknown(cell: int, d: int) -> bool:
            x0, y0 = self.xy(cell)
            for _, _, dx, dy in _VIEW_OFFSETS[d]:
                x, y = x0 + dx, y0 + dy
                if 0 <= x < SIDE and 0 <= y < SIDE and (x + y * SIDE) in unknown:
                    return True
            return False

        action, steps = self.first_step(shows_unknown, optimistic=False)
        return action if steps > 0 else None

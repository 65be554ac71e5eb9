"""The built-in low level: a map from the agent's own observations and moves, and options on it.

Options (indices of the high-level action):

* ``EXPLORE`` (0): walk towards the nearest pose that shows an unseen reachable cell, until a new
  NPC or door comes into view, nothing is left to see, or ``EXPLORE_STEPS`` steps; when nothing
  is left to see it turns or steps at random.
* ``NPC_OPTIONS`` (1..3): go next to the k-th NPC seen (any free side) and say "Where is the
  exit" on arriving (at once when already next to it).
* ``DOOR_OPTIONS`` (4..10): go in front of the door whose colour is the c-th colour word and say
  "Open sesame" on arriving.

An option that cannot be reached is masked out; one whose way becomes blocked ends without an
action, and the high level chooses again in the same step.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from socialbench.rl.hierarchical.dialogue_memory import COLOUR_WORDS, DialogueMemory
from socialbench.talkitout import grammar
from socialbench.talkitout.egomap import FORWARD, FREE, LEFT, RIGHT, SIDE, UNKNOWN, EgoMap

Action = tuple[int, int, int]
EXPLORE = 0
NPC_SLOTS = 3
NPC_OPTIONS = tuple(range(1, 1 + NPC_SLOTS))
DOOR_OPTIONS = tuple(range(1 + NPC_SLOTS, 1 + NPC_SLOTS + len(COLOUR_WORDS)))
N_OPTIONS = 1 + NPC_SLOTS + len(COLOUR_WORDS)
EXPLORE_STEPS = 12
# The two sentences the options say, as (template, noun) indices.
_ASK = grammar.action_from_words(grammar.WHERE_IS_THE_EXIT)[1:]
_SESAME = grammar.action_from_words(grammar.OPEN_SESAME)[1:]
_SILENT = (grammar.NO_TEMPLATE, grammar.NO_NOUN)
_DIR_VEC = ((1, 0), (0, 1), (-1, 0), (0, -1))
UNREACHABLE = -1


def _ahead_table() -> list[int]:
    """Cell ahead of each (cell, direction) state, -1 off the map."""
    table = []
    for state in range(SIDE * SIDE * 4):
        cell, d = divmod(state, 4)
        x, y = cell % SIDE + _DIR_VEC[d][0], cell // SIDE + _DIR_VEC[d][1]
        table.append(x + y * SIDE if 0 <= x < SIDE and 0 <= y < SIDE else -1)
    return table


_AHEAD = _ahead_table()
_NEIGHBOURS = [[_AHEAD[c * 4 + d] for d in range(4) if _AHEAD[c * 4 + d] >= 0]
               for c in range(SIDE * SIDE)]


def cell_distances(m: EgoMap, groups: Iterable[set[int]]) -> dict[int, int]:
    """Fewest steps from the agent's pose to stand on goal cells (any direction), crossing
    free and unseen cells; turns count as steps, as in the environment. Breadth-first over
    (cell, direction), stopping once every group of goals has its nearest cell found (the
    other cells of a group may then be missing: :func:`steps_to` needs only the nearest)."""
    groups = [g for g in groups if g]
    wanted = set().union(*groups)
    found: dict[int, int] = {}

    def reached(cell: int, dist: int) -> bool:
        found[cell] = dist
        groups[:] = [g for g in groups if cell not in g]
        wanted.clear()
        wanted.update(*groups)
        return not groups

    if m.cell in wanted and reached(m.cell, 0):
        return found
    seen = bytearray(SIDE * SIDE * 4)
    start = m.cell * 4 + m.dir
    seen[start] = 1
    frontier = deque([(start, 0)])
    kind = m.kind
    while frontier and wanted:
        state, dist = frontier.popleft()
        base, d = state - state % 4, state % 4
        ahead = _AHEAD[state]
        for n in (base + (d - 1) % 4, base + (d + 1) % 4):
            if not seen[n]:
                seen[n] = 1
                frontier.append((n, dist + 1))
        if ahead >= 0 and kind[ahead] in (FREE, UNKNOWN) and not seen[ahead * 4 + d]:
            seen[ahead * 4 + d] = 1
            frontier.append((ahead * 4 + d, dist + 1))
            if ahead in wanted and reached(ahead, dist + 1):
                break
    return found


def unseen_reachable(m: EgoMap) -> bool:
    """Whether an unseen cell can be reached through free and unseen cells."""
    seen = {m.cell}
    stack = [m.cell]
    kind = m.kind
    while stack:
        for n in _NEIGHBOURS[stack.pop()]:
            k = kind[n]
            if k == UNKNOWN:
                return True
            if k == FREE and n not in seen:
                seen.add(n)
                stack.append(n)
    return False


def steps_to(dist: dict[int, int], cells: Iterable[int]) -> int:
    """Fewest steps to stand on any of ``cells``; -1 when none is reachable."""
    steps = [dist[c] for c in cells if c in dist]
    return min(steps) if steps else UNREACHABLE


class OptionController:
    """One episode's low level: fed observation dicts, it keeps the map, the dialogue and what
    it asked whom, runs the chosen option and reports when a new choice is needed."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.reset()

    def reset(self) -> None:
        self.map = EgoMap()
        self.dialogue = DialogueMemory()
        self.steps = 0
        self.option: int | None = None
        self.option_steps = 0
        self.asked: dict[int, int] = {}  # NPC cell -> times asked
        self.voices: dict[int, set[str]] = {}  # NPC cell -> speakers it may be
        self._asked_last = False
        self._seen_count = 0

    # ------------------------------------------------------------------ perception
    def observe(self, obs: Mapping[str, Any]) -> None:
        """Take one observation (``image``, ``direction``, ``utterance`` text) of the env."""
        self.map.observe(np.asarray(obs["image"]), int(obs["direction"]))
        speakers = self.dialogue.hear(str(obs.get("utterance", "")))
        if self._asked_last:
            near = [c for c in self.map.npc_type if self.map.adjacent(c, self.map.cell)]
            for cell in near:
                self.asked[cell] = self.asked.get(cell, 0) + 1
                if speakers:  # who answered is among the speakers heard now
                    known = self.voices.get(cell)
                    self.voices[cell] = set(speakers) if known is None else \
                        (known & set(speakers)) or set(speakers)
            self._asked_last = False

    # ------------------------------------------------------------------ the options' targets
    def npc_cells(self) -> list[int]:
        """NPC cells in the order they were first seen (the NPC options' slots)."""
        return list(self.map.npc_type)[:NPC_SLOTS]

    def door_cell(self, colour: str) -> int | None:
        cells = self.map.doors_of_colour(colour)
        return cells[0] if cells else None

    def target_cells(self, option: int) -> set[int] | None:
        """Cells where the option speaks (None for explore or an option with no target yet)."""
        if option in NPC_OPTIONS:
            npcs = self.npc_cells()
            k = option - NPC_OPTIONS[0]
            return self.map.free_neighbours([npcs[k]]) if k < len(npcs) else None
        if option in DOOR_OPTIONS:
            door = self.door_cell(COLOUR_WORDS[option - DOOR_OPTIONS[0]])
            return self.map.free_neighbours([door]) if door is not None else None
        return None

    def left_to_explore(self) -> bool:
        return unseen_reachable(self.map)

    # ------------------------------------------------------------------ acting
    @property
    def needs_decision(self) -> bool:
        return self.option is None

    def start(self, option: int) -> None:
        self.option, self.option_steps = int(option), 0
        self._seen_count = len(self.map.npc_type) + len(self.map.door_colour)

    def act(self) -> Action | None:
        """The next primitive action of the running option; None when the option ended without
        acting (its way is blocked, or exploring found something): choose again."""
        if self.option is None:
            raise RuntimeError("no option running: call start() first")
        if self.option == EXPLORE:
            return self._explore()
        cells = self.target_cells(self.option) or set()
        move, steps = self.map.first_step(lambda cell, _d: cell in cells)
        if steps < 0:
            self.option = None
            return None
        words = _ASK if self.option in NPC_OPTIONS else _SESAME
        if steps == 0 or (steps == 1 and move == FORWARD):  # arriving: speak this step
            self.option = None
            self._asked_last = words == _ASK
            return self._send(move, words)
        return self._send(move, _SILENT)

    def _explore(self) -> Action | None:
        seen = len(self.map.npc_type) + len(self.map.door_colour)
        if self.option_steps > 0 and (seen > self._seen_count
                                      or self.option_steps >= EXPLORE_STEPS):
            self.option = None
            return None
        move = self.map.explore_step()
        if move is None:  # nothing left to see: one random turn or step, then choose again
            self.option = None
            return self._send(int(self.rng.choice((LEFT, RIGHT, FORWARD))), _SILENT)
        return self._send(move, _SILENT)

    def _send(self, move: int | None, words: tuple[int, int]) -> Action:
        primitive = grammar.NO_MOVE if move is None else int(move)
        self.map.moved(primitive)
        self.steps += 1
        self.option_steps += 1
        return (primitive, *words)


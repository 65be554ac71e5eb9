"""Reference agents for TalkItOut: random, door-guess and oracle.

Every agent acts from observations only (egocentric 7x7 view, direction, utterances), never from
the environment's hidden state, and takes its randomness from the generator it is given.

* ``random``: the paper's random baseline, uniform over the raw choices
  [8 primitives (incl. no move), speak or not, 4 templates, 16 nouns].
* ``door-guess``: looks around, walks to one of the doors it has seen, chosen at random, and
  says "Open sesame". The exit is uniform over the four doors and independent of the layout, so
  this earns about 0.25: what the paper's PPO learners converge to.
* ``oracle``: asks the wizard, then the guide the wizard names, walks to the door that guide
  names and says "Open sesame". When the wizard is walled in by the two guides, it exposes the
  liar by asking the guides repeatedly (the liar names a fresh wrong door every time).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from socialbench.core.errors import UserError
from socialbench.talkitout.egomap import DOOR, FORWARD, EgoMap
from socialbench.talkitout.grammar import (
    NO_MOVE,
    NO_NOUN,
    NO_TEMPLATE,
    OPEN_SESAME,
    WHERE_IS_THE_EXIT,
    action_from_words,
)
from socialbench.talkitout.world import GUIDE_TYPE, WIZARD_TYPE

Action = tuple[int, int, int]
_ASK = action_from_words(WHERE_IS_THE_EXIT)[1:]
_SESAME = action_from_words(OPEN_SESAME)[1:]
_SILENT = (NO_TEMPLATE, NO_NOUN)
_LINE = re.compile(r"^(\w+): (.*?)\s*$")
_ASK_NAME = re.compile(r"^Ask (\w+)\.?$")
_GO_TO = re.compile(r"^go to the (\w+) door$")
# A guide that gives the same door this many times in a row is taken as the true one when the
# wizard cannot be reached (a liar repeats itself with probability (1/3)^(n-1): 3.7% for n = 4).
CONSISTENT_ANSWERS = 4


class Agent(Protocol):
    """What the evaluation loop needs: ``reset`` before each episode, then ``act`` each step."""

    def reset(self) -> None: ...

    def act(self, obs: dict[str, Any]) -> Action: ...


class RandomAgent:
    """SocialAI 0.1's random baseline: uniform over [8 primitives, speak switch, 4 templates,
    16 nouns] (8 primitives = the 7 actions and no move)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self._buffer = np.empty((0, 4), dtype=np.int64)

    def reset(self) -> None:
        pass

    def act(self, obs: dict[str, Any]) -> Action:
        if not len(self._buffer):  # draw in blocks: one generator call per 4096 steps
            self._buffer = np.stack([self.rng.integers(0, n, 4096) for n in (8, 2, 4, 16)], 1)
        move, speak, template, noun = self._buffer[0].tolist()
        self._buffer = self._buffer[1:]
        return (move, template, noun) if speak else (move, *_SILENT)


def heard_lines(utterance: str) -> list[tuple[str, str]]:
    """[(name, text)] for each "Name: text" line heard this step (the empty indicator gives [])."""
    out = []
    for line in utterance.splitlines():
        match = _LINE.match(line)
        if match:
            out.append((match.group(1), match.group(2)))
    return out


class _MapAgent:
    """Shared plumbing: keep the map, and walk towards goal cells, speaking on arrival."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.map = EgoMap()

    def reset(self) -> None:
        self.map = EgoMap()

    def _sense(self, obs: dict[str, Any]) -> None:
        self.map.observe(obs["image"], obs["direction"])

    def _send(self, move: int | None, words: tuple[int, int]) -> Action:
        self.map.moved(move if move is not None else NO_MOVE)
        return (NO_MOVE if move is None else move, *words)

    def _towards(self, cells: set[int], say_on_arrival: tuple[int, int]) -> Action | None:
        """One step towards the nearest of ``cells``; speak when this step arrives there.
        None when no such cell is reachable."""
        if not cells:
            return None
        move, steps = self.map.first_step(lambda cell, _d: cell in cells)
        if steps < 0:
            return None
        arriving = steps == 0 or (steps == 1 and move == FORWARD)
        return self._send(move, say_on_arrival if arriving else _SILENT)

    def _wander(self) -> Action:
        move = self.map.explore_step()
        if move is None:
            move = int(self.rng.integers(3))  # nothing left to see: turn or try forward
        return self._send(move, _SILENT)


class DoorGuessAgent(_MapAgent):
    """Look around until every reachable part of the room has been seen (or four doors are
    known), pick one of the seen doors uniformly at random, walk there, say "Open sesame"."""

    def reset(self) -> None:
        super().reset()
        self.chosen: int | None = None

    def act(self, obs: dict[str, Any]) -> Action:
        self._sense(obs)
        doors = self.map.cells_of(DOOR)
        if self.chosen is None:
            move = self.map.explore_step() if len(doors) < 4 else None
            if move is not None or not doors:
                return self._send(move if move is not None else int(self.rng.integers(3)),
                                  _SILENT)
            self.chosen = doors[int(self.rng.integers(len(doors)))]
        fronts = self.map.free_neighbours([self.chosen])
        return self._towards(fronts, _SESAME) or self._wander()


class OracleAgent(_MapAgent):
    """Solves TalkItOut from observations: ask the wizard, ask the guide it names, go to the door
    that guide names, say "Open sesame" (see the module docstring for the walled-in wizard)."""

    def reset(self) -> None:
        super().reset()
        self.true_name: str | None = None
        self.answers: dict[str, list[str]] = {}
        self.wizard_asked = False
        self.guide_names: dict[int, str] = {}  # guide cell -> name heard from it
        self.asked_cells: set[int] = set()

    # ------------------------------------------------------------------ listening
    def _listen(self, obs: dict[str, Any]) -> None:
        lines = heard_lines(obs["utterance"])
        if not lines:
            return
        near = [c for c in self.map.npc_type if self.map.adjacent(c, self.map.cell)]
        near_guides = [c for c in near if self.map.npc_type[c] == GUIDE_TYPE]
        self.asked_cells.update(near)
        guide_speakers = []
        for name, text in lines:
            if match := _ASK_NAME.match(text):
                self.true_name, self.wizard_asked = match.group(1), True
            elif match := _GO_TO.match(text):
                self.answers.setdefault(name, []).append(match.group(1))
                guide_speakers.append(name)
        if len(near_guides) == 1 and len(guide_speakers) == 1:
            self.guide_names[near_guides[0]] = guide_speakers[0]

    def _target_colour(self) -> str | None:
        if self.true_name and self.answers.get(self.true_name):
            return self.answers[self.true_name][0]
        if self.true_name is None:  # the wizard was out of reach: judge the guides themselves
            names = list(self.answers)
            liars = [n for n in names if len(set(self.answers[n])) > 1]
            if liars:
                others = [n for n in names if n not in liars]
                if others:
                    return self.answers[others[0]][0]
            for name in names:
                if len(self.answers[name]) >= CONSISTENT_ANSWERS and name not in liars:
                    return self.answers[name][0]
        return None

    # ------------------------------------------------------------------ acting
    def act(self, obs: dict[str, Any]) -> Action:
        self._sense(obs)
        self._listen(obs)
        colour = self._target_colour()
        if colour is not None:
            doors = self.map.doors_of_colour(colour)
            step = self._towards(self.map.free_neighbours(doors), _SESAME) if doors else None
            return step or self._wander()
        return self._seek_information() or self._wander()

    def _npcs(self, npc_type: int) -> list[int]:
        return [c for c, t in self.map.npc_type.items() if t == npc_type]

    def _seek_information(self) -> Action | None:
        wizards, guides = self._npcs(WIZARD_TYPE), self._npcs(GUIDE_TYPE)
        if not self.wizard_asked and wizards:
            step = self._towards(self.map.free_neighbours(wizards), _ASK)
            if step is not None:
                return step
            return self._expose_liar(guides)  # the wizard is walled in
        if self.wizard_asked:
            unnamed = [g for g in guides if g not in self.guide_names]
            # Adjacent to two guides at once, both answered: nothing more to learn there.
            unnamed = [g for g in unnamed if g not in self.asked_cells] or unnamed
            return self._towards(self.map.free_neighbours(unnamed), _ASK)
        return None  # wizard not seen yet: explore

    def _expose_liar(self, guides: list[int]) -> Action | None:
        """Ask the nearest guide again and again; go on to the other once it contradicts itself."""
        liars = {n for n, said in self.answers.items() if len(set(said)) > 1}
        wanted = [g for g in guides if self.guide_names.get(g) not in liars]
        here = [g for g in wanted if self.map.adjacent(g, self.map.cell)]
        if here:
            return self._send(None, _ASK)
        return self._towards(self.map.free_neighbours(wanted), _ASK)


AGENTS: dict[str, Callable[[np.random.Generator], Agent]] = {
    "random": RandomAgent,
    "door-guess": DoorGuessAgent,
    "oracle": OracleAgent,
}


def make_agent(name: str, rng: np.random.Generator) -> Agent:
    """An agent by name; an unknown name is a one-line UserError listing the known ones."""
    if name not in AGENTS:
        raise UserError(f"unknown TalkItOut agent {name!r}; choose one of: {', '.join(AGENTS)}")
    return AGENTS[name](rng)

"""TalkItOut's world objects: colours, doors and the NPCs (wizard, true guide, lying guide).

Each object encodes itself as MiniGrid integers and renders itself, as MiniGrid's objects do.
The NPC object type is 11 (SocialAI 0.1, A.1.2: "a blue wizard will be encoded as (11,2,0) and
a blue guide as (11,2,1)"), which stock MiniGrid does not know; the objects here carry their own
tables rather than editing MiniGrid's global ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from minigrid.core.constants import COLOR_TO_IDX, COLORS
from minigrid.core.world_object import Door, WorldObj
from minigrid.utils.rendering import fill_coords, point_in_circle, point_in_rect, point_in_triangle

# Paper (A.1.3): "colors ... selected randomly from a set of six" = MiniGrid's six colours, in
# MiniGrid's index order. The released code later added brown (index 6).
SIX_COLOURS: tuple[str, ...] = ("red", "green", "blue", "purple", "yellow", "grey")
SEVEN_COLOURS: tuple[str, ...] = (*SIX_COLOURS, "brown")
COLOUR_INDEX: dict[str, int] = {**COLOR_TO_IDX, "brown": 6}
COLOUR_RGB: dict[str, np.ndarray] = {**COLORS, "brown": np.array([119, 70, 20])}

NPC_OBJECT_INDEX = 11  # SocialAI 0.1, A.1.2
WIZARD_TYPE, GUIDE_TYPE = 0, 1  # SocialAI 0.1, A.1.2: npc_type 0 = wizard, 1 = guide
WIZARD_NAME = "Gandalf"  # the released code's wizard name (the paper names none)
GUIDE_NAMES: tuple[str, str] = ("John", "Jack")  # SocialAI 0.1, A.1.3
NO_LIAR_GUIDE_NAME = "Jack"  # released code: the only guide of the no-liar variant


class TalkDoor(Door):
    """A closed, unlocked MiniGrid door whose colour may also be brown (7-colour setting)."""

    def __init__(self, color: str) -> None:
        # WorldObj.__init__ would reject brown; set its fields directly.
        self.type, self.color, self.contains = "door", color, None
        self.init_pos = self.cur_pos = None
        self.is_open = self.is_locked = False

    def encode(self) -> tuple[int, int, int]:
        return (4, COLOUR_INDEX[self.color], 0 if self.is_open else 1)

    def render(self, img: np.ndarray) -> None:
        colour = COLOUR_RGB[self.color]
        fill_coords(img, point_in_rect(0.00, 1.00, 0.00, 1.00), colour)
        fill_coords(img, point_in_rect(0.04, 0.96, 0.04, 0.96), (0, 0, 0))
        fill_coords(img, point_in_rect(0.08, 0.92, 0.08, 0.92), colour)
        fill_coords(img, point_in_rect(0.12, 0.88, 0.12, 0.88), (0, 0, 0))
        fill_coords(img, point_in_circle(cx=0.75, cy=0.50, r=0.08), colour)


@dataclass(eq=False)
class Npc(WorldObj):
    """A non-moving NPC: encodes as (11, colour, npc_type[, direction]) and renders as a figure.

    ``role`` is "wizard", "guide" (tells the truth) or "liar"; ``name`` prefixes every answer.
    The NPC's answers live in :meth:`answer`, which the environment calls only when the agent is
    4-adjacent and has said "Where is the exit".
    """

    role: str
    name: str
    color: str
    direction: int = 0
    encode_direction: bool = False

    def __post_init__(self) -> None:
        # WorldObj.__init__ would reject the unknown type "npc"; set its fields directly.
        self.type = "npc"
        self.contains = None
        self.init_pos = None
        self.cur_pos = None

    @property
    def npc_type(self) -> int:
        return WIZARD_TYPE if self.role == "wizard" else GUIDE_TYPE

    def encode(self) -> tuple[int, ...]:
        code = (NPC_OBJECT_INDEX, COLOUR_INDEX[self.color], self.npc_type)
        return (*code, self.direction) if self.encode_direction else code

    def answer(self, true_guide_name: str, target_colour: str, wrong_colours: list[str],
               rng: np.random.Generator) -> str:
        """This NPC's reply to "Where is the exit" (without the "Name: " prefix).

        The liar draws a wrong door colour afresh, uniformly, at every question, from one
        uniform double (``int(u * 3)``), so that a batched environment can consume the same
        stream from blocks of pre-drawn doubles.
        """
        if self.role == "wizard":
            return f"Ask {true_guide_name}."
        if self.role == "guide":
            return f"go to the {target_colour} door"
        return f"go to the {wrong_colours[int(rng.random() * len(wrong_colours))]} door"

    def render(self, img: np.ndarray) -> None:
        colour = COLOUR_RGB[self.color]
        # A body (triangle) and a head; the wizard wears a hat so the two kinds differ on screen.
        fill_coords(img, point_in_triangle((0.2, 0.95), (0.8, 0.95), (0.5, 0.45)), colour)
        fill_coords(img, point_in_circle(0.5, 0.35, 0.15), colour)
        if self.role == "wizard":
            fill_coords(img, point_in_triangle((0.3, 0.22), (0.7, 0.22), (0.5, 0.0)), colour)
        # A small marker on the side the NPC faces.
        angle = 0.5 * math.pi * self.direction
        cx, cy = 0.5 + 0.3 * math.cos(angle), 0.6 + 0.3 * math.sin(angle)
        fill_coords(img, point_in_circle(cx, cy, 0.06), (255, 255, 255))

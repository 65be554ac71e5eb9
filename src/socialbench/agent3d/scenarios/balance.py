"""Counterbalancing two-goal trials: no id, list place, side, colour or shape tells the answer.

In scenarios 1 and 4 the answer is which object the agent prefers. A model must read it from
the agent's behaviour, never from how the files happen to list, number or place the objects.
"""

from __future__ import annotations

from dataclasses import dataclass

from socialbench.agent3d.layout.constants import FIRST_GOAL_ID
from socialbench.agent3d.layout.geometry import body_shape


@dataclass(frozen=True)
class Balance:
    """Which way each answer-free cue falls in one two-goal trial (scenarios 1 and 4).

    Nothing a model can read without reasoning (an id, an entity's place in the lists, a
    side, a colour code, a shape, the order of familiarization videos) may tell the preferred
    object. Each field says how one of them relates to it in this trial; the generator
    counterbalances them: consecutive trials (0-1, 2-3, ...) of a type and split take opposite
    values of every field, so every cue points at the preferred object in exactly half the
    pairs of an even-sized set (``generate.trial_balance``).
    """

    lower_id: bool = True  # the preferred object has the lower id (so it is listed first)
    left: bool = True  # at test the preferred object is on the left (-x, the camera's left)
    lower_code: bool = True  # the preferred object has the lower colour code (label)
    first_shape: bool = True  # the preferred object's shape name sorts first
    # scenario 1: the test swaps the objects' sides (AGENT paper: half); scenario 4: the first
    # familiarization video the agent completes shows its object on the other side than the
    # preferred object's at test
    swapped: bool = False
    shown_first: bool = True  # scenario 4: the first familiarization videos show the preferred

    def flipped(self) -> Balance:
        """Every cue the other way: the partner trial's balance."""
        return Balance(**{k: not v for k, v in vars(self).items()})


@dataclass(frozen=True)
class GoalRoles:
    """The two objects of a two-goal trial as its :class:`Balance` places them."""

    preferred: int  # entity id
    other: int
    looks: list[tuple[str, int]]  # (shape, colour code) of ids FIRST_GOAL_ID, FIRST_GOAL_ID + 1
    sides: tuple[int, int]  # the test scene's side (-1: -x, +1: +x) of the same two ids


def goal_roles(balance: Balance, looks: list[tuple[str, int]]) -> GoalRoles:
    """Give the preferred object its id, look and test side so that no cue but the agent's
    behaviour tells it apart: ``looks`` are two sampled (shape, colour code) pairs, whose
    shapes and codes are dealt out again as ``balance`` says."""
    preferred = FIRST_GOAL_ID if balance.lower_id else FIRST_GOAL_ID + 1
    other = 2 * FIRST_GOAL_ID + 1 - preferred
    # by the shape name the files give (a cube is written 'box'), so the order a model sees
    shapes = sorted((s for s, _ in looks), key=body_shape)
    codes = sorted(c for _, c in looks)
    shape, code = (0 if balance.first_shape else 1), (0 if balance.lower_code else 1)
    by_id = {preferred: (shapes[shape], codes[code]), other: (shapes[1 - shape], codes[1 - code])}
    side = -1 if balance.left else 1
    sides = {preferred: side, other: -side}
    ids = (FIRST_GOAL_ID, FIRST_GOAL_ID + 1)
    return GoalRoles(preferred, other, [by_id[k] for k in ids],
                     (sides[ids[0]], sides[ids[1]]))

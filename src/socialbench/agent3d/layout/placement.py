"""Drawing AGENT layouts: looks, rooms, one- and two-goal lanes, and obstacles by difficulty."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from socialbench.agent3d.layout.constants import (
    AGENT_COLORS,
    AGENT_SHAPES,
    EXTENDED_GOAL_SHAPES,
    FIRST_GOAL_ID,
    FLOOR_LOOKS,
    LONG_WALL_LENGTHS,
    OBSTACLE_COLORS,
    ONE_GOAL_ROWS,
    ONE_GOAL_SLOTS,
    PLATFORM_TOP,
    TALL_TEST_WALL_HEIGHT,
    TWO_GOAL_AGENT_X,
    TWO_GOAL_GOAL_X,
    TWO_GOAL_ROWS,
    WALL_LOOKS,
    WALL_THICKNESSES,
)
from socialbench.agent3d.layout.geometry import Chasm, Goal, Layout, Platform, Wall


def sample_room(rng: np.random.Generator) -> tuple[int, int]:
    """A trial's room: one of the 8 floor looks and one of the 3 wall looks (AGENT paper)."""
    return int(rng.integers(len(FLOOR_LOOKS))), int(rng.integers(len(WALL_LOOKS)))


def pick(rng: np.random.Generator, options: tuple | list) -> object:
    """One element of ``options`` (by index, so tuples of tuples work)."""
    return options[int(rng.integers(len(options)))]


def sample_looks(rng: np.random.Generator, goals: int,
                 extended: bool = False) -> tuple[str, tuple, list[tuple[str, int]]]:
    """(agent shape, agent colour, [(goal shape, colour code)] * goals).

    Basic goal shapes are the two agent shapes the agent is not (agent spec); with ``extended``
    they come from the unseen set. Two goals take colours from different sets of four.
    """
    agent_shape = str(pick(rng, AGENT_SHAPES))
    pool = list(EXTENDED_GOAL_SHAPES) if extended else [s for s in AGENT_SHAPES
                                                         if s != agent_shape]
    shapes = [pool[int(i)] for i in rng.permutation(len(pool))[:goals]]
    sets = [int(s) for s in rng.permutation(2)]
    codes = [1 + 4 * sets[k % 2] + int(rng.integers(4)) for k in range(goals)]
    return agent_shape, pick(rng, AGENT_COLORS), list(zip(shapes, codes, strict=True))


def one_goal_layout(rng: np.random.Generator, shape: str, code: int, agent_shape: str,
                    agent_color: tuple, direction: int | None = None) -> Layout:
    """Agent in an outer slot, goal in the other, the middle slot left for an obstacle."""
    direction = direction if direction is not None else int(pick(rng, (-1, 1)))
    start, end = (ONE_GOAL_SLOTS[0], ONE_GOAL_SLOTS[2])
    if direction < 0:
        start, end = end, start
    return Layout(row=float(pick(rng, ONE_GOAL_ROWS)), agent_x=start, agent_shape=agent_shape,
                  agent_color=agent_color, goals=[Goal(FIRST_GOAL_ID, end, shape, code)],
                  two_goals=False, obstacle_color=pick(rng, OBSTACLE_COLORS),
                  agent_yaw=0.0 if direction > 0 else math.pi)


def middle_x(layout: Layout) -> float:
    """The obstacle slot of a one-goal layout."""
    return ONE_GOAL_SLOTS[1]


def two_goal_layout(rng: np.random.Generator, looks: list[tuple[str, int]], agent_shape: str,
                    agent_color: tuple, sides: tuple[int, int] = (-1, 1)) -> Layout:
    """Agent at x = 0; goal k (id FIRST_GOAL_ID + k) at x = sides[k] * 1.66."""
    goals = [Goal(FIRST_GOAL_ID + k, sides[k] * TWO_GOAL_GOAL_X, shape, code)
             for k, (shape, code) in enumerate(looks)]
    return Layout(row=float(pick(rng, TWO_GOAL_ROWS)), agent_x=TWO_GOAL_AGENT_X,
                  agent_shape=agent_shape, agent_color=agent_color, goals=goals, two_goals=True,
                  obstacle_color=pick(rng, OBSTACLE_COLORS), agent_yaw=-math.pi / 2)


def wall_across(x: float, row: float, height: float, thickness: float, length: float,
                offset: float = 0.0, door: bool = False) -> Wall:
    """A wall across the lane at ``x``; ``offset`` slides it along y (its centre at row+offset)."""
    return Wall(x=x, y=row + offset, height=height, thickness=thickness, length=length,
                door_y=row if door else None)


# An obstacle "kind and size" a recipe picks before placing it: ("wall", height, thickness),
# ("chasm", width), ("platform", height) / ("ramp", height) under the goal, or None (nothing).
# Difficulty levels 1 (easy) .. 4 (hardest) order each kind for scenarios 1 and 4 (ours, from
# the spec's sizes; two levels may share a size: recipes check the costs they need).
ObstacleSpec = tuple | None
OBSTACLE_KINDS = ("wall", "chasm", "platform", "ramp")
LEVELS = {
    ("wall", False): ((0.1,), (0.2, 0.3), (0.4,), (0.6,)),
    ("wall", True): ((0.1,), (0.2, 0.3), (0.4,), (0.6,)),
    ("chasm", False): ((0.38,), (0.6, 0.88), (1.13,), (1.38,)),
    ("chasm", True): ((0.3,), (0.5,), (0.7,), (0.7,)),
    ("platform", False): ((0.2,), (0.2, 0.5), (0.5,), (0.8,)),
    ("platform", True): ((0.2,), (0.2, 0.5), (0.5,), (0.8,)),
    ("ramp", False): ((0.2,), (0.2, 0.5), (0.5,), (0.8,)),
    ("ramp", True): ((0.2,), (0.2,), (0.5,), (0.5,)),  # a 0.8 m ramp would reach the agent
}
GOAL_INSET = 0.5  # ours: a goal on a platform stands this far past the platform's near edge


def level_spec(rng: np.random.Generator, kind: str, level: int, two_goals: bool,
               tall_walls: bool = False) -> ObstacleSpec:
    """An obstacle of difficulty ``level`` (0 = none, 1 easy .. 4 hardest) of one kind.

    ``tall_walls`` (scenario-1 tests): the hardest wall may also be 0.9 m, too tall to jump,
    so the agent walks round its far end (agent spec: "0.9 in some scenario-1 tests")."""
    if level == 0:
        return None
    sizes = LEVELS[(kind, two_goals)][level - 1]
    if tall_walls and kind == "wall" and level == len(LEVELS[(kind, two_goals)]):
        sizes = (*sizes, TALL_TEST_WALL_HEIGHT)
    size = float(pick(rng, sizes))
    if kind == "wall":
        thickness = float(pick(rng, WALL_THICKNESSES[:3] if two_goals else WALL_THICKNESSES))
        return ("wall", size, thickness)
    return (kind, size)


def place(layout: Layout, x: float, spec: ObstacleSpec) -> Layout:
    """The layout with one more obstacle on the lane: a long wall or a chasm across it at
    ``x``, or a platform (with a ramp toward the agent, for "ramp") under the goal beyond x."""
    if spec is None:
        return layout
    if spec[0] == "wall":
        wall = wall_across(x, layout.row, spec[1], spec[2], LONG_WALL_LENGTHS[-1])
        return layout.with_changes(walls=[*layout.walls, wall])
    if spec[0] == "chasm":
        return layout.with_changes(chasms=[*layout.chasms, Chasm(x=x, width=spec[1])],
                                   raised=True)
    s = 1 if x > layout.agent_x else -1
    goal = next(g for g in layout.goals if (g.x - layout.agent_x) * s > 0)
    platform = Platform(x=goal.x - s * (GOAL_INSET - PLATFORM_TOP / 2), y=layout.row,
                        height=spec[1], ramp=-s if spec[0] == "ramp" else 0)
    goals = [replace(g, platform=len(layout.platforms)) if g is goal else g for g in layout.goals]
    return layout.with_changes(platforms=[*layout.platforms, platform], goals=goals)

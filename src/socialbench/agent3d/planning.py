"""Which path the agent takes: candidate paths, their costs, the efficient one, and goal choice.

For the lane from the agent to a goal, every obstacle on it offers ways past (agent spec, "path
types"): a wall can be jumped (the least-effort jump of ``jumps.solve``: at 1.3 m/s or faster
horizontally, taking off where its arc passes ``JUMP_MARGIN`` above the wall), walked around
at either end (0.3 m clearance) or, with a doorway, walked through; a chasm can be jumped or
crossed on a bridge; a goal on a platform is reached by jumping onto it or walking up its ramp.
A candidate whose walking segments would pass through anything solid (walls, platforms, the
occluder) is dropped; so is a jump over something taller than ``MAX_CLEAR_HEIGHT``.

Cost (agent spec; BIPaCK's cost form): ``C = horizontal + W_V * vertical``, with horizontal the
length of the path on the floor (walked or flown) and vertical the height the agent lifts itself
(a jump's apex, the peak of its centre above take-off: it grows with the obstacle's height and
width; a ramp's height). The *efficient* path is the cheapest candidate. An agent with
rewards picks the goal of highest ``reward - cost`` and gives up when no utility is positive.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from socialbench.agent3d.jumps import JumpProblem
from socialbench.agent3d.layout.constants import AGENT_SIZE, PLATFORM_TOP
from socialbench.agent3d.layout.geometry import Chasm, Layout, Platform, Wall
from socialbench.agent3d.motion import GOAL_TOLERANCE, Jump, Step
from socialbench.core.grid_planning import segment_enters_box

W_V = 1.5  # ours, within BIPaCK's w_v range {0.1..10} (agent spec): vertical effort costs more
MAX_CLEAR_HEIGHT = 0.65  # ours: the agent cannot jump a 0.7 m wall ("0.7 tall to force a detour")
DETOUR_CLEARANCE = 0.3  # agent spec: detours pass a wall's end with ~0.3 m clearance
JUMP_MARGIN = 0.05  # ours: how far above an obstacle's top the agent's bottom passes
TAKEOFF_GAP = 0.05  # ours: a jump takes off with the agent's front at least this far before it
TAKEOFF_REACH = 0.9  # ours: ... and its centre at most this far before it
LANDING_GAP = 0.05  # ours: the agent's back edge lands at least this far past the obstacle
LANDING_REACH = 0.6  # ours: ... and its centre at most this far past it
LANDING_ROOM = GOAL_TOLERANCE + 0.1  # ours: a landing stays this far short of the goal's stop
PLATFORM_LANDING = 0.1  # ours: the agent lands at most this far inside a platform's edge
SETTLE_SECONDS = 1.0  # ours: the agent stands at its goal before the video ends
GIVE_UP_LOOKS = 3  # ours: a giving-up agent looks around this many times ...
PAUSE_SECONDS = 1.0  # ours: ... pausing between the looks ...
GIVE_UP_SECONDS = 2.0  # ours: ... and then stands still
RADIUS = AGENT_SIZE / 2
WALK_INFLATE = RADIUS + 0.03  # ours: walking segments keep this far from solid footprints


class NoPathError(ValueError):
    """No candidate path reaches the goal (every way past an obstacle is infeasible)."""


@dataclass(frozen=True)
class Plan:
    """A path to a goal (or giving up): the motion script and its cost terms."""

    path: str
    goal: int | None
    steps: tuple[Step, ...]
    horizontal: float = 0.0
    vertical: float = 0.0

    @property
    def cost(self) -> float:
        return self.horizontal + W_V * self.vertical

    @property
    def jumps(self) -> list[Jump]:
        return [s.jump for s in self.steps if s.jump is not None]

    def summary(self) -> dict:
        """What ``scene_config.json`` records about the plan (JSON-ready)."""
        return {"path": self.path, "goal_id": self.goal, "cost": round(self.cost, 5),
                "horizontal": round(self.horizontal, 5), "vertical": round(self.vertical, 5),
                "jumps": [{"takeoff": list(_r(j.takeoff)), "landing": list(_r(j.landing)),
                           "apex": round(j.apex, 5), "clearance": round(j.launch.clearance, 5),
                           "speed_h": round(j.launch.speed_h, 5),
                           "speed_v": round(j.launch.speed_v, 5)}
                          for j in self.jumps]}

    def video_steps(self, sweep: float) -> list[Step]:
        """The whole video's motion script: look around (``sweep`` degrees either side of the
        way to the first waypoint), the path, then stand at the goal; or, giving up, look
        around ``GIVE_UP_LOOKS`` times with pauses between, then stay."""
        if self.goal is None:
            pause = Step("settle", seconds=PAUSE_SECONDS)
            look = Step("look", sweep=sweep)
            return [*[look, pause] * (GIVE_UP_LOOKS - 1), look,
                    Step("settle", seconds=GIVE_UP_SECONDS)]
        first = next(s.target or s.jump.takeoff for s in self.steps)
        return [Step("look", target=first, sweep=sweep), *self.steps,
                Step("settle", seconds=SETTLE_SECONDS)]


GIVE_UP = Plan(path="give_up", goal=None, steps=())


def _r(values: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(round(float(v), 5) + 0.0 for v in values)


@dataclass(frozen=True)
class _Way:
    """One way past one obstacle: points walked through, jumps, and its name."""

    name: str
    points: tuple[tuple[float, float], ...]  # walked to, in order (a jump's landing included)
    jumps: tuple[Jump | None, ...]  # jumps[i]: the jump that reaches points[i], or None
    vertical: float


def candidate_plans(layout: Layout, goal_key: int) -> list[Plan]:
    """Every feasible path from the agent to one goal, cheapest first."""
    start = (layout.agent_x, layout.row)
    goal_x = layout.goal(goal_key).x
    s = 1.0 if goal_x > layout.agent_x else -1.0
    obstacles = _obstacles_between(layout, goal_key, layout.agent_x, goal_x)
    # the lane's free stretches: start, (near, far) of each obstacle, goal
    bounds = [(layout.agent_x, layout.agent_x), *(_near_far(o, s) for o in obstacles),
              (goal_x, goal_x)]
    options = [_ways(layout, item, s, s * (bounds[k + 1][0] - bounds[k][1]),
                     s * (bounds[k + 2][0] - bounds[k + 1][1]))
               for k, item in enumerate(obstacles)]
    plans = []
    for combo in itertools.product(*options):
        points: list[tuple[float, float]] = []
        jumps: list[Jump | None] = []
        for way in combo:
            points += way.points
            jumps += way.jumps
        goal_xy = (goal_x, layout.row)
        if not _walkable(layout, goal_key, start, points, jumps, goal_xy):
            continue
        steps = [Step("jump", jump=j) if j is not None else Step("walk", target=pt)
                 for pt, j in zip(points, jumps, strict=True)]
        steps.append(Step("arrive", target=goal_xy))
        route = [start, *points, goal_xy]
        horizontal = sum(math.dist(a, b) for a, b in itertools.pairwise(route))
        name = "+".join(w.name for w in combo) or "straight"
        plans.append(Plan(path=name, goal=goal_key, steps=tuple(steps), horizontal=horizontal,
                          vertical=sum(w.vertical for w in combo)))
    return sorted(plans, key=lambda plan: (plan.cost, plan.path))


def efficient_plan(layout: Layout, goal_key: int) -> Plan:
    """The least-cost path to a goal (:class:`NoPathError` when it cannot be reached)."""
    plans = candidate_plans(layout, goal_key)
    if not plans:
        raise NoPathError(f"no feasible path to goal {goal_key}")
    return plans[0]


def choose_goal(layout: Layout, rewards: dict[int, float]) -> Plan:
    """The efficient plan to the goal of highest utility (reward - cost), or giving up."""
    best: Plan | None = None
    best_utility = 0.0
    for key in sorted(rewards):
        try:
            plan = efficient_plan(layout, key)
        except NoPathError:
            continue
        utility = rewards[key] - plan.cost
        if utility > best_utility:
            best, best_utility = plan, utility
    return best if best is not None else GIVE_UP


# ------------------------------------------------------------------------------ obstacles


def _obstacles_between(layout: Layout, goal_key: int, x0: float,
                       x1: float) -> list[Wall | Chasm | Platform]:
    low, high = min(x0, x1), max(x0, x1)
    found: list[tuple[float, Wall | Chasm | Platform]] = []
    for wall in layout.walls:
        if low < wall.x < high and wall.blocks(layout.row):
            found.append((abs(wall.x - x0), wall))
    for chasm in layout.chasms:
        if low < chasm.x < high:
            found.append((abs(chasm.x - x0), chasm))
    goal = layout.goal(goal_key)
    if goal.platform is not None:
        platform = layout.platforms[goal.platform]
        found.append((abs(platform.x - x0), platform))
    return [item for _, item in sorted(found, key=lambda pair: pair[0])]


def _near_far(item: Wall | Chasm | Platform, s: float) -> tuple[float, float]:
    """Where an obstacle begins and ends along the lane (x), in the direction of travel ``s``."""
    if isinstance(item, Wall):
        return item.x - s * item.thickness / 2, item.x + s * item.thickness / 2
    if isinstance(item, Chasm):
        near, far = item.edges
        return (near, far) if s > 0 else (far, near)
    return item.x - s * PLATFORM_TOP / 2, item.x + s * PLATFORM_TOP / 2


def _ways(layout: Layout, item: Wall | Chasm | Platform, s: float, before: float,
          after: float) -> list[_Way]:
    """Ways past one obstacle; ``before``/``after``: the free lane before its near side (back to
    the start or the previous obstacle) and after its far side (to the goal's stop or the next
    obstacle), which bound where a jump may take off and land."""
    row = layout.row
    if isinstance(item, Wall):
        return _wall_ways(item, row, s, before, after)
    if isinstance(item, Chasm):
        return _chasm_ways(item, row, s, before, after)
    return _platform_ways(item, row, s, before)


def _jump(near: float, row: float, s: float, problem: JumpProblem) -> Jump | None:
    return Jump.pose((near, row), (s, 0.0), problem)


def _wall_ways(wall: Wall, row: float, s: float, before: float, after: float) -> list[_Way]:
    front, back = _near_far(wall, s)
    ways = []
    if wall.height <= MAX_CLEAR_HEIGHT:
        t = wall.thickness
        # the bottom stays JUMP_MARGIN above the top while the agent is over the wall
        problem = JumpProblem(clears=((-RADIUS, wall.height), (t + RADIUS, wall.height)),
                              land_from=t + RADIUS + LANDING_GAP,
                              land_to=t + min(RADIUS + LANDING_REACH, after - LANDING_ROOM),
                              rise=0.0, takeoff_from=RADIUS + TAKEOFF_GAP,
                              takeoff_to=min(RADIUS + TAKEOFF_REACH, before),
                              margin=JUMP_MARGIN)
        jump = _jump(front, row, s, problem)
        if jump is not None:
            ways.append(_Way("jump_wall", (jump.landing,), (jump,), jump.apex))
    for side in (-1.0, 1.0):
        end = wall.y + side * wall.length / 2
        y = end + side * (DETOUR_CLEARANCE + RADIUS)
        ways.append(_Way("around_wall", ((front, y), (back, y)), (None, None), 0.0))
        # steep approaches (a goal close behind a long wall) would cut the wall's corners:
        # the same detour with its corners pushed out along the lane too
        wide = DETOUR_CLEARANCE + RADIUS
        ways.append(_Way("around_wall", ((front - s * wide, y), (back + s * wide, y)),
                         (None, None), 0.0))
    if wall.door_y is not None and wall.door_height > AGENT_SIZE + 0.05:
        pts = ((front - s * DETOUR_CLEARANCE, wall.door_y), (back + s * DETOUR_CLEARANCE,
                                                              wall.door_y))
        ways.append(_Way("through_door", pts, (None, None), 0.0))
    return ways


def _chasm_ways(chasm: Chasm, row: float, s: float, before: float, after: float) -> list[_Way]:
    near, far = _near_far(chasm, s)
    width = chasm.width
    ways = []
    # the bottom stays JUMP_MARGIN above the floor's level over the whole gap
    problem = JumpProblem(clears=((-RADIUS, 0.0), (width + RADIUS, 0.0)),
                          land_from=width + RADIUS + LANDING_GAP,
                          land_to=width + min(RADIUS + LANDING_REACH, after - LANDING_ROOM),
                          rise=0.0, takeoff_from=RADIUS + TAKEOFF_GAP,
                          takeoff_to=min(RADIUS + TAKEOFF_REACH, before), margin=JUMP_MARGIN)
    jump = _jump(near, row, s, problem)
    if jump is not None:
        ways.append(_Way("jump_chasm", (jump.landing,), (jump,), jump.apex))
    if chasm.bridge_y is not None:
        pts = ((near - s * DETOUR_CLEARANCE, chasm.bridge_y),
               (far + s * DETOUR_CLEARANCE, chasm.bridge_y))
        ways.append(_Way("cross_bridge", pts, (None, None), 0.0))
    return ways


def _platform_ways(platform: Platform, row: float, s: float, before: float) -> list[_Way]:
    edge, _ = _near_far(platform, s)
    if platform.ramp == -int(s):  # a ramp on the approach side: walk up it
        foot = edge - s * platform.ramp_run
        pts = ((foot - s * 0.15, row), (edge + s * PLATFORM_LANDING, row))
        return [_Way("up_ramp", pts, (None, None), platform.height)]
    if platform.height > MAX_CLEAR_HEIGHT + 0.2:
        return []
    # the bottom passes JUMP_MARGIN above the top's edge, and the agent lands just inside it
    problem = JumpProblem(clears=((-RADIUS, platform.height),),
                          land_from=RADIUS + LANDING_GAP, land_to=RADIUS + PLATFORM_LANDING,
                          rise=platform.height, takeoff_from=RADIUS + TAKEOFF_GAP,
                          takeoff_to=min(RADIUS + TAKEOFF_REACH, before), margin=JUMP_MARGIN)
    jump = _jump(edge, row, s, problem)
    if jump is None:
        return []
    return [_Way("onto_platform", (jump.landing,), (jump,), jump.apex)]


# ------------------------------------------------------------------------ walking checks


def _walkable(layout: Layout, goal_key: int, start: tuple[float, float],
              points: list[tuple[float, float]], jumps: list[Jump | None],
              goal_xy: tuple[float, float]) -> bool:
    """No walking segment passes through a solid footprint (a jump's flight is exempt; so is
    the goal's own platform, which the agent is on at the end)."""
    goal = layout.goal(goal_key)
    boxes = layout.solid_footprints()
    if goal.platform is not None:
        p = layout.platforms[goal.platform]
        half = PLATFORM_TOP / 2
        own = (p.x - half, p.y - half, p.x + half, p.y + half, p.height)
        boxes = [b for b in boxes if not np.allclose(b, own)]
    route = [start, *points, goal_xy]
    flown = [False, *[j is not None for j in jumps], False]
    for k, (a, b) in enumerate(itertools.pairwise(route)):
        if flown[k + 1]:
            continue
        if any(_segment_hits(a, b, box, WALK_INFLATE) for box in boxes):
            return False
    return True


def _segment_hits(a: tuple[float, float], b: tuple[float, float],
                  box: tuple[float, ...], inflate: float) -> bool:
    """Whether segment a-b crosses the box footprint grown by ``inflate``."""
    return segment_enters_box(a, b[0] - a[0], b[1] - a[1], box[0] - inflate, box[2] + inflate,
                              box[1] - inflate, box[3] + inflate, parallel_eps=1e-12,
                              min_overlap=0.0)

"""The AGENT agent's jumps: the launch that clears an obstacle with the least effort.

A jump is posed along the lane from the agent to its goal, measured from the obstacle's near
side (``x = 0``; the agent comes from negative x): the agent's bottom must be at least a height
above its take-off floor at some centre positions (the obstacle's extent, widened by the
agent's half-width), it must land (come down to ``rise``) within a stretch past the obstacle,
and it may take off anywhere in a stretch before it. Among those jumps, the one of least launch
speed is taken (BIPaCK's cost grows with the force the agent applies), with a horizontal speed of
at least the walking speed, 1.3 m/s (agent spec: BIPaCK's planner jumps at 1.3 m/s
horizontally). So a thin wall is jumped at walking pace from about half the jump's length before
it, the arc's lowest point over the wall a margin above its top, and the apex rises with the
wall's height; a wide chasm is jumped longer and faster, near 45 degrees; a platform is jumped
onto from just before its edge.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from socialbench.agent3d.bodies import GRAVITY

JUMP_SPEED_H = 1.3  # agent spec: BIPaCK's planner jumps at 1.3 m/s horizontally (the least here)
MAX_SPEED_H = 5.0  # m/s, ours: the fastest horizontal launch searched
SPEED_STEP = 0.01  # m/s: the search grid of horizontal speeds
TAKEOFF_STEP = 0.005  # m: the search grid of take-off distances
G = -GRAVITY


@dataclass(frozen=True)
class JumpProblem:
    """What a jump must do, in lane coordinates (metres from the obstacle's near side).

    ``clears``: (centre position, height the agent's bottom must pass ``margin`` above, from
    the take-off floor);
    the flight path is a parabola, so over an interval it is lowest at one of its ends and the
    two ends say it all. ``land_from``/``land_to``: where the centre may come down to ``rise``
    (the landing floor's height above the take-off floor). ``takeoff_from``/``takeoff_to``: how
    far before ``x = 0`` the centre may take off.
    """

    clears: tuple[tuple[float, float], ...]
    land_from: float
    land_to: float
    rise: float
    takeoff_from: float
    takeoff_to: float
    margin: float = 0.0  # the bottom passes this far above every ``clears`` height


@dataclass(frozen=True)
class Launch:
    """A solved jump: take-off ``distance`` before ``x = 0``, launch speeds, and what follows
    from them: ``span`` (take-off to landing, horizontally), ``apex`` (the peak of the centre
    above take-off) and ``clearance`` (the least height of the agent's bottom above what it
    had to clear, over the constraints)."""

    distance: float
    speed_h: float
    speed_v: float
    span: float
    apex: float
    clearance: float


def _required_vz(u: np.ndarray, height: float, vh: np.ndarray) -> np.ndarray:
    """The least vertical launch speed that puts the centre ``height`` up at distance ``u``
    from take-off (inf where u <= 0 and the height is positive: it cannot be reached)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        need = vh * height / u + G * u / (2.0 * vh)
    return np.where(u > 0, need, np.where(height <= 0, 0.0, np.inf))


@functools.lru_cache(maxsize=4096)
def solve(problem: JumpProblem) -> Launch | None:
    """The least-launch-speed jump of a problem, or None when none exists.

    A grid search over take-off distance (5 mm) and horizontal speed (1 cm/s, from 1.3 m/s up);
    for each pair the vertical speed is the least that meets every height constraint and the
    earliest landing, feasible when it still lands by ``land_to``. Deterministic (same grid,
    same arithmetic) and cached: the planner poses the same obstacles many times."""
    count = max(1, int(round((problem.takeoff_to - problem.takeoff_from) / TAKEOFF_STEP)) + 1)
    distances = np.linspace(problem.takeoff_from, problem.takeoff_to, count)[:, None]
    speeds = np.arange(JUMP_SPEED_H, MAX_SPEED_H + 1e-9, SPEED_STEP)[None, :]
    vz = np.zeros(np.broadcast_shapes(distances.shape, speeds.shape))
    for x, height in problem.clears:
        vz = np.maximum(vz, _required_vz(distances + x, height + problem.margin, speeds))
    vz = np.maximum(vz, _required_vz(distances + problem.land_from, problem.rise, speeds))
    # it must also be down by land_to: the arc at land_to no higher than the landing floor
    latest = distances + problem.land_to
    with np.errstate(divide="ignore", invalid="ignore"):
        most = np.where(latest > 0, speeds * problem.rise / latest + G * latest / (2 * speeds),
                        -np.inf)
    cost = np.where((vz <= most) & np.isfinite(vz), speeds ** 2 + vz ** 2, np.inf)
    best = np.unravel_index(int(np.argmin(cost)), cost.shape)
    if not np.isfinite(cost[best]):
        return None
    distance, vh, up = float(distances[best[0], 0]), float(speeds[0, best[1]]), float(vz[best])
    if up * up < 2 * G * problem.rise:  # never reaches the landing floor's height
        return None
    span = vh * (up + math.sqrt(up * up - 2 * G * problem.rise)) / G
    clearance = min(height_at(distance + x, vh, up) - h for x, h in problem.clears)
    return Launch(distance=distance, speed_h=vh, speed_v=up, span=span,
                  apex=up * up / (2 * G), clearance=clearance)


def solve_from(problem: JumpProblem, distance: float) -> Launch | None:
    """The same problem with the take-off fixed at ``distance`` (where the agent stopped)."""
    fixed = JumpProblem(problem.clears, problem.land_from, problem.land_to, problem.rise,
                        round(distance, 4), round(distance, 4), problem.margin)
    return solve(fixed)


def height_at(u: float, speed_h: float, speed_v: float) -> float:
    """The centre's height above take-off at horizontal distance ``u`` from it."""
    t = u / speed_h
    return speed_v * t - 0.5 * G * t * t

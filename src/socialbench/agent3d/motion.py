"""The AGENT agent's motion, simulated in PyBullet: forces and impulses, never positions on rails.

Primitives (agent spec, "Agent motion"):

- ``walk_to``: each physics step a horizontal force steers the agent's velocity toward
  ``WALK_SPEED`` (1.3 m/s) at the next waypoint; intermediate waypoints are reached at 0.01 m
  (or when passed), the goal at 0.24 m, where the agent brakes to a stop. Ramps are climbed by
  the same controller: the ramp's contact force turns the horizontal push into a climb.
- ``jump``: stop, one impulse (a one-step force) sized by :func:`solve_jump` from the obstacle it
  must clear, then free flight under gravity until the agent touches something again.
- ``look_around`` / ``turn_to``: the gaze (the body's yaw) turns 2 degrees per frame.
- ``settle`` / ``give_up``: stay (braking) for a while; giving up is looking around and staying.

A :class:`Simulation` is one video: an emptied DIRECT client (deterministic for the same calls), the
scene built by ``bodies``, and the states of every entity recorded once per frame at
35 fps. Entities listed as ``ghosts`` do not collide with the agent (only type 2.5's surprising
video, whose point is that the agent passes through a wall).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from socialbench.agent3d.bodies import GRAVITY, build_scene, physics_client, read_state
from socialbench.agent3d.physics import p
from socialbench.agent3d.schema import FPS, EntityState, SceneConfig, Video

WALK_SPEED = 1.3  # agent spec: the agent walks at about 1.3 m/s
WAYPOINT_TOLERANCE = 0.01  # agent spec: waypoints approached to 0.01 m
GOAL_TOLERANCE = 0.24  # agent spec: the goal approached to 0.24 m
GAZE_STEP_DEG = 2.0  # agent spec: the gaze turns in 2-degree steps (one per frame)
SUBSTEPS = 6  # physics steps per 35 fps frame: 1/210 s, BIPaCK's 5 ms step rounded to fit frames
TIMESTEP = 1.0 / (FPS * SUBSTEPS)
STEER_TIME = 0.12  # s: the walk controller closes a velocity error in about this time (ours)
STOP_STEER_TIME = 0.04  # s: tighter while coming to a stop, so stops land on the point (ours)
MAX_WALK_FORCE = 25.0  # N on the 1 kg agent: enough to climb a 27-degree ramp at speed (ours)
BRAKE_DECELERATION = 2.5  # m/s^2: how hard the agent slows down before a stop (ours)
STOP_SPEED = 0.02  # m/s: below this the agent counts as stopped (ours)
AGENT_MASS = 1.0  # agent spec: mass 1
RIGHTING_STIFFNESS = 200.0  # 1/s^2: how hard the agent rights itself after tilting (ours)
RIGHTING_DAMPING = 10.0  # 1/s: damping of that righting (ours)


class MotionError(RuntimeError):
    """The agent could not carry out a primitive (stuck, fell): the recipe resamples the scene."""


# ------------------------------------------------------------------------------- jump physics


@dataclass(frozen=True)
class Jump:
    """A ballistic jump of the agent's centre from ``takeoff`` to ``landing`` (x, y on the floor).

    ``rise``: landing floor height minus take-off floor height; ``apex``: the peak height of the
    agent above take-off; ``speed_h`` / ``speed_v``: launch velocity, horizontal and vertical.
    """

    takeoff: tuple[float, float]
    landing: tuple[float, float]
    rise: float
    apex: float
    speed_h: float
    speed_v: float
    clear: tuple[float, float, float] = (0.0, 0.0, 0.0)  # solve_jump's from, to, height

    def from_here(self, here: tuple[float, float]) -> Jump:
        """The same jump re-solved from where the agent actually stopped (a few mm off)."""
        shift = float(np.dot(np.subtract(here, self.takeoff),
                             np.subtract(self.landing, self.takeoff)) / self.span)
        start, to, height = self.clear
        solved = solve_jump(self.span - shift, start - shift, to - shift, height, self.rise)
        if solved is None:
            return self
        return Jump(takeoff=tuple(here), landing=self.landing, rise=self.rise, apex=solved[0],
                    speed_h=solved[1], speed_v=solved[2], clear=(start - shift, to - shift,
                                                                 height))

    @property
    def span(self) -> float:
        return math.dist(self.takeoff, self.landing)

    def launch_velocity(self) -> tuple[float, float, float]:
        dx, dy = self.landing[0] - self.takeoff[0], self.landing[1] - self.takeoff[1]
        return (self.speed_h * dx / self.span, self.speed_h * dy / self.span, self.speed_v)


def jump_height_at(x: float, apex: float, span: float, rise: float,
                   gravity: float = -GRAVITY) -> float:
    """Height above take-off, at horizontal distance ``x``, of the jump with that apex."""
    vz, vh = _launch(apex, span, rise, gravity)
    t = x / vh
    return vz * t - 0.5 * gravity * t * t


def _launch(apex: float, span: float, rise: float, gravity: float) -> tuple[float, float]:
    vz = math.sqrt(2.0 * gravity * apex)
    flight = vz / gravity + math.sqrt(max(2.0 * (apex - rise) / gravity, 0.0))
    return vz, span / flight


def solve_jump(span: float, clear_from: float, clear_to: float, clear_height: float,
               rise: float = 0.0, gravity: float = -GRAVITY,
               max_apex: float = 4.0) -> tuple[float, float, float] | None:
    """The least-impulse jump over an obstacle: ``(apex, speed_h, speed_v)``, or None.

    The agent's bottom must stay at least ``clear_height`` above the take-off floor while it is
    between ``clear_from`` and ``clear_to`` (horizontal distances from take-off, already widened
    by the agent's half-width), and land ``span`` metres away at height ``rise``. Among the
    jumps that clear, the one with the smallest launch speed is taken (the agent's cost grows
    with the force it applies): a high thin wall gives a steep jump, a wide chasm a long flat one.
    """
    floor = max(rise, 0.0) + 1e-4

    def clears(apex: float) -> bool:
        # the flight path is a parabola: over an interval it is lowest at one of its ends
        return all(jump_height_at(x, apex, span, rise, gravity) >= clear_height
                   for x in (clear_from, clear_to))

    if not clears(max_apex):
        return None
    low, high = floor, max_apex
    if not clears(low):
        for _ in range(60):  # bisection: a higher apex lifts the whole arc of a fixed span
            middle = 0.5 * (low + high)
            low, high = (low, middle) if clears(middle) else (middle, high)
        low = high
    apexes = np.linspace(low, min(max_apex, low + 3.0), 301)
    speeds = [sum(v * v for v in _launch(a, span, rise, gravity)) for a in apexes]
    apex = float(apexes[int(np.argmin(speeds))])
    vz, vh = _launch(apex, span, rise, gravity)
    return apex, vh, vz


# ----------------------------------------------------------------------------- simulation


class Simulation:
    """One video being simulated: an emptied PyBullet client, its scene, and recorded frames."""

    def __init__(self, config: SceneConfig, agent_id: int, ghosts: Iterable[int] = (),
                 floors: Iterable[int] = ()) -> None:
        self.config = config
        self._context = physics_client(timestep=TIMESTEP)
        self.client = self._context.__enter__()
        self.ids = build_scene(config, self.client)
        self.agent = self.ids[agent_id]
        # free flight is ballistic: no linear drag (PyBullet's default 0.04 would shorten jumps)
        p.changeDynamics(self.agent, -1, linearDamping=0.0, physicsClientId=self.client)
        for ghost in ghosts:  # type 2.5 surprising: the agent passes through these
            p.setCollisionFilterPair(self.agent, self.ids[ghost], -1, -1, 0,
                                     physicsClientId=self.client)
        self.ghosts = {self.ids[g] for g in ghosts}
        self.penetration = 0.0  # deepest overlap of the agent with a solid body (m, >= 0)
        self.penetrated: int | None = None  # the body of that overlap
        self.floors = {self.ids[f] for f in floors}  # landing surfaces: tracked apart
        self.floor_penetration = 0.0  # a hard landing sinks in for a step or two
        self.frames: list[list[EntityState]] = []
        # static bodies never move: read once, recorded by reference every frame (speed)
        static = {e.id for e in config.entities if e.static or e.mass <= 0}
        self._static = {e: read_state(self.client, e, b) for e, b in self.ids.items()
                        if e in static}
        self._agent_state: tuple | None = None  # (position, orientation, velocity, spin)
        self.gaze: float = self.yaw()
        self.record()

    def __enter__(self) -> Simulation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._context is not None:
            self._context.__exit__(None, None, None)
            self._context = None

    def video(self) -> Video:
        return Video(config=self.config, frames=self.frames)

    # -- stepping
    def record(self) -> None:
        self.frames.append([self._static.get(e) or read_state(self.client, e, b)
                            for e, b in self.ids.items()])
        for contact in p.getContactPoints(bodyA=self.agent, physicsClientId=self.client):
            if contact[2] in self.floors:
                self.floor_penetration = max(self.floor_penetration, -contact[8])
            elif contact[2] not in self.ghosts and -contact[8] > self.penetration:
                self.penetration = -contact[8]
                self.penetrated = contact[2]

    def frame(self, control: Callable[[], None] | None = None) -> None:
        """Advance one 35 fps frame: ``SUBSTEPS`` physics steps, each after ``control``."""
        for _ in range(SUBSTEPS):
            if control is not None:
                control()
            self._steer_gaze()
            p.stepSimulation(physicsClientId=self.client)
            self._agent_state = None
        self.record()

    def _agent(self) -> tuple:
        """The agent's (position, orientation, velocity, angular velocity), read once per
        physics step: the controller and the gaze share it (forces act only at the step)."""
        if self._agent_state is None:
            pose = p.getBasePositionAndOrientation(self.agent, physicsClientId=self.client)
            speed = p.getBaseVelocity(self.agent, physicsClientId=self.client)
            self._agent_state = (np.asarray(pose[0]), pose[1], np.asarray(speed[0]), speed[1])
        return self._agent_state

    def _steer_gaze(self) -> None:
        """Turn the body's yaw toward the gaze, at most 2 degrees per frame.

        Tilting stays physical (a cube tips onto a ramp's slope), but a spring-damper pulls
        the body upright again, so a cone cannot topple. Plain floats: this runs every step."""
        _, (x, y, z, w), _, spin = self._agent()
        yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
        limit = math.radians(GAZE_STEP_DEG) * FPS
        rate = max(-limit, min(limit, _wrap(self.gaze - yaw) / TIMESTEP))
        up_x, up_y = 2.0 * (x * z + w * y), 2.0 * (y * z - w * x)  # the body's z axis, in world
        keep, pull = 1.0 - RIGHTING_DAMPING * TIMESTEP, RIGHTING_STIFFNESS * TIMESTEP
        # up x (0, 0, 1) = (up_y, -up_x, 0): the axis that turns the body back upright
        p.resetBaseVelocity(self.agent, angularVelocity=(spin[0] * keep + pull * up_y,
                                                         spin[1] * keep - pull * up_x, rate),
                            physicsClientId=self.client)

    # -- agent state
    def position(self) -> np.ndarray:
        return self._agent()[0].copy()

    def velocity(self) -> np.ndarray:
        return self._agent()[2].copy()

    def yaw(self) -> float:
        return p.getEulerFromQuaternion(self._agent()[1])[2]

    def touching(self) -> bool:
        return bool(p.getContactPoints(bodyA=self.agent, physicsClientId=self.client))

    def push(self, force: Iterable[float]) -> None:
        p.applyExternalForce(self.agent, -1, list(force), self._agent()[0].tolist(),
                             p.WORLD_FRAME, physicsClientId=self.client)


def _norm(vector: np.ndarray) -> float:
    """``np.linalg.norm`` of a 1-D vector, the same operations (sqrt of the dot product)
    without its per-call overhead: this runs several times every physics step."""
    return math.sqrt(float(np.dot(vector, vector)))


def _wrap(angle: float) -> float:
    return (angle + math.pi) % (2 * math.pi) - math.pi


# ------------------------------------------------------------------------------- primitives


@dataclass(frozen=True)
class Step:
    """One primitive of a motion script: ``walk`` to a waypoint, ``jump``, ``arrive`` at a goal
    (walk, stop 0.24 m from it), ``look`` around (``sweep`` degrees), ``settle`` (``seconds``)."""

    kind: str
    target: tuple[float, float] | None = None
    jump: Jump | None = None
    sweep: float = 0.0
    seconds: float = 0.0


class Mover:
    """The agent's motion primitives on a :class:`Simulation` (each runs whole frames)."""

    def __init__(self, sim: Simulation, fall_below: float | None = None) -> None:
        self.sim = sim
        self.fall_below = fall_below  # an agent centre below this height has fallen (chasm)

    def _check(self, frames: int, budget: int, what: str) -> None:
        if frames > budget:
            raise MotionError(f"agent did not finish {what} in {budget} frames")
        if self.fall_below is not None and self.sim.position()[2] < self.fall_below:
            raise MotionError(f"agent fell while doing {what}")

    def walk_to(self, target: tuple[float, float], tolerance: float = WAYPOINT_TOLERANCE,
                stop: bool = False) -> None:
        """Walk (steering force) to ``target``; with ``stop``, slow down and stop there."""
        sim, goal = self.sim, np.asarray(target, dtype=float)
        done = False
        budget = int(FPS * (4.0 + 3.0 * np.linalg.norm(goal - sim.position()[:2]) / WALK_SPEED))

        def control() -> None:
            nonlocal done
            position, velocity = sim.position(), sim.velocity()
            offset = goal - position[:2]
            distance = _norm(offset)
            passed = distance < 0.15 and float(np.dot(velocity[:2], offset)) < 0.0
            # a stop a hair short of the goal, blocked by it (a cube goal's corner), is arrival
            blocked = stop and distance < tolerance + 0.05 and \
                _norm(velocity[:2]) < STOP_SPEED
            if distance <= tolerance or (passed and not stop) or blocked:
                done = True
            if done:
                if stop:
                    self._brake(velocity)
                return
            speed, steer = WALK_SPEED, STEER_TIME
            if stop:  # arrive at rest: the speed a constant deceleration allows, tighter steering
                left = max(distance - tolerance, 0.0)
                speed = min(speed, math.sqrt(2 * BRAKE_DECELERATION * left), 6.0 * left + 0.03)
                steer = STOP_STEER_TIME
            direction = offset / distance
            sim.gaze = math.atan2(direction[1], direction[0])
            wanted = speed * direction
            force = AGENT_MASS * (wanted - velocity[:2]) / steer
            norm = _norm(force)
            if norm > MAX_WALK_FORCE:
                force *= MAX_WALK_FORCE / norm
            sim.push((force[0], force[1], 0.0))

        frames = 0
        while not done:
            sim.frame(control)
            frames += 1
            self._check(frames, budget, f"walking to {target}")
        if stop:
            self.halt()

    def _brake(self, velocity: np.ndarray) -> None:
        force = -AGENT_MASS * velocity[:2] / STEER_TIME
        norm = _norm(force)
        if norm > MAX_WALK_FORCE:
            force *= MAX_WALK_FORCE / norm
        self.sim.push((force[0], force[1], 0.0))

    def halt(self) -> None:
        """Brake until the agent stands still."""
        sim, frames = self.sim, 0
        while _norm(sim.velocity()[:2]) > STOP_SPEED:
            sim.frame(lambda: self._brake(sim.velocity()))
            frames += 1
            self._check(frames, 3 * FPS, "stopping")

    def jump(self, jump: Jump) -> None:
        """Stop at the take-off point, face the landing, one impulse, fly until touching down."""
        sim = self.sim
        self.walk_to(jump.takeoff, tolerance=WAYPOINT_TOLERANCE, stop=True)
        dx, dy = jump.landing[0] - jump.takeoff[0], jump.landing[1] - jump.takeoff[1]
        self.turn_to(math.atan2(dy, dx))
        here = sim.position()
        jump = jump.from_here((float(here[0]), float(here[1])))
        wanted = np.asarray(jump.launch_velocity())
        fired = False

        def impulse() -> None:
            nonlocal fired
            if fired:
                return
            fired = True
            # one step of force = the impulse m * dv; + m g so gravity does not eat into it
            dv = wanted - sim.velocity()
            sim.push(AGENT_MASS * dv / TIMESTEP + np.array([0.0, 0.0, AGENT_MASS * -GRAVITY]))

        sim.frame(impulse)
        frames, budget = 1, int(FPS * (2.0 + 2.0 * jump.speed_v / -GRAVITY))
        while not (sim.velocity()[2] <= 0.05 and sim.touching()):
            sim.frame()
            frames += 1
            self._check(frames, budget, "a jump")

    def turn_to(self, yaw: float) -> None:
        """Turn the gaze to ``yaw`` (radians) at 2 degrees per frame, standing still."""
        sim = self.sim
        sim.gaze = yaw
        frames = 0
        while abs(_wrap(yaw - sim.yaw())) > math.radians(0.5):
            sim.frame(lambda: self._brake(sim.velocity()))
            frames += 1
            self._check(frames, 4 * FPS, "turning")

    def look_around(self, heading: float, sweep_deg: float) -> None:
        """Look left and right of ``heading`` by ``sweep_deg``, then face ``heading``."""
        for offset in (sweep_deg, -sweep_deg, 0.0):
            self.turn_to(heading + math.radians(offset))

    def settle(self, seconds: float) -> None:
        """Stay still (braking) for a while."""
        for _ in range(int(round(seconds * FPS))):
            self.sim.frame(lambda: self._brake(self.sim.velocity()))

    def run(self, steps: Iterable[Step]) -> None:
        """Carry out a motion script in order."""
        for step in steps:
            if step.kind == "walk":
                self.walk_to(step.target)
            elif step.kind == "arrive":
                self.walk_to(step.target, tolerance=GOAL_TOLERANCE, stop=True)
            elif step.kind == "jump":
                self.jump(step.jump)
            elif step.kind == "look":
                heading = self.sim.yaw()
                if step.target is not None:
                    here = self.sim.position()
                    heading = math.atan2(step.target[1] - here[1], step.target[0] - here[0])
                self.look_around(heading, step.sweep)
            elif step.kind == "settle":
                self.settle(step.seconds)
            else:
                raise ValueError(f"unknown motion step {step.kind!r}")

"""The AGENT agent's motion, simulated in PyBullet: forces and impulses, never positions on rails.

Primitives (agent spec, "Agent motion"), each a whole number of 35 fps frames; the controllers
act once per frame (agent spec: "each frame a force steers the velocity"), the physics runs
``SUBSTEPS`` steps of 1/210 s per frame inside PyBullet (``numSubSteps``):

- ``walk_to``: turn to face the point (the rotate primitive), then a horizontal force steers the
  velocity toward the point at a speed that rises by ``ACCELERATION`` up to ``WALK_SPEED``
  (1.3 m/s) and falls as a constant ``BRAKE_DECELERATION`` allows, so the agent stops there:
  waypoints are approached to 0.01 m, the goal to 0.24 m (agent spec). Ramps are climbed by the
  same controller: the ramp's contact force turns the horizontal push into a climb.
- ``jump``: walk to the take-off point and stop, one impulse (the launch velocity of
  ``jumps.solve``, re-solved from where the agent stopped), free flight under gravity until it
  touches down, then braking to a stop.
- ``look_around`` / ``turn_to``: the gaze (the body's yaw) turns 2 degrees per frame.
- ``settle`` / ``give_up``: stay (braking) for a while; giving up is looking around and staying.

A :class:`Simulation` is one video: an emptied DIRECT client (deterministic for the same calls), the
scene built by ``bodies``, and the states of every entity recorded once per frame at
35 fps. Entities listed as ``ghosts`` do not collide with the agent (only type 2.5's surprising
video, whose point is that the agent passes through a wall).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from socialbench.agent3d.bodies import (
    GRAVITY,
    build_scene,
    physics_client,
    read_state,
    reset_after_use,
    resting_state,
)
from socialbench.agent3d.jumps import JumpProblem, Launch, solve, solve_from
from socialbench.agent3d.physics import p
from socialbench.agent3d.planar import norm2
from socialbench.agent3d.rounding import round_floats
from socialbench.agent3d.schema import FPS, EntitySpec, EntityState, SceneConfig, Video

_WORLD_FRAME = p.WORLD_FRAME  # read once: push runs every frame

WALK_SPEED = 1.3  # agent spec: the agent walks at about 1.3 m/s
WAYPOINT_TOLERANCE = 0.01  # agent spec: waypoints approached to 0.01 m
GOAL_TOLERANCE = 0.24  # agent spec: the goal approached to 0.24 m
GAZE_STEP_DEG = 2.0  # agent spec: the gaze turns in 2-degree steps (one per frame)
SUBSTEPS = 6  # physics steps per 35 fps frame: 1/210 s, BIPaCK's 5 ms step rounded to fit frames
FRAME_TIME = 1.0 / FPS
TIMESTEP = FRAME_TIME / SUBSTEPS
FACING_TOLERANCE_DEG = 0.5  # a turn ends this close to its heading (ours)
ACCELERATION = 2.0  # m/s^2: how fast a walk gets up to speed, ~0.65 s to 1.3 m/s (ours)
STEER_TIME = 0.12  # s: the walk controller closes a velocity error in about this time (ours)
STOP_STEER_TIME = 0.04  # s: tighter while coming to a stop, so stops land on the point (ours)
MAX_WALK_FORCE = 25.0  # N on the 1 kg agent: enough to climb a 27-degree ramp at speed (ours)
BRAKE_DECELERATION = 2.5  # m/s^2: how hard the agent slows down before a stop (ours)
STOP_SPEED = 0.02  # m/s: below this the agent counts as stopped (ours)
AGENT_MASS = 1.0  # agent spec: mass 1
RIGHTING_STIFFNESS = 200.0  # 1/s^2: how hard the agent rights itself after tilting (ours)
RIGHTING_DAMPING = 10.0  # 1/s: damping of that righting (ours)
UNBUILT_KINDS = ("room",)  # not simulated: the room's walls stand far from every lane


class MotionError(RuntimeError):
    """The agent could not carry out a primitive (stuck, fell): the recipe resamples the scene."""


# ------------------------------------------------------------------------------------ jumps


@dataclass(frozen=True)
class Jump:
    """A jump along a lane: ``origin`` is the obstacle's near side on the lane (x = 0 of the
    ``problem``), ``heading`` the lane's unit direction (x, y), ``launch`` the solution (its
    launch speeds and the clearance over the obstacle)."""

    origin: tuple[float, float]
    heading: tuple[float, float]
    problem: JumpProblem
    launch: Launch

    @classmethod
    def pose(cls, origin: tuple[float, float], heading: tuple[float, float],
             problem: JumpProblem) -> Jump | None:
        """The least-effort jump of ``problem`` at ``origin`` (None: no jump does it)."""
        launch = solve(problem)
        return None if launch is None else cls(origin, heading, problem, launch)

    def _along(self, distance: float) -> tuple[float, float]:
        return (self.origin[0] + distance * self.heading[0],
                self.origin[1] + distance * self.heading[1])

    @property
    def takeoff(self) -> tuple[float, float]:
        return self._along(-self.launch.distance)

    @property
    def landing(self) -> tuple[float, float]:
        return self._along(self.launch.span - self.launch.distance)

    @property
    def rise(self) -> float:
        return self.problem.rise

    @property
    def apex(self) -> float:
        """The peak of the agent's centre above its take-off height."""
        return self.launch.apex

    def from_here(self, here: tuple[float, float]) -> Jump:
        """The same jump re-solved from where the agent actually stopped (a few mm off)."""
        distance = -((here[0] - self.origin[0]) * self.heading[0]
                     + (here[1] - self.origin[1]) * self.heading[1])
        launch = solve_from(self.problem, distance)
        return self if launch is None else Jump(self.origin, self.heading, self.problem, launch)

    def launch_velocity(self) -> tuple[float, float, float]:
        speed = self.launch.speed_h
        return (speed * self.heading[0], speed * self.heading[1], self.launch.speed_v)


# ----------------------------------------------------------------------------- simulation


def simulated_entities(config: SceneConfig) -> list[EntitySpec]:
    """The entities a video's simulation builds: all but the room's walls, which stand 6 m
    out, beyond every lane, and would only slow each step (PyBullet updates every body's
    bounding box every step: the four walls cost about a quarter of a step). Their states
    are their configured poses, as PyBullet gives a static body's."""
    return [e for e in config.entities if e.kind not in UNBUILT_KINDS]


class Simulation:
    """One video being simulated: an emptied PyBullet client, its scene, and recorded frames."""

    def __init__(self, config: SceneConfig, agent_id: int, ghosts: Iterable[int] = (),
                 floors: Iterable[int] = (), max_penetration: float = math.inf,
                 max_floor_penetration: float = math.inf) -> None:
        self.config = config
        self._context = physics_client(timestep=TIMESTEP, keep_shapes=True)
        self.client = self._context.__enter__()
        # one stepSimulation call is one frame: SUBSTEPS physics steps of TIMESTEP inside
        # PyBullet, forces applied before the call acting through all of them
        p.setPhysicsEngineParameter(fixedTimeStep=FRAME_TIME, numSubSteps=SUBSTEPS,
                                    physicsClientId=self.client)
        self.ids = build_scene(simulated_entities(config), self.client, visual=False)
        self.agent = self.ids[agent_id]
        # free flight is ballistic: no linear drag (PyBullet's default 0.04 would shorten jumps);
        # the gaze controller sets the spin every frame (the spec's strong angular drag: the
        # agent never spins freely), so PyBullet's angular damping would only blur its 2-degree
        # steps
        p.changeDynamics(self.agent, -1, linearDamping=0.0, angularDamping=0.0,
                         physicsClientId=self.client)
        if ghosts:  # a filter outlives the bodies in PyBullet: the client is reset after
            reset_after_use(self.client)
        for ghost in ghosts:  # type 2.5 surprising: the agent passes through these
            p.setCollisionFilterPair(self.agent, self.ids[ghost], -1, -1, 0,
                                     physicsClientId=self.client)
        self.ghosts = {self.ids[g] for g in ghosts}
        self.penetration = 0.0  # deepest overlap of the agent with a solid body (m, >= 0)
        self.penetrated: int | None = None  # the body of that overlap
        self.floors = {self.ids[f] for f in floors}  # landing surfaces: tracked apart
        self.floor_penetration = 0.0  # a hard landing sinks in for a step or two
        # overlaps deeper than these fail the video: the frame it happens in raises at once
        # (both are running maxima, so the video could only fail at its end; speed)
        self.max_penetration, self.max_floor_penetration = max_penetration, max_floor_penetration
        # per frame, the 13 raw numbers of the agent and of every other body that can move
        # (the occluder), rounded together when the frames are read (rounding.round_floats)
        self._raw: list[tuple[float, ...]] = []
        self._frames: list[list[EntityState]] = []
        # static bodies never move: read once, recorded by reference every frame (speed)
        static = {e.id for e in config.entities if e.static or e.mass <= 0}
        self._row = [None if e.id not in static
                     else read_state(self.client, e.id, self.ids[e.id]) if e.id in self.ids
                     else resting_state(e) for e in config.entities]
        slots = [e.id for e in config.entities]
        self._moving = [self.ids[e] for e in slots if e not in static and e != agent_id]
        self._dynamic = [(slots.index(agent_id), agent_id)] + \
            [(slots.index(e), e) for e in slots if e not in static and e != agent_id]
        # the agent this frame, as PyBullet gives it (tuples of floats: the controllers read
        # them every frame, NumPy arrays would cost more than the arithmetic)
        self.agent_position: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self.agent_orientation: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)
        self.agent_velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self.agent_spin: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self._touching = False  # the agent's contacts after the last step
        self.record()
        self.gaze: float = self.yaw()

    def __enter__(self) -> Simulation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._context is not None:
            # the client goes back to the pool: one physics step per stepSimulation call again
            p.setPhysicsEngineParameter(numSubSteps=0, physicsClientId=self.client)
            self._context.__exit__(None, None, None)
            self._context = None

    def video(self) -> Video:
        return Video(config=self.config, frames=self.frames)

    @property
    def frames(self) -> list[list[EntityState]]:
        """The states of every entity in every frame so far (floats rounded to 5 decimals)."""
        done = len(self._frames)
        if done < len(self._raw):
            values = round_floats(np.array(self._raw[done:]))
            count = len(values)
            # each moving body's states made a column at a time (the same floats as a row at a
            # time: tolist of the rounded values), then laid into the frames
            columns = []
            for k, (slot, entity_id) in enumerate(self._dynamic):
                parts = [list(map(tuple, values[:, 13 * k + a:13 * k + b].tolist()))
                         for a, b in ((0, 3), (3, 7), (7, 10), (10, 13))]
                columns.append((slot, list(map(EntityState, repeat(entity_id, count), *parts))))
            base = self._row  # the static bodies' states, read once
            for t in range(count):
                row = base.copy()
                for slot, states in columns:
                    row[slot] = states[t]
                self._frames.append(row)
        return self._frames

    # -- stepping
    def record(self) -> None:
        """Read the agent once (the states recorded, and what the next frame's controllers
        see) and every other moving body, and note the agent's deepest contacts."""
        client = self.client
        # positional arguments: PyBullet parses keywords slower, and these run every frame
        position, orientation = p.getBasePositionAndOrientation(self.agent, client)
        velocity, spin = p.getBaseVelocity(self.agent, client)
        self.agent_position, self.agent_orientation = position, orientation
        self.agent_velocity, self.agent_spin = velocity, spin
        raw = position + orientation + velocity + spin
        for body in self._moving:
            pose = p.getBasePositionAndOrientation(body, client)
            speed = p.getBaseVelocity(body, client)
            raw += pose[0] + pose[1] + speed[0] + speed[1]
        self._raw.append(raw)
        contacts = p.getContactPoints(self.agent, -1, -2, -2, client)  # the agent and any body
        self._touching = bool(contacts)  # the contacts stay as they are until the next step
        for contact in contacts:
            if contact[2] in self.floors:
                self.floor_penetration = max(self.floor_penetration, -contact[8])
            elif contact[2] not in self.ghosts and -contact[8] > self.penetration:
                self.penetration = -contact[8]
                self.penetrated = contact[2]

    def frame(self, control: Callable[[], None] | None = None) -> None:
        """Advance one 35 fps frame: ``control`` (forces, impulses) and the gaze act once,
        then ``SUBSTEPS`` physics steps run."""
        if control is not None:
            control()
        self._steer_gaze()
        p.stepSimulation(self.client)
        self.record()
        if self.floor_penetration > self.max_floor_penetration:
            raise MotionError(f"agent sank {self.floor_penetration:.3f} m into the floor")
        if self.penetration > self.max_penetration:
            name = next(e.name for e in self.config.entities
                        if self.ids.get(e.id) == self.penetrated)
            raise MotionError(f"agent overlapped {name} by {self.penetration:.3f} m")

    def _steer_gaze(self) -> None:
        """Turn the body's yaw toward the gaze, at most 2 degrees per frame.

        Tilting stays physical (a cube tips onto a ramp's slope), but a spring-damper pulls
        the body upright again, so a cone cannot topple. Plain floats: this runs every frame."""
        x, y, z, w = self.agent_orientation
        spin = self.agent_spin
        yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
        limit = math.radians(GAZE_STEP_DEG) * FPS
        rate = max(-limit, min(limit, _wrap(self.gaze - yaw) / FRAME_TIME))
        up_x, up_y = 2.0 * (x * z + w * y), 2.0 * (y * z - w * x)  # the body's z axis, in world
        keep, pull = 1.0 - RIGHTING_DAMPING * FRAME_TIME, RIGHTING_STIFFNESS * FRAME_TIME
        # up x (0, 0, 1) = (up_y, -up_x, 0): the axis that turns the body back upright
        p.resetBaseVelocity(self.agent, angularVelocity=(spin[0] * keep + pull * up_y,
                                                         spin[1] * keep - pull * up_x, rate),
                            physicsClientId=self.client)

    # -- agent state
    def position(self) -> np.ndarray:
        return np.array(self.agent_position)

    def velocity(self) -> np.ndarray:
        return np.array(self.agent_velocity)

    def yaw(self) -> float:
        return p.getEulerFromQuaternion(self.agent_orientation)[2]

    def touching(self) -> bool:
        return self._touching

    def push(self, force: Sequence[float]) -> None:
        """A force on the agent's centre for the coming frame."""
        p.applyExternalForce(self.agent, -1, force, self.agent_position, _WORLD_FRAME,
                             self.client)

    def kick(self, velocity: Iterable[float]) -> None:
        """An impulse: the agent's velocity becomes ``velocity`` at once (m * dv, the jump)."""
        p.resetBaseVelocity(self.agent, linearVelocity=list(velocity),
                            physicsClientId=self.client)


def _wrap(angle: float) -> float:
    return (angle + math.pi) % (2 * math.pi) - math.pi


# ------------------------------------------------------------------------------- primitives


@dataclass(frozen=True)
class Step:
    """One primitive of a motion script: ``walk`` to a waypoint (stopping there), ``jump``,
    ``arrive`` at a goal (walk, stop 0.24 m from it), ``look`` around (``sweep`` degrees, toward
    ``target`` when given), ``settle`` (``seconds``)."""

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
        if self.fall_below is not None and self.sim.agent_position[2] < self.fall_below:
            raise MotionError(f"agent fell while doing {what}")

    # The controllers run once a frame in plain floats, each operation the one the NumPy
    # version did (elementwise, the same order; lengths by planar.norm2), so the forces and
    # the files are bit for bit what they were.
    def walk_to(self, target: tuple[float, float], tolerance: float = WAYPOINT_TOLERANCE) -> None:
        """Face ``target``, walk there (speeding up, then braking) and stop within ``tolerance``."""
        sim, goal_x, goal_y = self.sim, float(target[0]), float(target[1])
        here = sim.agent_position
        offset_x, offset_y = goal_x - here[0], goal_y - here[1]
        if norm2(offset_x, offset_y) <= tolerance:
            return
        self.turn_to(math.atan2(offset_y, offset_x))
        done = False
        cap = 0.0  # the speed the agent allows itself: rises by ACCELERATION each second
        budget = int(FPS * (4.0 + 3.0 * norm2(offset_x, offset_y) / WALK_SPEED))

        def control() -> None:
            nonlocal done, cap
            (x, y, _), (velocity_x, velocity_y, _) = sim.agent_position, sim.agent_velocity
            offset_x, offset_y = goal_x - x, goal_y - y
            distance = norm2(offset_x, offset_y)
            # a stop a hair short of the goal, blocked by it (a cube goal's corner), is arrival
            blocked = distance < tolerance + 0.05 and \
                norm2(velocity_x, velocity_y) < STOP_SPEED
            if distance <= tolerance or blocked:
                done = True
            if done:
                self._brake()
                return
            cap = min(cap + ACCELERATION * FRAME_TIME, WALK_SPEED)
            left = max(distance - tolerance, 0.0)
            # arrive at rest: the speed a constant deceleration allows, and tighter steering
            stopping = min(math.sqrt(2 * BRAKE_DECELERATION * left), 6.0 * left + 0.03)
            speed = min(cap, stopping)
            steer = STOP_STEER_TIME if stopping < cap else STEER_TIME
            direction_x, direction_y = offset_x / distance, offset_y / distance
            sim.gaze = math.atan2(direction_y, direction_x)
            self._push(AGENT_MASS * (speed * direction_x - velocity_x) / steer,
                       AGENT_MASS * (speed * direction_y - velocity_y) / steer)

        frames, what = 0, f"walking to {target}"  # formatted once, not every frame
        while not done:
            sim.frame(control)
            frames += 1
            self._check(frames, budget, what)
        self.halt()

    def _push(self, force_x: float, force_y: float) -> None:
        """A horizontal force on the agent, at most ``MAX_WALK_FORCE`` strong."""
        norm = norm2(force_x, force_y)
        if norm > MAX_WALK_FORCE:
            scale = MAX_WALK_FORCE / norm
            force_x, force_y = force_x * scale, force_y * scale
        self.sim.push((force_x, force_y, 0.0))

    def _brake(self, steer: float = STEER_TIME) -> None:
        """Push against the agent's horizontal velocity (this frame's)."""
        velocity_x, velocity_y, _ = self.sim.agent_velocity
        self._push(-AGENT_MASS * velocity_x / steer, -AGENT_MASS * velocity_y / steer)

    def halt(self, steer: float = STEER_TIME) -> None:
        """Brake until the agent stands still."""
        sim, frames = self.sim, 0
        while norm2(*sim.agent_velocity[:2]) > STOP_SPEED:
            sim.frame(lambda: self._brake(steer))
            frames += 1
            self._check(frames, 3 * FPS, "stopping")

    def jump(self, jump: Jump) -> None:
        """Stop at the take-off point, face the landing, one impulse, fly until touching down,
        then brake to a stop (the agent is frictionless: it slides on)."""
        sim = self.sim
        self.walk_to(jump.takeoff)
        self.turn_to(math.atan2(jump.heading[1], jump.heading[0]))
        here = sim.agent_position
        jump = jump.from_here((float(here[0]), float(here[1])))
        sim.frame(lambda: sim.kick(jump.launch_velocity()))
        frames, budget = 1, int(FPS * (2.0 + 2.0 * jump.launch.speed_v / -GRAVITY))
        while not (sim.agent_velocity[2] <= 0.05 and sim.touching()):
            sim.frame()
            frames += 1
            self._check(frames, budget, "a jump")
        self.halt(STOP_STEER_TIME)  # feet planted: a short slide, not into what is ahead

    def turn_to(self, yaw: float) -> None:
        """Turn the gaze to ``yaw`` (radians) at 2 degrees per frame, standing still."""
        sim = self.sim
        sim.gaze = yaw
        frames = 0
        while abs(_wrap(yaw - sim.yaw())) > math.radians(FACING_TOLERANCE_DEG):
            sim.frame(self._brake)
            frames += 1
            self._check(frames, 4 * FPS, "turning")

    def look_around(self, heading: float, sweep_deg: float) -> None:
        """Look left of ``heading`` by ``sweep_deg``, back, right by as much, and back: the gaze
        sweeps across the front each way, 4 x ``sweep_deg`` of turning. (Turning straight from
        left to right would cut across the back once the sweep passes 90 degrees: turns take
        the short way.)"""
        for offset in (sweep_deg, 0.0, -sweep_deg, 0.0):
            self.turn_to(heading + math.radians(offset))

    def settle(self, seconds: float) -> None:
        """Stay still (braking) for a while."""
        for _ in range(int(round(seconds * FPS))):
            self.sim.frame(self._brake)

    def run(self, steps: Iterable[Step]) -> None:
        """Carry out a motion script in order."""
        for step in steps:
            if step.kind == "walk":
                self.walk_to(step.target)
            elif step.kind == "arrive":
                self.walk_to(step.target, tolerance=GOAL_TOLERANCE)
            elif step.kind == "jump":
                self.jump(step.jump)
            elif step.kind == "look":
                heading = self.sim.yaw()
                if step.target is not None:
                    here = self.sim.agent_position
                    heading = math.atan2(step.target[1] - here[1], step.target[0] - here[0])
                self.look_around(heading, step.sweep)
            elif step.kind == "settle":
                self.settle(step.seconds)
            else:
                raise ValueError(f"unknown motion step {step.kind!r}")

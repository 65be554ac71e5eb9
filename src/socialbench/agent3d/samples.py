"""Small hand-made AGENT trials with kinematic motion (no physics, no planning).

For tests, documentation and the rendering reference of the speed benchmark: the agent walks
straight to its goal at the paper's 1.3 m/s and stops 0.24 m short of it, past a wall beside
the path. The generator (``agent3d.generate``) makes the real, physically simulated trials.
"""

from __future__ import annotations

import math

from socialbench.agent3d.schema import (
    AGENT_LABEL,
    FPS,
    OCCLUDER_LABEL,
    Camera,
    EntitySpec,
    EntityState,
    SceneConfig,
    Trial,
    Video,
    VideoKind,
)

WALK_SPEED = 1.3  # m/s (agent spec: walks at about 1.3 m/s)
GOAL_STOP = 0.24  # m (agent spec: the goal is approached to 0.24 m)
AGENT_SIZE = 0.2  # m (agent spec: 0.2 m primitives)
FLOOR, AGENT, GOAL, WALL, OCCLUDER = 0, 1, 2, 3, 4  # entity ids of the sample scene
OCCLUDER_SIZE = (0.6, 0.05, 1.0)  # m: a panel hiding the wall and the path's middle (scenario 3)
OCCLUDER_AT = (0.0, -0.6, 0.5)


def sample_entities(start: tuple[float, float] = (-1.5, 0.0),
                    goal: tuple[float, float] = (1.5, 0.0)) -> list[EntitySpec]:
    """Floor, a red sphere agent, a green cone goal and a blue wall off the path (y = 0.8)."""
    half = AGENT_SIZE / 2
    return [
        EntitySpec(FLOOR, "floor", "floor", "box", (12.0, 12.0, 0.1), (0.0, 0.0, -0.05),
                   rgba=(0.8, 0.8, 0.8, 1.0)),
        EntitySpec(AGENT, "agent", "agent", "sphere", (AGENT_SIZE,) * 3, (*start, half),
                   label=AGENT_LABEL, rgba=(0.9, 0.1, 0.1, 1.0), static=False, mass=1.0),
        EntitySpec(GOAL, "goal", "goal", "cone", (AGENT_SIZE,) * 3, (*goal, half), label=1,
                   rgba=(0.1, 0.8, 0.1, 1.0)),
        EntitySpec(WALL, "wall", "obstacle", "box", (0.2, 0.6, 0.4), (0.0, 0.8, 0.2),
                   rgba=(0.2, 0.3, 0.9, 1.0)),
    ]


def walk_video(kind: VideoKind = "expected", *, scenario: int = 2, trial_type: str = "2.1",
               start: tuple[float, float] = (-1.5, 0.0), goal: tuple[float, float] = (1.5, 0.0),
               seed: int = 0) -> Video:
    """One video: the agent walks straight to the goal, then stands still for half a second.

    In scenario 3 a panel stands between the camera and the path; in the test videos it tips
    over toward the camera while the agent stands still.
    """
    entities = sample_entities(start, goal)
    if scenario == 3:
        entities.append(EntitySpec(OCCLUDER, "occluder", "occluder", "box", OCCLUDER_SIZE,
                                   OCCLUDER_AT, label=OCCLUDER_LABEL, rgba=(0.6, 0.5, 0.3, 1.0),
                                   static=False, mass=2.0))
    camera = Camera(position=(0.0, -4.0, 2.0), target=(0.0, 0.0, 0.2))
    config = SceneConfig(scenario=scenario, trial_type=trial_type, video=kind, entities=entities,
                         camera=camera, seed=seed, annotations={"goal_id": GOAL, "gave_up": False})
    distance = math.dist(start, goal) - GOAL_STOP
    direction = ((goal[0] - start[0]) / math.dist(start, goal),
                 (goal[1] - start[1]) / math.dist(start, goal))
    walking = int(distance / WALK_SPEED * FPS)
    frames = []
    total = walking + 1 + FPS // 2
    for index in range(total):
        travelled = min(index, walking) * distance / walking
        speed = WALK_SPEED if index < walking else 0.0
        agent = EntityState(
            AGENT, (round(start[0] + direction[0] * travelled, 5),
                    round(start[1] + direction[1] * travelled, 5), AGENT_SIZE / 2),
            (0.0, 0.0, 0.0, 1.0),
            velocity=(round(direction[0] * speed, 5), round(direction[1] * speed, 5), 0.0))
        falling = max(0.0, (index - walking) / (total - 1 - walking))  # 0 -> 1 while standing
        fall = 0.0 if kind == "familiarization" else falling
        frames.append([agent if s.id == AGENT else _fallen(fall) if s.id == OCCLUDER
                       else EntityState(s.id, s.position, s.orientation) for s in entities])
    return Video(config=config, frames=frames)


def _fallen(fraction: float) -> EntityState:
    """The occluder tipped over its front bottom edge by ``fraction`` of a quarter turn."""
    angle = fraction * math.pi / 2
    thickness, height = OCCLUDER_SIZE[1], OCCLUDER_SIZE[2]
    # rotating about +x by the angle tips the top toward -y (the camera)
    y = thickness / 2 * math.cos(angle) - height / 2 * math.sin(angle)
    z = thickness / 2 * math.sin(angle) + height / 2 * math.cos(angle)
    pivot_y = OCCLUDER_AT[1] - thickness / 2
    return EntityState(OCCLUDER, (OCCLUDER_AT[0], round(pivot_y + y, 5), round(z, 5)),
                       (round(math.sin(angle / 2), 5), 0.0, 0.0, round(math.cos(angle / 2), 5)))


def sample_trial(split: str = "test", *, scenario: int = 2, trial_type: str = "2.1",
                 index: int = 0) -> Trial:
    """A trial of the sample scene: one familiarization video, expected (and surprising)."""
    def video(kind: VideoKind) -> Video:
        return walk_video(kind, scenario=scenario, trial_type=trial_type, seed=index)

    return Trial(scenario=scenario, trial_type=trial_type, split=split,  # type: ignore[arg-type]
                 index=index, familiarization=[video("familiarization")],
                 expected=video("expected"),
                 surprising=video("surprising") if split == "test" else None)

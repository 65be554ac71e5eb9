"""Control observers: trivial cues that must say nothing about AGENT's answers.

Each control reads only what a model reads (the familiarization videos and one test video's
bodies, camera and states; nothing of ``_meta/``), picks one goal object by a cue that has
nothing to do with the agent's mind, and rates the test video 0 (not surprising) when the agent
ends at that goal, 1 when it ends at another, 0.5 when the cue or the outcome is undefined (one
goal only, the agent stays away from every goal). On data where the cue carries no information
about the answer, its pairwise accuracy is 50%; the generator counterbalances each cue against
the answer (``agent3d.scenarios.balance.Balance``), so it is exactly 50% on every type of an
even-sized test set. In one-goal scenes (scenarios 2 and 3) every cue picks the only goal, the
ratings tie and the accuracy is 50% by construction.

========================  =================================================================
observer                  predicts the agent goes to ...
========================  =================================================================
``control-first-goal``    the goal listed first among the test video's entities
``control-lowest-id``     the goal with the lowest entity id
``control-left-goal``     the goal farthest to the camera's left at the start
``control-colour``        the goal with the lowest colour code (the release's label 1-8)
``control-shape``         the goal whose shape name sorts first
``control-familiar-side`` the goal on the side (camera left/right of the agent) where the
                          agent ended in the first familiarization video that it completed
``control-first-video``   the object of the first familiarization video (when that video
                          shows one object; scenario 4), matched by colour code and shape
``control-camera-side``   the goal on the side where the camera stands off the agent's start
                          (it slides toward a detour it frames: ``agent3d.layout.cameras``)
========================  =================================================================
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from socialbench.agent3d.schema import EntitySpec, VideoStates
from socialbench.voe.observer import EpisodeView, Observer
from socialbench.voe.registry import register_observer

REACHED = 0.6  # m, horizontal: an agent ending this close to a goal went there (stops at 0.24)
UNDECIDED = 0.5  # the rating when the cue or the outcome does not apply


def goals(video: VideoStates) -> list[EntitySpec]:
    """The goal objects of a video, in the order its entity list gives them."""
    return [e for e in video.entities if e.kind == "goal"]


def agent_id(video: VideoStates) -> int | None:
    return next((e.id for e in video.entities if e.kind == "agent"), None)


def position(video: VideoStates, entity_id: int, frame: int) -> np.ndarray | None:
    """An entity's position in one frame of the stored states (None: not in that frame)."""
    if not video.frames:
        return None
    state = next((s for s in video.frames[frame] if s.id == entity_id), None)
    return None if state is None else np.asarray(state.position, dtype=float)


def reached_goal(video: VideoStates) -> int | None:
    """The id of the goal the agent ends at (within ``REACHED`` horizontally), else None."""
    agent = agent_id(video)
    end = None if agent is None else position(video, agent, -1)
    if end is None:
        return None
    best, best_distance = None, REACHED
    for goal in goals(video):
        where = position(video, goal.id, -1)
        if where is not None and (d := float(np.hypot(*(where - end)[:2]))) < best_distance:
            best, best_distance = goal.id, d
    return best


def camera_right(video: VideoStates) -> np.ndarray:
    """The camera's rightward unit vector in the floor plane (image right)."""
    camera = video.camera
    forward = np.subtract(camera.target, camera.position, dtype=float)
    right = np.cross(forward, np.asarray(camera.up, dtype=float))
    right[2] = 0.0
    return right / max(float(np.linalg.norm(right)), 1e-12)


def side_of(video: VideoStates, entity_id: int, origin: np.ndarray) -> float | None:
    """Signed distance of an entity right of ``origin`` in the first frame, as the camera sees."""
    where = position(video, entity_id, 0)
    return None if where is None else float(np.dot(where - origin, camera_right(video)))


class ControlObserver(Observer[EpisodeView[VideoStates]]):
    """Base: surprise = 0 when the agent ends at the goal :meth:`predict` picks, 1 otherwise."""

    benchmark = "agent"

    def predict(self, familiarization: Sequence[VideoStates], test: VideoStates) -> int | None:
        """The id of the test video's goal the cue points at (None: the cue does not apply)."""
        raise NotImplementedError

    def surprise_per_step(self, episode: EpisodeView[VideoStates]) -> np.ndarray:
        predicted = self.predict(episode.familiarization, episode.test)
        reached = reached_goal(episode.test)
        if predicted is None or reached is None:
            return np.array([UNDECIDED])
        return np.array([0.0 if reached == predicted else 1.0])


def _first(items: Sequence[EntitySpec]) -> int | None:
    return items[0].id if items else None


@register_observer("agent", "control-first-goal")
class FirstGoal(ControlObserver):
    """Predicts the agent goes to the goal listed first."""

    name = "control-first-goal"

    def predict(self, familiarization: Sequence[VideoStates], test: VideoStates) -> int | None:
        return _first(goals(test))


@register_observer("agent", "control-lowest-id")
class LowestId(ControlObserver):
    """Predicts the agent goes to the goal with the lowest id."""

    name = "control-lowest-id"

    def predict(self, familiarization: Sequence[VideoStates], test: VideoStates) -> int | None:
        return _first(sorted(goals(test), key=lambda g: g.id))


@register_observer("agent", "control-left-goal")
class LeftGoal(ControlObserver):
    """Predicts the agent goes to the goal farthest to the camera's left."""

    name = "control-left-goal"

    def predict(self, familiarization: Sequence[VideoStates], test: VideoStates) -> int | None:
        sides = {g.id: side_of(test, g.id, np.zeros(3)) for g in goals(test)}
        known = {k: v for k, v in sides.items() if v is not None}
        return min(known, key=lambda k: (known[k], k)) if known else None


@register_observer("agent", "control-colour")
class LowestColour(ControlObserver):
    """Predicts the agent goes to the goal with the lowest colour code."""

    name = "control-colour"

    def predict(self, familiarization: Sequence[VideoStates], test: VideoStates) -> int | None:
        return _first(sorted(goals(test), key=lambda g: (g.label, g.id)))


@register_observer("agent", "control-shape")
class FirstShape(ControlObserver):
    """Predicts the agent goes to the goal whose shape name sorts first."""

    name = "control-shape"

    def predict(self, familiarization: Sequence[VideoStates], test: VideoStates) -> int | None:
        return _first(sorted(goals(test), key=lambda g: (g.shape, g.id)))


@register_observer("agent", "control-familiar-side")
class FamiliarSide(ControlObserver):
    """Predicts the agent goes to the side where it ended in familiarization: the goal on the
    same side of its start (as the camera sees) as the goal it reached in the first
    familiarization video it completed."""

    name = "control-familiar-side"

    def predict(self, familiarization: Sequence[VideoStates], test: VideoStates) -> int | None:
        side = next((s for s in map(_reached_side, familiarization) if s), None)
        agent = agent_id(test)
        start = None if agent is None else position(test, agent, 0)
        if side is None or start is None:
            return None
        sides = {g.id: side_of(test, g.id, start) for g in goals(test)}
        same = [k for k, v in sorted(sides.items()) if v is not None and np.sign(v) == side]
        return same[0] if same else None


def _reached_side(video: VideoStates) -> float:
    """+1 / -1: the reached goal is right / left of the agent's start (0: none reached)."""
    goal, agent = reached_goal(video), agent_id(video)
    start = None if agent is None else position(video, agent, 0)
    if goal is None or start is None:
        return 0.0
    offset = side_of(video, goal, start)
    return float(np.sign(offset)) if offset is not None else 0.0


@register_observer("agent", "control-first-video")
class FirstVideoObject(ControlObserver):
    """Predicts the agent goes to the object of the first familiarization video, when that
    video shows a single object (scenario 4), matched by colour code and shape."""

    name = "control-first-video"

    def predict(self, familiarization: Sequence[VideoStates], test: VideoStates) -> int | None:
        shown = goals(familiarization[0]) if familiarization else []
        if len(shown) != 1:
            return None
        look = (shown[0].label, shown[0].shape)
        return next((g.id for g in goals(test) if (g.label, g.shape) == look), None)


CENTRED = 1e-3  # m: a camera this near the start's x stands in line with it


@register_observer("agent", "control-camera-side")
class CameraSide(ControlObserver):
    """Predicts the agent goes to the goal on the side where the camera stands off the agent's
    start (ours slides sideways toward a detour it frames); undecided when it stands in
    line with the start."""

    name = "control-camera-side"

    def predict(self, familiarization: Sequence[VideoStates], test: VideoStates) -> int | None:
        agent = agent_id(test)
        start = None if agent is None else position(test, agent, 0)
        if start is None:
            return None
        eye = np.asarray(test.camera.position, dtype=float)
        # the camera's side of the start, as the camera sees it: + right, - left
        offset = float(np.dot(eye - start, camera_right(test)))
        if abs(offset) < CENTRED:
            return None
        sides = {g.id: side_of(test, g.id, start) for g in goals(test)}
        same = [k for k, v in sorted(sides.items())
                if v is not None and np.sign(v) == np.sign(offset)]
        return same[0] if same else None


CONTROLS: tuple[str, ...] = ("control-first-goal", "control-lowest-id", "control-left-goal",
                             "control-colour", "control-shape", "control-familiar-side",
                             "control-first-video", "control-camera-side")

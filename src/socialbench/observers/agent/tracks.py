"""One AGENT video's states as arrays: the one place AGENT observers read the state format.

Per frame and per entity (the room's walls left out): the entity class, colour code, box centre
and world axis-aligned half extents, yaw, and whether the camera sees it. An entity is unseen in
a frame when its state is missing there or flagged so (``visible=False`` or ``occluded=True``):
scenario 3 hides what the occluder covers until it is revealed. Unseen cells keep the last seen
box (NaN before the first sighting) so that callers mask them, never read stale values by accident.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from socialbench.agent3d.io import quaternion_matrices
from socialbench.agent3d.schema import EntitySpec, EntityState, VideoStates

CLASSES = ("agent", "goal", "obstacle", "occluder", "floor")
_KIND_ALIASES = {"object": "goal"}


@dataclass(frozen=True)
class VideoTracks:
    """Arrays of one video. ``E`` entities (room walls excluded), ``T`` frames."""

    ids: np.ndarray  # (E,) entity ids
    classes: tuple[str, ...]  # (E,) one of CLASSES
    shapes: tuple[str, ...]  # (E,) box, sphere, ramp, ...
    labels: np.ndarray  # (E,) colour code 1-8 for goals, 9 agent, 10 obstacle, 11 occluder
    sizes: np.ndarray  # (E, 3) full extents in the body's frame
    centres: np.ndarray  # (T, E, 3) box centres (world)
    half: np.ndarray  # (T, E, 3) half extents of the world axis-aligned box
    yaw: np.ndarray  # (T, E) heading about z, radians
    visible: np.ndarray  # (T, E) bool
    fps: int

    @property
    def frames(self) -> int:
        return int(self.centres.shape[0])

    def index(self, cls: str) -> list[int]:
        return [i for i, c in enumerate(self.classes) if c == cls]

    @property
    def agent(self) -> int:
        found = self.index("agent")
        if len(found) != 1:
            raise ValueError(f"a video needs exactly one agent entity, found {len(found)}")
        return found[0]

    def agent_track(self) -> tuple[np.ndarray, np.ndarray]:
        """The agent's centre per frame (T, 3) and where it is seen (T,)."""
        return self.centres[:, self.agent], self.visible[:, self.agent]

    def seen(self, i: int) -> bool:
        return bool(self.visible[:, i].any())

    def last_seen_box(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Entity ``i``'s centre and half extents in the last frame that shows it."""
        frames = np.flatnonzero(self.visible[:, i])
        t = int(frames[-1]) if frames.size else 0
        return self.centres[t, i], self.half[t, i]


def _is_visible(state: EntityState | None) -> bool:
    if state is None:
        return False
    return bool(getattr(state, "visible", True)) and not bool(getattr(state, "occluded", False))


def _class_of(spec: EntitySpec) -> str | None:
    kind = _KIND_ALIASES.get(spec.kind, spec.kind)
    return kind if kind in CLASSES else None


def video_tracks(video: VideoStates) -> VideoTracks:
    """Read one video's bodies and states into :class:`VideoTracks`."""
    specs = [s for s in video.entities if _class_of(s) is not None]
    column = {s.id: i for i, s in enumerate(specs)}
    n_frames, n = len(video.frames), len(specs)
    pos = np.full((n_frames, n, 3), np.nan)
    quat = np.tile(np.array([0.0, 0.0, 0.0, 1.0]), (n_frames, n, 1))
    visible = np.zeros((n_frames, n), bool)
    for t, frame in enumerate(video.frames):
        for state in frame:
            i = column.get(state.id)
            if i is None or not _is_visible(state):
                continue
            pos[t, i] = state.position
            quat[t, i] = state.orientation
            visible[t, i] = True
    sizes = np.array([s.size for s in specs], float).reshape(n, 3)
    rot = quaternion_matrices(quat.reshape(-1, 4)).reshape(n_frames, n, 3, 3)
    half = _world_half_extents(rot, sizes)
    yaw = np.arctan2(rot[..., 1, 0], rot[..., 0, 0]) if n else np.zeros((n_frames, 0))
    pos, half = _hold_last_seen(pos, half, visible)
    return VideoTracks(ids=np.array([s.id for s in specs], int),
                       classes=tuple(_class_of(s) for s in specs),  # type: ignore[misc]
                       shapes=tuple(s.shape for s in specs),
                       labels=np.array([s.label for s in specs], int), sizes=sizes,
                       centres=pos, half=half, yaw=yaw, visible=visible, fps=int(video.fps))


def _world_half_extents(rot: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Half extents of the world axis-aligned box of each rotated body: |R| @ (size / 2)."""
    return np.einsum("teij,ej->tei", np.abs(rot), sizes / 2)


def _hold_last_seen(pos: np.ndarray, half: np.ndarray,
                    visible: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unseen frames keep the last seen values (NaN before the first sighting)."""
    pos, half = pos.copy(), half.copy()
    half[~visible] = np.nan
    for t in range(1, pos.shape[0]):
        hidden = ~visible[t]
        pos[t, hidden] = pos[t - 1, hidden]
        half[t, hidden] = half[t - 1, hidden]
    return pos, half

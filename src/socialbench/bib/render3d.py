"""BIB frames in 3D: the same frame states drawn by PyBullet's TinyRenderer (``--render 3d``).

The BIB paper's 3D videos (Table 1's last column) show the grid world as a scene: here the
10 x 10 grid is a floor (one unit per 20-px cell, x right, y away from the camera as in the files,
z up), the pink home a floor tile, walls (black), the removable barrier (green) and ``blocking``
cells (grey) are blocks 0.9 cell high, the agent a sphere, each object a simple body chosen by its
shape's class (:data:`OBJECT_BODIES`), the key a small lying capsule and the lock a low box, all in
their sprites' colours. A fixed oblique camera (:data:`CAMERA`) sees the whole grid; images are
200 x 200 like the 2D frames.

Speed: a trial's bodies are made once, when first needed, and kept in pools by look (shape,
size, colour); each frame only moves them (``resetBasePositionAndOrientation``), and a body a
frame does not show (a removed barrier, a key once used) is moved out of the camera's view.
Every trial starts from an empty scene, so its pixels depend on that trial alone (the same files
whatever the worker count). PyBullet is imported here only (the ``physics`` extra).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from socialbench.bib.schema import CELL, FRAME_SIZE, GRID, Block, Frame, Sprite, Trial
from socialbench.bib.shapes import shape_name
from socialbench.bib.video import drawn_once
from socialbench.core.errors import UserError

Color = tuple[int, int, int]
FLOOR_COLOR: Color = (235, 235, 235)  # the 2D background is white; a shaded floor reads grey
WALL_COLOR: Color = (30, 30, 30)  # bib paper: black walls (not pure black, so faces show)
FUSE_COLOR: Color = (0, 180, 0)  # as in 2D: the green removable barrier
BLOCKING_COLOR: Color = (90, 90, 90)  # as in 2D
BLOCK_HEIGHT = 0.9  # cells: walls "about one cell high"
HIDDEN = (GRID / 2, GRID / 2, -1000.0)  # far below the floor, beyond the camera's far plane

# Object bodies by the 2D shape's class (ours: the released 3D renderer is not public): angular
# shapes a box, round ones a cylinder, elongated ones a capsule, pointed ones a tall pillar.
OBJECT_BODIES = {
    "box": ("cross", "flag", "vase", "wine", "hourglass", "bowtie", "double_dia"),
    "cylinder": ("heart", "moon", "medal", "ring", "bell", "mushroom", "umbrella",
                 "clove_tree", "curved_triangle"),
    "capsule": ("capsule", "spoon"),
    "pillar": ("star", "lightning"),
}
_BODY_OF = {name: body for body, names in OBJECT_BODIES.items() for name in names}
_KINDS = tuple(OBJECT_BODIES)


@dataclass(frozen=True)
class Camera:
    """A fixed oblique view of the grid (cells as units)."""

    eye: tuple[float, float, float] = (5.0, -4.2, 11.5)
    target: tuple[float, float, float] = (5.0, 4.3, 0.0)
    up: tuple[float, float, float] = (0.0, 0.0, 1.0)
    fov_deg: float = 50.0
    near: float = 0.5
    far: float = 40.0
    light: tuple[float, float, float] = (-2.0, -3.0, 6.0)


CAMERA = Camera()


def object_body(shape: str) -> str:
    """The 3D body drawn for an object sprite's shape (unknown shapes: one chosen by CRC)."""
    name = shape_name(shape)
    return _BODY_OF.get(name) or _KINDS[zlib.crc32(name.encode()) % len(_KINDS)]


def _pybullet() -> Any:
    try:
        import pybullet
    except ImportError as exc:  # pragma: no cover - the physics extra is installed in CI
        raise UserError("--render 3d needs PyBullet: pip install 'socialbench[physics]'") from exc
    return pybullet


# A look: (geometry, half sizes as a tuple, colour); a placement: (x, y, z) and a yaw.
Look = tuple[str, tuple[float, ...], Color]
Pose = tuple[float, float, float, float]


def _block_look(block: Block, color: Color) -> tuple[Look, Pose]:
    w, h = block.width / CELL, block.height / CELL
    x, y = block.x / CELL + w / 2, block.y / CELL + h / 2
    return ("box", (w / 2, h / 2, BLOCK_HEIGHT / 2), color), (x, y, BLOCK_HEIGHT / 2, 0.0)


def _sprite_centre(sprite: Sprite) -> tuple[float, float, float]:
    return ((sprite.x + sprite.half) / CELL, (sprite.y + sprite.half) / CELL, sprite.half / CELL)


def _rgb(color: Any) -> Color:
    return tuple(int(v) for v in color)  # type: ignore[return-value]


def _object_look(sprite: Sprite) -> tuple[Look, Pose]:
    x, y, r = _sprite_centre(sprite)
    body, color = object_body(sprite.shape), _rgb(sprite.color)
    if body == "box":
        return ("box", (r * 0.85, r * 0.85, r * 0.85), color), (x, y, r * 0.85, 0.0)
    if body == "cylinder":
        return ("cylinder", (r * 0.9, r * 1.6), color), (x, y, r * 0.8, 0.0)
    if body == "capsule":
        return ("capsule", (r * 0.6, r * 1.2), color), (x, y, r * 1.2, 0.0)
    return ("box", (r * 0.45, r * 0.45, r * 1.3), color), (x, y, r * 1.3, math.pi / 4)


def scene_items(frame: Frame) -> list[tuple[Look, Pose]]:
    """Every body a frame shows, as (look, pose), in a fixed order."""
    items = [_block_look(b, WALL_COLOR) for b in dict.fromkeys(frame.walls)]
    items += [_block_look(b, FUSE_COLOR) for b in frame.fuse_walls]
    items += [_block_look(b, BLOCKING_COLOR) for b in frame.blocking]
    if frame.home is not None:
        x, y, r = _sprite_centre(frame.home)
        items.append((("box", (r, r, 0.01), _rgb(frame.home.color)), (x, y, 0.01, 0.0)))
    for lock in frame.lock:
        x, y, r = _sprite_centre(lock)
        items.append((("box", (r * 0.9, r * 0.9, r * 0.4), _rgb(lock.color)), (x, y, r * 0.4, 0.0)))
    items += [_object_look(o) for o in frame.objects]
    for key in frame.key:  # a small capsule lying along x
        x, y, r = _sprite_centre(key)
        items.append((("capsule_x", (r * 0.35, r * 1.1), _rgb(key.color)), (x, y, r * 0.35, 0.0)))
    if frame.agent is not None:
        x, y, r = _sprite_centre(frame.agent)
        items.append((("sphere", (r,), _rgb(frame.agent.color)), (x, y, r, 0.0)))
    return items


def _quaternion(p: Any, look: Look, yaw: float) -> tuple[float, ...]:
    roll = math.pi / 2 if look[0] == "capsule_x" else 0.0
    return tuple(p.getQuaternionFromEuler((0.0, roll, yaw)))


class Renderer3D:
    """Draws BIB frames with TinyRenderer in its own PyBullet connection (close it when done,
    or use it as a context manager)."""

    def __init__(self, size: tuple[int, int] = FRAME_SIZE, camera: Camera = CAMERA) -> None:
        self.p = _pybullet()
        self.width, self.height = size
        self.camera = camera
        self.client = self.p.connect(self.p.DIRECT)
        self.view = self.p.computeViewMatrix(camera.eye, camera.target, camera.up)
        self.projection = self.p.computeProjectionMatrixFOV(
            camera.fov_deg, self.width / self.height, camera.near, camera.far)
        self._shapes: dict[Look, int] = {}
        self._pools: dict[Look, list[int]] = {}
        self._poses: dict[int, Pose] = {}
        self.reset()

    def __enter__(self) -> Renderer3D:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.client is not None and self.p.isConnected(self.client):
            self.p.disconnect(self.client)
        self.client = None

    def reset(self) -> None:
        """An empty scene: just the floor (called at each trial's start)."""
        self.p.resetSimulation(physicsClientId=self.client)
        self._shapes.clear()
        self._pools.clear()
        self._poses.clear()
        floor: Look = ("box", (GRID / 2, GRID / 2, 0.05), FLOOR_COLOR)
        self._body(floor, (GRID / 2, GRID / 2, -0.05, 0.0))

    def _visual(self, look: Look) -> int:
        shape = self._shapes.get(look)
        if shape is None:
            p, (geometry, dims, color) = self.p, look
            rgba = [c / 255 for c in color] + [1.0]
            kw: dict[str, Any] = {"rgbaColor": rgba, "physicsClientId": self.client}
            if geometry == "box":
                shape = p.createVisualShape(p.GEOM_BOX, halfExtents=list(dims), **kw)
            elif geometry == "sphere":
                shape = p.createVisualShape(p.GEOM_SPHERE, radius=dims[0], **kw)
            elif geometry == "cylinder":
                shape = p.createVisualShape(p.GEOM_CYLINDER, radius=dims[0], length=dims[1], **kw)
            else:  # capsule, standing or lying
                shape = p.createVisualShape(p.GEOM_CAPSULE, radius=dims[0], length=dims[1], **kw)
            self._shapes[look] = shape
        return shape

    def _body(self, look: Look, pose: Pose) -> int:
        body = self.p.createMultiBody(baseMass=0, baseVisualShapeIndex=self._visual(look),
                                      basePosition=pose[:3],
                                      baseOrientation=_quaternion(self.p, look, pose[3]),
                                      physicsClientId=self.client)
        self._poses[body] = pose
        return body

    def _place(self, body: int, look: Look, pose: Pose) -> None:
        if self._poses.get(body) != pose:
            self.p.resetBasePositionAndOrientation(body, pose[:3],
                                                   _quaternion(self.p, look, pose[3]),
                                                   physicsClientId=self.client)
            self._poses[body] = pose

    def pose(self, frame: Frame) -> None:
        """Move (and, the first time a look is needed, make) the bodies to show ``frame``."""
        wanted: dict[Look, list[Pose]] = {}
        for look, pose in scene_items(frame):
            wanted.setdefault(look, []).append(pose)
        for look in wanted.keys() | self._pools.keys():
            poses, pool = wanted.get(look, []), self._pools.setdefault(look, [])
            for i, pose in enumerate(poses):
                if i < len(pool):
                    self._place(pool[i], look, pose)
                else:
                    pool.append(self._body(look, pose))
            for body in pool[len(poses):]:
                self._place(body, look, (*HIDDEN, 0.0))

    def snapshot(self) -> np.ndarray:
        """The current scene as a ``(H, W, 3)`` uint8 image (row 0 at the top)."""
        p = self.p
        _, _, rgba, _, _ = p.getCameraImage(
            self.width, self.height, self.view, self.projection, renderer=p.ER_TINY_RENDERER,
            shadow=0, lightDirection=list(self.camera.light), lightAmbientCoeff=0.6,
            lightDiffuseCoeff=0.45, lightSpecularCoeff=0.0,
            flags=p.ER_NO_SEGMENTATION_MASK, physicsClientId=self.client)
        image = np.asarray(rgba, dtype=np.uint8).reshape(self.height, self.width, 4)
        return np.ascontiguousarray(image[:, :, :3])

    def render(self, frame: Frame) -> np.ndarray:
        """One frame in the current scene (bodies kept from earlier frames of the trial)."""
        self.pose(frame)
        return self.snapshot()

    def trial_frames(self, trial: Trial) -> Iterator[np.ndarray]:
        """Every frame of a trial, from an empty scene; a Frame object repeated in a row is drawn
        once and its (read-only) image yielded again, as in 2D."""
        self.reset()
        yield from drawn_once(trial.frames, self.render)


def render_trial_3d(trial: Trial) -> np.ndarray:
    """All frames of a trial in 3D as an ``(N, 200, 200, 3)`` uint8 array."""
    with Renderer3D() as renderer:
        return np.stack(list(renderer.trial_frames(trial)))

"""Render AGENT videos headless on the CPU: RGB, depth and instance segmentation (TinyRenderer).

A video is rendered from its ``SceneConfig`` (rebuilt with ``bodies``) and its stored
per-frame states, from the config's fixed camera, so rendering never re-simulates anything.
The floor and the room's walls are drawn with their look's texture (``textures.py``) and the
floor with drop shadows (``shadows.py``); depth and segmentation are the plain geometry's.

Files written into a video folder (``RenderOptions`` chooses):

- ``rgb.mp4``: H.264 at the config's fps (35, the AGENT paper's), via ``core.video.write_mp4``.
- ``frames.npz`` (``frames="npz"``, the default): ``rgb`` uint8 (N, H, W, 3), ``depth_mm``
  uint16 (N, H, W) distance along the camera axis in millimetres (65535 = farther or nothing),
  ``segmentation`` int16 (N, H, W) entity id per pixel, -1 for none. Written deterministically
  (fixed zip timestamps), so equal seeds give equal bytes.
- ``rgb/NNNN.png``, ``depth/NNNN.png`` (16-bit, mm), ``segmentation/NNNN.png`` (each entity in
  its ``segmentation_color``, as the released data's instance masks) for ``frames="png"``.
"""

from __future__ import annotations

import colorsys
import contextlib
import os
import queue
import shutil
import tempfile
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from PIL import Image

from socialbench.agent3d.bodies import add_entity, add_textured_box, physics_client
from socialbench.agent3d.physics import p
from socialbench.agent3d.schema import Camera, EntitySpec, SceneConfig, Video
from socialbench.agent3d.shadows import DropShadows
from socialbench.agent3d.textures import look_of_color, texture_file, tile_metres
from socialbench.core.errors import DataFileError, UserError
from socialbench.core.video import write_mp4

FrameFormat = Literal["npz", "png", "none"]
NPZ_NAME = "frames.npz"
MP4_NAME = "rgb.mp4"
MAX_RENDER_SIDE = 4096  # refuse absurd resolutions before allocating anything
MAX_NPZ_ELEMENTS = 2_000_000_000  # what ``read_frames`` agrees to allocate per array
# deflate level of frames.npz: level 6 cost 13.6 ms per textured 200 x 200 RGB frame (more than
# rendering it), level 1 2.1 ms for files 25 % larger (measured: docs/benchmarks.md)
NPZ_LEVEL = 1
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed member timestamps: byte-identical npz files
# x264 preset of rgb.mp4: ultrafast took a third of veryfast's time per 200 x 200 frame for
# files ~30 % larger (~0.4 KB a frame at crf 18; measured: docs/benchmarks.md)
MP4_PRESET = "ultrafast"
# ours: a key light high above, a little to the camera's left and beyond the lane (toward the
# light), so shadows fall just right of and in front of what casts them, where the camera sees
# them; lit tops, softly shaded sides
LIGHT_DIRECTION = (-0.3, 0.25, 1.0)
LIGHT = {"lightAmbientCoeff": 0.55, "lightDiffuseCoeff": 0.5, "lightSpecularCoeff": 0.05}
SHADOW_STRENGTH = 0.45  # ours: a shadowed floor pixel keeps 55 % of its light


@dataclass(frozen=True)
class RenderOptions:
    """What ``--render`` writes: resolution (even sides, for H.264), mp4 and per-frame arrays."""

    # the authors' generator (AGENT-synthesis, util/camera.py) films two-goal scenes at
    # 520 x 320 and one-goal scenes at 420 x 280 (or 1080 x 720); ours are square, as tall
    # as their two-goal frames: a 0.2 m agent between goals 3.5 m apart is >= 15 px across
    width: int = 320
    height: int = 320
    frames: FrameFormat = "npz"
    mp4: bool = True
    near: float = 0.05  # m, camera clipping planes
    far: float = 30.0  # m: the 12 m room's diagonal with room to spare
    textures: bool = True  # the floor and walls' looks as textures (else their plain colours)
    shadows: bool = True  # drop shadows on the floor (``shadows.py``)
    # ours, speed: frames drawn ahead by a thread of their own while the files are written
    # (0: draw and write in turn in one thread); the bytes are the same either way
    draw_ahead: int = 4

    def __post_init__(self) -> None:
        for side, value in (("width", self.width), ("height", self.height)):
            if not (2 <= value <= MAX_RENDER_SIDE) or value % 2:
                raise UserError(f"render {side} {value} is not allowed; use an even number of "
                                f"pixels between 2 and {MAX_RENDER_SIDE}")
        if self.frames not in ("npz", "png", "none"):
            raise UserError(f"unknown frame format {self.frames!r}; use npz, png or none")
        if not 0 < self.near < self.far:
            raise UserError(f"camera planes near={self.near}, far={self.far}: need 0 < near < far")
        if self.draw_ahead < 0:
            raise UserError(f"draw_ahead {self.draw_ahead}: use 0 (no drawing thread) or more")


@dataclass(frozen=True)
class RenderedFrame:
    rgb: np.ndarray  # (H, W, 3) uint8
    depth_mm: np.ndarray  # (H, W) uint16
    segmentation: np.ndarray  # (H, W) int16 entity ids, -1 for none


def segmentation_color(entity_id: int) -> tuple[int, int, int]:
    """A fixed, well-separated RGB colour per entity id (golden-ratio hues)."""
    hue = (entity_id * 0.618033988749895) % 1.0
    value = 1.0 if entity_id % 2 == 0 else 0.7
    r, g, b = colorsys.hsv_to_rgb(hue, 0.85, value)
    return int(round(r * 255)), int(round(g * 255)), int(round(b * 255))


def camera_matrices(camera: Camera, options: RenderOptions) -> tuple[list[float], list[float]]:
    """PyBullet view and projection matrices for a camera at the render's aspect ratio."""
    view = p.computeViewMatrix(camera.position, camera.target, camera.up)
    projection = p.computeProjectionMatrixFOV(camera.fov_deg, options.width / options.height,
                                              options.near, options.far)
    return list(view), list(projection)


def render_frames(video: Video, options: RenderOptions) -> Iterator[RenderedFrame]:
    """Rebuild the scene once and render every stored frame from the config's camera.

    A frame in which no body moved and the same entities are listed as in the one before (an
    agent standing still: ~7 % of frames) is that frame again: TinyRenderer draws the same
    scene the same, pixel for pixel, so it is copied rather than drawn."""
    view, projection = camera_matrices(video.config.camera, options)
    shadows = DropShadows(video.config.entities, view, projection,
                          (options.width, options.height), LIGHT_DIRECTION,
                          SHADOW_STRENGTH) if options.shadows else None
    with physics_client() as client:
        ids = build_visual_scene(video.config, client, options.textures)
        entity_of_body = np.full(max(ids.values()) + 2, -1, dtype=np.int16)  # last stays -1
        for entity_id, body in ids.items():
            entity_of_body[body] = entity_id
        placed: dict[int, tuple] = {s.id: (s.position, s.orientation)
                                    for s in video.config.entities}
        last: RenderedFrame | None = None
        last_ids: list[int] = []
        for states in video.frames:
            moved = False
            for state in states:  # only bodies that moved since the last frame
                pose = (state.position, state.orientation)
                if placed.get(state.id) != pose:
                    moved = True
                    body = ids.get(state.id)
                    if body is None:
                        raise UserError(f"state for entity {state.id}, which the scene config "
                                        f"does not define; states and scene_config.json must "
                                        f"come from one video")
                    p.resetBasePositionAndOrientation(body, *pose, physicsClientId=client)
                    placed[state.id] = pose
            ids_here = [state.id for state in states]
            if last is not None and not moved and ids_here == last_ids:
                # copies: a consumer may change the arrays it is given
                yield RenderedFrame(last.rgb.copy(), last.depth_mm.copy(),
                                    last.segmentation.copy())
                continue
            _, _, rgba, depth, seg = p.getCameraImage(
                options.width, options.height, view, projection, shadow=0,
                lightDirection=LIGHT_DIRECTION, renderer=p.ER_TINY_RENDERER,
                physicsClientId=client, **LIGHT)
            frame = _decode(rgba, depth, seg, entity_of_body, options)
            if shadows is not None:
                shadows.apply(frame.rgb, frame.segmentation, {s.id: s for s in states})
            last, last_ids = frame, ids_here
            yield RenderedFrame(frame.rgb.copy(), frame.depth_mm.copy(),
                                frame.segmentation.copy())


def build_visual_scene(config: SceneConfig, client: int, textures: bool) -> dict[int, int]:
    """Entity id -> body: the floor and room walls textured by their look, the rest as built
    for the simulation (``bodies.add_entity``), in the config's order."""
    ids: dict[int, int] = {}
    loaded: dict[str, int] = {}
    for spec in config.entities:
        if spec.id in ids:
            raise UserError(f"entity id {spec.id} ({spec.name}) appears twice in the scene; "
                            f"give every entity its own id")
        look = _look(spec) if textures else None
        if look is None:
            ids[spec.id] = add_entity(spec, client)
            continue
        if look not in loaded:
            loaded[look] = p.loadTexture(str(texture_file(look)), physicsClientId=client)
        ids[spec.id] = add_textured_box(spec, client, loaded[look], tile_metres(look))
    return ids


def _look(spec: EntitySpec) -> str | None:
    if spec.kind not in ("floor", "room") or spec.shape != "box":
        return None
    return look_of_color(spec.rgba)


def _decode(rgba: object, depth: object, seg: object, entity_of_body: np.ndarray,
            options: RenderOptions) -> RenderedFrame:
    shape = (options.height, options.width)
    rgb = np.asarray(rgba, dtype=np.uint8).reshape(*shape, 4)[..., :3]
    # float32 throughout, each operation in place on the buffers PyBullet hands over (fresh
    # arrays each call): the same values as with temporaries, without allocating them
    millimetres = np.asarray(depth, dtype=np.float32).reshape(shape)
    near, far = np.float32(options.near), np.float32(options.far)
    # OpenGL depth buffer -> distance along the camera axis (float32: 0.01 mm at 3 m):
    # far * near * 1000 / (far - (far - near) * buffer)
    np.multiply(millimetres, far - near, out=millimetres)
    np.subtract(far, millimetres, out=millimetres)
    np.divide(far * near * np.float32(1000.0), millimetres, out=millimetres)
    np.minimum(millimetres, np.float32(65535.0), out=millimetres)
    depth_mm = np.rint(millimetres, out=millimetres).astype(np.uint16)
    bodies = np.asarray(seg, dtype=np.int32).reshape(shape)  # PyBullet's body ids (int32)
    # -1 (nothing) and any unknown body index the table's last entry, which is -1
    np.clip(bodies, -1, len(entity_of_body) - 1, out=bodies)
    segmentation = entity_of_body[bodies]  # int16, the table's type
    return RenderedFrame(np.ascontiguousarray(rgb), depth_mm, segmentation)


def render_video(video: Video, video_dir: Path, options: RenderOptions) -> None:
    """Write the rendered files of one video into ``video_dir`` (each complete or absent).

    The npz's ``rgb`` member is deflated frame by frame as frames are drawn; depth and
    segmentation go through memory-mapped scratch arrays (memory stays flat whatever the
    video's length) and are deflated at the end."""
    video_dir = Path(video_dir)
    count, height, width = len(video.frames), options.height, options.width
    colors = {s.id: segmentation_color(s.id) for s in video.config.entities}
    with tempfile.TemporaryDirectory(dir=video_dir, prefix=".render-") as scratch, \
            contextlib.ExitStack() as files:
        arrays, archive, rgb = {}, None, None
        if options.frames == "npz":
            arrays = {
                "depth_mm": _memmap(scratch, "depth_mm", np.uint16, (count, height, width)),
                "segmentation": _memmap(scratch, "segmentation", np.int16, (count, height, width)),
            }
            archive = files.enter_context(zipfile.ZipFile(Path(scratch) / NPZ_NAME, "w"))
            rgb = files.enter_context(archive.open(_npz_member("rgb"), "w", force_zip64=True))
            np.lib.format.write_array_header_1_0(rgb, {
                "descr": np.lib.format.dtype_to_descr(np.dtype(np.uint8)),
                "fortran_order": False, "shape": (count, height, width, 3)})
        if options.frames == "png":
            for sub in ("rgb", "depth", "segmentation"):
                (Path(scratch) / sub).mkdir()

        def frames() -> Iterator[np.ndarray]:
            drawn = render_frames(video, options)
            if options.draw_ahead:
                drawn = drawn_ahead(drawn, options.draw_ahead)
            for index, frame in enumerate(drawn):
                if rgb is not None:
                    rgb.write(memoryview(frame.rgb).cast("B"))  # C-contiguous: no copy
                    arrays["depth_mm"][index] = frame.depth_mm
                    arrays["segmentation"][index] = frame.segmentation
                if options.frames == "png":
                    _save_pngs(Path(scratch), index, frame, colors)
                yield frame.rgb

        if options.mp4:
            write_mp4(Path(scratch) / MP4_NAME, frames(), video.config.fps, preset=MP4_PRESET)
        else:
            for _ in frames():
                pass
        if archive is not None and rgb is not None:
            rgb.close()
            for name, array in arrays.items():
                array.flush()
                with open(Path(scratch) / f"{name}.npy", "rb") as source, \
                        archive.open(_npz_member(name), "w", force_zip64=True) as target:
                    shutil.copyfileobj(source, target, 1 << 20)
            archive.close()
            del arrays
        for name in (MP4_NAME, NPZ_NAME, "rgb", "depth", "segmentation"):
            source, target = Path(scratch) / name, video_dir / name
            if (name in (MP4_NAME, NPZ_NAME) and source.is_file()) or \
                    (name not in (MP4_NAME, NPZ_NAME) and source.is_dir()):
                if target.is_dir():
                    shutil.rmtree(target)
                os.replace(source, target)


def drawn_ahead(frames: Iterator[RenderedFrame], depth: int) -> Iterator[RenderedFrame]:
    """``frames`` as they come, produced by a thread of its own up to ``depth`` frames ahead.

    TinyRenderer draws in one thread while this one deflates and encodes the frames before
    (zlib and x264 let go of the interpreter lock): on two free cores the writing hides behind
    the drawing. Its order is kept, so the files are the same bytes. A failure in the drawing
    is raised here; stopping early (an error in the writing) stops the drawing."""
    buffer: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    end = object()
    failure: list[BaseException] = []

    def draw() -> None:
        try:
            for frame in frames:
                if stop.is_set():
                    break
                buffer.put(frame)
        except BaseException as exc:  # handed to the consuming thread, raised there
            failure.append(exc)
        finally:
            close = getattr(frames, "close", None)
            if close is not None:
                close()  # the generator's PyBullet client is released in its own thread
            buffer.put(end)

    thread = threading.Thread(target=draw, name="render-draw", daemon=True)
    thread.start()
    try:
        while (item := buffer.get()) is not end:
            yield item
    finally:
        stop.set()
        while thread.is_alive():  # make room for a put the drawing may be blocked in
            with contextlib.suppress(queue.Empty):
                buffer.get(timeout=0.05)
        thread.join()
    if failure:
        raise failure[0]


def _memmap(folder: str, name: str, dtype: type, shape: tuple[int, ...]) -> np.memmap:
    return np.lib.format.open_memmap(Path(folder) / f"{name}.npy", mode="w+", dtype=dtype,
                                     shape=shape)


def _save_pngs(folder: Path, index: int, frame: RenderedFrame,
               colors: dict[int, tuple[int, int, int]]) -> None:
    name = f"{index:04d}.png"
    Image.fromarray(frame.rgb).save(folder / "rgb" / name)
    Image.fromarray(frame.depth_mm).save(folder / "depth" / name)
    painted = np.zeros((*frame.segmentation.shape, 3), dtype=np.uint8)
    for entity_id, color in colors.items():
        painted[frame.segmentation == entity_id] = color
    Image.fromarray(painted).save(folder / "segmentation" / name)


def _npz_member(name: str) -> zipfile.ZipInfo:
    """A deflated ``name``.npy member with a fixed timestamp (byte-identical files) and level."""
    info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    # a ZipInfo passed to open() keeps its own level (named compress_level from 3.13)
    setattr(info, "compress_level" if hasattr(info, "compress_level") else "_compresslevel",
            NPZ_LEVEL)
    return info


def read_frames(video_dir: Path) -> dict[str, np.ndarray]:
    """Load ``frames.npz`` of a rendered video, refusing arrays that claim absurd sizes."""
    path = Path(video_dir) / NPZ_NAME
    arrays: dict[str, np.ndarray] = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                with archive.open(info) as handle:
                    version = np.lib.format.read_magic(handle)
                    header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                              else np.lib.format.read_array_header_2_0)
                    shape, _, dtype = header(handle)
                    if dtype.hasobject:
                        raise DataFileError(path, f"{info.filename} holds Python objects; "
                                            f"only plain numeric arrays are read")
                    if int(np.prod(shape, dtype=np.int64)) > MAX_NPZ_ELEMENTS:
                        raise DataFileError(path, f"{info.filename} claims shape {shape}, "
                                            f"more than this reader allocates")
                with archive.open(info) as handle:
                    arrays[info.filename.removesuffix(".npy")] = np.lib.format.read_array(
                        handle, allow_pickle=False)
    except FileNotFoundError:
        raise DataFileError(path, "missing; render the video with --render") from None
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise DataFileError(path, f"not a readable npz ({exc}); re-render the video") from None
    return arrays

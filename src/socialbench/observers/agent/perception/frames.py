"""One rendered video as perception reads it: RGB, depth, the camera and the frame rate.

Only the config's ``camera`` and ``fps`` are taken from ``scene_config.json`` (its entity list
is the generator's ground truth); the renderer's segmentation is loaded only when asked for (the
upper-bound mode). ``state_info.json`` is never opened.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from socialbench.agent3d.render import NPZ_NAME, read_frames
from socialbench.agent3d.schema import Camera
from socialbench.core.errors import DataFileError, UserError

CONFIG_NAME = "scene_config.json"
MAX_CONFIG_BYTES = 64 * 2**20


@dataclass(frozen=True)
class RenderedVideo:
    rgb: np.ndarray  # (T, H, W, 3) uint8
    depth_mm: np.ndarray  # (T, H, W) uint16
    segmentation: np.ndarray | None  # (T, H, W) int16 entity ids, only in the upper-bound mode
    camera: Camera
    fps: int

    def background_colours(self) -> np.ndarray:
        """(H, W, 3) each pixel's colour in the frame where it is farthest: the static scene's
        colour behind what moves (the background depth's frame)."""
        shown_at = self.depth_mm.argmax(axis=0)
        return np.take_along_axis(self.rgb, shown_at[None, ..., None], 0)[0]


def read_camera(video_dir: Path) -> tuple[Camera, int]:
    """The camera and frame rate of a video's ``scene_config.json`` (nothing else of it)."""
    import json

    path = video_dir / CONFIG_NAME
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise DataFileError(path, "larger than 64 MiB; not a scene config")
        data = json.loads(path.read_text())
        cam = data["camera"]
        camera = Camera(position=tuple(float(v) for v in cam["position"]),  # type: ignore[arg-type]
                        target=tuple(float(v) for v in cam["target"]),  # type: ignore[arg-type]
                        fov_deg=float(cam["fov_deg"]),
                        up=tuple(float(v) for v in cam["up"]))  # type: ignore[arg-type]
        fps = int(data["fps"])
    except FileNotFoundError:
        raise DataFileError(path, "missing: perception needs the camera") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataFileError(path, f"no readable camera ({exc})") from None
    if len(camera.position) != 3 or len(camera.target) != 3 or fps <= 0:
        raise DataFileError(path, "camera position/target need 3 numbers and fps > 0")
    return camera, fps


def read_rendered(video_dir: Path | str, segmentation: bool = False) -> RenderedVideo:
    """Load one video's frames; a one-line error when it was not rendered."""
    video_dir = Path(video_dir)
    if not (video_dir / NPZ_NAME).is_file():
        raise UserError(f"{video_dir}: no rendered frames ({NPZ_NAME}); --from-frames needs a "
                        f"dataset made with `socialbench agent generate --render` "
                        f"(--frames npz)")
    camera, fps = read_camera(video_dir)
    arrays = read_frames(video_dir)
    try:
        rgb, depth = arrays["rgb"], arrays["depth_mm"]
        seg = arrays["segmentation"] if segmentation else None
    except KeyError as exc:
        raise DataFileError(video_dir / NPZ_NAME, f"lacks the {exc} array") from None
    if rgb.ndim != 4 or depth.shape != rgb.shape[:3] or (seg is not None
                                                        and seg.shape != depth.shape):
        raise DataFileError(video_dir / NPZ_NAME, "rgb, depth and segmentation disagree in shape")
    return RenderedVideo(rgb=rgb, depth_mm=depth, segmentation=seg, camera=camera, fps=fps)

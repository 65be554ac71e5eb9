"""The pinhole camera of a scene config: pixels and depth back to world points.

The renderer films with PyBullet's ``computeViewMatrix(position, target, up)`` and a vertical
field of view ``fov_deg`` (square pixels); ``depth_mm`` is the distance along the camera's axis.
So a pixel's ray is ``forward + x * tan(fov/2) * aspect * right + y * tan(fov/2) * up`` in
normalized device coordinates, and its world point is the eye plus depth times that ray.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from socialbench.agent3d.schema import Camera

FAR_MM = 65535  # the renderer's "nothing, or farther than 65 m"


@dataclass(frozen=True)
class PinholeCamera:
    """Eye, orthonormal axes (right, up, forward) and the image's size and focal scale."""

    eye: np.ndarray
    right: np.ndarray
    up: np.ndarray
    forward: np.ndarray
    width: int
    height: int
    tan_half: float  # tan of half the vertical field of view

    @classmethod
    def of(cls, camera: Camera, width: int, height: int) -> PinholeCamera:
        eye = np.asarray(camera.position, float)
        forward = np.asarray(camera.target, float) - eye
        forward /= np.linalg.norm(forward)
        right = np.cross(forward, np.asarray(camera.up, float))
        right /= np.linalg.norm(right)
        up = np.cross(right, forward)
        return cls(eye, right, up, forward, int(width), int(height),
                   float(np.tan(np.radians(camera.fov_deg) / 2)))

    def rays(self) -> np.ndarray:
        """(H, W, 3) world directions through pixel centres, scaled to unit forward depth."""
        aspect = self.width / self.height
        x = ((np.arange(self.width) + 0.5) / self.width * 2 - 1) * self.tan_half * aspect
        y = (1 - (np.arange(self.height) + 0.5) / self.height * 2) * self.tan_half
        return (self.forward + x[None, :, None] * self.right + y[:, None, None] * self.up)

    def back_project(self, depth_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World points (H, W, 3) of a depth image and where it saw something (H, W)."""
        valid = depth_mm < FAR_MM
        metres = depth_mm.astype(np.float64) / 1000.0
        return self.eye + metres[..., None] * self.rays(), valid

    def points_at(self, depth_mm: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """World points (N, 3) of the pixels in ``mask`` only (cheaper than the whole image)."""
        rows, cols = np.nonzero(mask)
        aspect = self.width / self.height
        x = ((cols + 0.5) / self.width * 2 - 1) * self.tan_half * aspect
        y = (1 - (rows + 0.5) / self.height * 2) * self.tan_half
        rays = self.forward + x[:, None] * self.right + y[:, None] * self.up
        return self.eye + (depth_mm[rows, cols].astype(np.float64) / 1000.0)[:, None] * rays

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pixel (column, row) coordinates (..., 2) and depth along the axis (...) of points."""
        rel = np.asarray(points, float) - self.eye
        depth = rel @ self.forward
        aspect = self.width / self.height
        x = (rel @ self.right) / depth / (self.tan_half * aspect)
        y = (rel @ self.up) / depth / self.tan_half
        col = (x + 1) / 2 * self.width - 0.5
        row = (1 - y) / 2 * self.height - 0.5
        return np.stack([col, row], -1), depth

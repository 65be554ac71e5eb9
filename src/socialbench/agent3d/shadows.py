"""Drop shadows on the floor, from a fixed key light: where a jumping agent is above the floor.

PyBullet's TinyRenderer has shadows (``shadow=1``), but they darken by at most ~13 %, show
self-shadowing stripes on a large floor and vanish outside a light-distance window (measured
with ``benchmarks/agent_generate.py``'s scene; see docs/agent.md, "Rendering"), so a jump's
height cannot be read from them. These are drawn instead, exactly from the geometry: every
body that is not floor or room casts its mesh along the light onto the plane of each floor
height (the floor, a raised floor), and the floor's pixels inside the shadow's outline are
darkened. Only RGB changes: depth and segmentation are the renderer's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageDraw
from scipy.spatial import ConvexHull, QhullError

from socialbench.agent3d.bodies import quaternion_matrices, shape_mesh
from socialbench.agent3d.schema import EntitySpec, EntityState

RECEIVER_KINDS = ("floor",)  # what shadows fall on
SKIP_KINDS = ("floor", "room")  # what casts none


class DropShadows:
    """Darkens the floor where bodies shadow it, frame by frame (outlines cached per pose)."""

    def __init__(self, entities: Sequence[EntitySpec], view: Sequence[float],
                 projection: Sequence[float], size: tuple[int, int],
                 light: Sequence[float], strength: float) -> None:
        self.width, self.height = size
        self.light = np.asarray(light, dtype=float) / np.linalg.norm(light)
        self.keep = 1.0 - strength  # fraction of the light a shadowed pixel keeps
        # PyBullet matrices are column-major: world -> clip is projection @ view
        self.world_to_clip = (np.asarray(projection, dtype=float).reshape(4, 4).T
                              @ np.asarray(view, dtype=float).reshape(4, 4).T)
        self.meshes = {e.id: shape_mesh(e.shape, e.size)[0] for e in entities
                       if e.kind not in SKIP_KINDS}
        tops: dict[float, list[int]] = {}
        for e in entities:
            if e.kind in RECEIVER_KINDS:
                tops.setdefault(round(e.position[2] + e.size[2] / 2, 4), []).append(e.id)
        self.receivers = tops  # plane height -> the entities whose top it is
        top_id = max((e.id for e in entities), default=0)
        # plane -> lookup by entity id + 1 (segmentation's -1 at index 0; its ids are the
        # config's, so never past the table)
        self._receives = {}
        for plane, ids in tops.items():
            table = np.zeros(top_id + 2, dtype=bool)
            table[np.asarray(ids) + 1] = True
            self._receives[plane] = table
        self._outlines: dict[tuple, list[list[tuple[float, float]]]] = {}
        self._hull_vertices: dict[tuple, np.ndarray] = {}

    def apply(self, rgb: np.ndarray, segmentation: np.ndarray,
              states: dict[int, EntityState]) -> None:
        """Darken ``rgb`` (H, W, 3 uint8) in place where the floor lies in shadow."""
        for plane in self.receivers:
            outlines = [outline for entity_id in self.meshes if entity_id in states
                        for outline in self._outline(entity_id, states[entity_id], plane)]
            if not outlines:
                continue
            canvas = Image.new("L", (self.width, self.height), 0)
            draw = ImageDraw.Draw(canvas)
            for outline in outlines:
                draw.polygon(outline, fill=1)
            box = canvas.getbbox()
            if box is None:
                continue
            left, top, right, bottom = box  # work only where the shadows are
            inside = np.asarray(canvas.crop(box), dtype=bool)
            inside &= self._receives[plane][segmentation[top:bottom, left:right] + 1]
            window = rgb[top:bottom, left:right]
            window[inside] = (window[inside] * self.keep).astype(np.uint8)

    def _outline(self, entity_id: int, state: EntityState, plane: float
                 ) -> list[list[tuple[float, float]]]:
        key = (entity_id, state.position, state.orientation, plane)
        cached = self._outlines.get(key)
        if cached is None:
            cached = self._project(entity_id, state, plane)
            if len(self._outlines) > 4096:  # a long video: keep memory bounded
                self._outlines.clear()
            self._outlines[key] = cached
        return cached

    def _project(self, entity_id: int, state: EntityState, plane: float
                 ) -> list[list[tuple[float, float]]]:
        """The image outline (pixel corners) of the entity's shadow on the plane, if any."""
        rotation = quaternion_matrices(np.asarray([state.orientation], dtype=float))[0]
        points = self.meshes[entity_id] @ rotation.T + np.asarray(state.position)
        if points[:, 2].max() <= plane + 1e-3:  # below or in the plane: nothing to cast
            return []
        whole = points[:, 2].min() > plane - 1e-3
        if not whole:
            points = points[points[:, 2] > plane - 1e-3]
        along = (points[:, 2] - plane) / self.light[2]
        ground = points - along[:, None] * self.light[None, :]
        # casting along the light is affine, so which vertices outline the shadow depends on
        # the body's turn, not its position: a walking agent reuses them frame after frame
        key = (entity_id, state.orientation)
        outline = self._hull_vertices.get(key) if whole else None
        if outline is None:
            try:
                outline = ConvexHull(ground[:, :2]).vertices
            except (QhullError, ValueError):
                return []
            if whole and len(self._hull_vertices) < 4096:
                self._hull_vertices[key] = outline
        corners = ground[outline]
        clip = np.c_[corners, np.ones(len(corners))] @ self.world_to_clip.T
        if (clip[:, 3] <= 1e-6).any():  # partly behind the camera: never in these scenes
            return []
        ndc = clip[:, :2] / clip[:, 3:4]
        pixels = np.c_[(ndc[:, 0] + 1) / 2 * self.width, (1 - ndc[:, 1]) / 2 * self.height]
        return [[(float(x), float(y)) for x, y in pixels]]

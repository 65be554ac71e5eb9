"""Goal colour codes from pixel colours.

AGENT's goals come in 8 flat colours (the colour code, labels 1-8); agents, obstacles and the
occluder have their own few greys and browns (``agent3d.layout.constants``: the design's
palette, as the released dataset's label set is known). Shading scales a flat colour's channels
together, so pixels are compared by the direction of their RGB vector, not its length: a pixel
is goal ``k`` when goal ``k``'s direction is the nearest of the whole palette and within
``MAX_ANGLE``.
"""

from __future__ import annotations

import numpy as np

from socialbench.agent3d.layout.constants import (
    AGENT_COLORS,
    GOAL_COLORS,
    OBSTACLE_COLORS,
    OCCLUDER_COLOR,
)

MAX_ANGLE = np.radians(9.0)  # the nearest palette colour's direction must be this close
MIN_BRIGHTNESS = 30  # darker pixels carry too little colour to tell


def _directions(colours: np.ndarray) -> np.ndarray:
    colours = np.asarray(colours, float)[:, :3]
    return colours / np.linalg.norm(colours, axis=1, keepdims=True)


_GOALS = _directions(np.array(GOAL_COLORS))
_OTHERS = _directions(np.array([*AGENT_COLORS, *OBSTACLE_COLORS, OCCLUDER_COLOR]))


def goal_codes(rgb: np.ndarray) -> np.ndarray:
    """Per pixel (...,) the goal colour code 1-8, or 0 for anything else."""
    flat = rgb.reshape(-1, 3).astype(float)
    norm = np.linalg.norm(flat, axis=1)
    direction = flat / np.maximum(norm, 1e-9)[:, None]
    to_goal = direction @ _GOALS.T
    to_other = (direction @ _OTHERS.T).max(axis=1)
    best = to_goal.argmax(axis=1)
    cos_best = to_goal[np.arange(len(best)), best]
    code = np.where((cos_best > np.cos(MAX_ANGLE)) & (cos_best > to_other)
                    & (flat.max(axis=1) >= MIN_BRIGHTNESS), best + 1, 0)
    return code.reshape(rgb.shape[:-1])

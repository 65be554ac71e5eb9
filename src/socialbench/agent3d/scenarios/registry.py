"""Trial type -> recipe. Each scenario module registers its types with :func:`recipe`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from socialbench.agent3d.scenarios.common import Context
from socialbench.agent3d.schema import Video


@dataclass
class TrialVideos:
    """A recipe's product: familiarization videos, the expected test and (test split) the
    surprising one, which shares the familiarization videos."""

    familiarization: list[Video]
    expected: Video
    surprising: Video | None = None


Recipe = Callable[[Context], TrialVideos]
RECIPES: dict[str, Recipe] = {}


def recipe(trial_type: str) -> Callable[[Recipe], Recipe]:
    """Register a function as the recipe of one trial type (its docstring is the type's spec)."""

    def register(function: Recipe) -> Recipe:
        if trial_type in RECIPES:
            raise ValueError(f"trial type {trial_type} registered twice")
        RECIPES[trial_type] = function
        return function

    return register

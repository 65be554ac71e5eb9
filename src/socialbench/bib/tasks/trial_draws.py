"""Familiarization trials drawn until they look like the real ones (released scene style).

A real trial lasts 136-160 frames (bib spec). Where a task's design allows it, the released
style redraws one trial's objects until the walk fits (and its path clears the other objects),
instead of redrawing the whole episode: far fewer attempts. Background tasks whose design sets
the trial's length (objects next to the start; a locked room) redraw a trial that cannot be
walked (the agent would start touching an icon, or pass another object). The tidy style keeps
the first draw, as the earlier generator did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from socialbench.bib import style
from socialbench.bib.schema import N_FAMILIARIZATION
from socialbench.bib.tasks.base import Walk, go
from socialbench.bib.world import Layout, Resample

TRIAL_DRAWS = 20  # draws of one trial before the whole episode is redrawn
T = TypeVar("T")


def redrawn(make: Callable[[], T], fits: Callable[[T], bool] = lambda _: True) -> T:
    """``make()``, drawn again while it raises :class:`Resample` or its result does not
    ``fits`` (released style: up to :data:`TRIAL_DRAWS` draws, then the whole episode is
    redrawn). Tidy: the first draw, whatever it gives (its Resample included)."""
    released = style.current().trial_frames is not None
    for _ in range(TRIAL_DRAWS):
        try:
            made = make()
        except Resample:
            if not released:
                raise
            continue
        if fits(made):
            return made
    raise Resample("no trial drawn as the released style asks")


def drawn_trial(draw: Callable[[], Layout], goal: int = 0) -> tuple[Layout, Walk]:
    """A layout from ``draw()`` and the agent's walk to object ``goal`` on it.

    Released style: a walk shorter or longer than the real trials, one that touches another
    object or cannot reach its goal, or a draw that finds no free cell, is drawn again
    (:func:`redrawn`). Tidy: the first draw, whatever it gives (its Resample included)."""
    def make() -> tuple[Layout, Walk]:
        layout = draw()
        return layout, go(layout, goal)

    return redrawn(make, lambda made: style.fits_real_length(len(made[1].trial)))


def drawn_trials(draw: Callable[[], Layout], count: int = N_FAMILIARIZATION,
                 goal: int = 0) -> tuple[list[Layout], list[Walk]]:
    """``count`` trials of :func:`drawn_trial`: their layouts and walks."""
    drawn = [drawn_trial(draw, goal) for _ in range(count)]
    return [layout for layout, _ in drawn], [walk for _, walk in drawn]

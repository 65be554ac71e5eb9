"""Counterbalancing a design coin exactly across a task's episodes.

Some designs leave a fact to chance that an agent-blind observer can read: in preference,
whether the expected test's walk (to the preferred object at its new place) is the shorter one
(paper sec. 2.1: "preferred objects are not consistently closer or farther from the agent").
A fair coin per episode is right on average only: on 100 pairs it strays by up to 10 points.
Here the coin is split evenly instead: in every block of two consecutive episodes (indices
2k, 2k + 1) one gets side 0 and the other side 1, which one drawn from the run's seed, the
task and k. Any prefix of a task's episodes is then balanced within one episode, and the side
depends on the seed and index alone (not on the worker count or the order jobs run in).

:func:`side_for` computes it where jobs are made (the run's seed is known there);
:func:`using` hands it to the episode being built and :func:`side` reads it (without one, e.g.
an episode built alone in a test: the index's parity).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from socialbench.core.seeding import derive_seed

_SIDE: ContextVar[int | None] = ContextVar("bib_counterbalance_side", default=None)


def side_for(seed: int, split: str, task: str, index: int) -> int:
    """0 or 1: episode ``index``'s side; the two episodes of each block get different sides."""
    block_coin = derive_seed(seed, split, task, "counterbalance", index // 2) & 1
    return (index % 2) ^ block_coin


def side(index: int) -> int:
    """The side of the episode being built (:func:`using`), else ``index``'s parity."""
    chosen = _SIDE.get()
    return index % 2 if chosen is None else chosen


@contextmanager
def using(chosen: int | None) -> Iterator[None]:
    """Build with this side meanwhile (None: the index's parity)."""
    token = _SIDE.set(chosen)
    try:
        yield
    finally:
        _SIDE.reset(token)

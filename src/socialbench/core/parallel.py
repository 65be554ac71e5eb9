"""One way to spread independent work over worker processes, results in order."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def ordered_map(function: Callable[[Item], Result], items: Sequence[Item], workers: int = 1,
                chunksize: int = 1) -> Iterator[Result]:
    """``function(item)`` for each item, in the items' order, so reports do not depend on the
    number of workers. With ``workers > 1`` the calls run in forked processes (``function``
    must be importable, or reach state set before the fork); stopping early (``break``)
    stops the workers."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if workers == 1 or len(items) < 2:
        yield from map(function, items)
        return
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with context.Pool(min(workers, len(items))) as pool:  # leaving the block terminates it
        yield from pool.imap(function, items, chunksize=chunksize)

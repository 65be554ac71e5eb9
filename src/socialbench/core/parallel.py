"""One way to spread independent work over worker processes or Ray tasks, results in order."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from socialbench.core.backends import current_backend

Item = TypeVar("Item")
Result = TypeVar("Result")

# ``shared`` of the running map, set before the fork so worker processes inherit it.
_SHARED: Any = None


def _with_shared(item: Any) -> Any:
    function, shared = _SHARED
    return function(shared, item)


def ordered_map(function: Callable[..., Result], items: Sequence[Item], workers: int = 1,
                chunksize: int = 1, *, shared: Any = None) -> Iterator[Result]:
    """``function(item)`` for each item, in the items' order, so reports do not depend on the
    number of workers. With ``workers > 1`` the calls run in forked processes (``function``
    must be importable, or reach state set before the fork); stopping early (``break``)
    stops the workers.

    ``shared`` (not None): ``function(shared, item)`` instead, ``shared`` reaching forked
    workers through the fork and Ray tasks once through the object store, never with each
    item. Under ``--backend ray`` (``core.backends``) the calls are Ray tasks; whatever they
    read must be at the same path on every node.
    """
    global _SHARED
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    backend = current_backend()
    if backend.is_ray and items:
        from socialbench.core.backends.ray_cluster import ordered_map_on_ray  # imports Ray

        yield from ordered_map_on_ray(function, items, backend, workers, shared=shared)
        return
    if shared is not None:
        function, _SHARED = _with_shared, (function, shared)
    try:
        if workers == 1 or len(items) < 2:
            yield from map(function, items)
            return
        context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        with context.Pool(min(workers, len(items))) as pool:  # leaving the block terminates it
            yield from pool.imap(function, items, chunksize=chunksize)
    finally:
        _SHARED = None

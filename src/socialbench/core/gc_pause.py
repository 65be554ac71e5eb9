"""Python's cyclic garbage collector paused while a generator job builds its files.

A job (a BIB episode, an AGENT trial) allocates ~10^5 small acyclic objects (frames, states,
text pieces), freed by reference counting; the collector, triggered by the allocation count,
keeps traversing them although a job makes almost no reference cycles (BIB: ~25 % of a
JSON-only job; AGENT: 3-6 % of states-only generation, measured with ``gc.callbacks``).
What a job leaves is collected when the collector runs again after it. Nothing computed
depends on it, so the files do not change.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block (nested blocks leave it to the outer)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()

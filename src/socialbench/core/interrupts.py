"""Ctrl-C held until a unit of work ends, so that what is saved next is consistent.

A training run's state is whole only between two updates: stopped half-way through one, its
rollout, optimiser and random states disagree. :class:`StopBetweenSteps` turns the first
Ctrl-C (SIGINT) into a request that the loop reads after each step (save, then stop); a second
Ctrl-C interrupts at once, for someone who cannot wait for the step to end.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any


class StopBetweenSteps:
    """``with StopBetweenSteps() as stop: ... if stop.requested: save; raise KeyboardInterrupt``.

    Outside the main thread (where Python delivers signals) it changes nothing: Ctrl-C
    interrupts as usual there; nor where SIGINT is ignored (a job started in the background
    with ``nohup ... &``), which it leaves ignored."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> StopBetweenSteps:
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            self._previous = signal.signal(signal.SIGINT, self._hold)
            self._installed = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False

    def _hold(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:  # the second Ctrl-C: do not wait
            raise KeyboardInterrupt
        self.requested = True

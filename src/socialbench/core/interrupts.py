"""Ctrl-C or SIGTERM held until a unit of work ends, so that what is saved next is consistent.

A training run's state is whole only between two updates: stopped half-way through one, its
rollout, optimiser and random states disagree. :class:`StopBetweenSteps` turns the first
Ctrl-C (SIGINT) or SIGTERM (what ``kill``, a batch scheduler's time limit or a container's stop
sends) into a request that the loop reads after each step (save, then stop); a second signal
interrupts at once, for someone who cannot wait for the step to end.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopBetweenSteps:
    """``with StopBetweenSteps() as stop: ... if stop.requested: save; raise KeyboardInterrupt``.

    Outside the main thread (where Python delivers signals) it changes nothing: the signals
    act as usual there; nor does it touch a signal that is ignored (SIGINT in a job started in
    the background with ``nohup ... &``), which it leaves ignored."""

    def __init__(self) -> None:
        self.requested = False
        self.received: str | None = None  # "SIGINT" or "SIGTERM", the first one held
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopBetweenSteps:
        if threading.current_thread() is threading.main_thread():
            for signum in HELD_SIGNALS:
                if signal.getsignal(signum) is not signal.SIG_IGN:
                    self._previous[signum] = signal.signal(signum, self._hold)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()

    def _hold(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:  # the second signal: do not wait
            raise KeyboardInterrupt
        self.requested = True
        self.received = signal.Signals(signum).name

"""Where a command's independent jobs run: worker processes on this machine, or a Ray cluster.

The choice is one value, :class:`Backend`, that the commands set for their duration
(:func:`using_backend`) and the shared runners read (:func:`current_backend`):
``core.runner.run_jobs`` (dataset generation), ``core.parallel.ordered_map`` (validation and
evaluation) and the TalkItOut study. Ray is imported only by ``core.backends.ray_cluster``, and
only when a command asks for ``--backend ray``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

from socialbench.core.errors import UserError

BACKENDS = ("local", "ray")
ADDRESS_VARIABLE = "RAY_ADDRESS"  # Ray's own variable: `ray start --head` prints it


@dataclass(frozen=True)
class Backend:
    """``local``: forked worker processes; ``ray``: Ray tasks, on the cluster at ``address``
    (None: a Ray instance started on this machine for the command and stopped after it)."""

    kind: Literal["local", "ray"] = "local"
    address: str | None = None

    @property
    def is_ray(self) -> bool:
        return self.kind == "ray"


LOCAL = Backend()
_current: Backend = LOCAL


def backend_from_options(kind: str, address: str | None) -> Backend:
    """The backend the command line's ``--backend`` and ``--address`` (or ``RAY_ADDRESS``) name."""
    if kind not in BACKENDS:
        raise UserError(f"--backend {kind!r}: choose from {', '.join(BACKENDS)}")
    if kind == "local":
        if address:
            raise UserError("--address names a Ray cluster: use it with --backend ray")
        return LOCAL
    return Backend("ray", address or os.environ.get(ADDRESS_VARIABLE) or None)


def current_backend() -> Backend:
    """The backend of the running command (local unless a command set another)."""
    return _current


@contextmanager
def using_backend(backend: Backend) -> Iterator[Backend]:
    """Run the block's jobs on ``backend``; the previous backend is restored after it."""
    global _current
    previous, _current = _current, backend
    try:
        yield backend
    finally:
        _current = previous

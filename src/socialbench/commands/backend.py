"""``--backend local|ray`` and ``--address``: one option pair for every command whose jobs can
run on a Ray cluster (``core.backends``)."""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from socialbench.core.backends import (
    ADDRESS_VARIABLE,
    BACKENDS,
    backend_from_options,
    using_backend,
)


def _folder(value: Any) -> Path | None:
    return None if value is None else Path(value)


def backend_options(*, reads: Sequence[str] = (), writes: Sequence[str] = ()
                    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add ``--backend`` and ``--address`` to a click command (place it just above ``def``).
    Under Ray, the command's jobs share one session, and on a cluster the folders named by the
    parameters ``reads`` (read by tasks) and ``writes`` (written by tasks) must be seen alike by
    every node; ``--workers`` sizes a Ray instance started on this machine."""
    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @click.option("--backend", type=click.Choice(BACKENDS), default="local",
                      show_default=True,
                      help="Where jobs run: local worker processes, or Ray tasks "
                           "(docs/cluster.md). The files and reports are the same.")
        @click.option("--address", default=None,
                      help=f"Ray cluster to join (host:port; default: ${ADDRESS_VARIABLE}, else "
                           "a Ray instance started on this machine for the command).")
        @functools.wraps(command)
        def run(*args: Any, backend: str, address: str | None, **options: Any) -> Any:
            chosen = backend_from_options(backend, address)
            cluster: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
            if chosen.is_ray:
                from socialbench.core.backends.ray_cluster import command_cluster

                # Ray workers run in folders of their own: tasks get absolute paths.
                folders = {name: _folder(options.get(name)) for name in (*reads, *writes)}
                options.update({name: folder.resolve() for name, folder in folders.items()
                                if folder is not None})
                cluster = command_cluster(
                    chosen, options.get("workers") or os.cpu_count() or 1,
                    reads=[f for n, f in folders.items() if n in reads and f is not None],
                    writes=[f for n, f in folders.items() if n in writes and f is not None])
            with using_backend(chosen), cluster:
                return command(*args, **options)
        return run
    return decorate

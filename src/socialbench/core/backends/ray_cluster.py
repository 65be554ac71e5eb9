"""Running independent calls as Ray tasks: the session, bounded maps and the shared-path probe.

The only module that imports Ray, and only inside its functions, so ``--backend local`` (the
default) never loads it. Results stream back through a window of at most ``2 x CPUs`` tasks in
flight, so the driver never holds more than a few jobs' results per worker. Tasks are retried
when a worker or a whole node dies (``max_retries``); an error raised by the job itself is not
retried (it would fail again) but re-raised on the driver, a ``UserError`` as itself.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import socket
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from socialbench.core.backends import Backend
from socialbench.core.errors import UserError

INSTALL_HINT = 'pip install -e ".[ray]" (or pip install "ray[default]>=2.9")'
MAX_RETRIES = 3  # a task whose worker or node dies runs again elsewhere, up to this many times
WINDOW_PER_CPU = 2  # tasks in flight per cluster CPU: enough to keep every CPU busy
PROBE_PREFIX = ".socialbench-probe-"
CONNECT_TIMEOUT_S = 10  # seconds to wait for the head node's port to answer


def import_ray() -> Any:
    """The ``ray`` module, or a one-line UserError telling how to install it."""
    try:
        import ray
    except ImportError:
        raise UserError(f"--backend ray needs Ray, which is not installed: "
                        f"{INSTALL_HINT}") from None
    return ray


@contextmanager
def ray_session(backend: Backend, cpus: int) -> Iterator[int]:
    """Connect to ``backend.address`` (or start Ray on this machine with ``cpus`` CPUs when it is
    None) for the block; yield the cluster's CPU count. A session already open is reused and
    left open; one opened here is closed after the block."""
    ray = import_ray()
    opened = not ray.is_initialized()
    if opened:
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                   "logging_level": logging.WARNING}
        if backend.address is None:
            options.update(address="local", num_cpus=cpus)  # "local": never join another
        else:
            _check_reachable(backend.address)
            options["address"] = backend.address
        try:
            ray.init(**options)
        except ConnectionError as exc:
            raise UserError(f"cannot reach the Ray cluster at {backend.address}: {exc}; "
                            "start it with `ray start --head` or fix --address") from None
    try:
        yield max(1, int(ray.cluster_resources().get("CPU", 1)))
    finally:
        if opened:
            ray.shutdown()


def _check_reachable(address: str) -> None:
    """A one-line error for a ``host:port`` (or ``ray://host:port``) nobody answers at: Ray
    itself would keep retrying for minutes."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # "auto" and other forms Ray resolves itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise UserError(f"no Ray cluster answers at {address} ({exc.strerror or exc}): start one "
                        "with `ray start --head` there, or fix --address / RAY_ADDRESS") from None


def _result(ray: Any, ref: Any) -> Any:
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, UserError):
            raise cause from None
        raise


def _call(function: Callable[..., Any], *args: Any) -> Any:
    return function(*args)


class _Task:
    """``function`` as a Ray task: any callable (a ``functools.partial`` too), stored once in
    the object store and called by one task function."""

    def __init__(self, ray: Any, function: Callable[..., Any], num_cpus: float) -> None:
        self.function = ray.put(function)
        self.task = ray.remote(_call).options(num_cpus=num_cpus, max_retries=MAX_RETRIES,
                                              retry_exceptions=False)

    def remote(self, *args: Any) -> Any:
        return self.task.remote(self.function, *args)


def _cancel(ray: Any, refs: Iterable[Any]) -> None:
    for ref in refs:
        ray.cancel(ref)


def _submit(task: _Task, waiting: Iterator[tuple[Any, ...]], pending: list[Any] | deque[Any],
            window: int) -> None:
    """Start tasks from ``waiting`` until ``window`` are pending or none are left."""
    for args in waiting:
        pending.append(task.remote(*args))
        if len(pending) >= window:
            break


def unordered(function: Callable[..., Any], calls: Iterable[tuple[Any, ...]], *, window: int,
              num_cpus: float = 1) -> Iterator[Any]:
    """``function(*args)`` for each ``args`` of ``calls`` as Ray tasks, results as they finish,
    at most ``window`` tasks in flight (stopping early cancels the rest)."""
    ray = import_ray()
    task = _Task(ray, function, num_cpus)
    waiting = iter(calls)
    pending: list[Any] = []
    try:
        while True:
            _submit(task, waiting, pending, window)
            if not pending:
                return
            ready, pending = ray.wait(pending, num_returns=1)
            yield _result(ray, ready[0])
    finally:
        _cancel(ray, pending)


def ordered(function: Callable[..., Any], calls: Iterable[tuple[Any, ...]], *, window: int,
            num_cpus: float = 1) -> Iterator[Any]:
    """As :func:`unordered`, but results in the calls' order (reports that must not depend on
    the cluster)."""
    ray = import_ray()
    task = _Task(ray, function, num_cpus)
    waiting = iter(calls)
    pending: deque[Any] = deque()
    try:
        while True:
            _submit(task, waiting, pending, window)
            if not pending:
                return
            yield _result(ray, pending.popleft())
    finally:
        _cancel(ray, pending)


def put(value: Any) -> Any:
    """``value`` stored once in the cluster's object store: tasks given the reference receive
    the value without it being sent with every task."""
    return import_ray().put(value)


def _fingerprint(folder: str) -> str:
    """What a node sees in ``folder``: its entries' names and the probe files' contents."""
    digest = hashlib.sha256()
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    for name in names:
        digest.update(name.encode() + b"\0")
        if name.startswith(PROBE_PREFIX):
            digest.update(Path(folder, name).read_bytes())
    return digest.hexdigest()


def require_shared_folder(folder: Path, *, writable: bool) -> None:
    """Check that every node of the cluster sees ``folder`` as this machine does (the same path
    on a shared filesystem); with ``writable``, through a probe file written here first. A
    one-line UserError names the nodes that do not."""
    ray = import_ray()
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    folder = folder.resolve()
    probe = folder / f"{PROBE_PREFIX}{secrets.token_hex(8)}"
    if writable:
        probe.write_text(secrets.token_hex(16))
    try:
        expected = _fingerprint(str(folder))
        task = ray.remote(_fingerprint)
        nodes = [node for node in ray.nodes() if node.get("Alive")]
        seen = {f'{node["NodeManagerAddress"]} ({node["NodeID"][:8]})': task.options(
            num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], False)
        ).remote(str(folder)) for node in nodes}
        blind = sorted(address for address, ref in seen.items() if ray.get(ref) != expected)
    finally:
        probe.unlink(missing_ok=True)
    if blind:
        raise UserError(f"Ray nodes {', '.join(blind)} do not see {folder} as this machine does: "
                        "put it on a filesystem every node mounts at the same path")


def ordered_map_on_ray(function: Callable[..., Any], items: Iterable[Any], backend: Backend,
                       cpus: int, *, shared: Any = None) -> Iterator[Any]:
    """``core.parallel.ordered_map`` on Ray: ``function(item)`` or ``function(shared, item)``
    as tasks, results in order; ``cpus`` sizes a Ray instance started here."""
    with ray_session(backend, cpus) as cluster_cpus:
        if shared is None:
            calls: Iterable[tuple[Any, ...]] = ((item,) for item in items)
        else:
            stored = put(shared)
            calls = ((stored, item) for item in items)
        yield from ordered(function, calls, window=WINDOW_PER_CPU * cluster_cpus)


@contextmanager
def command_cluster(backend: Backend, cpus: int, *, reads: Iterable[Path] = (),
                    writes: Iterable[Path] = ()) -> Iterator[None]:
    """One Ray session for a whole command (the runners inside reuse it); on a cluster named by
    an address, first check that every node sees the folders the tasks read (``reads``) or
    write (``writes``) as this machine does."""
    with ray_session(backend, cpus):
        if backend.address is not None:
            for folder in reads:
                require_shared_folder(folder, writable=False)
            for folder in writes:
                folder.mkdir(parents=True, exist_ok=True)
                require_shared_folder(folder, writable=True)
        yield


def largest_node_cpus() -> int:
    """The most CPUs one node of the connected cluster has (a task asking for more never
    starts)."""
    ray = import_ray()
    return max([int(node["Resources"].get("CPU", 0)) for node in ray.nodes() if node["Alive"]]
               or [1])

"""``core.runner``'s jobs as Ray tasks: files come back to the driver as bytes.

Workers on other machines cannot write into the driver's output folder, so a task builds its job
in a private folder on its own node (through the runner's usual staging code), reads the files
back and returns them with their records; the driver then writes them exactly as a local run
would: into its staging folder, flushed to disk (``fsync``), moved under their final names, and
only then journaled. The files, the manifest and resuming are therefore the runner's own,
whatever the cluster: a Ray run can be resumed locally and the other way round.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from socialbench.core import runner
from socialbench.core.backends import Backend
from socialbench.core.backends.ray_cluster import WINDOW_PER_CPU, ray_session, unordered

Records = dict[str, dict[str, Any]]

FOLDER_PREFIX = "socialbench-ray-"
_worker_folder: Path | None = None  # this worker process's private output folder


def _private_folder() -> Path:
    """This worker process's folder (named by its process id) on its node. Ray ends workers
    without running exit handlers, so the folders of processes gone are removed here."""
    global _worker_folder
    if _worker_folder is None:
        temp = Path(tempfile.gettempdir())
        for old in temp.glob(f"{FOLDER_PREFIX}*"):
            pid = old.name[len(FOLDER_PREFIX):]
            if pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(old, ignore_errors=True)
        _worker_folder = temp / f"{FOLDER_PREFIX}{os.getpid()}"
        shutil.rmtree(_worker_folder, ignore_errors=True)
        _worker_folder.mkdir()
    return _worker_folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def build_for_driver(builder: runner.Builder, job: runner.Job
                     ) -> tuple[str, Records, dict[str, bytes]]:
    """(Ray task) Build ``job`` on this node; return its name, file records and file bytes."""
    folder = _private_folder()
    name, records = runner.build_job(builder, job, folder)
    files = {}
    for rel in records:
        path = folder / rel
        files[rel] = path.read_bytes()
        path.unlink()  # the next job starts with no files (empty folders are kept)
    return name, records, files


def write_returned(out_dir: Path, records: Mapping[str, Mapping[str, Any]],
                   files: Mapping[str, bytes]) -> None:
    """Write a job's returned files under ``out_dir`` as complete, durable files."""
    staging = runner.staging_folder(out_dir)
    for rel, data in files.items():
        if len(data) != records[rel]["bytes"]:
            raise RuntimeError(f"{rel}: {len(data)} bytes came back, the worker wrote "
                               f"{records[rel]['bytes']}")
        pure = runner.checked_relative(rel)
        temporary = staging / pure
        temporary.parent.mkdir(parents=True, exist_ok=True)
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())  # on disk before it appears under its final name
        runner.move_into_place(temporary, out_dir / PurePosixPath(pure))


def map_on_ray(builder: runner.Builder, todo: Sequence[runner.Job], out_dir: Path,
               backend: Backend, workers: int) -> Iterator[tuple[str, Records]]:
    """Build ``todo`` as Ray tasks; yield each job's name and records once its files are in
    place. ``workers`` sizes the Ray instance started here when ``backend`` names no cluster."""
    with ray_session(backend, workers) as cpus:
        calls = ((builder, job) for job in todo)
        for name, records, files in unordered(build_for_driver, calls,
                                              window=WINDOW_PER_CPU * cpus):
            write_returned(out_dir, records, files)
            yield name, records

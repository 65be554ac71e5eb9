"""The generation runner every benchmark's dataset generator uses.

A dataset is a list of independent *jobs* (one BIB episode pair, one AGENT trial, ...). Each job
is built from its own derived seed, so the files do not depend on the number of workers or on
the order jobs finish in. The runner gives every generator, once:

* worker processes (``workers=1`` runs in-process, which is easiest to debug);
* a progress bar;
* resume: a job's files are written into a private staging folder, moved into place only when
  the job is complete, and then recorded in a journal; re-running the same command skips
  journaled jobs whose files are still there and rebuilds the rest. An interrupted run never
  leaves a half-written file under its final name;
* a manifest (``manifest.json``) with every file's size and SHA-256, sorted by path, written
  atomically when all jobs are done. The journal is removed then, so finished datasets made with
  the same seed are byte-identical whatever the worker count;
* a backend: local worker processes, or Ray tasks (``core.backends``: ``--backend ray``) whose
  files come back to this process, which writes them the same way.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from socialbench.core.allocator import keep_freed_memory
from socialbench.core.backends import Backend, current_backend
from socialbench.core.errors import UserError
from socialbench.core.files import atomic_write
from socialbench.core.paths import safe_join
from socialbench.core.progress import progress_bar

MANIFEST_NAME = "manifest.json"
# A dataset's design facts and answers (which object is preferred, what the agent was told to
# do): beside the files a model reads, never in them.
META_DIR = "_meta"
JOURNAL_NAME = ".socialbench-journal.jsonl"
STAGING_NAME = ".socialbench-staging"
MANIFEST_FORMAT = "socialbench-manifest/1"


@dataclass(frozen=True)
class Job:
    """One unit of generation.

    ``name`` is unique within the dataset (it names the journal entry);
    ``params`` must be JSON-serialisable and, with ``seed``, fully determine the job's files.
    """

    name: str
    seed: int
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Written:
    """A builder's account of every file it wrote: path relative to ``staging`` -> its record,
    ``{"bytes": size, "sha256": hex digest}``. The runner then moves exactly these files without
    listing, measuring or hashing them again."""

    records: Mapping[str, Mapping[str, Any]]


# A builder writes a job's files under ``staging`` (any sub-folders); the runner moves them to the
# same relative places under the output root. It must be a module-level function so worker
# processes can import it. It may return :class:`Written` (all its files, measured and hashed as
# written); or the SHA-256 (hex) of some files by relative path, the rest being found by listing
# ``staging`` and hashed by reading; or None. ``staging`` holds no files when a job starts, but
# may hold empty folders of earlier jobs.
Builder = Callable[[Job, Path], "Written | Mapping[str, str] | None"]


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


# A process's staging folder is kept between its jobs: the sub-folders a builder makes are reused
# by its next job instead of being made and removed each time (~1.8 ms of system calls a job,
# measured). Keys: (output folder, process id) whose staging folder this process has emptied.
_STAGING_READY: set[tuple[str, int]] = set()
_MAX_KEPT_FOLDERS = 32  # more empty sub-folders than this (one per job, say): start afresh


def staging_folder(out_dir: Path) -> Path:
    """This process's private staging folder, emptied on its first use by this process."""
    pid = os.getpid()  # a forked worker gets its own: it does not inherit the parent's
    staging = out_dir / STAGING_NAME / f"p{pid}"
    if (str(out_dir), pid) not in _STAGING_READY:
        _reset(staging)  # left by a killed run whose process had this id
        _STAGING_READY.add((str(out_dir), pid))
    return staging


def _reset(staging: Path) -> None:
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)


def _build_one(args: tuple[Builder, Job, str]) -> tuple[str, dict[str, dict[str, Any]]]:
    builder, job, out_dir_text = args
    return build_job(builder, job, Path(out_dir_text))


def build_job(builder: Builder, job: Job, out_dir: Path) -> tuple[str, dict[str, dict[str, Any]]]:
    """Build a job in its staging folder, move its files into place, return their records."""
    staging = staging_folder(out_dir)
    try:
        returned = builder(job, staging)
    except BaseException:
        _reset(staging)  # no half-built file may be taken for the next job's
        raise
    too_many_folders = False
    if isinstance(returned, Written):
        records = {rel: dict(record) for rel, record in returned.records.items()}
        rels = sorted(records)
    else:
        digests = returned if isinstance(returned, Mapping) else {}  # other returns: ignored
        entries = list(staging.rglob("*"))
        produced = sorted(p for p in entries if p.is_file())
        rels = [src.relative_to(staging).as_posix() for src in produced]
        records = {}
        for rel, src in zip(rels, produced, strict=True):
            digest = digests.get(rel)
            records[rel] = {"bytes": src.stat().st_size,
                            "sha256": digest if digest is not None else sha256_file(src)}
        too_many_folders = len(entries) - len(produced) > _MAX_KEPT_FOLDERS
    for rel in rels:
        pure = checked_relative(rel)
        move_into_place(staging / pure, out_dir / pure)
    if too_many_folders:
        _reset(staging)
    return job.name, records


def checked_relative(rel: str) -> PurePosixPath:
    """A builder's file name, refused when it would leave the output folder (its own names: a
    lexical check is enough)."""
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts:
        raise ValueError(f"builder wrote {rel!r}: paths must stay inside staging")
    return pure


def move_into_place(src: Path, dst: Path) -> None:
    """``os.replace(src, dst)``, making dst's folder when it is missing (tried first: a job's
    folders almost always exist already, and each mkdir is a system call)."""
    try:
        os.replace(src, dst)  # complete files only ever appear under their final names
    except FileNotFoundError:
        if not src.exists():
            raise
        dst.parent.mkdir(parents=True, exist_ok=True)
        os.replace(src, dst)


def _read_journal(out_dir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    journal = out_dir / JOURNAL_NAME
    done: dict[str, dict[str, dict[str, Any]]] = {}
    if not journal.exists():
        return done
    for line in journal.read_text().splitlines():
        try:
            entry = json.loads(line)
            done[entry["job"]] = entry["files"]
        except (json.JSONDecodeError, KeyError, TypeError):
            continue  # a line cut by a kill: that job is simply rebuilt
    return done


def _still_complete(out_dir: Path, files: Mapping[str, Mapping[str, Any]]) -> bool:
    for rel, record in files.items():
        path = out_dir / rel
        if not path.is_file() or path.stat().st_size != record.get("bytes"):
            return False
    return True


def _existing_manifest(out_dir: Path) -> dict[str, Any] | None:
    path = out_dir / MANIFEST_NAME
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise UserError(f"{path} is corrupt ({exc.msg}); delete it and re-run to rebuild") from None


def run_jobs(
    out_dir: Path,
    jobs: Sequence[Job],
    builder: Builder,
    *,
    workers: int = 1,
    description: str = "generating",
    dataset_info: Mapping[str, Any] | None = None,
    show_progress: bool = True,
    backend: Backend | None = None,
) -> dict[str, Any]:
    """Build every job not already built and write the manifest; return the manifest.

    ``dataset_info`` (generator name, seed, options) is stored in the manifest; re-running into a
    folder whose manifest or journal was made with different options is refused, so two datasets
    are never silently mixed. ``backend`` (default: the command's, ``core.backends``) says where
    jobs run; with Ray, ``workers`` only sizes a Ray instance started on this machine.
    """
    backend = backend or current_backend()
    if workers < 1:
        raise UserError(f"--workers must be at least 1, got {workers}")
    names = [job.name for job in jobs]
    if len(set(names)) != len(names):
        raise ValueError("job names must be unique")
    out_dir.mkdir(parents=True, exist_ok=True)
    info = dict(dataset_info or {})
    _check_same_dataset(out_dir, info)

    wanted = set(names)
    done = {name: files for name, files in _read_journal(out_dir).items() if name in wanted}
    previous = _existing_manifest(out_dir)
    if previous is not None:
        # A finished dataset: its files are the journal.
        for name, files in previous.get("jobs", {}).items():
            done.setdefault(name, {rel: previous["files"][rel] for rel in files
                                   if rel in previous.get("files", {})})
    done = {name: files for name, files in done.items() if _still_complete(out_dir, files)}
    todo = [job for job in jobs if job.name not in done]

    journal_path = out_dir / JOURNAL_NAME
    with atomic_write(journal_path) as tmp:
        tmp.write_text("".join(json.dumps({"job": name, "files": files}, sort_keys=True) + "\n"
                               for name, files in sorted(done.items())))
    (out_dir / MANIFEST_NAME).unlink(missing_ok=True)
    with atomic_write(out_dir / ".socialbench-dataset.json") as tmp:
        tmp.write_text(json.dumps(info, sort_keys=True))

    _STAGING_READY.discard((str(out_dir), os.getpid()))  # the folder may be gone: remake it
    with open(journal_path, "a") as journal, progress_bar(show=show_progress) as progress:
        task = progress.add_task(description, total=len(jobs), completed=len(jobs) - len(todo))
        for name, files in _map(builder, todo, out_dir, workers, backend):
            journal.write(json.dumps({"job": name, "files": files}, sort_keys=True) + "\n")
            journal.flush()
            if backend.is_ray:
                os.fsync(journal.fileno())  # its files were synced: so is their record
            done[name] = files
            progress.advance(task)

    manifest = _manifest(info, {job.name: done[job.name] for job in jobs})
    with atomic_write(out_dir / MANIFEST_NAME) as tmp:
        tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    journal_path.unlink(missing_ok=True)
    (out_dir / ".socialbench-dataset.json").unlink(missing_ok=True)
    shutil.rmtree(out_dir / STAGING_NAME, ignore_errors=True)
    return manifest


def _check_same_dataset(out_dir: Path, info: Mapping[str, Any]) -> None:
    marker = out_dir / ".socialbench-dataset.json"
    recorded: Any = None
    if marker.exists():
        with contextlib.suppress(json.JSONDecodeError):
            recorded = json.loads(marker.read_text())
    else:
        manifest = _existing_manifest(out_dir)
        if manifest is not None:
            recorded = manifest.get("dataset")
    if recorded is not None and recorded != json.loads(json.dumps(dict(info), sort_keys=True)):
        raise UserError(
            f"{out_dir} holds a dataset made with other options ({recorded}); "
            "use a new --out folder or the same options to resume")


def _manifest(info: Mapping[str, Any], jobs: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    files: dict[str, Any] = {}
    for records in jobs.values():
        files.update(records)
    return {
        "format": MANIFEST_FORMAT,
        "dataset": dict(info),
        "jobs": {name: sorted(records) for name, records in sorted(jobs.items())},
        "files": dict(sorted(files.items())),
    }


def _map(builder: Builder, todo: Sequence[Job], out_dir: Path, workers: int,
         backend: Backend) -> Iterator[tuple[str, dict[str, dict[str, Any]]]]:
    if backend.is_ray and todo:
        from socialbench.core.backends.ray_jobs import map_on_ray  # imports Ray

        yield from map_on_ray(builder, todo, out_dir, backend, workers)
        return
    args = [(builder, job, str(out_dir)) for job in todo]
    if workers == 1 or len(todo) <= 1:
        keep_freed_memory()
        yield from map(_build_one, args)
        return
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    pool = context.Pool(min(workers, len(todo)), initializer=keep_freed_memory)
    try:
        yield from pool.imap_unordered(_build_one, args, chunksize=1)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def load_manifest(root: Path) -> dict[str, Any]:
    """Read ``root/manifest.json``, checking its shape and that every path stays inside root."""
    path = root / MANIFEST_NAME
    if not path.exists():
        raise UserError(f"{root} has no {MANIFEST_NAME}: is it a finished socialbench dataset?")
    manifest = _existing_manifest(root)
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise UserError(f"{path} is not a {MANIFEST_FORMAT} manifest")
    for rel in manifest.get("files", {}):
        safe_join(root, rel)
    return manifest


def verify_manifest(root: Path) -> list[str]:
    """Problems found comparing the files under ``root`` with its manifest (empty: all good)."""
    manifest = load_manifest(root)
    problems = []
    for rel, record in manifest["files"].items():
        path = safe_join(root, rel)
        if not path.is_file():
            problems.append(f"{rel}: missing")
        elif path.stat().st_size != record["bytes"] or sha256_file(path) != record["sha256"]:
            problems.append(f"{rel}: checksum differs from the manifest")
    return problems

"""Episodes -> files: each file complete or absent, with its size and SHA-256 as written.

A pair's two files are written side by side, trial by trial: each distinct trial is encoded
once (:mod:`~socialbench.bib.io.encode`), then hashed and written to every file that has it
while its bytes are fresh, so the generation runner never reads a file back to hash it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from socialbench.bib.io.encode import TrialBytes, file_layouts
from socialbench.bib.schema import Episode
from socialbench.core.files import atomic_write


def dump_episode(episode: Episode, path: Path) -> None:
    """Write the episode's JSON file atomically (a temporary name, then a rename)."""
    dump_episodes([(episode, Path(path))])


def dump_episodes(items: Sequence[tuple[Episode, Path]]) -> list[str]:
    """Write several episodes' JSON files (e.g. a pair, serialising their shared trials once),
    each atomically; return each file's SHA-256 (hex), hashed from the bytes as they are written
    (so the generation runner need not read the files back)."""
    return [digest for _, digest in write_episodes(items)]


def write_episodes(items: Sequence[tuple[Episode, Path]], *,
                   atomic: bool = True) -> list[tuple[int, str]]:
    """:func:`dump_episodes`, returning each file's size and SHA-256.

    ``atomic=False`` writes each file under its own name directly (for a private staging
    folder, whose files are moved into place only when complete); missing folders are made.
    """
    paths = [Path(path) for _, path in items]
    episodes = [episode for episode, _ in items]
    if not atomic:
        return _write_side_by_side(episodes, paths)
    with contextlib.ExitStack() as stack:  # every file renamed into place once all are written
        return _write_side_by_side(episodes, [stack.enter_context(atomic_write(path))
                                              for path in paths])


def _write_side_by_side(episodes: Sequence[Episode],
                        targets: Sequence[Path]) -> list[tuple[int, str]]:
    """Write the episodes' files together, trial by trial, each file's size and SHA-256.

    Each distinct trial (a pair shares its familiarization) is encoded once and then hashed and
    written to every file that has it while its bytes are still in the processor's cache; chunks
    all files share from their start are hashed once.
    """
    encode = TrialBytes()
    layouts = file_layouts(episodes)
    common = hashlib.sha256()
    digests: list[Any] | None = None  # per file, once the files' pieces differ
    sizes = [0] * len(targets)
    with contextlib.ExitStack() as stack:
        handles = [stack.enter_context(open(_create(target), "wb", buffering=0))
                   for target in targets]
        for position in range(max((len(layout) for layout in layouts), default=0)):
            items = [layout[position] if position < len(layout) else None
                     for layout in layouts]
            if digests is None and any(item is not items[0] for item in items):
                digests = [common.copy() for _ in targets]  # from here on, hashed apart
            for i, item in enumerate(items):
                if item is None:
                    continue
                data = encode(item)
                if digests is not None:
                    digests[i].update(data)
                elif i == 0:
                    common.update(data)
                sizes[i] += _write_all(handles[i], data)
    final = digests if digests is not None else [common] * len(targets)
    return [(size, digest.hexdigest()) for size, digest in zip(sizes, final, strict=True)]


def _write_all(handle: Any, data: bytes | memoryview) -> int:
    view = memoryview(data)
    size = len(view)
    while view:  # an unbuffered write may write less than it was given
        view = view[handle.write(view):]
    return size


def write_chunks(path: Path, chunks: Sequence[bytes | memoryview]) -> int:
    """Write the chunks as the file ``path`` (its folder made if missing); return its size."""
    with open(_create(path), "wb", buffering=0) as handle:  # chunks go straight to the file
        return sum(_write_all(handle, chunk) for chunk in chunks)


def _create(path: Path) -> int:
    """A new (or emptied) file's descriptor; its folder is made only when missing (tried first:
    it is almost always there, and each mkdir is a system call)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
    try:
        return os.open(path, flags, 0o666)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, flags, 0o666)

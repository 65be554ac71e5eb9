"""Writing files so that a reader sees the old file or the complete new one, never a part."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_write(path: Path | str) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; it replaces ``path`` when the block ends
    without an error and is removed when one is raised (an interrupted run leaves nothing
    under the final name). The temporary name starts with ``.``, which dataset walks skip::

        with atomic_write(out / "audit.json") as tmp:
            tmp.write_text(text)
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        yield tmp
        os.replace(tmp, path)  # a rename within one folder: all or nothing
    finally:
        tmp.unlink(missing_ok=True)

"""Paths named by files from elsewhere must stay inside the dataset root."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from socialbench.core.errors import UserError


def safe_join(root: Path, relpath: str) -> Path:
    """``root / relpath``, refusing absolute paths, ``..`` and anything resolving outside root."""
    pure = PurePosixPath(relpath)
    if pure.is_absolute() or ".." in pure.parts or relpath.strip() == "":
        raise UserError(f"unsafe path {relpath!r} in manifest: paths must be relative and inside "
                        f"the dataset root {root}")
    root_resolved = root.resolve()
    target = (root_resolved / pure).resolve()
    if root_resolved != target and root_resolved not in target.parents:
        raise UserError(f"path {relpath!r} leaves the dataset root {root} (through a link?)")
    return target

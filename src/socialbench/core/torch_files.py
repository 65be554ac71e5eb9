"""Reading PyTorch files that may come from elsewhere (checkpoints, training states), safely.

``torch.load(..., weights_only=True)`` unpickles tensors and plain values only, never code; the
size bound keeps a stray huge file from being read whole. Every failure is one line that names
the file, says what is wrong in plain words (not PyTorch's advice to turn ``weights_only`` off,
which would run whatever the file holds) and how to fix it. PyTorch is imported when a file is
read, so importing this module does not need the ``torch`` extra.
"""

from __future__ import annotations

import pickle
import warnings
import zipfile
from pathlib import Path
from typing import Any

from socialbench.core.errors import DataFileError, first_line

MAX_BYTES = 256 << 20  # every model here is a few MB; refuse to read giant files


def load_torch_file(path: str | Path, what: str, fix: str, max_bytes: int = MAX_BYTES,
                    map_location: Any = "cpu") -> Any:
    """What ``torch.save`` wrote at ``path``, read with ``weights_only=True``.

    ``what`` names the file in errors ("TalkItOut training checkpoint"), ``fix`` says what to do
    about a bad one ("retrain it with ..."). A missing file raises FileNotFoundError (callers
    say how to make one); an empty, oversized, truncated, corrupt or code-holding file raises
    :class:`DataFileError` with one line."""
    import torch

    path = Path(path)
    size = path.stat().st_size  # FileNotFoundError for a missing file: the caller's message
    if size == 0:
        raise DataFileError(path, f"empty file, not a {what}; {fix}")
    if size > max_bytes:
        raise DataFileError(path, f"too large for a {what} ({size >> 20} MB > "
                                  f"{max_bytes >> 20} MB); {fix}")
    try:
        with warnings.catch_warnings():  # e.g. a newer pickle protocol: the reading decides
            warnings.simplefilter("ignore")
            return torch.load(path, map_location=map_location, weights_only=True)
    except Exception as exc:  # any unreadable file is the user's to fix
        raise DataFileError(path, f"not a {what} ({_reason(exc, path)}); {fix}") from None


def _reason(exc: BaseException, path: Path) -> str:
    """What went wrong, in a few words (PyTorch's own messages run to many lines)."""
    if isinstance(exc, pickle.UnpicklingError):
        return ("not tensors and plain values: another format, corrupt, or Python objects, "
                "which are never unpickled")
    text = str(exc)
    if isinstance(exc, (zipfile.BadZipFile, EOFError)) or "zip archive" in text:
        return "truncated or corrupt: its archive cannot be read"
    if not zipfile.is_zipfile(path):  # PyTorch's own error for other bytes is a bare number
        return "not written by torch.save: no archive in it"
    return first_line(exc)

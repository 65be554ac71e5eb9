"""A learned BIB observer's torch files (checkpoints, training states): written atomically,
read through ``core.torch_files.load_torch_file`` (weights only, a size bound, one line per
bad file) and checked for the observer's own format.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from socialbench.core.errors import DataFileError, UserError, first_line
from socialbench.core.torch_files import MAX_BYTES, load_torch_file


def read_torch_dict(path: Path, expected_format: str, what: str, observer: str,
                    max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """The dict saved at ``path`` whose ``format`` is ``expected_format``; ``what`` names the
    file in errors, ``observer`` the ``--observer`` that writes it."""
    retrain = f"retrain it with `socialbench bib train --observer {observer}`"
    if not path.is_file():
        raise UserError(f"{path}: no such {what}; train one with `socialbench bib train "
                        f"--observer {observer} --train DIR --out {path}`")
    data = load_torch_file(path, what, retrain, max_bytes)
    if not isinstance(data, dict) or data.get("format") != expected_format:
        raise DataFileError(path, f"not a {what} (expected format {expected_format}); {retrain}")
    return data


def write_torch_dict(path: Path, data: dict[str, Any]) -> None:
    """Save ``data`` (tensors and plain values: readable with ``weights_only=True``) to
    ``path`` atomically, making its folder if needed."""
    from socialbench.core.files import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as tmp:
        torch.save(data, tmp)


def write_training_state(path: Path, state_format: str, key: str, model: torch.nn.Module,
                         optimizer: torch.optim.Optimizer, **progress: Any) -> None:
    """Keep a resumable training state at ``path``: weights, optimizer, ``key`` (what data and
    options it is for) and the plain values in ``progress`` (e.g. epochs done, history text)."""
    write_torch_dict(path, {"format": state_format, "key": key, "model": model.state_dict(),
                            "optimizer": optimizer.state_dict(), **progress})


def read_training_state(path: Path, state_format: str, key: str, model: torch.nn.Module,
                        optimizer: torch.optim.Optimizer, observer: str,
                        fields: dict[str, Callable[[Any], Any]]) -> tuple[Any, ...]:
    """Load a state written by :func:`write_training_state` for the same ``key`` into the model
    and optimizer; return its ``fields``, each passed through its reader, in order. A missing
    or unreadable field is a one-line error like any other damage."""
    state = read_torch_dict(path, state_format, "training state", observer)
    if state.get("key") != key:
        raise UserError(f"{path} was written for other training data or options; delete it "
                        f"to start over, or rerun with the same data and options to resume")
    try:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        return tuple(read(state[name]) for name, read in fields.items())
    except (KeyError, RuntimeError, ValueError, TypeError) as exc:
        raise DataFileError(path, f"damaged {observer} training state "
                                  f"({first_line(exc)}); delete it to start "
                                  f"over") from None

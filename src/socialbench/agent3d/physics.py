"""The one place that imports PyBullet, with its import-time banner silenced.

PyBullet's C extension prints ``pybullet build time: ...`` when it loads (on stderr in the
PyPI wheels, on stdout in some builds), which would pollute every ``socialbench`` command's
output. Every agent3d module takes ``p`` from here; the command-line modules import agent3d's
heavy modules only inside their command functions, so ``socialbench --help`` and the other
benchmarks' commands never load PyBullet at all.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from types import ModuleType


def _flush_c_stdio() -> None:
    # no C library handle (unusual platforms): nothing to flush
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).fflush(None)


def _import_quietly() -> ModuleType:
    """Import pybullet with file descriptors 1 and 2 pointed at /dev/null (the banner comes
    from C, so redirecting Python's sys.stdout would not catch it). An import error is raised
    as usual once the descriptors are back."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            for fd in saved:
                os.dup2(null, fd)
            try:
                import pybullet
            finally:
                _flush_c_stdio()  # C may buffer the banner (fd 1 a pipe): drop it here
                for fd, copy in saved.items():
                    os.dup2(copy, fd)
        finally:
            os.close(null)
    finally:
        for copy in saved.values():
            os.close(copy)
    return pybullet


p = _import_quietly()

__all__ = ["p"]

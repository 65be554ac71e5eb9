"""Seeds that depend only on names, never on process, order or Python's hash salt."""

from __future__ import annotations

import hashlib

import numpy as np


def derive_seed(seed: int, *keys: object) -> int:
    """A 63-bit seed derived from a root seed and any number of keys (task name, index, ...).

    The same arguments give the same seed in every process, so a dataset does not depend on how
    its jobs were split between workers.
    """
    text = "\x1f".join([str(int(seed)), *map(str, keys)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def rng_for(seed: int, *keys: object) -> np.random.Generator:
    """A NumPy generator seeded by :func:`derive_seed`."""
    return np.random.default_rng(derive_seed(seed, *keys))

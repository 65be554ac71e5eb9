"""The generation workers' allocator setting: applied where glibc is, harmless elsewhere."""

from __future__ import annotations

import sys

from socialbench.core.allocator import keep_freed_memory


def test_keep_freed_memory_applies_on_glibc_and_is_a_no_op_elsewhere() -> None:
    applied = keep_freed_memory()
    assert isinstance(applied, bool)
    if sys.platform.startswith("linux"):
        import platform

        if platform.libc_ver()[0] == "glibc":
            assert applied
    assert keep_freed_memory() == applied  # may be called again (every worker does)

"""gc_pause: the collector is paused inside the block and back as it was after, errors too."""

from __future__ import annotations

import gc

import pytest

from socialbench.core.gc_pause import gc_paused


def test_paused_inside_and_restored_after_even_on_error():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():  # nested: the outer block keeps it paused
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), gc_paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_left_disabled_when_it_was_disabled_before():
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()

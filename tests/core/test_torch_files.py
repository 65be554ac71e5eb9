"""Torch files from elsewhere: read without unpickling code, every failure one plain line."""

from __future__ import annotations

import pickle

import pytest

torch = pytest.importorskip("torch")

from socialbench.core.errors import DataFileError  # noqa: E402
from socialbench.core.torch_files import load_torch_file  # noqa: E402

FIX = "train a new one"


class Payload:
    """A Python object: a weights-only reader must refuse to build it."""


def message(path, **options) -> str:
    with pytest.raises(DataFileError) as caught:
        load_torch_file(path, "test checkpoint", FIX, **options)
    text = str(caught.value)
    assert "\n" not in text and text.startswith(str(path)) and text.endswith(FIX)
    # PyTorch's advice (turn weights_only off, i.e. run the file's code) is never passed on
    assert "weights_only" not in text and len(text) < 300
    return text


def test_a_good_file_is_read(tmp_path):
    torch.save({"w": torch.arange(3.0), "n": 2}, tmp_path / "good.pt")
    state = load_torch_file(tmp_path / "good.pt", "test checkpoint", FIX)
    assert torch.equal(state["w"], torch.arange(3.0)) and state["n"] == 2


def test_bad_files_are_one_line_each(tmp_path):
    torch.save({"w": torch.zeros(1000)}, tmp_path / "good.pt")
    whole = (tmp_path / "good.pt").read_bytes()
    (tmp_path / "truncated.pt").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "empty.pt").write_bytes(b"")
    (tmp_path / "text.pt").write_bytes(b'{"not": "a checkpoint"}')
    (tmp_path / "pickle.pt").write_bytes(pickle.dumps({"w": 1}))
    (tmp_path / "junk.pt").write_bytes(b"junk\n")  # PyTorch itself says only KeyError('...')
    torch.save({"w": Payload()}, tmp_path / "object.pt")
    assert "truncated or corrupt" in message(tmp_path / "truncated.pt")
    assert "empty file" in message(tmp_path / "empty.pt")
    assert "not written by torch.save" in message(tmp_path / "junk.pt")
    for name in ("text.pt", "pickle.pt", "object.pt"):
        assert "never unpickled" in message(tmp_path / name)
    assert "too large" in message(tmp_path / "good.pt", max_bytes=100)


def test_a_missing_file_is_left_to_the_caller(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_torch_file(tmp_path / "absent.pt", "test checkpoint", FIX)


def test_first_line_keeps_a_library_message_to_one_short_line():
    from socialbench.core.errors import first_line

    many = RuntimeError("Error(s) in loading state_dict for Net:\n\tMissing key(s): " + "w," * 99)
    assert first_line(many) == "Error(s) in loading state_dict for Net:"
    assert first_line(ValueError("x" * 500)) == "x" * 117 + "..."
    assert first_line(KeyError()) == "KeyError"

"""The state rows are checked in bulk (agent3d.io._all_states); a damaged row falls back to the
row-by-row reading, which names it. Either way the reader gives what it always gave."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from socialbench.agent3d import io
from socialbench.agent3d.io import load_trial, write_trial
from socialbench.agent3d.samples import sample_trial
from socialbench.core.errors import DataFileError


def _trial(tmp_path: Path) -> Path:
    write_trial(sample_trial("test"), tmp_path / "t", states="rows")  # the rows layout
    return tmp_path / "t"


def test_bulk_reading_equals_row_by_row(tmp_path, monkeypatch):
    root = _trial(tmp_path)
    bulk = load_trial(root)
    monkeypatch.setattr(io, "_all_states", lambda raw: None)
    assert load_trial(root) == bulk


def test_integer_coordinates_read_as_floats(tmp_path):
    root = _trial(tmp_path)
    states = root / "expected" / "state_info.json"
    data = json.loads(states.read_text())
    data["frames"][2][0]["position"] = [1, 2, 0]
    states.write_text(json.dumps(data))
    state = load_trial(root).expected.frames[2][0]
    assert state.position == (1.0, 2.0, 0.0) and all(type(v) is float for v in state.position)


@pytest.mark.parametrize(("field", "value", "words"), [
    ("position", [0.0, True, 0.0], "'position' must be a list of 3 finite numbers"),
    ("position", [0.0, "1", 0.0], "'position' must be a list of 3 finite numbers"),
    ("rotation", [0.0, 0.0, 1.0], "'rotation' must be a list of 4 finite numbers"),
    ("velocity", [[0.0], 0.0, 0.0], "'velocity' must be a list of 3 finite numbers"),
    ("velocity", [12345.678, 0.0, 0.0], "not valid JSON"),  # orjson refuses overflow
    ("angular_velocity", None, "'angular_velocity' must be a list of 3 finite numbers"),
    ("id", 1.0, "'id' must be a int"),
    ("id", True, "'id' must be a int"),
])
def test_a_damaged_row_is_named_in_one_line(tmp_path, field, value, words):
    root = _trial(tmp_path)
    states = root / "expected" / "state_info.json"
    data = json.loads(states.read_text())
    data["frames"][5][1][field] = value
    # 12345.678 stands for 1e999: valid JSON that overflows to infinity
    states.write_text(json.dumps(data).replace("12345.678", "1e999"))
    with pytest.raises(DataFileError) as error:
        load_trial(root)
    assert words in str(error.value) and "\n" not in str(error.value)

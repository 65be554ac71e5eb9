"""The load test (benchmarks/web_load.py), shortened: 200 raters submitting at once through a
served app; every accepted rating is in the database exactly once, replays are refused."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).parents[2] / "benchmarks" / "web_load.py"


def load_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("web_load", BENCHMARK)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["web_load"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.mark.slow
def test_200_raters_at_once_lose_and_double_nothing(tmp_path: Path) -> None:
    figures = load_module().load_test(raters=200, seconds=10, db=None, episodes=2,
                                      workdir=tmp_path)
    assert figures["error_count"] == 0, figures["errors"]
    assert figures["accepted"] >= 200  # every rater got at least its first rating in
    assert figures["accepted"] == figures["stored_rows"] == figures["stored_distinct"]
    assert figures["accepted_not_stored"] == figures["stored_not_accepted"] == 0
    assert figures["accepted_replays"] == 0

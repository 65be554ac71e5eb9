"""Fixtures of the web tests: a small BIB dataset, an evaluation of it, a study database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")

from click.testing import CliRunner  # noqa: E402

from socialbench.cli import main  # noqa: E402

TASKS = "preference,efficiency_path"


def run_cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="session")
def bib_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two BIB sub-evaluations of 4 episodes, JSON only (the app renders the clips)."""
    root = tmp_path_factory.mktemp("bib")
    run_cli("bib", "generate", "--out", str(root), "--episodes", "4", "--tasks", TASKS,
            "--no-video", "--workers", "1")
    return root


@pytest.fixture(scope="session")
def results_json(bib_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("results") / "shortcut-path.json"
    text = CliRunner().invoke(main, ["bib", "evaluate", "--data", str(bib_root), "--observer",
                                     "shortcut-path", "--json"]).stdout
    out.write_text(text.strip().splitlines()[-1])
    json.loads(out.read_text())
    return out


@pytest.fixture()
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'study.db'}"

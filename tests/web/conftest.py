"""Fixtures of the web tests: a small BIB dataset, an evaluation of it, a study database."""

from __future__ import annotations

import json
from collections.abc import Iterator
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


def evaluation(bib_root: Path, folder: Path, observer: str) -> Path:
    """``bib evaluate --json`` of the fixture dataset, written to a file."""
    out = folder / f"{observer}.json"
    text = CliRunner().invoke(main, ["bib", "evaluate", "--data", str(bib_root), "--observer",
                                     observer, "--json"]).stdout
    out.write_text(text.strip().splitlines()[-1])
    json.loads(out.read_text())
    return out


@pytest.fixture(scope="session")
def results_json(bib_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return evaluation(bib_root, tmp_path_factory.mktemp("results"), "shortcut-path")


@pytest.fixture(scope="session")
def inverse_planning_json(bib_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return evaluation(bib_root, tmp_path_factory.mktemp("results"), "inverse-planning")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty study database: a SQLite file, and (slow tests) a PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'study.db'}"
        return
    import uuid

    import psycopg

    server = request.getfixturevalue("postgres_url")
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    yield server.rsplit("/", 1)[0] + "/" + name


def _postgres_bin() -> Path | None:
    import glob
    import shutil

    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(versions[-1]).parent if versions else None


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A throwaway PostgreSQL server on loopback (trust auth), when PostgreSQL is installed."""
    import os
    import pwd
    import shutil
    import socket
    import subprocess
    import tempfile

    bindir = _postgres_bin()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql): "
                    "apt-get install postgresql")
    prefix: list[str] = []
    owner = None
    if os.geteuid() == 0:  # the server refuses to run as root: run it as the postgres user
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run the server")
        prefix = ["runuser", "-u", "postgres", "--"]
    folder = Path(tempfile.mkdtemp(prefix="socialbench-pg-", dir="/tmp"))
    if owner is not None:
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = folder / "data"
    subprocess.run([*prefix, str(bindir / "initdb"), "-D", str(data), "-U", "postgres",
                    "--auth=trust", "-E", "UTF8"], check=True, capture_output=True)
    subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-l",
                    str(folder / "log"), "-w", "-o",
                    f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 "
                    f"-c max_connections=200 -c fsync=off", "start"],
                   check=True, capture_output=True)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate",
                        "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def agent_dataset(root: Path, render: bool) -> Path:
    """One AGENT test trial of type 2.1 (action efficiency), rendered or states only."""
    run_cli("agent", "generate", "--out", str(root), "--split", "test", "--types", "2.1",
            "--scale", "0.001", "--workers", "1", *(["--render"] if render else []))
    return root

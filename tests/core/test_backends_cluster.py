"""``--backend ray`` on a real Ray cluster of two nodes on this machine (slow: starting Ray takes
tens of seconds). The head and a second node started with ``ray start`` (one CPU each, the
second with a resource of its own so its raylet can be found); the commands join them with
``--address``. Checks: the same files and manifests as local runs (BIB and AGENT generation,
validation), a run that loses its second node mid-way still finishing with the same files, and
a driver killed mid-run resumed locally without rebuilding what was done."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SECOND_NODE = "socialbench_test_second_node"  # the second node's own resource: finds its raylet
AGENT = ["agent", "generate", "--types", "1.1,2.1", "--scale", "0.03", "--seed", "4"]
# The runs the tests interrupt: states alone take ~0.1 s a trial, over before a poll sees a task
# in flight; small frames make each of the 9 trials last about a second.
AGENT_RENDERED = [*AGENT, "--render", "--resolution", "64x64"]
BIB = ["bib", "generate", "--tasks", "preference,efficiency_path", "--episodes", "3",
       "--no-video", "--seed", "2"]
JOURNAL = ".socialbench-journal.jsonl"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _ray_env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "RAY_ADDRESS"}
    env.update(RAY_AUTH_MODE="disabled",  # a throw-away cluster on this machine: no tokens
               RAY_USAGE_STATS_ENABLED="0",
               # a dead node noticed in seconds, not half a minute
               RAY_health_check_period_ms="1000", RAY_health_check_timeout_ms="1000",
               RAY_health_check_failure_threshold="3")
    return env


def _ray(*args: str, env: dict[str, str]) -> None:
    ray = shutil.which("ray", path=str(Path(sys.executable).parent)) or "ray"
    subprocess.run([ray, *args], env=env, check=True, capture_output=True, timeout=180)


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, dict[str, str]]]:
    """(address, environment) of a two-node Ray cluster, stopped (``ray stop --force``) and its
    folder removed at the end whatever happens. ``ray stop`` stops every Ray process it finds
    on this machine: do not run these tests beside a Ray cluster of your own."""
    pytest.importorskip("ray")
    env = _ray_env()
    # Short: Ray's unix sockets live under it, and their paths must stay under ~107 bytes.
    temp = tempfile.mkdtemp(prefix="rt", dir="/tmp")
    port = _free_port()
    address = f"127.0.0.1:{port}"
    small_store = "80000000"  # bytes of object store a node: results pass through, briefly
    try:
        _ray("start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(port),
             "--num-cpus", "1", "--temp-dir", temp, "--include-dashboard=false",
             "--ray-client-server-port", str(_free_port()),
             "--object-store-memory", small_store, "--disable-usage-stats", env=env)
        _ray("start", "--address", address, "--node-ip-address", "127.0.0.1", "--num-cpus", "1",
             "--resources", json.dumps({SECOND_NODE: 1}), "--object-store-memory", small_store,
             "--disable-usage-stats", env=env)
        yield address, env
    finally:
        subprocess.run([shutil.which("ray", path=str(Path(sys.executable).parent)) or "ray",
                        "stop", "--force"], env=env, capture_output=True, timeout=120)
        shutil.rmtree(temp, ignore_errors=True)


def _command(args: list[str]) -> list[str]:
    return [sys.executable, "-c", "from socialbench.cli import main; main()", *args]


def _socialbench(args: list[str], env: dict[str, str] | None = None) -> str:
    done = subprocess.run(_command(args), env=env or _ray_env(), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def _processes() -> Iterator[tuple[int, int, bytes]]:
    """(pid, parent pid, command line) of this machine's processes."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue  # ended meanwhile
            yield int(entry.name), parent, line


def _second_node_busy(driver: subprocess.Popen[bytes]) -> list[int]:
    """The second node's raylet and a worker of it running a task (Ray names a worker's
    process after the task it runs), once one is: killing them loses work in flight."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert driver.poll() is None, "the run ended before the second node was seen busy"
        processes = list(_processes())
        raylets = [pid for pid, _, line in processes
                   if b"raylet/raylet" in line and SECOND_NODE.encode() in line]
        assert raylets, "the second node's raylet is not running"
        busy = [pid for pid, parent, line in processes
                if parent == raylets[0] and line.startswith(b"ray::_call")]
        if busy:
            return [raylets[0], *busy]
        time.sleep(0.05)
    raise AssertionError("the second node ran no task in 120 s")


def _agent_driver(out: Path, address: str, env: dict[str, str], stderr: int
                  ) -> subprocess.Popen[bytes]:
    """`agent generate` (rendered) on the cluster, running in the background."""
    return subprocess.Popen(_command([*AGENT_RENDERED, "--out", str(out), "--backend", "ray",
                                      "--address", address]), env=env,
                            stdout=subprocess.DEVNULL, stderr=stderr)


def _wait_for_journal(out: Path, lines: int, process: subprocess.Popen[bytes]) -> list[str]:
    deadline = time.monotonic() + 300
    journal = out / JOURNAL
    while time.monotonic() < deadline:
        assert process.poll() is None, "the run ended before it could be interrupted"
        if journal.exists():
            done = [json.loads(line)["job"] for line in journal.read_text().splitlines()
                    if line.endswith("}")]
            if len(done) >= lines:
                return done
        time.sleep(0.05)
    raise AssertionError(f"fewer than {lines} jobs done in 300 s")


@pytest.fixture(scope="module")
def agent_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("agent") / "local"
    _socialbench([*AGENT, "--out", str(out), "--workers", "2"])
    return out


@pytest.fixture(scope="module")
def rendered_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("agent_rendered") / "local"
    _socialbench([*AGENT_RENDERED, "--out", str(out), "--workers", "2"])
    return out


def test_cluster_writes_the_local_files(cluster: tuple[str, dict[str, str]], tmp_path: Path,
                                        agent_reference: Path) -> None:
    address, env = cluster
    ray = ["--backend", "ray", "--address", address]
    _socialbench([*BIB, "--out", str(tmp_path / "bib_local"), "--workers", "2"], env)
    _socialbench([*BIB, "--out", str(tmp_path / "bib_ray"), *ray], env)
    assert _tree(tmp_path / "bib_ray") == _tree(tmp_path / "bib_local")  # manifest included
    _socialbench([*AGENT, "--out", str(tmp_path / "agent_ray"), *ray], env)
    assert _tree(tmp_path / "agent_ray") == _tree(agent_reference)
    # validation's ordered map on the cluster: the same report as local workers
    for kind, out in (("bib", "bib_ray"), ("agent", "agent_ray")):
        local = _socialbench([kind, "validate", str(tmp_path / out), "--workers", "2"], env)
        assert _socialbench([kind, "validate", str(tmp_path / out), *ray], env) == local
        assert "OK" in local


def test_evaluations_on_the_cluster_give_the_local_reports(cluster: tuple[str, dict[str, str]],
                                                          agent_reference: Path,
                                                          tmp_path: Path) -> None:
    """bib evaluate rates pairs and agent evaluate plans BIPaCK's videos as Ray tasks: the
    same reports as local workers."""
    address, env = cluster
    ray = ["--backend", "ray", "--address", address]
    bib = tmp_path / "bib"
    _socialbench([*BIB, "--out", str(bib), "--workers", "2"], env)
    for evaluate in (["bib", "evaluate", "--data", str(bib), "--observer", "inverse-planning",
                      "--json"],
                     ["agent", "evaluate", "--data", str(agent_reference), "--observer",
                      "bipack", "--json"]):
        local = _socialbench([*evaluate, "--workers", "2"], env)
        assert _socialbench([*evaluate, *ray], env) == local
        assert '"inverse-planning"' in local or '"observer": "bipack"' in local


def test_driver_killed_mid_run_resumes_locally(cluster: tuple[str, dict[str, str]],
                                               tmp_path: Path, rendered_reference: Path) -> None:
    address, env = cluster
    out = tmp_path / "agent"
    driver = _agent_driver(out, address, env, stderr=subprocess.DEVNULL)
    try:
        finished = _wait_for_journal(out, 2, driver)
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    with (out / JOURNAL).open() as journal:  # what the journal held when the driver died
        records = [json.loads(line) for line in journal if line.endswith("}\n")]
    kept = {rel: os.stat(out / rel) for record in records for rel in record["files"]}
    assert len(records) >= len(finished) >= 2 and not (out / "manifest.json").exists()
    _socialbench([*AGENT_RENDERED, "--out", str(out), "--workers", "1"], env)  # resumed locally
    assert _tree(out) == _tree(rendered_reference)
    for rel, before in kept.items():  # finished work was not rebuilt
        after = os.stat(out / rel)
        assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), rel


def test_losing_a_node_mid_run_still_gives_the_same_files(cluster: tuple[str, dict[str, str]],
                                                          tmp_path: Path,
                                                          rendered_reference: Path) -> None:
    """Last in this module: the cluster has one node left after it."""
    address, env = cluster
    out = tmp_path / "agent"
    driver = _agent_driver(out, address, env, stderr=subprocess.PIPE)
    try:
        _wait_for_journal(out, 2, driver)
        for pid in _second_node_busy(driver):  # the node and the task it was running, gone
            os.kill(pid, signal.SIGKILL)
        _, errors = driver.communicate(timeout=600)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 0, errors[-3000:]
    assert _tree(out) == _tree(rendered_reference)


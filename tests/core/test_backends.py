"""The backend switch without a cluster: option parsing, Ray's absence, and the Ray path of the
runner and of the ordered map driven by a stand-in for Ray (tasks run in this process, finishing
in reverse order), so the default suite checks in seconds what the slow test checks on a real
two-node cluster (tests/core/test_backends_cluster.py)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from socialbench.core import parallel
from socialbench.core.backends import (
    LOCAL,
    Backend,
    backend_from_options,
    ray_cluster,
    using_backend,
)
from socialbench.core.errors import UserError
from socialbench.core.runner import JOURNAL_NAME, MANIFEST_NAME, Job, run_jobs
from socialbench.core.seeding import derive_seed

BUILT: list[str] = []  # jobs built in this process, in order


def build_numbers(job: Job, staging: Path) -> None:
    import numpy as np

    BUILT.append(job.name)
    rng = np.random.default_rng(job.seed)
    folder = staging / job.params["folder"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{job.name}.json").write_text(json.dumps(rng.integers(0, 1000, 50).tolist()))
    (staging / "_meta").mkdir(exist_ok=True)
    (staging / "_meta" / f"{job.name}.txt").write_bytes(rng.bytes(int(rng.integers(1, 300))))


def build_stopping_at_five(job: Job, staging: Path) -> None:
    if job.name == "n5":
        raise KeyboardInterrupt  # the driver interrupted while this job was being built
    build_numbers(job, staging)


def _jobs(n: int = 10) -> list[Job]:
    return [Job(f"n{i}", derive_seed(3, "numbers", i), {"folder": f"f{i % 3}"}) for i in range(n)]


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


class _TaskError(Exception):
    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


class FakeRay:
    """Just enough of Ray's API for the backend: tasks run when their result is asked for, and
    ``wait`` hands back the newest task first (results out of submission order)."""

    class exceptions:  # noqa: N801 - the module path the backend reads
        RayTaskError = _TaskError

    def __init__(self, cpus: int = 2) -> None:
        self.cpus, self.in_flight, self.most_in_flight = cpus, 0, 0
        self.started = self.stopped = 0
        self.options_seen: dict[str, Any] = {}
        self.stored: list[Any] = []

    def is_initialized(self) -> bool:
        return self.started > self.stopped

    def init(self, **options: Any) -> None:
        self.started += 1
        self.options_seen = options

    def shutdown(self) -> None:
        self.stopped += 1

    def cluster_resources(self) -> dict[str, float]:
        return {"CPU": float(self.cpus)}

    def nodes(self) -> list[dict[str, Any]]:
        return [{"Alive": True, "NodeID": f"{i:056x}", "NodeManagerAddress": f"10.0.0.{i}",
                 "Resources": {"CPU": float(self.cpus)}} for i in (1, 2)]

    def remote(self, function: Any) -> Any:
        fake = self

        class Task:
            def options(self, **options: Any) -> Task:
                if "scheduling_strategy" not in options:  # the shared-folder probe's tasks
                    assert options["max_retries"] >= 1  # a dead node's tasks run again
                return self

            def remote(self, *args: Any) -> tuple[Any, tuple[Any, ...]]:
                fake.in_flight += 1
                fake.most_in_flight = max(fake.most_in_flight, fake.in_flight)
                return function, args

        return Task()

    def put(self, value: Any) -> Any:
        self.stored.append(value)
        return value

    def wait(self, refs: list[Any], num_returns: int = 1) -> tuple[list[Any], list[Any]]:
        return refs[-1:], refs[:-1]

    def get(self, ref: tuple[Any, tuple[Any, ...]]) -> Any:
        self.in_flight -= 1
        function, args = ref
        try:
            return function(*args)
        except Exception as exc:  # as Ray does: the task's error, wrapped
            raise _TaskError(exc) from exc

    def cancel(self, ref: Any) -> None:
        self.in_flight -= 1


@pytest.fixture
def fake_ray(monkeypatch: pytest.MonkeyPatch) -> FakeRay:
    fake = FakeRay()
    monkeypatch.setattr(ray_cluster, "import_ray", lambda: fake)
    return fake


def test_options_name_the_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert backend_from_options("local", None) == LOCAL
    assert backend_from_options("ray", None) == Backend("ray", None)
    assert backend_from_options("ray", "10.0.0.1:6379") == Backend("ray", "10.0.0.1:6379")
    monkeypatch.setenv("RAY_ADDRESS", "head:6379")
    assert backend_from_options("ray", None) == Backend("ray", "head:6379")
    assert backend_from_options("local", None) == LOCAL  # the variable alone does not switch
    with pytest.raises(UserError, match="--backend ray"):
        backend_from_options("local", "head:6379")


def test_ray_missing_is_one_line_with_the_install_command(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as when not installed
    with pytest.raises(UserError) as caught:
        ray_cluster.import_ray()
    assert "\n" not in str(caught.value) and 'pip install -e ".[ray]"' in str(caught.value)


def test_ray_run_writes_the_local_runs_files_and_manifest(tmp_path: Path,
                                                          fake_ray: FakeRay) -> None:
    run_jobs(tmp_path / "local", _jobs(), build_numbers, workers=2, show_progress=False,
             dataset_info={"seed": 3})
    run_jobs(tmp_path / "ray", _jobs(), build_numbers, workers=2, show_progress=False,
             dataset_info={"seed": 3}, backend=Backend("ray"))
    assert _tree(tmp_path / "ray") == _tree(tmp_path / "local")  # manifest.json included
    assert fake_ray.options_seen["address"] == "local"  # no address: a Ray of our own
    assert fake_ray.options_seen["num_cpus"] == 2 and fake_ray.stopped == 1
    # results came back through a bounded window, not all ten jobs at once
    assert fake_ray.most_in_flight <= ray_cluster.WINDOW_PER_CPU * fake_ray.cpus < 10


def test_interrupted_ray_run_resumes_locally_without_rebuilding(tmp_path: Path,
                                                                fake_ray: FakeRay) -> None:
    reference = tmp_path / "reference"
    run_jobs(reference, _jobs(), build_numbers, show_progress=False)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_jobs(out, _jobs(), build_stopping_at_five, show_progress=False,
                 backend=Backend("ray", "auto"))  # "auto": no port to check
    assert fake_ray.options_seen == {**fake_ray.options_seen, "address": "auto"}
    journaled = [json.loads(line)["job"] for line in (out / JOURNAL_NAME).read_text().splitlines()]
    assert journaled and "n5" not in journaled and not (out / MANIFEST_NAME).exists()
    BUILT.clear()
    run_jobs(out, _jobs(), build_numbers, show_progress=False)  # resumed locally
    assert sorted(BUILT) == sorted(set(j.name for j in _jobs()) - set(journaled))
    assert _tree(out) == _tree(reference)


def test_a_tasks_user_error_reaches_the_driver_as_itself(fake_ray: FakeRay) -> None:
    def refuse(item: int) -> int:
        raise UserError(f"item {item} is bad")

    with using_backend(Backend("ray")), pytest.raises(UserError, match="item 0 is bad"):
        list(parallel.ordered_map(refuse, [0, 1, 2], workers=2))


def _scaled(shared: dict[str, int], item: int) -> int:
    return shared["factor"] * item


@pytest.mark.parametrize("workers", [1, 2])
def test_ordered_map_passes_shared_state_locally(workers: int) -> None:
    items = list(range(7))
    assert list(parallel.ordered_map(_scaled, items, workers, shared={"factor": 3})) == [
        3 * i for i in items]


def test_ordered_map_on_ray_keeps_the_order_and_stores_shared_once(fake_ray: FakeRay) -> None:
    items = list(range(9))
    with using_backend(Backend("ray")):
        got = list(parallel.ordered_map(_scaled, items, workers=2, shared={"factor": 5}))
    assert got == [5 * i for i in items]
    assert fake_ray.stored.count({"factor": 5}) == 1  # one copy for every task


def test_local_backend_never_imports_ray(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from socialbench.cli import main\n"
        f"result = CliRunner().invoke(main, ['bib', 'generate', '--out', {str(tmp_path)!r}, "
        "'--tasks', 'preference', '--episodes', '1', '--no-video', '--workers', '1', "
        "'--backend', 'local'])\n"
        "assert result.exit_code == 0, result.output\n"
        "print('ray' in sys.modules)\n")
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True)
    assert shown.stdout.strip() == "False"
    assert (tmp_path / MANIFEST_NAME).exists()


@pytest.mark.slow  # the local study spawns a process that imports PyTorch: ~15 s
def test_study_runs_as_ray_tasks_give_the_local_table(tmp_path: Path, fake_ray: FakeRay) -> None:
    from socialbench.rl.study import run_study

    options = {"conditions": ["random"], "variants": ["original"], "seeds": 2, "frames": 1,
               "episodes": 3}
    local = run_study(tmp_path / "local", **options)
    with using_backend(Backend("ray", "auto")):
        on_ray = run_study(tmp_path / "ray", **options)
    assert on_ray == local
    assert fake_ray.options_seen["address"] == "auto"


@pytest.mark.parametrize("fixed, expected", [(True, 3), (False, 1)])
def test_study_threads_on_ray_fixed_or_from_the_largest_node(
        tmp_path: Path, fake_ray: FakeRay, monkeypatch: pytest.MonkeyPatch, fixed: bool,
        expected: int) -> None:
    """--threads fixes every run's PyTorch threads on Ray as locally (bit-identical runs);
    without it a run gets the largest node's CPUs (2 here) / workers."""
    from socialbench.rl import study

    seen: list[int] = []
    monkeypatch.setattr(study, "run_job", lambda job, out: seen.append(job.threads) or {})
    job = study.Job("random", "original", 0, 1, 3, "bf16", 3, 40)
    with using_backend(Backend("ray", "auto")):
        list(study._run_all([job], tmp_path, workers=2, fixed_threads=fixed))
    assert seen == [expected]


def test_a_folder_some_node_does_not_see_is_refused(tmp_path: Path, fake_ray: FakeRay,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray")  # the probe pins a task to each node with Ray's own strategy
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "manifest.json").write_text("{}")
    ray_cluster.require_shared_folder(tmp_path / "data", writable=True)  # both nodes see it
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["manifest.json"]
    seen_here = ray_cluster._fingerprint
    calls = []

    def second_node_blind(folder: str) -> str:  # the second node has another disk there
        calls.append(folder)
        return seen_here(folder) if len(calls) % 3 != 0 else "unreadable: No such file"

    monkeypatch.setattr(ray_cluster, "_fingerprint", second_node_blind)
    with pytest.raises(UserError, match=r"10\.0\.0\.2 .* do not see .*data.* same path"):
        ray_cluster.require_shared_folder(tmp_path / "data", writable=False)


def test_an_address_nobody_answers_at_is_one_line(tmp_path: Path, fake_ray: FakeRay) -> None:
    with socket.socket() as closed:  # a port that was free a moment ago: nothing listens
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(UserError, match=f"no Ray cluster answers at 127.0.0.1:{port}") as caught:
        run_jobs(tmp_path, _jobs(2), build_numbers, show_progress=False,
                 backend=Backend("ray", f"127.0.0.1:{port}"))
    assert "\n" not in str(caught.value) and fake_ray.started == 0

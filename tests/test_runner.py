"""The shared generation runner: determinism across workers, resume, manifest safety."""

import json
from pathlib import Path

import pytest

from socialbench.core.errors import UserError
from socialbench.core.runner import (
    JOURNAL_NAME,
    Job,
    load_manifest,
    run_jobs,
    verify_manifest,
)
from socialbench.core.seeding import derive_seed


def build_numbers(job: Job, staging: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(job.seed)
    (staging / job.params["folder"]).mkdir(parents=True, exist_ok=True)
    (staging / job.params["folder"] / f"{job.name}.json").write_text(
        json.dumps(rng.integers(0, 1000, 20).tolist()))


def build_fail_on_three(job: Job, staging: Path) -> None:
    if job.name == "n3":
        raise KeyboardInterrupt
    build_numbers(job, staging)


def _jobs(n: int = 8) -> list[Job]:
    return [Job(f"n{i}", derive_seed(7, "numbers", i), {"folder": f"f{i % 2}"}) for i in range(n)]


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_derive_seed_is_stable() -> None:
    assert derive_seed(1, "a", 2) == derive_seed(1, "a", 2)
    assert derive_seed(1, "a", 2) != derive_seed(1, "a", 3)
    assert 0 <= derive_seed(123, "x") < 2**63


def test_same_bytes_whatever_the_worker_count(tmp_path: Path) -> None:
    run_jobs(tmp_path / "one", _jobs(), build_numbers, workers=1, show_progress=False,
             dataset_info={"seed": 7})
    run_jobs(tmp_path / "two", _jobs(), build_numbers, workers=2, show_progress=False,
             dataset_info={"seed": 7})
    assert _tree(tmp_path / "one") == _tree(tmp_path / "two")
    assert verify_manifest(tmp_path / "one") == []


def test_interrupted_run_resumes_without_redoing(tmp_path: Path) -> None:
    out = tmp_path / "d"
    with pytest.raises(KeyboardInterrupt):
        run_jobs(out, _jobs(), build_fail_on_three, show_progress=False)
    assert not (out / "manifest.json").exists()  # nothing claims to be complete
    journal = (out / JOURNAL_NAME).read_text().splitlines()
    assert [json.loads(line)["job"] for line in journal] == ["n0", "n1", "n2"]
    before = (out / "f0" / "n0.json").stat().st_mtime_ns
    run_jobs(out, _jobs(), build_numbers, show_progress=False)
    assert (out / "f0" / "n0.json").stat().st_mtime_ns == before  # not rebuilt
    fresh = tmp_path / "fresh"
    run_jobs(fresh, _jobs(), build_numbers, show_progress=False)
    assert _tree(out) == _tree(fresh)


def test_other_options_are_refused(tmp_path: Path) -> None:
    run_jobs(tmp_path, _jobs(2), build_numbers, show_progress=False, dataset_info={"seed": 1})
    with pytest.raises(UserError, match="other options"):
        run_jobs(tmp_path, _jobs(2), build_numbers, show_progress=False, dataset_info={"seed": 2})


def test_corrupted_file_is_reported_and_unsafe_paths_refused(tmp_path: Path) -> None:
    run_jobs(tmp_path, _jobs(2), build_numbers, show_progress=False)
    (tmp_path / "f0" / "n0.json").write_text("[1, 2]")
    assert verify_manifest(tmp_path) == ["f0/n0.json: checksum differs from the manifest"]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["files"]["../escape.json"] = {"bytes": 1, "sha256": "0"}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(UserError, match="unsafe path"):
        load_manifest(tmp_path)

"""AGENT dataset generation: split counts, determinism, resume, bad input."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from socialbench.agent3d import generate as gen
from socialbench.agent3d.io import load_trial
from socialbench.cli import main
from socialbench.core.errors import UserError


def test_paper_counts_at_scale_one():
    totals = {"train": 0, "validation": 0, "test": 0}
    for trial_type in gen.PAPER_COUNTS:
        for split, n in gen.split_counts(trial_type, 1.0).items():
            totals[split] += n
    # agent spec: 960 test trials = 480 expected/surprising pairs, one folder each
    assert totals == {"train": 1920, "validation": 480, "test": 480}
    assert gen.split_counts("3.2", 1.0) == {"train": 240, "validation": 60, "test": 60}


def test_validation_is_a_seeded_fifth_of_each_pool():
    jobs = gen.plan_jobs(seed=3, types=["2.1"], splits=gen.SPLITS, scale=1.0)
    by_split = {s: [j for j in jobs if j.params["split"] == s] for s in gen.SPLITS}
    assert [len(by_split[s]) for s in gen.SPLITS] == [80, 20, 20]
    assert len({j.seed for j in jobs}) == len(jobs)
    again = gen.plan_jobs(seed=3, types=["2.1"], splits=("validation",), scale=1.0)
    assert [j.seed for j in again] == [j.seed for j in by_split["validation"]]
    other = gen.plan_jobs(seed=4, types=["2.1"], splits=("validation",), scale=1.0)
    assert [j.seed for j in other] != [j.seed for j in again]


def test_small_scales_keep_every_type_and_split():
    for trial_type in gen.PAPER_COUNTS:
        assert min(gen.split_counts(trial_type, 1e-6).values()) >= 1


def test_bad_options_are_one_line_user_errors():
    with pytest.raises(UserError, match="unknown trial type"):
        gen.parse_types("2.1,9.9")
    with pytest.raises(UserError, match="--scale"):
        gen.split_counts("2.1", 0.0)
    result = CliRunner().invoke(main, ["agent", "generate", "--out", "x", "--types", "7.7"])
    assert result.exit_code == 2 and "unknown trial type" in result.output
    assert len(result.output.strip().splitlines()) == 1


def _files(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_same_seed_same_bytes_whatever_the_workers(tmp_path):
    kwargs = dict(seed=5, types=["2.1", "1.1"], splits=("test",), scale=0.01,
                  show_progress=False)
    gen.generate(tmp_path / "one", workers=1, **kwargs)
    gen.generate(tmp_path / "two", workers=2, **kwargs)
    one, two = _files(tmp_path / "one"), _files(tmp_path / "two")
    assert one == two
    trial = load_trial(tmp_path / "one" / "scenario_2_action_efficiency/type_2.1/test_set/Trial_0")
    assert trial.trial_type == "2.1" and trial.surprising is not None
    meta = json.loads((tmp_path / "one" / "scenario_2_action_efficiency/type_2.1/test_set/"
                       "Trial_0/trial.json").read_text())
    assert meta["test"] == {"expected": "expected", "surprising": "surprising"}


def test_interrupted_run_resumes_to_the_same_files(tmp_path, monkeypatch):
    kwargs = dict(seed=6, types=["2.2"], splits=("train", "test"), scale=0.01,
                  show_progress=False)
    gen.generate(tmp_path / "clean", **kwargs)
    real = gen.make_trial
    calls = {"n": 0}

    def flaky(*args, **kw):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(gen, "make_trial", flaky)
    with pytest.raises(KeyboardInterrupt):
        gen.generate(tmp_path / "resumed", **kwargs)
    assert not (tmp_path / "resumed" / "manifest.json").exists()
    monkeypatch.setattr(gen, "make_trial", real)
    gen.generate(tmp_path / "resumed", **kwargs)
    assert _files(tmp_path / "clean") == _files(tmp_path / "resumed")

"""AGENT's counts (agent spec, "Dataset"): 3,360 trials = 1,920 train / 480 validation / 960
test trials, the test trials being 480 expected/surprising pairs; 8,400 videos. And the
validator's count and counterbalancing checks."""

from __future__ import annotations

import shutil

import pytest

from socialbench.agent3d import counts, generate
from socialbench.agent3d.io import TRIAL_FILE, find_trials, read_json, write_json
from socialbench.agent3d.schema import TRIAL_TYPES
from socialbench.agent3d.validate import check_dataset
from socialbench.agent3d.validate_design import check_cues

# agent spec: per type train/val/test trials, transcribed again here (not imported)
SPEC = {"1.1": (120, 30, 60), "1.2": (160, 40, 80), "1.3": (120, 30, 60), "1.4": (160, 40, 80),
        "2.1": (80, 20, 40), "2.2": (80, 20, 40), "2.3": (80, 20, 40), "2.4": (160, 40, 80),
        "2.5": (80, 20, 40), "3.1": (160, 40, 80), "3.2": (240, 60, 120),
        "4.1": (240, 60, 120), "4.2": (240, 60, 120)}


def test_each_type_holds_the_papers_trials_with_pairs_as_test_folders():
    for trial_type, (train, val, test) in SPEC.items():
        n = counts.split_counts(trial_type, 1.0)
        assert (n["train"], n["validation"]) == (train, val)
        assert 2 * n["test"] == test  # e.g. 1.1: 60 test trials = 30 folders (E + S)
    assert counts.split_counts("1.1", 1.0)["test"] == 30


def test_totals_and_videos_at_scale_one():
    total = {s: sum(counts.split_counts(t, 1.0)[s] for t in TRIAL_TYPES) for s in counts.SPLITS}
    assert total == {"train": 1920, "validation": 480, "test": 480}
    assert total["train"] + total["validation"] + 2 * total["test"] == 3360
    # videos by hand: train/validation folders hold familiarization + expected, test folders
    # familiarization + expected + surprising; 4 familiarization videos in scenario 4, else 1
    videos = 0
    for trial_type, (train, val, test) in SPEC.items():
        fam = 4 if trial_type.startswith("4") else 1
        videos += (train + val) * (fam + 1) + test // 2 * (fam + 2)
    assert videos == 8400 == counts.dataset_videos(1.0)  # agent spec: 8,400 videos


def test_plan_jobs_make_the_counts_and_counterbalanced_pairs():
    jobs = generate.plan_jobs(seed=2, types=TRIAL_TYPES, splits=("test",), scale=1.0)
    assert len(jobs) == 480
    tests = [j for j in jobs if j.params["trial_type"] == "4.2"]
    assert len(tests) == 60
    for a, b in zip(tests[::2], tests[1::2], strict=True):
        assert all(a.params["balance"][k] != b.params["balance"][k] for k in a.params["balance"])


def test_every_split_is_counterbalanced_on_its_own():
    jobs = generate.plan_jobs(seed=5, types=["1.3"], splits=generate.SPLITS, scale=1.0)
    for split in generate.SPLITS:
        rows = [j.params["balance"] for j in jobs if j.params["split"] == split]
        for cue in rows[0]:
            assert sum(r[cue] for r in rows) in (len(rows) // 2, (len(rows) + 1) // 2)


def test_small_scales_keep_a_test_pair_per_type():
    for trial_type in TRIAL_TYPES:
        assert counts.split_counts(trial_type, 1e-6)["test"] == 1


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("agent")
    generate.generate(root, seed=4, types=["1.1", "2.1"], scale=0.05, show_progress=False)
    return root


def test_validator_accepts_the_generated_counts_and_cues(dataset):
    assert check_dataset(dataset, find_trials(dataset)) == []


def test_validator_names_a_missing_test_pair(dataset, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy)
    victim = next(t for t in find_trials(copy) if read_json(t / TRIAL_FILE)["split"] == "test"
                  and read_json(t / TRIAL_FILE)["trial_type"] == "2.1")
    shutil.rmtree(victim)
    problems = check_dataset(copy, find_trials(copy))
    assert any("type 2.1 test: 0 trial folders" in p and "makes 1" in p for p in problems)


def test_validator_names_a_test_set_twice_the_papers(dataset, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy)
    manifest = read_json(copy / "manifest.json")
    manifest["dataset"]["scale"] = 0.1  # this scale would make more trials than are there
    write_json(copy / "manifest.json", manifest)
    assert any("the manifest's scale 0.1" in p for p in check_dataset(copy, find_trials(copy)))


def test_cue_check_names_an_unbalanced_cue():
    rows = [{"lower_id": True, "left": True}, {"lower_id": True, "left": False}]
    (problem,) = check_cues({"4.1": rows})
    assert "has the lower id in 2 of 2" in problem

"""The Table 1 shipped for `socialbench run`: its figures follow from its own per-seed scores,
and its Welch t-tests read as one line (the tour and `study`'s table1.md)."""

from __future__ import annotations

import json

import pytest

from socialbench.rl.study import SHIPPED_TABLE, summarise, welch_summary


def test_the_shipped_means_and_tests_follow_from_its_per_seed_scores():
    shipped = json.loads(SHIPPED_TABLE.read_text())
    conditions = list(shipped["rows"])
    variants = ["original", "no-liar"]
    entries = [{"condition": c, "variant": v, "seed": seed, "frames": cell["frames"],
                "success": rate, "t_max": cell["t_max"][0]}
               for c in conditions for v in variants
               for cell in [shipped["rows"][c][v]]
               for seed, rate in enumerate(cell["per_seed"])]
    again = summarise(entries, conditions, variants)
    for c in conditions:
        for v in variants:
            cell, recomputed = shipped["rows"][c][v], again["rows"][c][v]
            assert cell["seeds"] == len(cell["per_seed"])
            assert cell["mean"] == pytest.approx(recomputed["mean"], abs=1e-4)
            assert cell["std"] == pytest.approx(recomputed["std"], abs=1e-4)
    pairs = [(t["variant"], t["a"], t["b"]) for t in shipped["welch"]]
    assert pairs == [(t["variant"], t["a"], t["b"]) for t in again["welch"]]
    for test, recomputed in zip(shipped["welch"], again["welch"], strict=True):
        assert test["p"] == pytest.approx(recomputed["p"], abs=1e-4)
        assert test["significant"] == recomputed["significant"]


def test_the_welch_summary_names_each_pair_with_its_seeds_and_length():
    measured = {
        "rows": {"mh-babyai": {"no-liar": {"seeds": 3, "frames": 1_088_000}},
                 "deaf": {"no-liar": {"seeds": 4, "frames": 2_688_000}}},
        "welch": [{"variant": "no-liar", "a": "mh-babyai", "b": "deaf", "t": -0.5,
                   "p": 0.634, "significant": False}],
    }
    note = welch_summary(measured)
    assert "no-liar: MH-BabyAI vs Deaf-MH-BabyAI do not differ (p=0.63; " in note
    assert "n=3 at 1.1M vs n=4 at 2.7M" in note
    assert "in the paper MH-BabyAI and Deaf do not differ" in note
    assert welch_summary({"rows": {}, "welch": []}) is None


def test_the_welch_summary_quotes_the_paper_only_for_the_pair_it_compared():
    measured = {
        "rows": {"mh-babyai": {"original": {"seeds": 2, "frames": 1_000_000}},
                 "random": {"original": {"seeds": 2, "frames": 0}}},
        "welch": [{"variant": "original", "a": "mh-babyai", "b": "random", "t": 5.0,
                   "p": 0.01, "significant": True}],
    }
    note = welch_summary(measured)
    assert "original: MH-BabyAI vs Random differ (p=0.01; " in note
    assert "in the paper" not in note

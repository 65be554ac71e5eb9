"""The evaluation loop on tiny hand-made pairs, with a scripted observer."""

import numpy as np
import pytest

from socialbench.bib.schema import Episode
from socialbench.voe.evaluate import OVERALL, rate_pairs, rate_pairs_many, summarize
from socialbench.voe.observer import Observer
from socialbench.voe.report import comparison_table, markdown_table, results_json


class Scripted(Observer):
    """Surprise per step scripted as the test trial itself."""

    name = "scripted"
    benchmark = "bib"

    def surprise_per_step(self, episode):
        return np.asarray(episode.test, dtype=float)


def ep(name, steps):
    return Episode(trials=[steps], name=name)


PAIRS = [
    ("preference", ep("p1e", [0.1, 0.5]), ep("p1u", [0.2, 2.0])),  # max: .5 < 2 right
    ("preference", ep("p2e", [3.0]), ep("p2u", [1.0])),  # wrong
    ("multi_agent", ep("m1e", [1.0, 1.0]), ep("m1u", [0.0, 1.0])),  # max tie; mean .5 < 1
]


def test_rates_with_max_or_mean_and_scores_per_task():
    ratings = rate_pairs(Scripted(), PAIRS, progress=False)
    assert [(r.task, r.name, r.expected, r.unexpected) for r in ratings] == [
        ("preference", "p1e", 0.5, 2.0), ("preference", "p2e", 3.0, 1.0),
        ("multi_agent", "m1e", 1.0, 1.0)]
    results = summarize(ratings, n_boot=200)
    assert list(results) == ["preference", "multi_agent", OVERALL]
    assert results["preference"].relative_accuracy == 0.5
    assert results["preference"].auc == 0.5  # e: .5, 3; u: 2, 1 -> (2>.5) + (1>.5) of 4 pairs
    assert results["multi_agent"].relative_accuracy == 0.5 and results["multi_agent"].ties == 1
    assert results[OVERALL].relative_accuracy == pytest.approx(1.5 / 3)
    assert summarize(ratings, ties="correct")["multi_agent"].relative_accuracy == 1.0
    mean = summarize(rate_pairs(Scripted(), PAIRS, reduce="mean", progress=False))
    assert mean["multi_agent"].relative_accuracy == 0.0  # mean e = 1 > mean u = .5


def test_task_order_and_determinism():
    ratings = rate_pairs(Scripted(), PAIRS, progress=False)
    ordered = summarize(ratings, order=["multi_agent", "preference"])
    assert list(ordered)[:2] == ["multi_agent", "preference"]
    again = summarize(rate_pairs(Scripted(), PAIRS, progress=False))
    assert again == summarize(ratings)


def test_paths_are_loaded_one_pair_at_a_time(tmp_path):
    loaded = []

    def load(path):
        loaded.append(path.name)
        return ep(path.stem, [1.0 if path.stem.endswith("u") else 0.0])

    pairs = [("t", tmp_path / "ae", tmp_path / "au")]
    many = rate_pairs_many([Scripted()], pairs, load=load, progress=False)
    assert loaded == ["ae", "au"]
    assert many["scripted"][0].expected == 0.0 and many["scripted"][0].unexpected == 1.0


def test_json_and_tables_report_every_task():
    results = summarize(rate_pairs(Scripted(), PAIRS, progress=False), n_boot=100)
    out = results_json("scripted", results)
    assert out["observer"] == "scripted"
    assert set(out["tasks"]) == {"preference", "multi_agent"}
    assert set(out["tasks"]["preference"]) >= {"relative_accuracy", "auc", "pairs"}
    assert out["overall"]["pairs"] == 3
    md = markdown_table({"scripted": results})
    assert "| preference | 2 | 50.0 |" in md
    table = comparison_table({"scripted": results}, published={"preference": {"HBToM": 99.7}},
                             models=["HBToM"])
    assert table.row_count == 2


def test_worker_processes_give_the_same_ratings():
    many = PAIRS * 3
    one = rate_pairs(Scripted(), many, progress=False)
    two = rate_pairs(Scripted(), many, progress=False, workers=2)
    assert one == two

"""The shipped BIB Table 1 (ours beside the paper's) and how a column is put into it."""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from socialbench.bib.published import TABLE1, TABLE1_COLUMNS
from socialbench.core.errors import UserError
from socialbench.observers.bib.table1 import measured_table1, set_column


def test_the_papers_table1_has_its_four_columns():
    assert TABLE1_COLUMNS == ("mask 2D", "video 2D", "video new shapes", "video 3D")
    assert TABLE1["mask 2D"]["preference"] == (69.0, 69.0)
    assert TABLE1["video new shapes"]["instrumental_blocking_barrier"] == (59.7, 58.0)
    assert TABLE1["video 3D"]["inaccessible_goal"] == (40.0, 43.2)
    assert "instrumental_no_barrier" not in TABLE1["video 3D"]  # no instrumental rows in 3D


def test_every_paper_cell_has_a_shipped_measurement():
    measured = measured_table1()
    for column in TABLE1_COLUMNS:
        tasks = measured[column]["tasks"]
        assert set(TABLE1[column]) <= set(tasks), column
        for numbers in tasks.values():
            low, high = numbers["relative_accuracy_ci"]
            assert low <= numbers["relative_accuracy"] <= high and numbers["pairs"] > 0
            assert 0 <= numbers["auc"] <= 1


def test_a_column_is_set_from_an_evaluation_and_read_back(tmp_path):
    path = tmp_path / "table1.json"
    evaluation = {"observer": "video", "tasks": {"preference": {
        "relative_accuracy": 0.6, "auc": 0.55, "pairs": 10, "relative_accuracy_ci": [0.3, 0.9],
        "auc_ci": [0.4, 0.7], "ties": 1}}, "overall": {
        "relative_accuracy": 0.6, "auc": 0.55, "pairs": 10, "relative_accuracy_ci": [0.3, 0.9]}}
    set_column("video 2D", evaluation, "trained on x", "10 pairs", path=path)
    set_column("mask 2D", evaluation, "trained on y", "10 pairs", path=path)
    columns = measured_table1(path)
    assert list(columns) == ["mask 2D", "video 2D"]  # the paper's order
    assert columns["video 2D"]["tasks"]["preference"] == {
        "relative_accuracy": 0.6, "relative_accuracy_ci": [0.3, 0.9], "auc": 0.55, "pairs": 10}
    assert columns["video 2D"]["tasks"]["overall"]["pairs"] == 10  # all pairs: bib evaluate's
    with pytest.raises(UserError, match="unknown Table 1 column"):
        set_column("video 4D", evaluation, "", "", path=path)
    with pytest.raises(UserError, match="bib evaluate --json"):
        set_column("video 3D", {"observer": "video"}, "", "", path=path)
    path.write_text(json.dumps({"format": "other"}))
    with pytest.raises(UserError, match="not a BIB Table 1 file"):
        measured_table1(path)


def test_the_tour_prints_table1_beside_the_paper():
    from socialbench.commands.tour.bib_table1 import table1_rows

    console = Console(width=200, record=True)
    table1_rows(console)
    text = console.export_text()
    assert "BIB Table 1" in text and "69.0/69.0" in text and "docs/bib_baselines.md" in text
    measured = measured_table1()["mask 2D"]["tasks"]["preference"]
    assert f"{100 * measured['relative_accuracy']:.1f}/{100 * measured['auc']:.1f}" in text


@pytest.mark.slow  # a few seconds: generates and rates pairs
def test_the_mask_ratings_script_writes_a_column_table1_takes(tmp_path):
    """`scripts/mask_ratings.py --json` writes what `bib evaluate --json` writes, so the mask
    column goes into Table 1 the way the video columns do."""
    import subprocess
    import sys
    from pathlib import Path

    torch = pytest.importorskip("torch")
    from socialbench.observers.bib.mask import MaskObserver

    torch.manual_seed(0)
    MaskObserver().save(tmp_path / "mask.pt")
    script = Path(__file__).resolve().parents[2] / "scripts" / "mask_ratings.py"
    out = tmp_path / "eval.json"
    subprocess.run([sys.executable, str(script), str(tmp_path / "mask.pt"), "--generate", "eval",
                    "--episodes", "1", "--tasks", "preference,efficiency_path", "--seed", "1",
                    "--json", str(out)], check=True, capture_output=True)
    evaluation = json.loads(out.read_text())
    assert evaluation["observer"] == "mask"
    assert set(evaluation["tasks"]) == {"preference", "efficiency_path"}
    table = tmp_path / "table1.json"
    set_column("mask 2D", evaluation, "untrained", "2 pairs", path=table)
    assert measured_table1(table)["mask 2D"]["tasks"]["overall"]["pairs"] == 2

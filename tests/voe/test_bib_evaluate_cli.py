"""`socialbench bib evaluate` end to end on hand-made datasets (our layout and a flat folder)."""

import json

import pytest
from click.testing import CliRunner

from socialbench.bib.io import dump_episode
from socialbench.cli import main
from socialbench.observers.bib import handmade as hm

START = (2, 2)
OBJECTS = [("heart", (7, 2)), ("moon", (2, 7))]
SWAPPED = [("heart", (2, 7)), ("moon", (7, 2))]
RIGHT = [START, (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)]
UP = [START, (2, 3), (2, 4), (2, 5), (2, 6), (2, 7)]


def write_pair(folder, name):
    fam = [hm.trial(hm.OPEN, OBJECTS, RIGHT) for _ in range(8)]
    dump_episode(hm.episode(fam, hm.trial(hm.OPEN, SWAPPED, UP, goal=0)), folder / f"{name}e.json")
    dump_episode(hm.episode(fam, hm.trial(hm.OPEN, SWAPPED, RIGHT, goal=1)),
                 folder / f"{name}u.json")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("bib")
    write_pair(root / "preference", "000000pr")
    write_pair(root / "preference", "000001pr")
    write_pair(root / "multi_agent", "000000ma")
    return root


def run(*args):
    return CliRunner().invoke(main, ["bib", "evaluate", *args])


def test_json_has_the_documented_shape(dataset):
    result = run("--data", str(dataset), "--observer", "inverse-planning", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["observer"] == "inverse-planning"
    assert set(out["tasks"]) == {"preference", "multi_agent"}
    pref = out["tasks"]["preference"]
    assert pref["pairs"] == 2 and pref["relative_accuracy"] == 1.0 and pref["auc"] == 1.0
    assert out["overall"]["pairs"] == 3


def test_table_shows_published_numbers_and_task_filter(dataset):
    result = run("--data", str(dataset), "--observer", "shortcut-path", "--tasks", "preference",
                 "--reduce", "mean")
    assert result.exit_code == 0, result.output
    assert "preference" in result.output and "99.7" in result.output  # HBToM beside
    assert "multi_agent" not in result.output


def test_flat_folder_is_one_task(tmp_path):
    write_pair(tmp_path, "000010lo")
    result = run("--data", str(tmp_path), "--observer", "shortcut-nearest", "--json")
    assert result.exit_code == 0, result.output
    assert list(json.loads(result.stdout.strip().splitlines()[-1])["tasks"]) == [tmp_path.name]


@pytest.mark.parametrize("args, message", [
    (["--observer", "nope"], "unknown bib observer 'nope'"),
    (["--observer", "shortcut-key", "--tasks", "preferense"], "no pairs for task(s) preferense"),
    (["--observer", "shortcut-key", "--train", "x"], "is not trained"),
])
def test_bad_input_is_one_line(dataset, args, message):
    result = run("--data", str(dataset), *args)
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines[-1].startswith("error:") and message in lines[-1]


def test_missing_or_empty_data(tmp_path):
    missing = run("--data", str(tmp_path / "nothing"), "--observer", "shortcut-key")
    assert missing.exit_code == 2 and "does not exist" in missing.output
    empty = run("--data", str(tmp_path), "--observer", "shortcut-key")
    assert empty.exit_code == 2 and "no expected/unexpected pairs" in empty.output


def test_audit_prints_every_observer_beside_hbtom(dataset):
    result = CliRunner().invoke(main, ["bib", "audit", str(dataset), "--max-pairs", "2"],
                                env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "inv.plan" in result.output and "HBToM" in result.output
    assert "99.7" in result.output
    assert "preference" in result.output and "multi-agent" in result.output


def test_audit_markdown_has_one_column_per_observer(dataset):
    result = CliRunner().invoke(main, ["bib", "audit", str(dataset), "--markdown",
                                       "--observers", "shortcut-nearest,inverse-planning"])
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if line.startswith("| sub-"))
    assert header == ("| sub-evaluation | pairs | shortcut-nearest | inverse-planning | "
                      "HBToM (pub.) |")
    preference = next(line for line in result.output.splitlines()
                      if line.startswith("| preference"))
    cells = preference.split("|")
    assert "**" in cells[3] and "**" not in cells[4]  # built to defeat nearest: in bold

"""`socialbench talkitout eval/compare/solvable` and the statistics behind them."""

import json

import pytest
from click.testing import CliRunner

from socialbench.cli import main
from socialbench.core.errors import UserError
from socialbench.talkitout.evaluate import evaluate, load_result, welch_t_test


def run(*args):
    return CliRunner().invoke(main, ["talkitout", *args])


def test_eval_json_has_the_documented_shape():
    result = run("eval", "--agent", "oracle", "--variant", "no-liar", "--episodes", "20",
                 "--seeds", "2", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"agent", "variant", "episodes", "seeds", "success_mean", "success_std",
                         "per_seed"}
    assert (data["agent"], data["variant"], data["episodes"], data["seeds"]) == (
        "oracle", "no-liar", 20, 2)
    assert len(data["per_seed"]) == 2 and data["success_mean"] == 1.0


def test_eval_table_output():
    result = run("eval", "--agent", "random", "--episodes", "10", "--seeds", "2")
    assert result.exit_code == 0 and "mean +- std" in result.output


@pytest.mark.parametrize("args, message", [
    (("--agent", "ppo"), "unknown TalkItOut agent 'ppo'"),
    (("--variant", "liars"), "unknown TalkItOut variant 'liars'"),
    (("--episodes", "0"), "at least 1"),
])
def test_bad_names_are_one_line_errors(args, message):
    result = run("eval", *args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.output


def test_test_set_is_fixed_and_results_reproducible():
    a = evaluate("door-guess", "original", episodes=40, seeds=2, show_progress=False)
    b = evaluate("door-guess", "original", episodes=40, seeds=2, show_progress=False)
    assert a == b
    oracle = evaluate("oracle", "original", episodes=40, seeds=2, show_progress=False)
    assert oracle.per_seed[0] == oracle.per_seed[1]  # the oracle does not use its seed here


def test_welch_t_test_matches_the_hand_computed_value():
    # a: mean 2, var 1 (n=3); b: mean 5, var 4 (n=3): t = -3 / sqrt(1/3 + 4/3) = -2.3238
    t, p = welch_t_test([1, 2, 3], [3, 5, 7])
    assert t == pytest.approx(-2.32379, abs=1e-4)
    assert 0.05 < p < 0.2
    assert welch_t_test([0.5, 0.5], [0.5, 0.5]) == (0.0, 1.0)
    with pytest.raises(UserError):
        welch_t_test([1.0], [1.0, 2.0])


def test_compare_reads_two_result_files(tmp_path):
    files = []
    for name, rates in (("a", [0.25, 0.26, 0.24]), ("b", [0.95, 0.96, 0.97])):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"agent": name, "variant": "original", "episodes": 100,
                                    "seeds": 3, "success_mean": sum(rates) / 3,
                                    "success_std": 0.01, "per_seed": rates}))
        files.append(str(path))
    result = run("compare", *files)
    assert result.exit_code == 0 and "significant at p < 0.05" in result.output
    assert "not significant" not in result.output
    bad = tmp_path / "bad.json"
    bad.write_text("{\"agent\": 1}")
    result = run("compare", files[0], str(bad))
    assert result.exit_code == 2 and "not a TalkItOut result" in result.output
    with pytest.raises(UserError, match="no such file"):
        load_result(tmp_path / "missing.json")


def test_solvable_reports_the_informed_plan_share():
    result = run("solvable", "--variant", "no-liar", "--episodes", "50")
    assert result.exit_code == 0 and "1.000 solvable within t_max" in result.output


def test_eval_save_writes_the_result_and_resumes_from_the_journal(tmp_path):
    out = tmp_path / "r.json"
    journal = tmp_path / "r.json.partial"
    # A journal left by an interrupted run: seed 0 done (with a made-up rate to prove reuse),
    # an entry for another configuration and a line cut short.
    key = json.dumps(["random", "original", 10, [["t_max", 40]]])
    journal.write_text(json.dumps({"key": key, "seed": 0, "rate": 0.5}) + "\n"
                       + json.dumps({"key": "other", "seed": 1, "rate": 0.9}) + "\n{\"key\"")
    result = run("eval", "--agent", "random", "--episodes", "10", "--seeds", "2", "--json",
                 "--save", str(out))
    assert result.exit_code == 0, result.output
    saved = json.loads(out.read_text())
    assert saved == json.loads(result.output)
    assert saved["per_seed"][0] == 0.5 and saved["per_seed"][1] != 0.9
    assert not journal.exists()


def test_tour_prints_reference_agents_beside_table_1():
    from rich.console import Console

    from socialbench.commands.tour.talkitout import tour

    console = Console(record=True, width=140)
    tour(console, quick=True, episodes=10, demo_frames=640)
    text = console.export_text()
    for row in ("MH-BabyAI-EB", "Deaf-MH-BabyAI", "0.236 +- 0.010", "0.005 +- 0.002",
                "random (reference agent)", "door-guess", "oracle",
                "Training demo: MH-BabyAI-EB, no-liar, 640 frames"):
        assert row in text

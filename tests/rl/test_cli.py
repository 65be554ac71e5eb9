"""`socialbench talkitout train`, `eval --checkpoint` and `study` from the command line."""

import json

import pytest
from click.testing import CliRunner

from socialbench.cli import main
from socialbench.core.errors import UserError
from socialbench.rl.conditions import parse_condition
from socialbench.rl.study import Job, read_results, run_job, summarise, table_markdown


def run(*args):
    return CliRunner().invoke(main, ["talkitout", *args])


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    result = run("train", "--model", "mh-babyai", "--exploration-bonus", "--variant", "no-liar",
                 "--frames", "1280", "--out", str(out), "--threads", "1")
    assert result.exit_code == 0, result.output
    return out


def test_train_writes_a_complete_run_folder(trained):
    for name in ("config.json", "log.csv", "checkpoint.pt", "curve.png"):
        assert (trained / name).exists(), name
    assert any((trained / "tb").iterdir())  # TensorBoard events
    config = json.loads((trained / "config.json").read_text())
    assert config["variant"] == "no-liar" and config["ppo"]["exploration_bonus"]


def test_eval_checkpoint_gives_the_reference_agents_json(trained):
    result = run("eval", "--checkpoint", str(trained), "--episodes", "30", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"agent", "variant", "episodes", "seeds", "success_mean",
                         "success_std", "per_seed"}
    assert data["variant"] == "no-liar" and data["episodes"] == 30 and data["seeds"] == 1
    assert data["agent"].startswith("MH-BabyAI-EB")


def test_eval_checkpoint_is_reproducible(trained):
    a = run("eval", "--checkpoint", str(trained), "--episodes", "30", "--json",
            "--variant", "original")
    b = run("eval", "--checkpoint", str(trained), "--episodes", "30", "--json",
            "--variant", "original")
    assert a.output == b.output and json.loads(a.output)["variant"] == "original"


@pytest.mark.parametrize("args, message", [
    (("eval", "--checkpoint", "/nonexistent/run"), "no such checkpoint"),
    (("train", "--variant", "liars", "--out", "X"), "unknown TalkItOut variant"),
    (("train", "--no-memory", "--text", "attgru", "--out", "X"), "attgru"),
    (("study", "--conditions", "ppo", "--out", "X"), "unknown condition"),
])
def test_user_errors_are_one_line(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_a_corrupt_checkpoint_is_a_clear_error(tmp_path):
    (tmp_path / "checkpoint.pt").write_bytes(b"not a checkpoint")
    result = run("eval", "--checkpoint", str(tmp_path))
    assert result.exit_code == 2 and "not a TalkItOut training checkpoint" in result.output


def test_condition_names():
    eb = parse_condition("mh-babyai-eb-no-mem")
    assert eb.exploration_bonus and not eb.model.memory and not eb.model.deaf
    assert parse_condition("deaf").model.deaf
    assert not parse_condition("random").trained
    with pytest.raises(UserError):
        parse_condition("deaf-bigru")


@pytest.mark.slow  # several seconds of CPU: the default suite keeps its 5-minute budget
def test_study_tabulates_and_resumes(tmp_path):
    args = ("study", "--conditions", "random,deaf", "--variants", "no-liar", "--seeds", "2",
            "--frames", "640", "--episodes", "20", "--out", str(tmp_path))
    first = run(*args)
    assert first.exit_code == 0, first.output
    assert "Deaf-MH-BabyAI" in first.output and "Random" in first.output
    assert len(read_results(tmp_path)) == 4
    table = json.loads((tmp_path / "table1.json").read_text())
    assert table["rows"]["deaf"]["no-liar"]["seeds"] == 2
    again = run(*args)  # nothing left to do: the same table, no new lines
    assert again.exit_code == 0 and len(read_results(tmp_path)) == 4


def test_a_study_keeps_the_two_episode_lengths_apart(tmp_path):
    """--t-max 320 (the released code's length, which made Table 1) runs beside the paper's 40:
    its own seedS-t320 folders, its own results, a table of its own runs only."""
    job = Job("deaf", "original", 3, 640, 20, "bf16", 1, 320)
    assert job.folder(tmp_path).name == "seed3-t320"
    assert job.folder(tmp_path).parent == tmp_path / "runs" / "deaf" / "original"
    assert Job("deaf", "original", 3, 640, 20, "bf16", 1, 40).folder(tmp_path).name == "seed3"
    base = ("study", "--conditions", "random", "--variants", "no-liar", "--seeds", "1",
            "--frames", "640", "--episodes", "20", "--out", str(tmp_path))
    assert run(*base).exit_code == 0
    long = run(*base, "--t-max", "320")
    assert long.exit_code == 0, long.output
    assert sorted(key[3] for key in read_results(tmp_path)) == [40, 320]
    table = json.loads((tmp_path / "table1.json").read_text())
    assert table["rows"]["random"]["no-liar"]["t_max"] == [320]
    assert table["rows"]["random"]["no-liar"]["seeds"] == 1
    assert "t_max 320" in long.output
    bad = run(*base, "--t-max", "0")
    assert bad.exit_code != 0 and "Traceback" not in bad.output


def test_the_random_condition_plays_the_study_s_episode_length(tmp_path, monkeypatch):
    from socialbench.talkitout import evaluate

    lengths = []
    monkeypatch.setattr(evaluate, "success_rate",
                        lambda *args, env=None, **kwargs: lengths.append(env.max_steps) or 0.0)
    for t_max in (40, 320):
        entry = Job("random", "no-liar", 0, 1, 5, "bf16", 1, t_max)
        assert run_job(entry, tmp_path)["t_max"] == t_max
    assert lengths == [40, 320]


def test_the_curves_of_a_study_are_those_of_its_episode_length(tmp_path, monkeypatch):
    from socialbench.rl import study

    for folder in ("seed0", "seed1", "seed0-t320", "seedling"):
        run_dir = tmp_path / "runs" / "deaf" / "original" / folder
        run_dir.mkdir(parents=True)
        (run_dir / "log.csv").write_text("frames,success_rolling\n640,0.1\n1280,0.2\n")
    read = []
    monkeypatch.setattr(study, "read_log",
                        lambda path: read.append(path.parent.name) or [
                            {"frames": "640", "success_rolling": "0.1"}])
    assert study.plot_study_curves(tmp_path, ["deaf"], ["original"], 320) is not None
    assert read == ["seed0-t320"]
    read.clear()
    study.plot_study_curves(tmp_path, ["deaf"], ["original"])
    assert read == ["seed0", "seed1"]


def test_welch_and_table_on_a_hand_made_case():
    entries = [{"condition": c, "variant": "original", "seed": s, "frames": 10, "success": r}
               for c, rates in (("mh-babyai", (0.25, 0.26, 0.27)),
                                ("random", (0.0, 0.01, 0.0))) for s, r in enumerate(rates)]
    table = summarise(entries, ["mh-babyai", "random"], ["original"])
    row = table["rows"]["mh-babyai"]["original"]
    assert row["mean"] == pytest.approx(0.26) and row["seeds"] == 3
    (test,) = table["welch"]
    assert test["significant"] and test["p"] < 1e-3
    text = table_markdown(table, ["original"])
    assert "0.260 +- 0.008" in text and "0.259 +- 0.010" in text  # ours beside the paper's
    assert "original: MH-BabyAI vs Random differ (p=" in text and "n=3 at 0.0M" in text


def test_a_row_says_which_episode_length_it_was_trained_with():
    def entry(condition: str, seed: int, t_max: int | None) -> dict:
        made = {"condition": condition, "variant": "original", "seed": seed, "frames": 10,
                "success": 0.25}
        if t_max is not None:
            made["t_max"] = t_max
        return made

    entries = [entry("deaf", 0, 320), entry("deaf", 1, 320), entry("mh-babyai", 0, None)]
    table = summarise(entries, ["deaf", "mh-babyai"], ["original"])
    assert table["rows"]["deaf"]["original"]["t_max"] == [320]
    # results written before the field existed were all trained with the paper's 40 steps
    assert table["rows"]["mh-babyai"]["original"]["t_max"] == [40]
    text = table_markdown(table, ["original"])
    assert "(n=2, t_max 320)" in text and "(n=1)" in text

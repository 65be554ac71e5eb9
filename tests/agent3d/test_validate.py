"""AGENT validation: each check catches the fault it is for, and passes sound trials."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from socialbench.agent3d.io import trial_relpath, write_trial
from socialbench.agent3d.samples import AGENT, GOAL, WALL, sample_trial, walk_video
from socialbench.agent3d.schema import Trial, Video
from socialbench.agent3d.validate import penetrations, validate_dataset, validate_trial
from socialbench.cli import main as cli
from socialbench.core.runner import Job, run_jobs


def _move(video: Video, entity_id: int, position: tuple[float, float, float],
          frames: range) -> Video:
    """A copy of the video with one entity put at ``position`` in some frames."""
    moved = [[replace(s, position=position) if s.id == entity_id and i in frames else s
              for s in frame] for i, frame in enumerate(video.frames)]
    return Video(video.config, moved)


def _problems(tmp_path: Path, trial: Trial) -> list[str]:
    write_trial(trial, tmp_path / "t")
    return validate_trial(tmp_path / "t")


def test_a_sound_trial_has_no_problems(tmp_path):
    assert _problems(tmp_path, sample_trial("test")) == []


def test_an_agent_inside_the_wall_is_a_penetration():
    video = _move(walk_video(), AGENT, (0.0, 0.8, 0.1), range(10, 12))
    assert [(f, a, b) for f, a, b, _ in penetrations(video)] == \
        [(10, "agent", "wall"), (11, "agent", "wall")]
    # a landing's one-frame dip of 3 cm into the floor is the contact solver; two frames are not
    assert penetrations(_move(walk_video(), AGENT, (0.0, 0.0, 0.07), range(10, 11))) == []
    assert [f for f, *_ in penetrations(_move(walk_video(), AGENT, (0.0, 0.0, 0.07),
                                              range(10, 12)))] == [10, 11]
    # resting on the floor and touching is not penetrating
    touching = _move(walk_video(), AGENT, (0.0, 0.8 - 0.3 - 0.1, 0.1), range(10, 12))
    assert penetrations(touching) == []


def test_penetration_is_a_problem_except_in_type_2_5_surprising(tmp_path):
    through = _move(walk_video("surprising"), AGENT, (0.0, 0.8, 0.1), range(20, 25))
    trial = replace(sample_trial("test"), surprising=through)
    assert any("agent penetrates wall" in m for m in _problems(tmp_path / "a", trial))

    solidity = sample_trial("test", trial_type="2.5")
    solidity.surprising = _move(solidity.surprising, AGENT, (0.0, 0.8, 0.1), range(20, 25))
    assert _problems(tmp_path / "b", solidity) == \
        ["surprising: type 2.5's surprising video never passes through a wall",
         "surprising: frame 20: agent penetrates wall by 0.2 m (5 overlaps in all)"]
    solidity.surprising.config.annotations["ghost_ids"] = [WALL]  # the wall it walks through
    assert _problems(tmp_path / "b2", solidity) == []
    trial.expected.config.annotations["ghost_ids"] = [WALL]
    assert any("ghost_ids [3] outside" in m for m in _problems(tmp_path / "b3", trial))
    # its point is passing through: a 2.5 surprising video that does not is reported
    assert _problems(tmp_path / "c", sample_trial("test", trial_type="2.5")) == \
        ["surprising: type 2.5's surprising video never passes through a wall"]


def test_a_static_body_that_moves_is_reported(tmp_path):
    trial = sample_trial("train")
    trial.expected = _move(trial.expected, WALL, (0.0, 1.5, 0.2), range(5, 6))
    assert _problems(tmp_path, trial) == \
        ["expected: frame 5: static wall is off its configured pose by 0.7000 m"]


def test_an_agent_that_stops_short_of_its_goal_is_reported_unless_it_gave_up(tmp_path):
    trial = sample_trial("train")
    trial.expected = Video(trial.expected.config, trial.expected.frames[:20])
    assert any("from its goal" in m for m in _problems(tmp_path / "a", trial))
    trial.expected.config.annotations.update(gave_up=True, goal_id=None)
    assert _problems(tmp_path / "b", trial) == []
    gives_up_at_goal = sample_trial("train")
    gives_up_at_goal.expected.config.annotations.update(gave_up=True, goal_id=None)
    assert any("gave up yet ends at goal" in m for m in _problems(tmp_path / "c", gives_up_at_goal))


def test_expected_and_surprising_must_share_their_start_and_goals(tmp_path):
    trial = sample_trial("test")
    trial.surprising = walk_video("surprising", start=(-1.0, 0.0))
    problems = _problems(tmp_path / "a", trial)
    assert "expected and surprising do not start the agent at the same place" in problems
    trial = sample_trial("test")
    config = trial.expected.config
    config.entities = [replace(e, rgba=(0, 0, 1, 1)) if e.id == GOAL else e
                       for e in config.entities]
    problems = _problems(tmp_path / "b", trial)
    assert any("never appear in familiarization" in m for m in problems)


def test_tampered_boxes_and_mismatched_configs_are_reported(tmp_path):
    write_trial(sample_trial("test"), tmp_path / "t", states="rows")  # rows store the boxes
    states = tmp_path / "t" / "expected" / "state_info.json"
    data = json.loads(states.read_text())
    data["frames"][4][AGENT]["bbox"]["top"][2] += 0.5
    states.write_text(json.dumps(data))
    assert validate_trial(tmp_path / "t") == \
        ["expected: frame 4: the stored 3D box of agent is not that of its stored pose"]
    config = tmp_path / "t" / "surprising" / "scene_config.json"
    config.write_text(config.read_text().replace('"2.1"', '"2.2"'))
    assert any("is for 2/2.2, the trial for 2/2.1" in m for m in validate_trial(tmp_path / "t"))


def build_sample(job: Job, staging: Path) -> None:
    """A runner builder (module level, so worker processes could import it)."""
    trial = sample_trial(job.params["split"], index=job.params["index"])
    write_trial(trial, staging / trial_relpath(2, "2.1", job.params["split"],
                                               job.params["index"]))


def test_the_command_checks_manifest_checksums_and_reports_in_one_line(tmp_path):
    jobs = [Job(f"t{i}", i, {"split": "test", "index": i}) for i in range(2)]
    run_jobs(tmp_path, jobs, build_sample, show_progress=False)
    runner = CliRunner()
    result = runner.invoke(cli, ["agent", "validate", str(tmp_path)])
    assert result.exit_code == 0 and result.stdout.startswith("OK: 2 trials, 1 type(s)")

    victim = next(tmp_path.rglob("expected/state_info.json"))
    victim.write_text(victim.read_text().replace("0.1", "0.2", 1))
    problems = validate_dataset(tmp_path)
    assert any("checksum differs from the manifest" in m for m in problems)
    assert validate_dataset(tmp_path, workers=2) == problems  # same report, any worker count
    result = runner.invoke(cli, ["agent", "validate", str(tmp_path)])
    assert result.exit_code == 1

    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(cli, ["agent", "validate", str(empty)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "no AGENT trials" in result.output


def test_an_empty_video_is_reported_not_a_crash(tmp_path):
    trial = sample_trial("train")
    trial.expected = Video(trial.expected.config, [])
    assert _problems(tmp_path, trial) == ["expected: the video has no frames"]


def test_trial_structure_follows_the_scenario_and_split(tmp_path):
    four = sample_trial("train", scenario=4, trial_type="4.1")
    assert _problems(tmp_path / "a", four) == \
        ["1 familiarization videos; scenario 4 has 4"]
    four.familiarization *= 4
    assert _problems(tmp_path / "b", four) == []
    train_with_surprise = replace(sample_trial("test"), split="train")
    assert _problems(tmp_path / "c", train_with_surprise) == \
        ["a train trial with a surprising video (only test trials have one)"]


def test_scenario_3_occluder_stands_in_familiarization_and_falls_at_test(tmp_path):
    trial = sample_trial("test", scenario=3, trial_type="3.1")
    assert _problems(tmp_path / "a", trial) == []
    standing = walk_video("familiarization", scenario=3, trial_type="3.1")
    trial.surprising = Video(replace(standing.config, video="surprising"), standing.frames)
    assert _problems(tmp_path / "b", trial) == \
        ["surprising: the occluder does not stand, then fall"]
    trial = sample_trial("test", scenario=3, trial_type="3.1")
    trial.familiarization = [replace(trial.expected, config=replace(
        trial.expected.config, video="familiarization"))]
    assert _problems(tmp_path / "c", trial) == \
        ["Familiarization_video_1: the occluder falls during familiarization",
         "Familiarization_video_1: the camera sees the obstacle in familiarization"]
    trial = sample_trial("test", scenario=3, trial_type="3.1")
    trial.surprising = _move(trial.surprising, AGENT, (-1.0, 0.0, 0.1), range(3, 4))
    assert _problems(tmp_path / "d", trial) == \
        ["expected and surprising move the agent differently (scenario 3 shows the same "
         "trajectory)"]


def test_dataset_checks_half_of_scenario_1_tests_swap_and_tests_hold_both_videos(tmp_path):
    import shutil

    from socialbench.agent3d.generate import generate
    from socialbench.agent3d.io import find_trials
    from socialbench.agent3d.validate import check_dataset

    root = tmp_path / "d"
    generate(root, seed=3, types=["1.1"], splits=("test",), scale=2 / 30, show_progress=False)
    trials = find_trials(root)
    assert [t.name for t in trials] == ["Trial_0", "Trial_1"]  # a pair: one of them swaps
    assert check_dataset(root, trials) == []
    # both trials alike: 0 or 2 of 2 swap sides, the paper's half is 1
    shutil.rmtree(trials[1])
    shutil.copytree(trials[0], trials[1])
    problems = check_dataset(root, trials)
    assert any(p.startswith("type 1.1: ") and p.endswith(" of 2 test trials swap the objects' "
                                                        "sides; half of them should (AGENT paper)")
               for p in problems)
    # a test trial without its surprising video
    shutil.rmtree(trials[0] / "surprising")
    problems = check_dataset(root, trials)
    assert any(p.startswith("scenario_1_goal_preferences/type_1.1/test_set/Trial_0: a test "
                            "trial must list and hold both test videos") for p in problems)
    assert any(p.startswith("dataset: ") for p in validate_dataset(root, max_problems=50))

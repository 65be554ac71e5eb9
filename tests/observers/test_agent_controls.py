"""AGENT's control observers: no id, list order, side, colour, shape or familiarization order
tells the answer (each control at chance on every type), and each control does see its cue."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from socialbench.agent3d.generate import generate, make_trial, trial_balance
from socialbench.agent3d.scenarios.balance import Balance
from socialbench.agent3d.schema import TRIAL_TYPES, Episode, Trial, VideoStates
from socialbench.cli import main
from socialbench.core.metrics import pairwise_accuracy
from socialbench.observers.agent.audit import problems, scores
from socialbench.observers.agent.controls import CONTROLS, reached_goal
from socialbench.voe.evaluate import PairRating
from socialbench.voe.registry import make_observer, observer_names

SEED = 11


def episode(trial: Trial, surprising: bool) -> Episode:
    test = trial.surprising if surprising else trial.expected
    return Episode([VideoStates.of(v) for v in (*trial.familiarization, test)])


def ratings(trials: list[Trial], name: str) -> list[PairRating]:
    control = make_observer("agent", name)
    return [PairRating(t.trial_type, str(t.index), control.surprise(episode(t, False)),
                       control.surprise(episode(t, True))) for t in trials]


@pytest.fixture(scope="module")
def counterbalanced() -> list[Trial]:
    """Two test trials (one counterbalanced pair) of every type, as `generate` makes them."""
    return [make_trial(t, "test", i, SEED + i, balance=trial_balance(SEED, t, "test", i))
            for t in TRIAL_TYPES for i in range(2)]


def test_every_control_is_registered():
    assert set(CONTROLS) <= set(observer_names("agent"))


def test_the_agent_ends_at_the_goal_the_annotations_name(counterbalanced):
    for trial in counterbalanced:
        for video in (trial.expected, trial.surprising):
            assert reached_goal(VideoStates.of(video)) == video.config.annotations["goal_id"]


@pytest.mark.parametrize("name", CONTROLS)
def test_each_control_scores_chance_on_every_type(counterbalanced, name):
    by_type = scores(ratings(counterbalanced, name))
    for trial_type in TRIAL_TYPES:
        assert by_type[trial_type].pairs == 2
        assert by_type[trial_type].accuracy == pytest.approx(0.5), (name, trial_type)


def test_partner_trials_flip_every_cue():
    for member in range(6):
        a = trial_balance(SEED, "1.1", "test", member)
        assert trial_balance(SEED, "1.1", "test", member ^ 1) == a.flipped()
    drawn = {trial_balance(s, "4.1", "test", 0) for s in range(20)}
    assert len(drawn) > 1  # drawn per pair from the seed, not fixed by the index


def test_controls_see_their_cue_when_it_is_not_balanced():
    # every trial with Balance(): the preferred object is always id 2, on the left, of the
    # lower colour code and first shape, shown first, on the familiar side: each control is
    # always right
    fixed = [make_trial(t, "test", i, SEED + i, balance=Balance())
             for t in ("1.1", "4.1") for i in range(2)]
    for name in ("control-first-goal", "control-lowest-id", "control-left-goal",
                 "control-colour", "control-shape"):
        assert all(s.accuracy == 1.0 for s in scores(ratings(fixed, name)).values()), name
    assert scores(ratings(fixed, "control-familiar-side"))["1.1"].accuracy == 1.0
    assert scores(ratings(fixed, "control-familiar-side"))["4.1"].accuracy == 1.0
    assert scores(ratings(fixed, "control-first-video"))["4.1"].accuracy == 1.0
    assert problems({"control-lowest-id": scores(ratings(fixed, "control-lowest-id"))})


def test_pairwise_accuracy_of_a_control_is_its_hit_rate():
    # a binary control rating the expected video 0 in a of n pairs scores a / n
    expected, surprising = [0, 0, 0, 1], [1, 1, 1, 0]
    assert pairwise_accuracy(surprising, expected) == pytest.approx(0.75)


@pytest.mark.slow
def test_audit_command_on_a_generated_dataset(tmp_path):
    generate(tmp_path, seed=3, splits=("test",), scale=0.1, show_progress=False)
    result = CliRunner().invoke(main, ["agent", "audit", str(tmp_path), "--check"])
    assert result.exit_code == 0, result.output
    assert "OK: every control within chance" in result.output
    assert "first-goal" in result.output and "4.2" in result.output


def test_audit_of_a_folder_without_test_pairs_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(main, ["agent", "audit", str(tmp_path)])
    assert result.exit_code != 0 and "no AGENT test trials" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_camera_side_control_sees_a_camera_slid_toward_the_answer(counterbalanced):
    """A camera that stood off the start on the expected goal's side would tell the answer:
    the control catches it (accuracy 1), and is undecided with a centred camera."""
    from dataclasses import replace

    from socialbench.agent3d.schema import Video

    def slid(video: Video, toward_x: float) -> Video:
        camera = video.config.camera
        shift = 0.3 if toward_x > 0 else -0.3
        moved = replace(camera, position=(camera.position[0] + shift, *camera.position[1:]),
                        target=(camera.target[0] + shift, *camera.target[1:]))
        return replace(video, config=replace(video.config, camera=moved))

    two_goal = [t for t in counterbalanced if t.trial_type in ("1.1", "4.1")]
    leaky = []
    for trial in two_goal:
        goal = trial.expected.config.annotations["goal_id"]
        x = next(e.position[0] for e in trial.expected.config.entities if e.id == goal)
        leaky.append(replace(trial, expected=slid(trial.expected, x),
                             surprising=slid(trial.surprising, x)))
    assert all(s.accuracy == 1.0 for s in scores(ratings(leaky, "control-camera-side")).values())
    centred = ratings(two_goal, "control-camera-side")
    assert {r.expected for r in centred} == {r.unexpected for r in centred} == {0.5}

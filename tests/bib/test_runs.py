"""Trials built as runs (what the generator makes) behave exactly like the same frames listed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from socialbench.bib.generate import build_episode, list_border_repeats
from socialbench.bib.io import encode
from socialbench.bib.schema import Block, Episode, Frame, Run, Sprite, Trial
from socialbench.bib.shapes import TRAIN
from socialbench.bib.tasks import EVAL_TASKS, TRAIN_TASKS
from socialbench.bib.validate.episode import check_trial
from socialbench.bib.validate.pair import validate_pair

AGENT = Sprite(20, 20, 6, "agent.png", (0, 0, 255))
KEY = Sprite(40, 20, 9, "key.png", (1, 2, 3))


def _template(**fields) -> Frame:
    return Frame(walls=(Block(100, 100),), objects=(), agent=AGENT, **fields)


def test_a_run_moves_the_agent_and_a_carried_key_with_it() -> None:
    xy = np.array([[20, 20], [22, 21], [22, 21]])
    run = Run(_template(key=(KEY,)), xy, key_offset=(20, 0))
    frames = run.frames()
    assert [(f.agent.x, f.agent.y) for f in frames] == [(20, 20), (22, 21), (22, 21)]
    assert [(f.key[0].x, f.key[0].y) for f in frames] == [(40, 20), (42, 21), (42, 21)]
    assert frames[0] == run.template and frames[1] is frames[2]  # equal states: one object
    assert frames[1].key[0].shape == "key.png" and frames[1].walls is run.template.walls
    assert run.frame(1) == frames[1]


def test_a_trial_of_runs_expands_once_and_then_is_its_frames() -> None:
    runs = [Run(_template(), np.array([[20, 20], [21, 20]])),
            Run(_template(fuse_walls=(Block(60, 60),)), np.array([[23, 20]]))]
    trial = Trial(runs=runs)
    twin = Trial([f for r in runs for f in r.frames()])
    assert len(trial) == 3 and trial.runs is not None
    assert trial == twin and twin == trial
    assert list(trial.iter_frames()) == twin.frames and trial.runs is not None  # not expanded
    frames = trial.frames
    assert trial.runs is None and frames == twin.frames
    frames[0] = replace(frames[0], agent=replace(AGENT, x=30))  # an edit is what the trial is
    assert trial != twin and Episode([trial] * 9).trials[0].frames[0].agent.x == 30
    with pytest.raises(TypeError):
        Trial()


def _frames_twin(trials: list[Trial]) -> list[Trial]:
    """The same trials as plain frame lists (shared trials stay shared)."""
    twins: dict[int, Trial] = {}
    return [twins.setdefault(id(t), Trial(list(t.iter_frames()))) for t in trials]


@pytest.mark.parametrize("task", ["preference", "instrumental_blocking_barrier",
                                  "efficiency_irrational"])
def test_writer_and_validator_agree_on_runs_and_frames(task: str) -> None:
    recipe = EVAL_TASKS[task]
    built = build_episode(recipe, TRAIN, 7, 0)
    assert all(t.runs is not None for t in built.expected)
    e, u = Episode(built.expected), Episode(built.unexpected)
    e2, u2 = Episode(_frames_twin(built.expected)), Episode(_frames_twin(built.unexpected))
    assert encode.episodes_to_json([e, u]) == encode.episodes_to_json([e2, u2])
    assert all(t.runs is not None for t in built.expected)  # writing did not expand them
    assert validate_pair(task, e, u) == validate_pair(task, e2, u2) == []
    assert [check_trial(t, k) for k, t in enumerate(e.trials)] == [[]] * 9


def test_a_broken_run_is_reported_like_the_broken_frames() -> None:
    """The validator names the same first problems for a trial given as runs or as frames."""
    built = build_episode(TRAIN_TASKS["instrumental_action"], TRAIN, 5, 0)
    trial = built.expected[8]
    runs = list(trial.runs)
    wall = runs[0].template.walls[0]  # a wall cell: move the middle of the first run into it
    xy = runs[0].xy.copy()
    xy[len(xy) // 2:] = (wall.x + 2, wall.y + 2)
    runs[0] = Run(runs[0].template, xy, runs[0].key_offset)
    broken = Trial(runs=runs)
    twin = Trial(list(broken.iter_frames()))
    problems = check_trial(broken, 8)
    assert problems and problems == check_trial(twin, 8)
    assert any("overlaps the wall" in p for p in problems)
    assert any("jumps" in p for p in problems)


def test_border_repeats_list_the_same_walls_for_runs_and_frames() -> None:
    built = build_episode(EVAL_TASKS["preference"], TRAIN, 2, 0)
    twin = replace(built, expected=_frames_twin(built.expected),
                   unexpected=_frames_twin(built.unexpected))
    list_border_repeats(built, 3, seed=9)
    list_border_repeats(twin, 3, seed=9)
    assert built.expected[0].runs is not None
    assert built.expected == twin.expected and built.unexpected == twin.unexpected
    assert built.expected[0] is built.unexpected[0]  # shared familiarization stays shared
    assert len(built.expected[0].frames[0].walls) == len(twin.expected[0].frames[0].walls)


def test_a_trial_of_runs_survives_pickling_in_either_form() -> None:
    """Worker processes receive trials by pickle: both forms come back equal."""
    import pickle

    built = build_episode(TRAIN_TASKS["instrumental_action"], TRAIN, 5, 0)
    runs_form = built.expected[8]
    frames_form = Trial(list(runs_form.iter_frames()))
    for trial in (runs_form, frames_form):
        again = pickle.loads(pickle.dumps(trial))
        assert again == trial and (again.runs is None) == (trial.runs is None)

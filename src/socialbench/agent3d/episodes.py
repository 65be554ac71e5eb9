"""AGENT test trials as VOE episodes: each test trial folder gives an expected and a surprising
episode, sharing their familiarization videos (agent spec: pairs rated against each other)."""

from __future__ import annotations

from pathlib import Path

from socialbench.agent3d.io import EXPECTED, SURPRISING, find_trials, load_trial
from socialbench.agent3d.schema import Episode, VideoStates
from socialbench.core.errors import DataFileError

Pair = tuple[str, Path, Path]


def find_test_pairs(root: Path | str) -> list[Pair]:
    """``(trial type, expected folder, surprising folder)`` of every test trial under
    ``root`` holding both test videos, in path order."""
    pairs = []
    for trial_dir in find_trials(Path(root)):
        if (trial_dir / EXPECTED).is_dir() and (trial_dir / SURPRISING).is_dir():
            trial_type = trial_dir.parent.parent.name.removeprefix("type_")
            pairs.append((trial_type, trial_dir / EXPECTED, trial_dir / SURPRISING))
    return pairs


def load_episode(video_dir: Path | str) -> Episode:
    """The episode of one test video folder (``expected/`` or ``surprising/``): the trial's
    familiarization videos, then that video."""
    video_dir = Path(video_dir)
    if video_dir.name not in (EXPECTED, SURPRISING):
        raise DataFileError(video_dir, f"not a test video folder ({EXPECTED} or {SURPRISING})")
    trial = load_trial(video_dir.parent)
    test = trial.expected if video_dir.name == EXPECTED else trial.surprising
    if test is None:
        raise DataFileError(video_dir, "the trial has no surprising video (not a test trial)")
    return Episode(trials=[VideoStates.of(v) for v in (*trial.familiarization, test)],
                   name=video_dir.parent.name, task=trial.trial_type,
                   expected=video_dir.name == EXPECTED)

"""The AGENT paper's evaluation protocols as folds: which trial types an observer is trained
(or calibrated) on, and which it is then tested on.

- ``all``: train on every type, test on every type (Table 1, 'All');
- ``G1`` leave one type out: per scenario, train on its other types, test on the held-out one;
- ``G2`` leave one scenario out: train on the other three scenarios, test on the held-out one;
- ``G3`` single type: train on one type, test on every type of its scenario (a matrix; the
  paper's heat map shows the diagonal too);
- ``G4`` single scenario: train on one scenario, test on every scenario (a matrix).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from socialbench.agent3d.episodes import find_test_pairs
from socialbench.agent3d.io import find_trials, load_trial
from socialbench.agent3d.schema import TRIAL_TYPES, Episode, VideoStates

PROTOCOLS = ("all", "G1", "G2", "G3", "G4")
SCENARIO_NAMES = {"1": "GP", "2": "AE", "3": "UC", "4": "CR"}  # the paper's column names


def scenario_of(trial_type: str) -> str:
    return trial_type.split(".")[0]


@dataclass(frozen=True)
class Fold:
    """Train on ``train`` types, test on ``test`` types; ``name`` labels the row (matrix
    protocols) or the held-out part."""

    name: str
    train: tuple[str, ...]
    test: tuple[str, ...]


def folds(protocol: str, types: tuple[str, ...] = TRIAL_TYPES) -> list[Fold]:
    """The folds of ``protocol`` over the trial types present."""
    scenarios = sorted({scenario_of(t) for t in types})
    by_scenario = {s: tuple(t for t in types if scenario_of(t) == s) for s in scenarios}
    if protocol == "all":
        return [Fold("all", types, types)]
    if protocol == "G1":
        return [Fold(t, tuple(u for u in by_scenario[scenario_of(t)] if u != t), (t,))
                for t in types if len(by_scenario[scenario_of(t)]) > 1]
    if protocol == "G2":
        return [Fold(s, tuple(t for t in types if scenario_of(t) != s), by_scenario[s])
                for s in scenarios if len(scenarios) > 1]
    if protocol == "G3":
        return [Fold(t, (t,), by_scenario[scenario_of(t)]) for t in types]
    if protocol == "G4":
        return [Fold(s, by_scenario[s], types) for s in scenarios]
    raise ValueError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}")


def training_episodes(root: Path, types: tuple[str, ...],
                      max_per_type: int | None = None) -> list[Episode]:
    """The training split's trials of ``types`` as episodes (familiarization + expected)."""
    wanted = set(types)
    episodes: list[Episode] = []
    counts: dict[str, int] = {}
    for trial_dir in find_trials(root):
        if trial_dir.parent.name != "train_set":
            continue
        trial_type = trial_dir.parent.parent.name.removeprefix("type_")
        if trial_type not in wanted:
            continue
        if max_per_type is not None and counts.get(trial_type, 0) >= max_per_type:
            continue
        counts[trial_type] = counts.get(trial_type, 0) + 1
        trial = load_trial(trial_dir)
        videos = [VideoStates.of(v) for v in (*trial.familiarization, trial.expected)]
        episodes.append(Episode(trials=videos, name=trial_dir.name, task=trial_type,
                                expected=True))
    return episodes


def test_pairs(root: Path, types: tuple[str, ...] | None = None) -> list[tuple[str, Path, Path]]:
    """(type, expected folder, surprising folder) of the test split's trials of ``types``."""
    pairs = [p for p in find_test_pairs(root) if p[1].parent.parent.name == "test_set"]
    return [p for p in pairs if types is None or p[0] in types]


# Published accuracy (final paper, ground-truth states; agent spec), per row: the 13 types,
# then the scenarios GP, AE, UC, CR and All.
_COLUMNS = ("1.1", "1.2", "1.3", "1.4", "GP", "2.1", "2.2", "2.3", "2.4", "2.5", "AE", "3.1",
            "3.2", "UC", "4.1", "4.2", "CR", "All")
_ROWS = {
    "Human": ".95 .95 .92 .97 .95 .87 .93 .86 .95 .94 .91 .88 .94 .92 .82 .91 .87 .91",
    "ToMnet-G All": ".57 1.0 .67 1.0 .84 .95 1.0 .95 1.0 1.0 .98 .93 .87 .89 .82 .97 .89 .90",
    "BIPaCK All": ".97 1.0 1.0 1.0 .99 1.0 1.0 .85 1.0 1.0 .97 .93 .88 .90 .90 1.0 .95 .96",
    "ToMnet-G G1": ".50 .90 .63 .88 .75 .90 .75 .45 .90 .05 .66 .58 .77 .69 .48 .48 .48 .65",
    "BIPaCK G1": ".93 1.0 1.0 1.0 .98 1.0 1.0 .80 1.0 1.0 .97 .93 .82 .86 .88 1.0 .94 .94",
    "ToMnet-G G2": ".37 .95 .63 .88 .71 .35 .60 .75 .68 .85 .65 .63 .80 .73 .55 .95 .75 .71",
    "BIPaCK G2": ".93 1.0 1.0 1.0 .98 1.0 1.0 .75 1.0 .95 .95 .88 .85 .87 .83 1.0 .92 .94",
}
PUBLISHED: dict[str, dict[str, float]] = {
    row: dict(zip(_COLUMNS, (float(v) for v in values.split()), strict=True))
    for row, values in _ROWS.items()}


def published_rows(observer: str, protocol: str) -> list[str]:
    """The paper's rows to print beside ours: the same model under the same protocol (when the
    paper has it in a table), the other model, and the human row."""
    mine = {"bipack": "BIPaCK", "tomnet-g": "ToMnet-G"}[observer]
    other = "ToMnet-G" if mine == "BIPaCK" else "BIPaCK"
    tag = {"all": "All"}.get(protocol, protocol)
    rows = [f"{mine} {tag}", f"{other} {tag}"] if f"{mine} {tag}" in PUBLISHED else [
        f"{mine} All"]
    return [*rows, "Human"]

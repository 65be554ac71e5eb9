"""The agent-blind control observers on hand-made episodes, and how the audit judges them."""

from __future__ import annotations

import pytest

from socialbench.observers.bib import handmade as hm
from socialbench.observers.bib.controls import (
    CONTROLS,
    DESIGN_IMPLIED,
    chance_band,
    contrast_gap,
    layout_gap,
    scene_of,
)
from socialbench.observers.bib.evaluation import AUDIT_OBSERVERS, audit_problems
from socialbench.voe.evaluate import TaskResult
from socialbench.voe.registry import make_observer

OBJECTS = [("heart", (7, 2)), ("moon", (2, 8))]
RIGHT = [(2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)]
FAMILIAR = [hm.trial(hm.OPEN, OBJECTS, RIGHT) for _ in range(8)]


def rate(name: str, test) -> float:
    return make_observer("bib", name).surprise(hm.episode(FAMILIAR, test))


def test_novelty_counts_walls_barrier_and_object_moves_but_not_the_agent() -> None:
    same = hm.trial(hm.OPEN, OBJECTS, RIGHT, agent="kite")  # a new agent: not the scene's
    assert rate("control-novelty", same) == 0.0
    moved = hm.trial(hm.OPEN, [("heart", (7, 4)), ("moon", (2, 8))], [*RIGHT[:-1], (7, 3)])
    assert rate("control-novelty", moved) == pytest.approx(2.0)  # the heart moved two cells
    lines = hm.OPEN.splitlines()
    lines[1] = "#gg......#"  # two barrier cells and one wall more
    lines[2] = "#.#......#"
    fenced = hm.trial("\n".join(lines), OBJECTS, RIGHT)
    assert rate("control-novelty", fenced) == 3.0


def test_contrast_also_counts_the_agent_and_object_shapes() -> None:
    kite = hm.trial(hm.OPEN, OBJECTS, RIGHT, agent="kite")
    assert rate("control-contrast", kite) == 1.0  # a new shape (the colour is the same)
    swapped = hm.trial(hm.OPEN, [("moon", (7, 2)), ("heart", (2, 8))], RIGHT)
    assert rate("control-novelty", swapped) == 0.0  # the same places...
    assert rate("control-contrast", swapped) > 10  # ...with the shapes swapped
    a, b = scene_of(FAMILIAR[0]), scene_of(swapped)
    assert layout_gap(a, b) == 0.0 and contrast_gap(a, b) == contrast_gap(b, a)


def test_duration_rates_the_longer_test_and_speed_its_departure_from_familiarization() -> None:
    longer = hm.trial(hm.OPEN, OBJECTS, [(2, 2), (2, 3), (3, 4), (4, 3), (5, 2), (6, 2), (7, 2)])
    assert rate("control-duration", longer) > rate("control-duration", FAMILIAR[0])
    assert rate("control-speed", longer) == pytest.approx(0.0)  # the same walking speed


def test_the_audit_runs_every_control_and_names_one_off_chance() -> None:
    assert set(CONTROLS) <= set(AUDIT_OBSERVERS)
    assert chance_band("control-duration", "efficiency_path", 100) is None  # the design's cue
    assert chance_band("shortcut-key", "preference", 100) is None  # not a control
    low, high = chance_band("control-novelty", "instrumental_blocking_barrier", 100)
    assert low == pytest.approx(0.402) and high == pytest.approx(0.598)
    leak = TaskResult(task="instrumental_blocking_barrier", pairs=100, relative_accuracy=1.0,
                      auc=1.0, relative_accuracy_ci=(1.0, 1.0), auc_ci=(1.0, 1.0), ties=0)
    implied = TaskResult(task="efficiency_path", pairs=100, relative_accuracy=1.0, auc=1.0,
                         relative_accuracy_ci=(1.0, 1.0), auc_ci=(1.0, 1.0), ties=0)
    problems = audit_problems({"control-novelty": {leak.task: leak},
                               "control-duration": {implied.task: implied}})
    assert len(problems) == 1 and problems[0].startswith(
        "control-novelty scores 100.0 % on instrumental_blocking_barrier, outside chance")


def test_every_design_implied_cue_names_the_paper_and_a_control_at_chance() -> None:
    for (name, _task), implied in DESIGN_IMPLIED.items():
        assert name in CONTROLS and implied.direction in ("high", "low")
        assert "sec." in implied.reason or "Fig." in implied.reason
        if implied.direction == "high":  # it would pass for reasoning: the paper checks it
            assert chance_band(name, implied.neutralised_by.split()[0], 100) is not None

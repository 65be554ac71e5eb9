"""The agent-blind control observers on hand-made episodes, and how the audit judges them."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from socialbench.bib.schema import Trial
from socialbench.observers.bib import handmade as hm
from socialbench.observers.bib.controls import (
    CONTROLS,
    DESIGN_IMPLIED,
    chance_band,
    contrast_gap,
    layout_gap,
    scene_of,
    walk_shape,
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


def _slowed(trial: Trial) -> Trial:
    """The same walk at half speed: each moving frame split in two (a midpoint between)."""
    frames = list(trial.iter_frames())
    out = [frames[0]]
    for before, now in zip(frames, frames[1:], strict=False):
        if now.agent.center != before.agent.center:
            dx = (now.agent.x - before.agent.x) / 2
            dy = (now.agent.y - before.agent.y) / 2
            out.append(replace(now, agent=replace(before.agent, x=before.agent.x + dx,
                                                  y=before.agent.y + dy)))
        out.append(now)
    return Trial(out)


def test_walk_shape_counts_turns_slanted_strides_and_tortuosity() -> None:
    straight = walk_shape(FAMILIAR[0])
    assert (straight.turns, straight.slanted, straight.tortuosity) == (0, 0.0, pytest.approx(1.0))
    slant = walk_shape(hm.trial(hm.OPEN, [("heart", (7, 4))], [(2, 2), (7, 4)]))
    assert slant.turns == 0 and slant.slanted > 0.9
    corner = walk_shape(hm.trial(hm.OPEN, [("heart", (7, 6))], [(2, 2), (7, 2), (7, 6)]))
    assert corner.turns == 1 and corner.slanted < 0.1
    # 100 px along the row, then up to 10 px short of the heart: 70 px
    assert corner.tortuosity == pytest.approx(170 / math.hypot(100, 70), rel=1e-3)
    # Speed is not shape: the same walk at half speed has the same shape.
    assert walk_shape(_slowed(FAMILIAR[0])) == straight
    assert walk_shape(_slowed(hm.trial(hm.OPEN, [("heart", (7, 4))], [(2, 2), (7, 4)]))).slanted \
        == pytest.approx(slant.slanted, abs=0.1)


def test_path_shape_ignores_where_the_walk_goes_but_not_how_it_bends() -> None:
    elsewhere = hm.trial(hm.OPEN, [("heart", (2, 7)), ("moon", (7, 8))],
                         [(2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (2, 7)])
    assert rate("control-path-shape", elsewhere) == 0.0  # another place, the same shape
    assert rate("control-path-shape", FAMILIAR[0]) == 0.0
    detour = hm.trial(hm.OPEN, OBJECTS, [(2, 2), (2, 4), (7, 4), (7, 2)])
    assert rate("control-path-shape", detour) >= 2.0  # two turns, and longer
    slanted = hm.trial(hm.OPEN, [("heart", (7, 4)), ("moon", (2, 8))], [(2, 2), (7, 4)])
    assert rate("control-path-shape", slanted) >= 3.0  # every stride slanted: 4 quarter units


def test_path_shape_cues_are_the_designs_and_point_to_the_expected_test() -> None:
    shaped = {task for name, task in DESIGN_IMPLIED if name == "control-path-shape"}
    assert shaped == {"preference", "efficiency_path", "efficiency_time",
                      "instrumental_no_barrier", "instrumental_inconsequential_barrier"}
    assert all(DESIGN_IMPLIED[("control-path-shape", t)].direction == "low" for t in shaped)
    for task in ("multi_agent", "inaccessible_goal", "efficiency_irrational",
                 "instrumental_blocking_barrier"):  # identical walks: exactly chance
        assert chance_band("control-path-shape", task, 100) is not None

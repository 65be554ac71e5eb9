"""A trial's videos are simulated riskiest first (speed only): the files must not change."""

from __future__ import annotations

import pytest

from socialbench.agent3d.generate import make_trial
from socialbench.agent3d.io import write_trial
from socialbench.agent3d.motion import Step
from socialbench.agent3d.planning import Plan
from socialbench.agent3d.scenarios import common


def _files(root) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes()
            for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("trial_type, seed", [("4.1", 2), ("2.1", 1)])
def test_the_simulation_order_changes_no_file(trial_type, seed, tmp_path, monkeypatch):
    riskiest_first = make_trial(trial_type, "test", 0, seed)
    write_trial(riskiest_first, tmp_path / "riskiest_first")
    monkeypatch.setattr(common, "_failure_risk", lambda plan: 0)  # the recipe's own order
    in_order = make_trial(trial_type, "test", 0, seed)
    write_trial(in_order, tmp_path / "in_order")
    assert _files(tmp_path / "riskiest_first") == _files(tmp_path / "in_order")


def test_a_ramp_walk_then_a_jump_are_simulated_first(monkeypatch):
    simulated = []

    def record(ctx, layout, plan, video, sweep, ghosts=()):
        simulated.append(plan.path)
        return plan.path

    monkeypatch.setattr(common, "simulate", record)
    jump = (Step("jump", jump=object()),)  # type: ignore[arg-type]  # Plan.jumps: is there one
    plans = [Plan("straight", 2, ()), Plan("jump_wall", 2, jump), Plan("give_up", None, ()),
             Plan("up_ramp", 2, ()), Plan("straight (replayed)", 2, ())]
    shots = [common.Shot(None, plan, f"video {k}")  # type: ignore[arg-type]
             for k, plan in enumerate(plans)]
    context = common.Context(rng=None, scenario=4, trial_type="4.1", seed=0)  # type: ignore[arg-type]
    videos = common.simulate_shots(context, shots, sweep=60.0)
    assert simulated == ["up_ramp", "jump_wall", "straight", "give_up", "straight (replayed)"]
    assert videos == [plan.path for plan in plans]  # handed back in the recipe's order

"""Design coins split evenly, not tossed: preference's shorter test walk and multi_agent's objects
in view (docs/bib.md, "Audit: no cue that ignores the agent")."""

from __future__ import annotations

import numpy as np
import pytest

from socialbench.bib import style
from socialbench.bib.generate import SPLITS, build_episode, make_jobs
from socialbench.bib.shapes import TRAIN
from socialbench.bib.tasks import EVAL_TASKS, counterbalance
from socialbench.bib.world import blocked_grid, in_view
from socialbench.core.seeding import derive_seed
from socialbench.observers.bib.views import view_trial


def test_every_block_of_two_episodes_gets_both_sides_drawn_from_the_seed() -> None:
    for seed in (0, 1):
        sides = [counterbalance.side_for(seed, "eval", "preference", i) for i in range(40)]
        assert all({sides[i], sides[i + 1]} == {0, 1} for i in range(0, 40, 2))
    by_seed = [[counterbalance.side_for(s, "eval", "preference", i) for i in range(0, 40, 2)]
               for s in (0, 1)]
    assert by_seed[0] != by_seed[1]  # not the index's parity alone
    assert counterbalance.side(7) == 1  # built alone: the parity
    with counterbalance.using(0):
        assert counterbalance.side(7) == 0


def test_generate_hands_each_evaluation_job_its_side() -> None:
    jobs = make_jobs(SPLITS["eval"], ["preference"], {"preference": 6}, 4, video=False)
    assert [j.params["side"] for j in jobs] == [
        counterbalance.side_for(4, "eval", "preference", i) for i in range(6)]
    train = make_jobs(SPLITS["train"], ["preference"], {"preference": 2}, 4, video=False)
    assert all("side" not in j.params for j in train)


def _lengths(built) -> tuple[float, float, int, int]:
    e, u = built.expected[-1], built.unexpected[-1]
    pe, pu = view_trial(e).path, view_trial(u).path
    walked = [float(np.hypot(*np.diff(p, axis=0).T).sum()) for p in (pe, pu)]
    return walked[0], walked[1], len(e), len(u)


@pytest.mark.parametrize("side", [0, 1])
def test_preference_expected_walk_is_shorter_exactly_on_side_0(side: int) -> None:
    """Side 0: the expected test's walk (to the preferred object at its new place) is the
    shorter, in length and in frames; side 1: the longer. A nearest-object or a duration
    observer then scores exactly chance over any even number of consecutive episodes."""
    for index in range(4):
        seed = derive_seed(9, "eval", "preference", index)
        built = build_episode(EVAL_TASKS["preference"], TRAIN, seed, index, side=side)
        e_len, u_len, e_frames, u_frames = _lengths(built)
        if side == 0:
            assert e_len < u_len and e_frames < u_frames
        else:
            assert e_len > u_len and e_frames > u_frames
        assert built.meta["audit"]["e_shorter"] == float(side == 0)


def _in_view_shares(scene_style: style.SceneStyle, episodes: int) -> np.ndarray:
    """Per object (0: preferred), the share of familiarization trials where the start sees it
    at a slant (world.in_view)."""
    seen = []
    for index in range(episodes):
        seed = derive_seed(2, "eval", "multi_agent", index)
        built = build_episode(EVAL_TASKS["multi_agent"], TRAIN, seed, index,
                              scene_style=scene_style, check=False)
        for trial in built.expected[:8]:
            frame = next(trial.iter_frames())
            blocked = blocked_grid(tuple(b.cell for b in frame.walls))
            home = frame.home.cell
            with style.using(scene_style):
                seen.append([in_view(home, blocked, o.cell, frame.home.center)
                             for o in frame.objects])
    return np.mean(seen, axis=0)


def test_multi_agent_objects_are_in_view_equally_often() -> None:
    """The test walks to the other object's place in half the pairs: that place must be in view
    as often as the preferred object's familiar place, or the test walk turns more than every
    familiarization walk (released-v3: the preferred object in view about twice as often)."""
    preferred, other = _in_view_shares(style.RELEASED, 12)
    assert abs(preferred - other) < 0.15
    old_preferred, old_other = _in_view_shares(style.RELEASED_V3, 12)
    assert old_preferred - old_other > 0.2

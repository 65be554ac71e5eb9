"""Inverse planning: preferences, rationality, reachability on hand-made episodes; a real pair."""

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from socialbench.observers.bib import handmade as hm
from socialbench.observers.bib.inverse_planning import InversePlanner
from socialbench.observers.bib.views import view_trial
from socialbench.voe.registry import make_observer

REAL = Path("/work/shared/data/bib_real_samples")
START = (2, 2)
OBJECTS = [("heart", (7, 2)), ("moon", (2, 7))]
TO_HEART = [START, (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)]
TO_MOON = [START, (2, 3), (2, 4), (2, 5), (2, 6), (2, 7)]
SWAPPED = [("heart", (2, 7)), ("moon", (7, 2))]


def preference_pair(agent_at_test: str = "pentagon"):
    fam = [hm.trial(hm.OPEN, OBJECTS, TO_HEART) for _ in range(8)]
    e = hm.episode(fam, hm.trial(hm.OPEN, SWAPPED, TO_MOON, goal=0, agent=agent_at_test))
    u = hm.episode(fam, hm.trial(hm.OPEN, SWAPPED, TO_HEART, goal=1, agent=agent_at_test))
    return e, u


def test_registered_by_name():
    assert isinstance(make_observer("bib", "inverse-planning"), InversePlanner)


def test_learns_an_agent_specific_preference_for_an_object_not_a_place():
    observer = InversePlanner()
    e, u = preference_pair()
    trace_e, trace_u = observer.trace(e), observer.trace(u)
    # prior of the test trial: the heart (index 0 of SWAPPED) is preferred 8.5 : 0.5
    prior = observer.goal_prior(view_trial(e.test), Counter({"heart": 8}))
    assert prior == pytest.approx([8.5 / 9, 0.5 / 9])
    assert trace_e["goal_posterior"][0] > 0.99 and trace_u["goal_posterior"][1] > 0.99
    assert trace_e["p_rational"] > 0.99
    assert observer.surprise(e) < observer.surprise(u)
    # going to the non-preferred object costs at least -log(0.5 / 9) nats somewhere
    assert observer.surprise(u) > -np.log(0.5 / 9) - 0.5


def test_a_new_agent_has_no_preference():
    observer = InversePlanner()
    e_new, u_new = preference_pair(agent_at_test="kite")
    # both objects equally likely for the new agent: neither outcome is more surprising
    assert observer.surprise(e_new) == pytest.approx(observer.surprise(u_new), abs=0.3)
    e_old, u_old = preference_pair()
    assert observer.surprise(u_new) < observer.surprise(u_old)  # new agent -> non-preferred: ok
    assert observer.surprise(e_old) < observer.surprise(e_new)  # familiar agent -> preferred


WALLED_IN = """
##########
#........#
#.###....#
#.#.#....#
#.###....#
#........#
#........#
#........#
#........#
##########
"""


def test_an_unreachable_object_cannot_be_the_goal():
    observer = InversePlanner()
    fam = [hm.trial(hm.OPEN, OBJECTS, TO_HEART) for _ in range(8)]
    walled = [("heart", (3, 6)), ("moon", (7, 2))]  # the heart is walled in at (3, 6)
    test = hm.trial(WALLED_IN, walled, [START, (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)], goal=1)
    assert observer.goal_prior(view_trial(test), Counter({"heart": 8})) == \
        pytest.approx([0.0, 1.0])
    expected = hm.episode(fam, test)
    unexpected = hm.episode(fam, hm.trial(hm.OPEN, walled, [START, (3, 2), (4, 2), (5, 2),
                                                             (6, 2), (7, 2)], goal=1))
    assert observer.surprise(expected) < observer.surprise(unexpected)


def test_inefficiency_is_not_surprising_after_an_inefficient_familiarization():
    observer = InversePlanner()
    one = [("heart", (7, 2))]
    detour = [START, (2, 3), (2, 4), (3, 5), (4, 5), (5, 5), (6, 4), (7, 3), (7, 2)]
    straight = [START, (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)]
    irrational = hm.episode([hm.trial(hm.OPEN, one, detour)] * 8, hm.trial(hm.OPEN, one, detour))
    rational = hm.episode([hm.trial(hm.OPEN, one, straight)] * 8, hm.trial(hm.OPEN, one, detour))
    assert observer.trace(irrational)["p_rational"] < 0.01
    assert observer.trace(rational)["p_rational"] > 0.99
    assert observer.surprise(irrational) < observer.surprise(rational)


@pytest.mark.skipif(not REAL.is_dir(), reason="real BIB samples not available")
def test_real_sample_pair_expected_is_less_surprising():
    from socialbench.bib.io import load_episode

    observer = InversePlanner()
    e, u = load_episode(REAL / "000011loe.json"), load_episode(REAL / "000011lou.json")
    assert observer.surprise(e) < observer.surprise(u)
    assert observer.trace(e)["p_rational"] > 0.99


def test_waypoints_every_cell_and_at_scene_changes():
    from socialbench.observers.bib.views import resample

    still = [(0.0, 0.0)] * 5
    path = np.asarray(still + [(2.0 * k, 0.0) for k in range(1, 26)], dtype=float)  # 0..50 px
    points, frames = resample(path)
    assert points[:, 0].tolist() == [0.0, 20.0, 40.0, 50.0]  # every 20 px, then the end
    # a scene change while the agent still waits at the start re-stamps the start waypoint
    points, frames = resample(path, breaks={3})
    assert frames[0] == 3 and points[1, 0] == 20.0

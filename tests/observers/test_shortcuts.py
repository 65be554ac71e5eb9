"""Each shortcut observer's prediction on hand-made episodes (what it expects the agent to do)."""

import numpy as np
import pytest

from socialbench.observers.bib import handmade as hm
from socialbench.observers.bib.shortcuts import SHORTCUTS, deviation
from socialbench.observers.bib.views import view_trial
from socialbench.voe.registry import make_observer

START = (2, 2)
# Familiarization: the heart sits to the right, the moon far up; the agent always takes the heart.
FAMILIAR = [hm.trial(hm.OPEN, [("heart", (7, 2)), ("moon", (2, 8))],
                     [START, (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)]) for _ in range(8)]
# Test: places swapped, the moon now nearer (4 cells right) than the heart (5 cells up).
SWAPPED = [("heart", (2, 7)), ("moon", (6, 2))]
TO_HEART = hm.trial(hm.OPEN, SWAPPED, [START, (2, 3), (2, 4), (2, 5), (2, 6), (2, 7)], goal=0)
TO_MOON = hm.trial(hm.OPEN, SWAPPED, [START, (3, 2), (4, 2), (5, 2), (6, 2)], goal=1)
EXPECTED = hm.episode(FAMILIAR, TO_HEART, "pref", expected=True)  # goes to the preferred heart
UNEXPECTED = hm.episode(FAMILIAR, TO_MOON, "pref", expected=False)  # familiar place and path


def predicted_end(name, episode):
    observer = make_observer("bib", name)
    familiarization = [view_trial(t) for t in episode.familiarization]
    return observer.predict(familiarization, view_trial(episode.test))[-1] / 20


def test_deviation_is_distance_to_the_polyline_in_cells():
    line = np.array([[0.0, 0.0], [40.0, 0.0]])
    assert deviation(np.array([[20.0, 10.0], [60.0, 0.0], [0.0, -20.0]]), line) == \
        pytest.approx([0.5, 1.0, 1.0])


@pytest.mark.parametrize("name, end, surprised_by_expected", [
    ("shortcut-nearest", (6, 2), True),  # the moon is nearer
    ("shortcut-location", (6.5, 2), True),  # the agent ended right of its start before
    ("shortcut-path", (6.5, 2), True),  # it walked right before
    ("shortcut-direct", (2, 7), False),  # straight to the familiar goal object, the heart
    ("shortcut-key", (2, 7), False),  # no barrier: same as direct
])
def test_each_shortcut_predicts_its_heuristic(name, end, surprised_by_expected):
    x, y = predicted_end(name, EXPECTED)
    assert (x, y) == pytest.approx((end[0] + 0.5, end[1] + 0.5), abs=0.6)
    observer = make_observer("bib", name)
    assert (observer.surprise(EXPECTED) > observer.surprise(UNEXPECTED)) == surprised_by_expected


ENCLOSED = """
##########
#........#
#........#
#....ggg.#
#....g.g.#
#....ggg.#
#........#
#........#
#........#
##########
"""


def test_key_shortcut_goes_for_the_key_whenever_a_barrier_exists():
    objects = [("heart", (6, 5))]
    fam = [hm.trial(ENCLOSED, objects, [START, (3, 3), (4, 4)], key=(2, 7), lock=(4, 5),
                    goal=None)] * 8
    test = hm.trial(ENCLOSED, objects, [START, (3, 2)], key=(2, 7), lock=(4, 5), goal=None)
    episode = hm.episode(fam, test)
    views = [view_trial(t) for t in episode.familiarization]
    path = make_observer("bib", "shortcut-key").predict(views, view_trial(episode.test)) / 20
    # passes the key's and the lock's centres, then ends at the goal
    assert np.hypot(*(path - (2.5, 7.5)).T).min() < 0.05
    assert np.hypot(*(path - (4.5, 5.5)).T).min() < 0.05
    assert tuple(path[-1]) == pytest.approx((6.5, 5.5))
    direct = make_observer("bib", "shortcut-direct").predict(views, view_trial(episode.test)) / 20
    assert np.hypot(*(direct - (2.5, 7.5)).T).min() > 1  # direct ignores the key


def test_all_shortcuts_tie_on_identical_tests():
    for name in SHORTCUTS:
        observer = make_observer("bib", name)
        assert observer.surprise(EXPECTED) == observer.surprise(
            hm.episode(FAMILIAR, TO_HEART, "copy"))

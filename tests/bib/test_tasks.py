"""Each BIB task's design: what differs between the e and u videos, and what must not."""

from __future__ import annotations

import math

import numpy as np
import pytest

from socialbench.bib import style
from socialbench.bib.generate import build_episode
from socialbench.bib.schema import CELL, GRID, N_FAMILIARIZATION, Episode, Frame, Trial
from socialbench.bib.shapes import NEW, TRAIN
from socialbench.bib.tasks import EVAL_TASKS, TRAIN_TASKS
from socialbench.bib.validate import validate_episode, validate_pair
from socialbench.core.grid_planning import astar

SEEDS = (1, 2)


def built(name: str, seed: int, index: int = 0, train: bool = False):
    recipe = (TRAIN_TASKS if train else EVAL_TASKS)[name]
    return build_episode(recipe, TRAIN, seed, index)


def path(trial: Trial) -> list[tuple[float, float]]:
    return [(f.agent.x, f.agent.y) for f in trial.frames]


def blocked(frame: Frame, *, fuse: bool = True) -> np.ndarray:
    grid = np.zeros((GRID, GRID), dtype=bool)
    for b in (*frame.walls, *(frame.fuse_walls if fuse else ())):
        grid[b.cell] = True
    return grid


def touched(trial: Trial) -> str:
    """The shape of the object the agent ends touching."""
    end = trial.frames[-1]
    nearest = min(end.objects, key=lambda o: math.dist(o.center, end.agent.center))
    assert math.dist(nearest.center, end.agent.center) <= 12.5
    return nearest.shape


def visits_key(trial: Trial) -> bool:
    """True when the key moves during the trial (the agent carried it)."""
    keys = [f.key[0].center for f in trial.frames if f.key]
    return len(set(keys)) > 1


def check_shared_familiarization(b) -> None:
    for t in range(N_FAMILIARIZATION):
        assert b.expected[t].frames == b.unexpected[t].frames


@pytest.mark.parametrize("name", list(EVAL_TASKS))
def test_every_evaluation_pair_passes_the_validator(name: str) -> None:
    b = built(name, 7)
    e = Episode(b.expected, "x", name, True)
    u = Episode(b.unexpected, "x", name, False)
    assert validate_episode(e) == [] and validate_episode(u) == []
    assert validate_pair(name, e, u) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_preference_swaps_objects_and_goes_to_the_preferred_one(seed: int) -> None:
    b = built("preference", seed)
    check_shared_familiarization(b)
    preferred = b.meta["design"]["preferred"]
    assert all(touched(t) == preferred for t in b.expected[:N_FAMILIARIZATION])
    e, u = b.expected[-1], b.unexpected[-1]
    assert e.frames[0] == u.frames[0]  # the test trials' first frames are identical
    assert touched(e) == preferred and touched(u) != preferred
    shown = b.expected[b.meta["design"]["test_layout_from_trial"]].frames[0]
    places = {o.shape: o.center for o in shown.objects}
    swapped = {o.shape: o.center for o in e.frames[0].objects}
    a, c = places
    assert swapped[a] == places[c] and swapped[c] == places[a]
    # unexpected: the familiar path, to the preferred object's old place
    assert path(u) == path(b.expected[b.meta["design"]["test_layout_from_trial"]])


def test_preference_is_not_closer_on_average() -> None:
    # Released style: split evenly (built alone, an episode's side is its index's parity).
    closer = [built("preference", s, index=s).meta["audit"]["e_shorter"] for s in range(24)]
    assert float(np.mean(closer)) == 0.5
    # released-v3 (the previous default): a fair coin per episode.
    coin = [build_episode(EVAL_TASKS["preference"], TRAIN, s, 0, scene_style=style.RELEASED_V3)
            .meta["audit"]["e_shorter"] for s in range(24)]
    assert 0.2 <= float(np.mean(coin)) <= 0.8


def test_multi_agent_tests_differ_only_in_agent_and_kinds_alternate() -> None:
    kinds = set()
    for index in (0, 1):
        b = built("multi_agent", 3, index)
        check_shared_familiarization(b)
        fam_agents = {f.agent.shape for t in b.expected[:N_FAMILIARIZATION] for f in t.frames}
        assert len(fam_agents) == 1  # the new agent appears only in the test
        e, u = b.expected[-1], b.unexpected[-1]
        assert path(e) == path(u)
        assert e.frames[0].agent.shape != u.frames[0].agent.shape
        assert [f.walls for f in e.frames] == [f.walls for f in u.frames]
        kind = b.meta["design"]["kind"]
        kinds.add(kind)
        familiar = next(iter(fam_agents))
        preferred = b.meta["design"]["preferred"]
        if kind == "preferred":  # familiar -> preferred (e) vs new -> preferred (u)
            assert e.frames[0].agent.shape == familiar and touched(e) == preferred
        else:  # new -> other (e) vs familiar -> other (u)
            assert u.frames[0].agent.shape == familiar and touched(u) != preferred
        walls = {t.frames[0].walls for t in b.expected[:N_FAMILIARIZATION]}
        assert len(walls) > 1  # a new maze in familiarization trials
    assert kinds == {"preferred", "other"}


@pytest.mark.parametrize("seed", SEEDS)
def test_inaccessible_goal_walls_in_the_preferred_object(seed: int) -> None:
    b = built("inaccessible_goal", seed)
    check_shared_familiarization(b)
    preferred = b.meta["design"]["preferred"]
    e, u = b.expected[-1], b.unexpected[-1]
    assert path(e) == path(u)
    assert touched(e) != preferred and touched(u) != preferred
    pref = next(o for o in e.frames[0].objects if o.shape == preferred)
    start = tuple(int(v // CELL) for v in e.frames[0].agent.center)
    assert astar(blocked(e.frames[0]), start, pref.cell) is None  # walled in
    assert astar(blocked(u.frames[0]), start, pref.cell) is not None  # reachable


@pytest.mark.parametrize("name", ["efficiency_path", "efficiency_time"])
def test_efficiency_unexpected_repeats_the_familiar_detour(name: str) -> None:
    b = built(name, 4)
    check_shared_familiarization(b)
    shown = b.meta["design"]["test_layout_from_trial"]
    e, u = b.expected[-1], b.unexpected[-1]
    assert e.frames[0] == u.frames[0]
    assert path(u) == path(b.expected[shown])  # the familiar path...
    assert len(u.frames[0].walls) < len(b.expected[shown].frames[0].walls)  # ...no barrier
    assert b.meta["audit"]["path_e"] < b.meta["audit"]["path_u"] - CELL / 2
    if name == "efficiency_time":
        assert len(e) == len(u)  # same duration
    else:
        assert len(e) < len(u)


def test_efficiency_irrational_differs_only_in_familiarization() -> None:
    b = built("efficiency_irrational", 5)
    assert b.expected[-1].frames == b.unexpected[-1].frames  # identical test
    barrier = {tuple(c) for c in b.meta["design"]["barrier_cells"]}
    for irrational, rational in zip(b.expected[:N_FAMILIARIZATION],
                                    b.unexpected[:N_FAMILIARIZATION], strict=True):
        assert path(irrational) == path(rational)  # the same paths...
        walls_i = {w.cell for w in irrational.frames[0].walls}
        walls_r = {w.cell for w in rational.frames[0].walls}
        assert barrier <= walls_r and not barrier & walls_i  # ...with and without the barrier


def test_instrumental_familiarization_unlocks_the_barrier() -> None:
    b = built("instrumental_no_barrier", 6)
    trial = b.expected[0]
    first, last = trial.frames[0], trial.frames[-1]
    assert first.fuse_walls and first.key and first.lock
    goal = first.objects[0]
    start = tuple(int(v // CELL) for v in first.agent.center)
    assert astar(blocked(first), start, goal.cell) is None  # the barrier encloses the goal
    assert not last.fuse_walls and not last.lock and not last.key
    assert visits_key(trial)
    counts = [len(f.fuse_walls) for f in trial.frames]
    assert counts == sorted(counts, reverse=True) and len(set(counts)) > 2  # progressively


def test_instrumental_no_barrier_and_inconsequential() -> None:
    for name in ("instrumental_no_barrier", "instrumental_inconsequential_barrier"):
        b = built(name, 8)
        check_shared_familiarization(b)
        e, u = b.expected[-1], b.unexpected[-1]
        assert e.frames[0] == u.frames[0]
        assert not visits_key(e) and visits_key(u)
        goal = e.frames[0].objects[0]
        start = tuple(int(v // CELL) for v in e.frames[0].agent.center)
        if name == "instrumental_no_barrier":
            assert not e.frames[0].fuse_walls
        else:
            assert e.frames[0].fuse_walls  # a barrier that does not block
            assert astar(blocked(e.frames[0]), start, goal.cell) is not None


def test_instrumental_blocking_barrier_differs_in_the_barrier_only() -> None:
    b = built("instrumental_blocking_barrier", 9)
    check_shared_familiarization(b)
    e, u = b.expected[-1], b.unexpected[-1]
    assert visits_key(e) and visits_key(u)
    goal = e.frames[0].objects[0]
    start = tuple(int(v // CELL) for v in e.frames[0].agent.center)
    assert astar(blocked(e.frames[0]), start, goal.cell) is None
    assert astar(blocked(u.frames[0]), start, goal.cell) is not None
    assert e.frames[0].walls == u.frames[0].walls and e.frames[0].objects == u.frames[0].objects
    assert path(e) == path(u)  # the same track, frame for frame


def test_background_tasks_are_expected_only_and_as_described() -> None:
    single = built("single_object", 1, train=True)
    assert single.unexpected is None and len(single.expected) == 9
    assert all(len(t.frames[0].objects) == 1 for t in single.expected)

    pref = built("preference", 1, train=True)
    preferred = pref.meta["design"]["preferred"]
    for t in pref.expected:
        assert touched(t) == preferred
        home = t.frames[0].agent.center
        assert all(math.dist(home, o.center) < 1.5 * CELL + 8 for o in t.frames[0].objects)

    multi = built("multi_agent", 1, train=True)
    switch = multi.meta["design"]["switch_trial"]
    shapes = [t.frames[0].agent.shape for t in multi.expected]
    assert len(set(shapes[:switch])) == 1 and len(set(shapes[switch:])) == 1
    assert shapes[0] != shapes[-1]

    blocked_agent = built("instrumental_action", 1, train=True)
    first = blocked_agent.expected[0].frames[0]
    start = tuple(int(v // CELL) for v in first.agent.center)
    assert astar(blocked(first), start, first.objects[0].cell) is None  # the agent is shut in
    assert astar(blocked(first), start, first.key[0].cell) is not None  # with the key
    for t in blocked_agent.expected:
        assert validate_episode(Episode([t] * 9)) == []


def test_new_shapes_are_disjoint_from_training_and_colours_distinct() -> None:
    recipe = EVAL_TASKS["multi_agent"]
    b = build_episode(recipe, NEW, 11, 0)
    frame = b.expected[-1].frames[0]
    names = {s.name for s in frame.objects} | {frame.agent.name}
    assert names <= set(NEW.objects) | set(NEW.agents)
    assert not names & (set(TRAIN.objects) | set(TRAIN.agents))
    colours = [o.color for o in frame.objects] + [frame.agent.color, b.unexpected[-1].frames[0]
                                                  .agent.color]
    assert len(set(colours)) == len(colours)


def test_same_seed_same_episode_and_different_seed_differs() -> None:
    a, b, c = built("preference", 3), built("preference", 3), built("preference", 4)
    assert a.expected == b.expected and a.meta == b.meta
    assert a.expected != c.expected


TWO_OBJECT_TASKS = [("preference", False), ("multi_agent", False), ("inaccessible_goal", False),
                    ("preference", True)]  # True: the background no-navigation preference


@pytest.mark.parametrize(("name", "train"), TWO_OBJECT_TASKS)
def test_objects_are_two_cells_apart_and_only_the_goal_is_ever_touched(name: str,
                                                                        train: bool) -> None:
    """Observers' bug report: in preference the objects could sit in adjacent cells, overlap,
    and the agent going to one ended touching the other."""
    for index in range(6):
        b = built(name, 15, index, train)
        for trials in (b.expected, b.unexpected or []):
            for trial in trials:
                a, o = trial.frames[0].objects
                apart = max(abs(a.cell[0] - o.cell[0]), abs(a.cell[1] - o.cell[1]))
                assert apart >= 2, (name, index)
                goal = touched(trial)
                other = o if goal == a.shape else a
                assert min(math.dist(p.center, other.center) for p in
                           (f.agent for f in trial.frames)) > 13.0


def test_the_reported_preference_episode_is_fixed() -> None:
    """The reported case: preference, seed 0, index 15 (objects 12 px apart before the fix)."""
    from socialbench.core.seeding import derive_seed

    b = built("preference", derive_seed(0, "eval", "preference", 15), 15)
    for trial in (*b.expected, b.unexpected[-1]):
        a, o = trial.frames[0].objects
        assert math.dist(a.center, o.center) >= 2 * CELL - 2 * 4 * math.sqrt(2)


def test_drawn_frames_are_ordinary_frames() -> None:
    """draw's fast Frame constructor gives Frames equal to, and laid out like, the dataclass's."""
    from dataclasses import fields, replace

    trial = build_episode(EVAL_TASKS["efficiency_path"], TRAIN, 4, 0).expected[0]
    for frame in trial.frames[:3]:
        assert isinstance(frame, Frame) and replace(frame) == frame
        assert list(vars(frame)) == [f.name for f in fields(Frame)]
        assert vars(replace(frame)) == vars(frame)


def test_the_recipes_are_the_released_task_folders_in_order() -> None:
    from socialbench.bib.io.layout import EVALUATION_TASKS, TRAINING_TASKS

    assert tuple(EVAL_TASKS) == EVALUATION_TASKS
    assert tuple(TRAIN_TASKS) == TRAINING_TASKS

"""The learned planner (``--observer learned-planner``): arrays, the planner on hand-made grids,
the familiarization latent, checkpoints, training and resuming."""

import math

import numpy as np
import pytest
import torch

from socialbench.core.errors import DataFileError
from socialbench.observers.bib import handmade as hm
from socialbench.observers.bib.learned_planner.batch import pack
from socialbench.observers.bib.learned_planner.model import ModelConfig
from socialbench.observers.bib.learned_planner.observer import CHECKPOINT_FORMAT, LearnedPlanner
from socialbench.observers.bib.learned_planner.planner import (
    map_costs,
    query_values,
    row_log_likelihood,
    value_iteration,
)
from socialbench.observers.bib.learned_planner.tensors import CHANNELS, DIRECTIONS, trial_arrays
from socialbench.voe.observer import view_of
from socialbench.voe.registry import make_observer
from tests.observers.test_inverse_planning import OBJECTS, START, SWAPPED, TO_HEART, TO_MOON

# a wall (column 4, rows 2-5) between the start and the object: the shortest path passes below
BARRIER = """
##########
#........#
#........#
#........#
#...#....#
#...#....#
#...#....#
#...#....#
#........#
##########
"""
BELOW = [(3, 1), (4, 1), (5, 1), (6, 2), (6, 3)]
ABOVE = [(2, 3), (2, 4), (3, 5), (3, 6), (4, 6), (5, 6), (6, 5), (6, 4), (6, 3)]


def trained_like() -> LearnedPlanner:
    """The model with values like those training finds (walls and barrier blocked, a sharp
    preference), so that the tests do not depend on a training run."""
    observer = LearnedPlanner()
    model = observer.model
    with torch.no_grad():
        weights = {"wall": 14.0, "barrier": 14.0, "home": 0.0, "object": 0.0}
        for i, name in enumerate(CHANNELS):
            model.costs.blocked.weight[0, i, 0, 0] = weights[name]
        model.costs.blocked.bias.fill_(-10.0)  # free cells cost ~1
        model.raw_beta.fill_(4.0)
        model.raw_route_beta.fill_(1.0)
        model.raw_alpha.fill_(math.log(math.expm1(0.5)))
    return observer


def preference_pair(familiar_goal=0, agent_at_test="pentagon"):
    """Tests (to the heart, to the moon) after 8 trials at OBJECTS[familiar_goal]; the test
    swaps the objects' places (SWAPPED), so each test path ends at the other object's cell."""
    fam = [hm.trial(hm.OPEN, OBJECTS, (TO_HEART, TO_MOON)[familiar_goal], goal=familiar_goal)] * 8
    return tuple(hm.episode(fam, hm.trial(hm.OPEN, SWAPPED, path, goal=g, agent=agent_at_test))
                 for g, path in enumerate((TO_MOON, TO_HEART)))


def test_registered_by_name():
    assert isinstance(make_observer("bib", "learned-planner"), LearnedPlanner)


def test_arrays_and_batch_shapes():
    trial = hm.trial(hm.OPEN, OBJECTS, TO_HEART)
    arrays = trial_arrays(trial)
    n = arrays.n_steps
    assert n == 5  # one waypoint per cell moved (the last partial step is the approach)
    assert arrays.channels.shape[1:] == (len(CHANNELS), 12, 12)
    assert arrays.goal_queries.shape == (n, 2, DIRECTIONS + 1)
    assert (arrays.key_queries == -1).all() and (arrays.lock_queries == -1).all()
    assert arrays.touching.tolist() == [True, False]
    batch = pack([arrays, arrays])
    assert batch.row_queries.shape == (2 * n * 2, DIRECTIONS + 1)
    out = trained_like().model(batch, [2])
    assert [r["steps"].shape[0] for r in out[0]] == [n, n]


def _step_logp(trial, goal_index=0):
    """log P(each observed step | heading for the goal object) under trained-like costs."""
    model = trained_like().model
    arrays = trial_arrays(trial)
    batch = pack([arrays])
    with torch.no_grad():
        costs = map_costs(model.costs(batch.channels), batch)
        values = value_iteration(costs, batch.map_target_cell)
        values_q = query_values(values, costs, batch)
        rows = row_log_likelihood(values_q, costs, batch, model.beta)
    return rows[batch.trials[0].goal_rows[:, goal_index]].numpy(), values, batch


def test_value_iteration_gives_shortest_path_costs_round_a_wall():
    _, values, batch = _step_logp(hm.trial(BARRIER, [("heart", (6, 3))], [START, *BELOW]))
    field = values[0, 1:-1, 1:-1].numpy()  # map 0: the heart on the first situation [col, row]
    assert field[6, 3] == 0.0
    assert field[5, 3] == pytest.approx(1.0, abs=0.01)
    assert field[4, 1] == pytest.approx(2 + math.sqrt(2), abs=0.01)  # no corner of the wall cut
    assert field[2, 2] == pytest.approx(3 + 2 * math.sqrt(2), abs=0.02)  # below the wall
    assert field[4, 4] > 50  # a wall cell costs what a blocked cell costs


def test_the_shortest_path_gets_the_highest_likelihood():
    fast, _, _ = _step_logp(hm.trial(BARRIER, [("heart", (6, 3))], [START, *BELOW]))
    slow, _, _ = _step_logp(hm.trial(BARRIER, [("heart", (6, 3))], [START, *ABOVE]))
    # every step of the shortest path is far likelier than a blind pick among the 16
    # directions (equal-cost alternatives, such as right-then-diagonal, share the rest)
    assert fast.min() > np.log(0.2)
    assert slow.sum() < fast.sum() - 5  # the detour's wasted steps cost nats
    # a step into the wall is all but impossible
    into = [START, (3, 3), (4, 3)]
    through, _, _ = _step_logp(hm.trial(BARRIER, [("heart", (6, 3))], into, goal=None))
    assert through[-1] < -20


def test_the_familiarization_latent_sets_and_flips_the_preference():
    observer = trained_like()
    to_heart, to_moon = preference_pair(0)
    assert observer.surprise(to_heart) < observer.surprise(to_moon) - 1.5
    # the same test after a familiarization at the moon: the preference flips
    to_heart_b, to_moon_b = preference_pair(1)
    assert observer.surprise(to_moon_b) < observer.surprise(to_heart_b) - 1.5
    # without the latent (ablation) the two tests are alike
    plain = trained_like()
    plain.config = ModelConfig(preference=False)
    plain.model.config = plain.config
    assert plain.surprise(to_heart) == pytest.approx(plain.surprise(to_moon), abs=0.5)


def test_the_preference_belongs_to_the_agent():
    observer = trained_like()
    to_heart, to_moon = preference_pair(agent_at_test="kite")
    assert observer.surprise(to_heart) == pytest.approx(observer.surprise(to_moon), abs=0.5)


def test_checkpoint_round_trip_with_weights_only(tmp_path):
    observer = trained_like()
    episode, _ = preference_pair()
    path = tmp_path / "planner.pt"
    observer.save(path)
    raw = torch.load(path, weights_only=True)
    assert raw["format"] == CHECKPOINT_FORMAT
    loaded = LearnedPlanner.load(path)
    assert np.allclose(loaded.surprise_per_step(view_of(episode)),
                       observer.surprise_per_step(view_of(episode)))
    (tmp_path / "bad.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(DataFileError):
        LearnedPlanner.load(tmp_path / "bad.pt")


def test_fit_learns_walls_block_and_resumes(tmp_path):
    episodes = [hm.episode([hm.trial(BARRIER, [("heart", (6, 3))], [START, *ABOVE])] * 8,
                           hm.trial(BARRIER, [("heart", (6, 3))], [START, *ABOVE]))] * 2
    state = tmp_path / "state.pt"
    first = LearnedPlanner()
    first.fit(episodes, episodes[:1], epochs=1, batch_size=2, lr=0.2, state_path=state,
              progress=False)
    again = LearnedPlanner()
    metrics = again.fit(episodes, episodes[:1], epochs=2, batch_size=2, lr=0.2,
                        state_path=state, progress=False)
    assert len(again.training_info["history"]) == 2  # epoch 1 came from the state
    assert metrics["p_blocked/wall"] > metrics["p_blocked/empty"]

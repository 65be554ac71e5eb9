"""Scenario 1, Goal preferences: an agent pursues the object it prefers, whatever the path costs.

Two-goal scenes: the agent in the middle, an object on either side (different shapes, colours
from different sets), and on each side nothing or an obstacle of one kind: a long wall it must
jump (in tests the hardest may be 0.9 m tall, which it walks round; agent spec), a chasm, a
platform the object stands on, or a ramp up to such a platform.
The agent has a reward for each object, the preferred one's clearly higher (``rewards`` in the
annotations); it goes to the object of highest reward minus path cost. One familiarization
video shows it going to the preferred object. Half of the tests swap the two objects' sides.
*Expected*: the agent goes to the preferred object; *surprising*: to the other. The four types
vary which object costs more to reach (path costs come from the planner). Which object is
preferred is counterbalanced against its id (and so its place in the entity lists), its side
at test, its colour code and its shape, and the swap against the trial: each holds in exactly
one trial of every consecutive pair (``Context.balance``).
"""

from __future__ import annotations

from socialbench.agent3d.layout import constants, placement
from socialbench.agent3d.layout.geometry import Layout
from socialbench.agent3d.layout.placement import pick
from socialbench.agent3d.planning import choose_goal, efficient_plan
from socialbench.agent3d.scenarios.balance import goal_roles
from socialbench.agent3d.scenarios.common import Context, RecipeError, Shot, simulate_shots
from socialbench.agent3d.scenarios.registry import TrialVideos, recipe

SCENARIO = 1
LESS_REWARD = (6.0, 8.0)  # ours: the less-preferred object's reward (path costs are 1.7-5)
PREFERENCE_GAP = (4.0, 6.0)  # ours: how much more the preferred object is worth
MIN_COST_GAP = 0.05  # ours: "costs more" means by at least this much


def _scene(ctx: Context, looks: list, agent: tuple, sides: tuple[int, int], kind: str,
           levels: dict[int, int], test: bool = False) -> Layout:
    """A two-goal layout; ``levels``: goal id -> obstacle difficulty in front of it. In test
    scenes the hardest wall may be the spec's 0.9 m one (walked round, not jumped)."""
    layout = placement.two_goal_layout(ctx.rng, looks, agent[0], agent[1], sides=sides)
    keys = sorted(levels)
    if levels[keys[0]] == levels[keys[1]]:  # equal costs: the very same obstacle on both sides
        shared = placement.level_spec(ctx.rng, kind, levels[keys[0]], two_goals=True,
                                      tall_walls=test)
        specs = dict.fromkeys(keys, shared)
    else:
        specs = {k: placement.level_spec(ctx.rng, kind, levels[k], two_goals=True, tall_walls=test)
                 for k in keys}
    for goal in layout.goals:
        side = 1 if goal.x > 0 else -1
        layout = placement.place(layout, side * constants.TWO_GOAL_OBSTACLE_X, specs[goal.key])
    if kind == "chasm":
        layout = layout.with_changes(raised=True)
    return layout


def _build(ctx: Context, fam_levels: tuple[int, int], test_levels: tuple[int, int],
           fam_order: str, test_order: str) -> TrialVideos:
    """Levels are (preferred, other); orders say how their costs compare: "=", ">" or "<"."""
    agent_shape, agent_color, sampled = placement.sample_looks(ctx.rng, 2, ctx.extended)
    agent = (agent_shape, agent_color)
    roles = goal_roles(ctx.balance, sampled)  # ids, looks and sides tell nothing of the answer
    preferred, other, looks = roles.preferred, roles.other, roles.looks
    less = float(ctx.rng.uniform(*LESS_REWARD))
    rewards = {preferred: round(less + float(ctx.rng.uniform(*PREFERENCE_GAP)), 3),
               other: round(less, 3)}
    swapped = ctx.balance.swapped
    ctx.notes.update({"rewards": {str(k): v for k, v in sorted(rewards.items())},
                      "preferred_goal_id": preferred, "swapped": swapped})
    test_sides = roles.sides
    fam_sides = test_sides[::-1] if swapped else test_sides
    kind = str(pick(ctx.rng, placement.OBSTACLE_KINDS))
    layouts = []
    for sides, levels, order, test in ((fam_sides, fam_levels, fam_order, False),
                                       (test_sides, test_levels, test_order, True)):
        layout = _scene(ctx, looks, agent, sides, kind, {preferred: levels[0], other: levels[1]},
                        test)
        gap = (efficient_plan(layout, preferred).cost - efficient_plan(layout, other).cost)
        if (order == "=" and abs(gap) > 1e-6) or (order == ">" and gap < MIN_COST_GAP) or \
                (order == "<" and gap > -MIN_COST_GAP):
            raise RecipeError(f"path costs do not compare as {order} (difference {gap:.3f})")
        layouts.append(layout)
    familiar, test = layouts
    fam_plan, test_plan = choose_goal(familiar, rewards), choose_goal(test, rewards)
    if fam_plan.goal != preferred or test_plan.goal != preferred:
        raise RecipeError("the agent would not pursue its preferred object")
    sweep = ctx.sweep()
    shots = [Shot(familiar, fam_plan, "familiarization"), Shot(test, test_plan, "expected")]
    if ctx.surprising:
        shots.append(Shot(test, efficient_plan(test, other), "surprising"))
    fam, expected, *surprising = simulate_shots(ctx, shots, sweep)
    return TrialVideos([fam], expected, surprising[0] if surprising else None)


def _level(ctx: Context, low: int = 0, high: int = 4) -> int:
    return int(ctx.rng.integers(low, high + 1))


@recipe("1.1")
def equal_costs(ctx: Context) -> TrialVideos:
    """1.1 Both objects cost the same to reach, in familiarization and in test.

    Familiarization: the same obstacle (or none) before each object; the agent goes to the
    preferred one. Test (sides swapped in half the trials): again equal obstacles.
    Expected: the preferred object. Surprising: the other object.
    """
    a, b = _level(ctx), _level(ctx)
    return _build(ctx, (a, a), (b, b), "=", "=")


@recipe("1.2")
def other_costs_more_at_test(ctx: Context) -> TrialVideos:
    """1.2 Equal costs in familiarization; at test the less-preferred object costs more.

    Familiarization: equal obstacles; the agent goes to the preferred object.
    Test: a harder obstacle before the less-preferred object than before the preferred one.
    Expected: the preferred object. Surprising: the other, costlier one.
    """
    a = _level(ctx)
    low = _level(ctx, 0, 3)
    return _build(ctx, (a, a), (low, _level(ctx, low + 1)), "=", "<")


@recipe("1.3")
def preferred_costs_more_first(ctx: Context) -> TrialVideos:
    """1.3 The preferred object costs more in familiarization; equal costs at test.

    Familiarization: a harder obstacle before the preferred object, and the agent still goes
    to it. Test: equal obstacles. Expected: the preferred object. Surprising: the other.
    """
    low = _level(ctx, 0, 3)
    b = _level(ctx)
    return _build(ctx, (_level(ctx, low + 1), low), (b, b), ">", "=")


@recipe("1.4")
def preferred_cheaper_at_test(ctx: Context) -> TrialVideos:
    """1.4 The preferred object costs more in familiarization and less at test.

    Familiarization: a harder obstacle before the preferred object; the agent goes to it.
    Test: the harder obstacle is before the less-preferred object.
    Expected: the preferred object. Surprising: the other, costlier one.
    """
    low = _level(ctx, 0, 3)
    low2 = _level(ctx, 0, 3)
    return _build(ctx, (_level(ctx, low + 1), low), (low2, _level(ctx, low2 + 1)), ">", "<")

"""Scenario 4, Cost-reward trade-offs: how much effort an agent spends shows how much it wants.

Four familiarization videos, each a one-goal scene with one of the two objects behind an
obstacle of one kind (a long wall, a platform the object stands on, a ramp up to such a
platform, each of rising height, or a chasm of rising width):

1. the preferred object behind a medium obstacle: the agent overcomes it;
2. the preferred object behind a hard obstacle: the agent looks around and gives up;
3. the less-preferred object behind an easy obstacle: the agent overcomes it;
4. the less-preferred object behind a medium obstacle: the agent gives up.

The agent's rewards are set from the planner's path costs so that exactly this happens
(preferred: between the medium and hard costs; less-preferred: between easy and medium), and it
goes for the object of highest reward minus cost. Test: a two-goal scene with both objects.
*Expected*: the agent goes to the preferred object; *surprising*: to the other one.

Half of the trials show the less-preferred object's two videos first (3, 4, 1, 2), and which
object is preferred is counterbalanced against its id (and so its place in the entity lists),
its side at test, its colour code and its shape: each holds in exactly one trial of every
consecutive pair (``Context.balance``), so none of them tells the answer.
"""

from __future__ import annotations

from socialbench.agent3d.layout import constants, geometry, placement
from socialbench.agent3d.layout.placement import pick
from socialbench.agent3d.planning import GIVE_UP, choose_goal, efficient_plan
from socialbench.agent3d.scenarios.balance import goal_roles
from socialbench.agent3d.scenarios.common import Context, RecipeError, Shot, simulate_shots
from socialbench.agent3d.scenarios.registry import TrialVideos, recipe

SCENARIO = 4
MIN_COST_GAP = 0.1  # ours: easy < medium < hard by at least this much path cost
EASY, MEDIUM, HARD = 1, (2, 3), 4  # difficulty levels (placement.level_spec)


def _build(ctx: Context, test_levels: tuple[int, int]) -> TrialVideos:
    """``test_levels``: obstacle levels before (preferred, less-preferred) in the test scene."""
    agent_shape, agent_color, sampled = placement.sample_looks(ctx.rng, 2, ctx.extended)
    roles = goal_roles(ctx.balance, sampled)  # ids, looks and sides tell nothing of the answer
    preferred, other, looks = roles.preferred, roles.other, roles.looks
    kind = str(pick(ctx.rng, placement.OBSTACLE_KINDS))
    medium_level = int(pick(ctx.rng, MEDIUM))
    sizes = {level: placement.level_spec(ctx.rng, kind, level, two_goals=False)
             for level in (EASY, medium_level, HARD)}

    def one_goal(key: int, level: int, direction: int | None = None) -> geometry.Layout:
        shape, code = looks[key - constants.FIRST_GOAL_ID]
        layout = placement.one_goal_layout(ctx.rng, shape, code, agent_shape, agent_color,
                                           direction)
        layout.goals[0] = geometry.Goal(key, layout.goals[0].x, shape, code)
        return placement.place(layout, placement.middle_x(layout), sizes[level])

    plan_of = [(preferred, medium_level), (preferred, HARD), (other, EASY),
               (other, medium_level)]
    shown = [0, 1, 2, 3] if ctx.balance.shown_first else [2, 3, 0, 1]
    # the first video the agent completes shows its object on the preferred object's test
    # side, or (``swapped``) on the other side: the familiar side tells nothing either
    first_side = roles.sides[preferred - constants.FIRST_GOAL_ID] * (
        -1 if ctx.balance.swapped else 1)
    layouts = [one_goal(key, level, first_side if k == shown[0] else None)
               for k, (key, level) in enumerate(plan_of)]
    costs = {level: efficient_plan(layout, key).cost
             for (key, level), layout in zip(plan_of, layouts, strict=True)}
    easy, medium, hard = costs[EASY], costs[medium_level], costs[HARD]
    if not (easy + MIN_COST_GAP < medium and medium + MIN_COST_GAP < hard):
        raise RecipeError("obstacle costs are not easy < medium < hard")
    rewards = {preferred: round((medium + hard) / 2, 3), other: round((easy + medium) / 2, 3)}
    ctx.notes.update({"rewards": {str(k): v for k, v in sorted(rewards.items())},
                      "preferred_goal_id": preferred})
    sweep = ctx.sweep()
    shots = []
    for k in shown:  # each object's videos together: overcomes, then gives up
        (key, _), layout, goes = plan_of[k], layouts[k], k % 2 == 0
        plan = choose_goal(layout, {key: rewards[key]})
        if (plan is not GIVE_UP) != goes:
            raise RecipeError("the agent's choice does not match the familiarization design")
        shots.append(Shot(layout, plan, "familiarization"))

    test = placement.two_goal_layout(ctx.rng, looks, agent_shape, agent_color,
                                     sides=roles.sides)
    shared = placement.level_spec(ctx.rng, kind, test_levels[0], two_goals=True)
    specs = {key: shared if test_levels[0] == test_levels[1] else placement.level_spec(
        ctx.rng, kind, level, two_goals=True)
        for key, level in zip((preferred, other), test_levels, strict=True)}
    for key in sorted(specs):  # obstacles in id order: their ids follow the goals'
        side = 1 if test.goal(key).x > 0 else -1
        test = placement.place(test, side * constants.TWO_GOAL_OBSTACLE_X, specs[key])
    if kind == "chasm":
        test = test.with_changes(raised=True)
    gap = efficient_plan(test, preferred).cost - efficient_plan(test, other).cost
    if (test_levels[0] == test_levels[1] and abs(gap) > 1e-6) or \
            (test_levels[0] < test_levels[1] and gap > -MIN_COST_GAP):
        raise RecipeError(f"test path costs differ by {gap:.3f}, against the type's design")
    plan = choose_goal(test, rewards)
    if plan.goal != preferred:
        raise RecipeError("the agent would not pursue its preferred object at test")
    shots.append(Shot(test, plan, "expected"))
    if ctx.surprising:
        shots.append(Shot(test, efficient_plan(test, other), "surprising"))
    # simulated once the whole trial is planned and checked: a test scene that misses the
    # type's design costs no familiarization video
    videos = simulate_shots(ctx, shots, sweep)
    fam, rest = videos[:len(shown)], videos[len(shown):]
    return TrialVideos(fam, rest[0], rest[1] if ctx.surprising else None)


@recipe("4.1")
def equal_obstacles(ctx: Context) -> TrialVideos:
    """4.1 No obstacles, or the same obstacle before both objects, at test.

    Familiarization: the four videos above. Test: nothing (or equal easy/medium obstacles)
    between the agent and either object. Expected: the preferred object. Surprising: the other.
    """
    level = int(pick(ctx.rng, (0, EASY, 2)))
    return _build(ctx, (level, level))


@recipe("4.2")
def harder_before_other(ctx: Context) -> TrialVideos:
    """4.2 A harder obstacle before the less-preferred object at test.

    Familiarization: the four videos above. Test: no or an easy obstacle before the preferred
    object, a harder one before the other. Expected: the preferred object (also cheaper).
    Surprising: the other object, over the harder obstacle.
    """
    low = int(pick(ctx.rng, (0, EASY)))
    return _build(ctx, (low, int(pick(ctx.rng, (2, 3, HARD)))))

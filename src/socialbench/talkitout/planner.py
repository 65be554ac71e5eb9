"""The shortest informed plan for a TalkItOut layout, with full knowledge of it.

Measures how much of the test set ``t_max`` leaves solvable. A plan is a sequence of steps
(move or not, then speak); it must hear the wizard, then the true guide (both may answer in the
same step when the agent stands next to both), then say "Open sesame" in front of the exit.
When the wizard is walled in by the two guides, the only evidence is the liar contradicting
itself, so that plan hears the liar twice (best case: it contradicts itself at once, which
happens with probability 2/3) and the true guide, then goes to the exit.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from socialbench.talkitout.env import TalkItOutEnv

_DIR_VEC = ((1, 0), (0, 1), (-1, 0), (0, -1))


@dataclass(frozen=True)
class PlanLength:
    """Steps of the shortest informed plan (None: no plan exists); whether the wizard is
    walled in (the plan then goes through the liar)."""

    steps: int | None
    wizard_walled_in: bool


def _adjacent(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def _search(env: TalkItOutEnv, needs: tuple[str, ...]) -> int | None:
    """BFS over (pose, progress) where progress counts how many of ``needs`` (NPC roles, in
    order; one role may repeat) have been heard; the exit comes last."""
    walkable = env._walkable
    npc_at = {n.role: tuple(n.cur_pos) for n in env.npcs}
    exit_front = env.door_fronts[env.target_index]
    start = (tuple(env.agent_pos), int(env.agent_dir), 0)
    seen = {start}
    queue = deque([(start, 0)])
    while queue:
        (pos, d, done), t = queue.popleft()
        moves = [(pos, (d - 1) % 4), (pos, (d + 1) % 4), (pos, d)]
        ahead = (pos[0] + _DIR_VEC[d][0], pos[1] + _DIR_VEC[d][1])
        if walkable[ahead]:
            moves.append((ahead, d))
        for new_pos, new_d in moves:
            if done == len(needs):
                if new_pos == exit_front:  # "Open sesame" this step
                    return t + 1
                progress = done
            else:  # "Where is the exit" this step: every adjacent needed NPC answers
                progress, heard = done, set()
                while (progress < len(needs) and _adjacent(new_pos, npc_at[needs[progress]])
                       and needs[progress] not in heard):
                    heard.add(needs[progress])
                    progress += 1
            state = (new_pos, new_d, progress)
            if state not in seen:
                seen.add(state)
                queue.append((state, t + 1))
    return None


def shortest_plan(env: TalkItOutEnv) -> PlanLength:
    """The shortest informed plan for the environment's current layout (call after reset)."""
    wizard = next(n for n in env.npcs if n.role == "wizard")
    wx, wy = wizard.cur_pos
    walled = env.liar and not any(env._walkable[wx + dx, wy + dy] for dx, dy in _DIR_VEC)
    steps = None if walled else _search(env, ("wizard", "guide"))
    if steps is None and env.liar:  # no way to the wizard: the liar must give itself away
        routes = (("liar", "liar", "guide"), ("guide", "liar", "liar"), ("liar", "guide", "liar"))
        found = [s for s in (_search(env, r) for r in routes) if s is not None]
        steps = min(found) if found else None
    return PlanLength(steps, walled)


@dataclass(frozen=True)
class SolvableReport:
    """How much of the test set an informed plan can finish within t_max."""

    variant: str
    episodes: int
    t_max: int
    within_t_max: float  # share of layouts whose shortest informed plan fits in t_max
    no_plan: float  # share with no informed plan at all (NPCs box the agent in, ...)
    wizard_walled_in: float  # share where only the liar's contradictions can help
    median_steps: float
    p90_steps: float
    max_steps: int

    def summary(self) -> str:
        return (f"{self.variant}, {self.episodes} test layouts, t_max {self.t_max}: "
                f"{self.within_t_max:.3f} solvable within t_max; no plan at all "
                f"{self.no_plan:.3f}; wizard walled in {self.wizard_walled_in:.3f}; "
                f"shortest plan median {self.median_steps:g}, 90th percentile "
                f"{self.p90_steps:g}, max {self.max_steps} steps")


def solvable_share(variant: str, episodes: int = 1000, t_max: int = 40) -> SolvableReport:
    """Run :func:`shortest_plan` over the first ``episodes`` layouts of the test set."""
    import numpy as np

    from socialbench.talkitout.evaluate import layout_seed, make_env

    env = make_env(variant, t_max=t_max)
    lengths, walled, none = [], 0, 0
    for index in range(episodes):
        env.reset(seed=layout_seed(index))
        plan = shortest_plan(env)
        walled += plan.wizard_walled_in
        if plan.steps is None:
            none += 1
        else:
            lengths.append(plan.steps)
    found = np.array(lengths or [0])
    return SolvableReport(
        variant=variant, episodes=episodes, t_max=t_max,
        within_t_max=float(np.sum(found <= t_max) / episodes) if lengths else 0.0,
        no_plan=none / episodes, wizard_walled_in=walled / episodes,
        median_steps=float(np.median(found)), p90_steps=float(np.percentile(found, 90)),
        max_steps=int(found.max()))

"""How a BIB pair's expected and unexpected episodes must relate, task by task."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from socialbench.bib.schema import N_FAMILIARIZATION, N_TRIALS, Episode, Frame, Trial

SAME, DIFFER, ANY, ABSENT = "same", "differ", "any", "absent"


@dataclass(frozen=True)
class TestRule:
    """How a task's expected and unexpected test trials relate (compared on the test trial's
    first frame for the layout, over the whole trial for the agent's path)."""

    shared_familiarization: bool = True  # e and u familiarizations equal frame for frame
    identical_tests: bool = False  # e and u test trials equal frame for frame
    walls: str = SAME
    fuse_walls: str = SAME  # also ABSENT: no removable barrier in either test
    objects: str = SAME  # objects, key and lock
    agent_shape: str = SAME
    path: str = DIFFER  # the agent's positions over the trial
    length: str = ANY


# bib paper, section 3, and bib spec "Tasks"; the layout differences are the designs' own words.
TEST_RULES: dict[str, TestRule] = {
    # same layout, objects' places swapped from familiarization: e/u go to different objects
    "preference": TestRule(),
    # same layout, identical path; only the agent differs (familiar vs new)
    "multi_agent": TestRule(agent_shape=DIFFER, path=SAME),
    # e walls the preferred object in; u leaves both reachable
    "inaccessible_goal": TestRule(walls=DIFFER, path=ANY),
    # barrier removed: e straight, u the familiar detour
    "efficiency_path": TestRule(),
    # the inefficient path takes the same time as the efficient one
    "efficiency_time": TestRule(length=SAME),
    # e irrational, u rational familiarization; the same test
    "efficiency_irrational": TestRule(shared_familiarization=False, identical_tests=True),
    # no barrier: e direct, u to the key
    "instrumental_no_barrier": TestRule(fuse_walls=ABSENT),
    # a barrier that does not block: e direct, u to the key
    "instrumental_inconsequential_barrier": TestRule(),
    # e the barrier blocks, u it does not; the agent goes to the key in both
    "instrumental_blocking_barrier": TestRule(fuse_walls=DIFFER, path=ANY),
}


_FRAME_FIELDS = tuple(f for f in Frame.__dataclass_fields__ if f != "agent")


def same_trial(a: Trial, b: Trial) -> bool:
    """``a == b``, ~4x faster on trials read from files (benchmarks/bib_data_model.py): two
    files hold equal but distinct wall tuples (~50 blocks each), each shared by a file's
    frames, so each pair of such objects is compared once, not once per frame. The compared
    objects stay referenced (``memo``), so their ids are not reused meanwhile."""
    if a is b or a.runs is not None or b.runs is not None or len(a) != len(b):
        return a == b  # generated trials compare as runs
    memo: dict[tuple[int, int], tuple[object, object, bool]] = {}
    for fa, fb in zip(a.frames, b.frames, strict=True):
        if fa is fb:
            continue
        if fa.agent != fb.agent:
            return False
        for name in _FRAME_FIELDS:
            x, y = getattr(fa, name), getattr(fb, name)
            if x is y:
                continue
            known = memo.get((id(x), id(y)))
            if known is None:
                known = memo[(id(x), id(y))] = (x, y, x == y)
            if not known[2]:
                return False
    return True


def _first_frame(trial: Trial) -> Frame:
    runs = trial.runs
    return runs[0].template if runs else trial.frames[0]


class _AgentPath:
    """The agent's corner in every frame of a trial (NaN where a frame has no agent), compared
    as a whole."""

    def __init__(self, trial: Trial) -> None:
        runs = trial.runs
        if runs is not None:
            self.xy = np.concatenate([r.xy for r in runs]).astype(float)
        else:
            self.xy = np.array([(f.agent.x, f.agent.y) if f.agent is not None
                                else (math.nan, math.nan) for f in trial.frames], dtype=float)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, _AgentPath) and self.xy.shape == other.xy.shape
                and bool(np.array_equal(self.xy, other.xy, equal_nan=True)))

    __hash__ = None  # type: ignore[assignment]


def _relation(name: str, want: str, a: object, b: object) -> str | None:
    if want == SAME and a != b:
        return f"{name} differ between the expected and unexpected tests (they should not)"
    if want == DIFFER and a == b:
        return f"{name} are the same in the expected and unexpected tests (they should differ)"
    return None


def validate_pair(task: str | None, expected: Episode, unexpected: Episode) -> list[str]:
    """Problems in how an expected and an unexpected episode relate, by the task's rule."""
    if len(expected.trials) != N_TRIALS or len(unexpected.trials) != N_TRIALS:
        return [f"pair has {len(expected.trials)}/{len(unexpected.trials)} trials, expected "
                f"{N_TRIALS} each"]
    rule = TEST_RULES.get(task or "", TestRule(path=ANY))
    problems: list[str] = []
    fam_e, fam_u = expected.familiarization, unexpected.familiarization
    if rule.shared_familiarization:
        for t in range(N_FAMILIARIZATION):
            if not same_trial(fam_e[t], fam_u[t]):
                problems.append(f"trial {t}: the expected and unexpected familiarizations differ "
                                "(they must be shared frame for frame)")
                break
    elif all(same_trial(fam_e[t], fam_u[t]) for t in range(N_FAMILIARIZATION)):
        problems.append("the expected and unexpected familiarizations are identical (this task "
                        "shows different agents in them)")
    te, tu = expected.test, unexpected.test
    if rule.identical_tests:
        if not same_trial(te, tu):
            problems.append("the expected and unexpected test trials differ (they must be "
                            "identical in this task)")
        return problems
    e0, u0 = _first_frame(te), _first_frame(tu)
    checks = [
        ("walls", rule.walls, e0.walls, u0.walls),
        ("objects", rule.objects, (e0.objects, e0.key, e0.lock), (u0.objects, u0.key, u0.lock)),
        ("agent shapes", rule.agent_shape, e0.agent and e0.agent.shape,
         u0.agent and u0.agent.shape),
        ("agent paths", rule.path, _AgentPath(te), _AgentPath(tu)),
        ("test lengths", rule.length, len(te), len(tu)),
    ]
    if rule.fuse_walls == ABSENT:
        if e0.fuse_walls or u0.fuse_walls:
            problems.append("test trial: a removable barrier is present (this task has none)")
    else:
        checks.append(("removable barriers", rule.fuse_walls, e0.fuse_walls, u0.fuse_walls))
    for name, want, a, b in checks:
        if (msg := _relation(name, want, a, b)) is not None:
            problems.append(f"test trial: {msg}")
    return problems

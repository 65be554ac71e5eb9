"""TalkItOut evaluation: success rate on a fixed test set, per seed, then mean and std over seeds.

The protocol is the paper's (SocialAI 0.1, Table 1): a fixed set of test environments, the same
for every agent and seed; the success rate (final reward > 0) per seed; mean and standard
deviation over seeds; Welch's t-test between two conditions. Here the seed seeds the agent's
own randomness (its sampled actions), never the test layouts.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.core.errors import DataFileError, UserError
from socialbench.core.progress import progress_bar
from socialbench.core.seeding import derive_seed, rng_for
from socialbench.talkitout.agents import make_agent
from socialbench.talkitout.env import TalkItOutEnv

VARIANTS = {"original": True, "no-liar": False}  # variant name -> liar present
TEST_SET_SEED = 1  # the released code seeds its 1000 test episodes with 1
TEST_EPISODES = 1000  # SocialAI 0.1: "a fixed set of 1000 environments" (spec)
EVAL_SEEDS = 16  # SocialAI 0.1, Table 1: 16 seeds


def layout_seed(index: int) -> int:
    """The environment seed of test episode ``index`` (the same for every agent and seed)."""
    return derive_seed(TEST_SET_SEED, "talkitout-test", index)


@dataclass
class EvalResult:
    """One agent on one variant: the JSON written by ``--json`` and read by ``compare``."""

    agent: str
    variant: str
    episodes: int
    seeds: int
    success_mean: float
    success_std: float
    per_seed: list[float] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self))


def check_variant(variant: str) -> bool:
    """Whether the variant has the liar; an unknown name is a one-line UserError."""
    if variant not in VARIANTS:
        raise UserError(f"unknown TalkItOut variant {variant!r}; choose one of: "
                        f"{', '.join(VARIANTS)}")
    return VARIANTS[variant]


def make_env(variant: str, **env_kwargs: Any) -> TalkItOutEnv:
    return TalkItOutEnv(liar=check_variant(variant), **env_kwargs)


def play(env: TalkItOutEnv, agent: Any, seed: int, max_steps: int | None = None
         ) -> Iterator[tuple[tuple[int, int, int] | None, dict[str, Any], float]]:
    """Play one episode from layout seed ``seed``: first (None, the reset's observation, 0),
    then (action, observation after it, reward) per step until the episode ends (or
    ``max_steps`` steps)."""
    obs, _ = env.reset(seed=seed)
    agent.reset()
    yield None, obs, 0.0
    steps = 0
    while max_steps is None or steps < max_steps:
        action = agent.act(obs)
        obs, reward, terminated, truncated, _ = env.step(action)
        steps += 1
        yield action, obs, float(reward)
        if terminated or truncated:
            return


def run_episode(env: TalkItOutEnv, agent: Any, seed: int) -> float:
    """Play one episode; return its final reward."""
    *_, (_, _, reward) = play(env, agent, seed)  # the last step's reward
    return reward


def success_rate(agent_name: str, variant: str, seed: int, episodes: int = TEST_EPISODES,
                 env: TalkItOutEnv | None = None, progress: Any = None,
                 task: Any = None) -> float:
    """Share of the first ``episodes`` test environments the agent (seeded ``seed``) solves."""
    env = env or make_env(variant)
    agent = make_agent(agent_name, rng_for(seed, "talkitout-agent", agent_name))
    wins = 0
    for index in range(episodes):
        wins += run_episode(env, agent, layout_seed(index)) > 0
        if progress is not None and (index % 50 == 49 or index == episodes - 1):
            progress.update(task, completed=seed * episodes + index + 1)
    return wins / episodes


def _read_journal(journal: Path, key: str) -> dict[int, float]:
    """Per-seed rates already journaled for this exact configuration (other lines ignored)."""
    done: dict[int, float] = {}
    if journal.exists():
        for line in journal.read_text().splitlines():
            try:
                entry = json.loads(line)
                if entry["key"] == key:
                    done[int(entry["seed"])] = float(entry["rate"])
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by an interruption
    return done


def evaluate(agent_name: str, variant: str, episodes: int = TEST_EPISODES,
             seeds: int = EVAL_SEEDS, show_progress: bool = True,
             journal: str | Path | None = None, **env_kwargs: Any) -> EvalResult:
    """Success rate per seed (seeds 0..seeds-1) on the fixed test set, with mean and std.

    With ``journal``, each finished seed is appended to that file and seeds already there (for
    the same agent, variant, episodes and environment settings) are not run again: an
    interrupted evaluation resumes where it stopped.
    """
    if episodes < 1 or seeds < 1:
        raise UserError(f"--episodes and --seeds must be at least 1 (got {episodes}, {seeds})")
    env = make_env(variant, **env_kwargs)
    make_agent(agent_name, np.random.default_rng(0))  # unknown names fail before any work
    key = json.dumps([agent_name, variant, episodes, sorted(env_kwargs.items())])
    done = _read_journal(Path(journal), key) if journal else {}
    per_seed = []
    with progress_bar(f"{agent_name} on {variant}", show=show_progress,
                      transient=True) as progress:
        task = progress.add_task("episodes", total=episodes * seeds)
        for seed in range(seeds):
            if seed not in done:
                done[seed] = success_rate(agent_name, variant, seed, episodes, env, progress,
                                          task)
                if journal:
                    with open(journal, "a") as handle:
                        handle.write(json.dumps({"key": key, "seed": seed,
                                                 "rate": done[seed]}) + "\n")
            per_seed.append(done[seed])
            progress.update(task, completed=(seed + 1) * episodes)
    return EvalResult(agent=agent_name, variant=variant, episodes=episodes, seeds=seeds,
                      success_mean=float(np.mean(per_seed)),
                      success_std=float(np.std(per_seed)), per_seed=per_seed)


def load_result(path: str | Path) -> EvalResult:
    """Read a result file written by ``eval --json``; a bad file is a one-line DataFileError."""
    try:
        data = json.loads(Path(path).read_text())
        per_seed = [float(x) for x in data["per_seed"]]
        return EvalResult(agent=str(data["agent"]), variant=str(data["variant"]),
                          episodes=int(data["episodes"]), seeds=int(data["seeds"]),
                          success_mean=float(data["success_mean"]),
                          success_std=float(data["success_std"]), per_seed=per_seed)
    except FileNotFoundError as exc:
        raise DataFileError(path, "no such file") from exc
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataFileError(path, f"not a TalkItOut result (write one with "
                                  f"`socialbench talkitout eval --json`): {exc}") from exc


def welch_t_test(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Welch's unequal-variance t-test (SocialAI 0.1's test between conditions): (t, p).

    Two constant, equal samples give (0, 1); constant, different ones give (+-inf, 0).
    """
    from scipy import stats  # imported here: scipy.stats costs ~1 s at CLI start-up

    if len(a) < 2 or len(b) < 2:
        raise UserError("Welch's t-test needs at least 2 seeds in each result")
    if np.var(a) == 0 and np.var(b) == 0:
        diff = float(np.mean(a) - np.mean(b))
        return (0.0, 1.0) if diff == 0 else (math.copysign(math.inf, diff), 0.0)
    result = stats.ttest_ind(a, b, equal_var=False)
    return float(result.statistic), float(result.pvalue)

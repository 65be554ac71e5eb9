"""Whole episodes of the hierarchical agent in the batched environment.

Environment i plays one episode from layout seed ``seeds[i]``; the high level chooses an option
whenever one ends, all waiting environments in one network call. Used by training (with the
decisions recorded) and by the test-set evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from gymnasium.vector import AutoresetMode

from socialbench.core.seeding import derive_seed
from socialbench.rl.hierarchical.features import build_features
from socialbench.rl.hierarchical.network import OptionPolicy
from socialbench.rl.hierarchical.options import EXPLORE, OptionController
from socialbench.talkitout.grammar import NO_MOVE, NO_NOUN, NO_TEMPLATE
from socialbench.talkitout.vector_env import TalkItOutVectorEnv
from socialbench.talkitout.vocabulary import decode

_IDLE = (NO_MOVE, NO_TEMPLATE, NO_NOUN)
_RETRIES = 3  # options that end without acting before the step falls back to exploring


@dataclass
class Episodes:
    """Decisions (rows) and episode outcomes of one batch of episodes."""

    feats: np.ndarray  # (D, K, C) float32
    mask: np.ndarray  # (D, K) bool
    option: np.ndarray  # (D,) int64
    logp: np.ndarray  # (D,) float32
    value: np.ndarray  # (D,) float32
    episode: np.ndarray  # (D,) int64: which episode each decision belongs to
    reward: np.ndarray  # (E,) final reward of each episode
    length: np.ndarray  # (E,) steps of each episode

    @property
    def frames(self) -> int:
        return int(self.length.sum())


def observation(obs: dict[str, np.ndarray], i: int) -> dict[str, object]:
    """Environment i's observation as the single environment gives it (utterance as text)."""
    ids = obs["utterance"][i]
    return {"image": obs["image"][i], "direction": int(obs["direction"][i]),
            "utterance": decode(ids[ids != 0].tolist())}


@torch.no_grad()
def play(policy: OptionPolicy, seeds: list[int], liar: bool, t_max: int, agent_seed: int,
         sampler: torch.Generator, ablation: str = "full", device: str = "cpu",
         envs: TalkItOutVectorEnv | None = None) -> Episodes:
    """Play one episode per seed with options sampled from ``policy``."""
    n = len(seeds)
    if envs is None or envs.num_envs != n:
        envs = TalkItOutVectorEnv(n, liar=liar, t_max=t_max,
                                  autoreset_mode=AutoresetMode.SAME_STEP)
    obs, _ = envs.reset(seed=list(seeds))
    ctls = [OptionController(np.random.default_rng(derive_seed(agent_seed, "controller", i)))
            for i in range(n)]
    for i, ctl in enumerate(ctls):
        ctl.observe(observation(obs, i))
    running = np.ones(n, dtype=bool)
    reward = np.zeros(n)
    length = np.zeros(n, dtype=np.int64)
    record: dict[str, list] = {k: [] for k in ("feats", "mask", "option", "logp", "value",
                                               "episode")}
    dev = torch.device(device)
    while running.any():
        actions = [_IDLE] * n
        pending = [i for i in np.flatnonzero(running)]
        for attempt in range(_RETRIES + 1):
            waiting = [i for i in pending if ctls[i].needs_decision]
            if waiting:
                built = [build_features(ctls[i], t_max, ablation) for i in waiting]
                feats = np.stack([b[0] for b in built])
                mask = np.stack([b[1] for b in built])
                if attempt == _RETRIES:  # keep the loop finite: explore is always possible
                    mask[:, 1:] = False
                logits, value = policy(torch.from_numpy(feats).to(dev),
                                       torch.from_numpy(mask).to(dev))
                dist = torch.distributions.Categorical(logits=logits.float().cpu())
                choice = torch.multinomial(dist.probs, 1, generator=sampler).squeeze(1)
                logp = dist.log_prob(choice)
                for j, i in enumerate(waiting):
                    ctls[i].start(int(choice[j]))
                record["feats"].append(feats)
                record["mask"].append(mask)
                record["option"].append(choice.numpy())
                record["logp"].append(logp.numpy())
                record["value"].append(value.float().cpu().numpy())
                record["episode"].append(np.array(waiting, dtype=np.int64))
            still = []
            for i in pending:
                act = ctls[i].act()
                if act is None:
                    still.append(i)
                else:
                    actions[i] = act
            pending = still
            if not pending:
                break
        for i in pending:  # should not happen: explore always acts on its first step
            ctls[i].start(EXPLORE)
            actions[i] = ctls[i].act() or _IDLE
        obs, r, terminated, truncated, _ = envs.step(np.array(actions, dtype=np.int64))
        ended = (terminated | truncated) & running
        length[running] += 1
        reward[ended] = r[ended]
        running &= ~ended
        for i in np.flatnonzero(running):
            ctls[i].observe(observation(obs, i))
    empty = len(record["option"]) == 0
    return Episodes(
        feats=np.concatenate(record["feats"]) if not empty else np.zeros((0, 1, 1), np.float32),
        mask=np.concatenate(record["mask"]) if not empty else np.zeros((0, 1), bool),
        option=np.concatenate(record["option"]).astype(np.int64) if not empty else np.zeros(0),
        logp=np.concatenate(record["logp"]) if not empty else np.zeros(0, np.float32),
        value=np.concatenate(record["value"]) if not empty else np.zeros(0, np.float32),
        episode=np.concatenate(record["episode"]) if not empty else np.zeros(0, np.int64),
        reward=reward, length=length)

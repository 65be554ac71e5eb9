"""Recurrent PPO for MH-BabyAI on TalkItOut, as SocialAI 0.1 trained it (torch-ac, Table 5).

The file reads top to bottom: hyperparameters, then the trainer's state, then one update =
rollout (algorithm: sample the four heads, step the batched environment, add the exploration
bonus), advantage estimation (GAE), and the PPO epochs (algorithm: one minibatch of every
recurrence chunk, a clipped loss per head averaged over the four heads).

What follows torch-ac exactly, including where it is unusual:
- the model runs in training mode during rollouts (BatchNorm statistics of the 16 envs' frames);
- in the update, the model sees each recurrence step's frames as one batch (the convolutions
  run on all steps at once, with per-step BatchNorm statistics: ``GroupedBatchNorm2d``);
- the memories stored for chunk steps are overwritten with the recomputed ones during each epoch;
- the value loss is clipped like the policy.
The multi-head loss is SocialAI's: every head (primitive, speak switch, template, noun) has its
own ratio; the template and noun heads count only frames where the agent spoke, and the policy
and entropy terms are the mean over the four heads.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from socialbench.rl.dialogue import DialogueTable
from socialbench.rl.exploration import PAPER_C, PAPER_M, EpisodicLanguageBonus
from socialbench.rl.model import HEAD_SIZES, MHBabyAI, ModelConfig, known_fields
from socialbench.rl.policy import Actor, env_actions, log_probs, sample_heads

HEADS = tuple(HEAD_SIZES)  # primitive, speak, template, noun
SPOKEN_ONLY = ("template", "noun")  # trained only on frames where the agent spoke


@dataclass(frozen=True)
class PPOConfig:
    """Every PPO hyperparameter, with SocialAI 0.1's value (Table 5 and the released config)."""

    num_envs: int = 16  # released config: 16 processes
    frames_per_env: int = 40  # torch-ac default frames per process per update
    lr: float = 1e-4  # Table 5
    adam_eps: float = 1e-5  # Table 5 lists it as "clip eps 1e-5"; in torch-ac it is Adam's eps
    clip: float = 0.2  # torch-ac default clip epsilon
    gamma: float = 0.99  # Table 5
    gae_lambda: float = 0.99  # Table 5
    recurrence: int = 10  # Table 5
    epochs: int = 4  # Table 5
    batch_size: int = 1280  # Table 5: larger than the 640 frames, so one minibatch per epoch
    entropy_coef: float = 0.01  # torch-ac default
    value_loss_coef: float = 0.5  # torch-ac default
    max_grad_norm: float = 0.5  # torch-ac default
    exploration_bonus: bool = False  # MH-BabyAI-EB when True
    bonus_c: float = PAPER_C
    bonus_m: float = PAPER_M

    def __post_init__(self) -> None:
        if self.frames_per_env % self.recurrence:
            raise ValueError(f"frames per env ({self.frames_per_env}) must be a multiple of "
                             f"the recurrence ({self.recurrence})")
        if min(self.num_envs, self.frames_per_env, self.recurrence, self.epochs) < 1:
            raise ValueError("num_envs, frames_per_env, recurrence and epochs must be >= 1")

    @property
    def frames_per_update(self) -> int:
        return self.num_envs * self.frames_per_env

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PPOConfig:
        return cls(**known_fields(cls, data))


def final_utterances(obs: dict[str, np.ndarray], info: dict[str, Any],
                     done: np.ndarray) -> np.ndarray:
    """This step's utterance tokens for every env, also for envs that just ended and were
    reset: their new first observation hears nothing; what they heard on their last step is in
    ``info["final_obs"]["utterance"]`` (the batched env's same-step autoreset)."""
    heard = obs["utterance"].copy()
    if done.any():
        heard[done] = info["final_obs"]["utterance"][done]
    return heard


@dataclass
class Rollout:
    """One rollout, flattened env-major as torch-ac stores it: frame ``env * T + t``."""

    images: torch.Tensor  # (F, 7, 7, C) uint8
    rows: torch.Tensor  # (F,) dialogue table row of each frame
    table: DialogueTable
    memories: torch.Tensor  # (F, memory) memory before each frame (updated by the epochs)
    masks: torch.Tensor  # (F,) 0 where the frame starts a new episode
    actions: dict[str, torch.Tensor]  # per head (F,)
    log_probs: dict[str, torch.Tensor]  # per head (F,), under the rollout's policy
    values: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor


class PPOTrainer:
    """Holds the model, the optimiser, the batched environment and everything a rollout
    carries over to the next (observations, memories, what each env heard)."""

    def __init__(self, envs: Any, model_config: ModelConfig, config: PPOConfig, seed: int,
                 device: str = "cpu", precision: str = "fp32") -> None:
        if precision not in ("fp32", "bf16"):
            raise ValueError(f"precision must be fp32 or bf16, got {precision!r}")
        self.envs, self.config, self.model_config = envs, config, model_config
        self.device = torch.device(device)
        torch.manual_seed(seed)
        self.model = MHBabyAI(model_config).to(self.device)
        self.model.train()  # torch-ac never switches to eval mode while training
        self.optimizer = torch.optim.Adam(self.model.parameters(), config.lr, eps=config.adam_eps)
        self.sampler = torch.Generator().manual_seed(seed)
        self.shuffler = np.random.default_rng(seed)
        n = config.num_envs
        self.obs, _ = envs.reset(seed=seed)
        self.memory = torch.zeros(n, self.model.memory_size, device=self.device)
        self.mask = torch.ones(n, device=self.device)
        self.actor = Actor(self.model, n, self.device, autocast=precision == "bf16")
        self.actor.observe(self.obs["utterance"], np.zeros(n, dtype=bool))
        self.bonus = (EpisodicLanguageBonus(n, config.bonus_c, config.bonus_m)
                      if config.exploration_bonus else None)
        self.episode_return = np.zeros(n)
        self.episode_length = np.zeros(n, dtype=np.int64)
        self.frames = 0
        self.updates = 0

    def update(self) -> dict[str, Any]:
        """Collect one rollout, estimate advantages, run the PPO epochs; returns logs."""
        rollout, logs = self.collect()
        logs.update(self.optimise(rollout))
        self.updates += 1
        return logs

    # ------------------------------------------------------------------ rollout
    @torch.no_grad()
    def collect(self) -> tuple[Rollout, dict[str, Any]]:
        """``frames_per_env`` steps of every env with the current policy, then GAE."""
        cfg, n, t_len = self.config, self.config.num_envs, self.config.frames_per_env
        dev, actor = self.device, self.actor
        self.model.set_batch_groups(1)
        actor.new_table()
        images = torch.empty((t_len, n, *self.obs["image"].shape[1:]), dtype=torch.uint8)
        rows = torch.empty((t_len, n), dtype=torch.long)
        memories = torch.empty((t_len, n, self.model.memory_size), device=dev)
        masks = torch.empty((t_len, n), device=dev)
        actions = {h: torch.empty((t_len, n), dtype=torch.long) for h in HEADS}
        old_log_probs = {h: torch.empty((t_len, n), device=dev) for h in HEADS}
        values = torch.empty((t_len, n), device=dev)
        rewards = torch.empty((t_len, n), device=dev)
        finished_returns, finished_lengths, successes, bonus_total = [], [], [], 0.0

        for t in range(t_len):
            images[t] = torch.from_numpy(self.obs["image"])
            rows[t], memories[t], masks[t] = actor.rows, self.memory, self.mask
            # Algorithm: sample every head from the current policy.
            logits, values[t], self.memory = actor.forward(self.obs["image"],
                                                           self.memory * self.mask[:, None])
            sampled = sample_heads(logits, self.sampler)
            step_log_probs = log_probs(logits, sampled)
            for h in HEADS:
                actions[h][t], old_log_probs[h][t] = sampled[h], step_log_probs[h].to(dev)

            self.obs, reward, terminated, truncated, info = self.envs.step(env_actions(sampled))
            done = np.logical_or(terminated, truncated)
            reward = np.asarray(reward, dtype=np.float64)
            self.episode_return += reward
            self.episode_length += 1
            total = reward.astype(np.float32)
            if self.bonus is not None:  # Algorithm: the bonus joins the reward before GAE
                extra = self.bonus.reward(final_utterances(self.obs, info, done))
                bonus_total += float(extra.sum())
                total = total + extra
            rewards[t] = torch.from_numpy(total).to(dev)
            for i in np.flatnonzero(done).tolist():
                finished_returns.append(self.episode_return[i])
                finished_lengths.append(int(self.episode_length[i]))
                successes.append(float(reward[i] > 0))
                self.episode_return[i], self.episode_length[i] = 0.0, 0
                if self.bonus is not None:
                    self.bonus.forget(i)
            actor.observe(self.obs["utterance"], done)
            self.mask = torch.from_numpy(1.0 - done.astype(np.float32)).to(dev)

        # Bootstrap value of the state after the rollout.
        _, next_value, _ = actor.forward(self.obs["image"], self.memory * self.mask[:, None])
        advantages = self._gae(rewards, values, masks, next_value)
        self.frames += cfg.frames_per_update

        def flat(x: torch.Tensor) -> torch.Tensor:  # (T, N, ...) -> (N * T, ...), env-major
            return x.transpose(0, 1).reshape(n * t_len, *x.shape[2:])

        rollout = Rollout(
            images=flat(images), rows=flat(rows), table=actor.table,
            memories=flat(memories).clone(), masks=flat(masks),
            actions={h: flat(v) for h, v in actions.items()},
            log_probs={h: flat(v) for h, v in old_log_probs.items()}, values=flat(values),
            advantages=flat(advantages), returns=flat(values + advantages))
        logs = {"frames": self.frames, "episodes": len(finished_returns),
                "return_mean": _mean(finished_returns), "success": _mean(successes),
                "successes": successes, "episode_length": _mean(finished_lengths),
                "bonus_per_frame": bonus_total / cfg.frames_per_update,
                "dialogues": len(actor.table)}
        return rollout, logs

    def _gae(self, rewards: torch.Tensor, values: torch.Tensor, masks: torch.Tensor,
             next_value: torch.Tensor) -> torch.Tensor:
        """Generalised advantage estimation, torch-ac's recursion (masks[t] = not done
        before step t)."""
        cfg = self.config
        advantages = torch.zeros_like(rewards)
        next_advantage = torch.zeros_like(next_value)
        for t in reversed(range(len(rewards))):
            next_mask = masks[t + 1] if t + 1 < len(rewards) else self.mask
            following = values[t + 1] if t + 1 < len(rewards) else next_value
            delta = rewards[t] + cfg.gamma * following * next_mask - values[t]
            next_advantage = delta + cfg.gamma * cfg.gae_lambda * next_advantage * next_mask
            advantages[t] = next_advantage
        return advantages

    # ------------------------------------------------------------------ PPO epochs
    def optimise(self, rollout: Rollout) -> dict[str, float]:
        """The PPO epochs over one rollout (torch-ac's ``update_parameters``)."""
        cfg = self.config
        rec = cfg.recurrence
        starts_all = np.arange(0, cfg.frames_per_update, rec)
        chunks_per_batch = max(cfg.batch_size // rec, 1)
        logs: dict[str, list[float]] = {k: [] for k in ("entropy", "value", "policy_loss",
                                                         "value_loss", "grad_norm")}
        for _ in range(cfg.epochs):
            order = self.shuffler.permutation(starts_all)
            for first in range(0, len(order), chunks_per_batch):
                starts = torch.from_numpy(order[first:first + chunks_per_batch])
                loss, stats = self._loss(rollout, starts)
                self.optimizer.zero_grad()
                loss.backward()
                grad_norm = nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                for k, v in stats.items():
                    logs[k].append(v)
                logs["grad_norm"].append(float(grad_norm))
        return {k: float(np.mean(v)) for k, v in logs.items()}

    def _features(self, rollout: Rollout, index: torch.Tensor, chunks: int,
                  memory: torch.Tensor, step_by_step: bool = False) -> torch.Tensor:
        """The memory's output for every frame of ``index`` (step-major), recomputing the
        memory through each chunk; the recomputed memories are written back (torch-ac).

        By default the convolutions see every step's frames at once, with BatchNorm statistics
        per step; ``step_by_step`` calls the model once per step as torch-ac does (same
        numbers; attgru always goes this way, its vision input needs the memory)."""
        model, actor, dev = self.model, self.actor, self.device
        rec = self.config.recurrence
        starts = index[:chunks]
        step_masks = rollout.masks[index].to(dev).view(rec, chunks)
        encoded = actor.encode(rollout.table)
        dialogue, lengths = actor.dialogue_input(encoded, rollout.table, rollout.rows[index])
        step_by_step = step_by_step or model.needs_memory_for_text
        features = []
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=actor.autocast):
            bodies = None
            if not step_by_step:
                model.set_batch_groups(rec)
                bodies = model.body(rollout.images[index].to(dev), dialogue).view(rec, chunks, -1)
            model.set_batch_groups(1)
            for i in range(rec):
                memory = memory * step_masks[i][:, None]
                if bodies is None:
                    part = slice(i * chunks, (i + 1) * chunks)
                    text = None if dialogue is None else dialogue[part]
                    if model.needs_memory_for_text:
                        text = model._attend(text, lengths[part], memory)
                    body = model.body(rollout.images[index[part]].to(dev), text)
                else:
                    body = bodies[i]
                feature, memory = model.step_memory(body, memory)
                features.append(feature)
                if i + 1 < rec:
                    rollout.memories[starts + i + 1] = memory.detach().float()
        return torch.cat(features)

    def _loss(self, rollout: Rollout, starts: torch.Tensor, step_by_step: bool = False
              ) -> tuple[torch.Tensor, dict[str, float]]:
        """torch-ac's batch loss: summed over the recurrence steps, divided by their number."""
        cfg, dev, rec = self.config, self.device, self.config.recurrence
        # Frames of the batch, step-major: all chunks' step 0, then step 1, ...
        index = (starts[None, :] + torch.arange(rec)[:, None]).reshape(-1)
        memory = rollout.memories[starts].to(dev)
        features = self._features(rollout, index, len(starts), memory, step_by_step)
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=self.actor.autocast):
            logits = {name: head(features).float() for name, head in self.model.heads.items()}
            value = self.model.critic(features).squeeze(1).float()

        # Algorithm: a clipped surrogate per head, each with its own ratio and mask.
        adv = rollout.advantages[index].to(dev)
        spoke = rollout.actions["speak"][index].to(dev).float()
        policy_terms, entropy_terms = [], []
        for h in HEADS:
            log_p = torch.log_softmax(logits[h], 1)
            new_lp = log_p.gather(1, rollout.actions[h][index].to(dev)[:, None]).squeeze(1)
            ratio = torch.exp(new_lp - rollout.log_probs[h][index].to(dev))
            surrogate = torch.min(ratio * adv, torch.clamp(ratio, 1 - cfg.clip, 1 + cfg.clip) * adv)
            entropy = -(log_p.exp() * log_p).sum(1)
            weight = spoke if h in SPOKEN_ONLY else torch.ones_like(adv)
            policy_terms.append(-_per_step_mean(surrogate, weight, rec))
            entropy_terms.append(_per_step_mean(entropy, weight, rec))
        policy_loss = torch.stack(policy_terms).mean(0)  # (rec,): mean over the four heads
        entropy = torch.stack(entropy_terms).mean(0)
        old_value, ret = rollout.values[index].to(dev), rollout.returns[index].to(dev)
        clipped = old_value + torch.clamp(value - old_value, -cfg.clip, cfg.clip)
        value_loss = torch.max((value - ret) ** 2, (clipped - ret) ** 2).view(rec, -1).mean(1)
        loss = policy_loss - cfg.entropy_coef * entropy + cfg.value_loss_coef * value_loss
        stats = {name: float(term.detach().mean()) for name, term in (
            ("entropy", entropy), ("value", value), ("policy_loss", policy_loss),
            ("value_loss", value_loss))}
        return loss.mean(), stats

    # ------------------------------------------------------------------ state
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue exactly: model, optimiser, RNGs, envs, carried state.
        Plain tensors and Python values only, so ``torch.load(weights_only=True)`` reads it."""
        return {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "sampler": self.sampler.get_state(),
            "shuffler": self.shuffler.bit_generator.state,
            "envs": _tensors(self.envs.get_state()),
            "obs": {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in self.obs.items()},
            "memory": self.memory.cpu(), "mask": self.mask.cpu(),
            "listener": [list(s) for s in self.actor.listener.inputs],
            "bonus": self.bonus.state() if self.bonus is not None else None,
            "episode_return": torch.from_numpy(self.episode_return.copy()),
            "episode_length": torch.from_numpy(self.episode_length.copy()),
            "frames": self.frames, "updates": self.updates,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.sampler.set_state(state["sampler"])
        self.shuffler.bit_generator.state = state["shuffler"]
        self.envs.set_state(_arrays(state["envs"]))
        self.obs = {k: v.numpy().copy() for k, v in state["obs"].items()}
        self.memory = state["memory"].to(self.device)
        self.mask = state["mask"].to(self.device)
        self.actor.listener.inputs = [tuple(int(t) for t in s) for s in state["listener"]]
        if self.bonus is not None and state["bonus"] is not None:
            self.bonus.load_state(state["bonus"])
        self.episode_return = state["episode_return"].numpy().copy()
        self.episode_length = state["episode_length"].numpy().copy()
        self.frames, self.updates = int(state["frames"]), int(state["updates"])


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else float("nan")


def _per_step_mean(values: torch.Tensor, weight: torch.Tensor, steps: int) -> torch.Tensor:
    """Masked mean of each recurrence step's frames ``(steps,)``; 0 where a step has none."""
    values, weight = values.view(steps, -1), weight.view(steps, -1)
    return (values * weight).sum(1) / weight.sum(1).clamp(min=1)


def _tensors(value: Any) -> Any:
    """NumPy arrays inside nested dicts and lists as tensors (weights_only loads tensors)."""
    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(value))
    if isinstance(value, dict):
        return {k: _tensors(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_tensors(v) for v in value]
    return value


def _arrays(value: Any) -> Any:
    """The inverse of :func:`_tensors`."""
    if isinstance(value, torch.Tensor):
        return value.numpy()
    if isinstance(value, dict):
        return {k: _arrays(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_arrays(v) for v in value]
    return value

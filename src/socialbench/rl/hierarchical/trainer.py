"""Training the hierarchical agent's high level with PPO on the environment's reward.

Each update plays ``episodes_per_update`` fresh episodes (layout seeds derived from the run's
seed and the update index, never the test set's), then runs PPO on the options chosen in them.
The return of a choice is its episode's final reward (the only reward TalkItOut pays; it already
shrinks with the steps taken) plus ``success_bonus`` when that reward is positive, the
advantage that return minus the value estimate. The bonus is read off the reward alone; it
makes a failure cost more than the ~0.02 a step the paper's reward charges, so the agent no
longer trades certainty for a few steps (with ``success_bonus=0`` it learned to trust a guide
that repeated itself three times, which a liar does 1 time in 9, when the wizard was far).

A run folder holds ``config.json``, ``log.csv`` (one row per update), ``checkpoint.pt`` (model,
optimiser and counters: tensors and plain values only, read with ``weights_only=True``) and
``curve.png``. Every random draw of an update is seeded from (seed, update), so a run resumed
from its checkpoint continues exactly as an uninterrupted one.
"""

from __future__ import annotations

import csv
import json
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from socialbench.core.errors import UserError, first_line
from socialbench.core.files import atomic_write
from socialbench.core.interrupts import StopBetweenSteps
from socialbench.core.seeding import derive_seed
from socialbench.core.torch_files import load_torch_file
from socialbench.rl.hierarchical.features import ablation_columns
from socialbench.rl.hierarchical.network import OptionPolicy
from socialbench.rl.hierarchical.rollout import Episodes, play
from socialbench.rl.train import read_log
from socialbench.talkitout.evaluate import check_variant

KIND = "talkitout-hierarchical"
MODEL_NAME = "hierarchical"
CHECKPOINT, CONFIG, LOG, CURVE = "checkpoint.pt", "config.json", "log.csv", "curve.png"
ROLLING = 1000  # episodes in the logged rolling success rate
LOG_FIELDS = ("update", "frames", "episodes", "seconds", "fps", "success", "success_rolling",
              "return_mean", "episode_length", "decisions_per_episode", "entropy",
              "policy_loss", "value_loss")


@dataclass
class HierarchicalConfig:
    """Everything that defines a run (``config.json``)."""

    variant: str = "original"
    ablation: str = "full"  # feature columns zeroed (features.ABLATIONS)
    success_bonus: float = 2.0
    seed: int = 0
    frames: int = 300_000  # may be raised when a run is resumed
    t_max: int = 40
    episodes_per_update: int = 256
    hidden: int = 64
    lr: float = 1e-3
    epochs: int = 4
    minibatch: int = 256
    clip: float = 0.2
    value_coef: float = 0.5
    entropy_coef: float = 0.01
    max_grad_norm: float = 0.5
    checkpoint_every: int = 10

    def __post_init__(self) -> None:
        check_variant(self.variant)
        ablation_columns(self.ablation)
        if self.frames < 1 or self.episodes_per_update < 1:
            raise UserError("--frames and episodes per update must be at least 1")

    def to_dict(self) -> dict[str, Any]:
        return {"model": MODEL_NAME, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HierarchicalConfig:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def same_run(self, other: HierarchicalConfig) -> bool:
        """Equal but for the frame budget."""
        return replace(self, frames=1) == replace(other, frames=1)

    @property
    def label(self) -> str:
        return "Hierarchical" + ("" if self.ablation == "full" else f" ({self.ablation})")


def is_hierarchical_checkpoint(path: str | Path) -> bool:
    """Whether ``path`` (a run folder or its checkpoint) holds this agent's run."""
    path = Path(path)
    config = (path if path.is_dir() else path.parent) / CONFIG
    try:
        return json.loads(config.read_text()).get("model") == MODEL_NAME
    except (OSError, ValueError, AttributeError):
        return False


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """A checkpoint of this agent, read without unpickling code; a bad file is a UserError."""
    file = Path(path) / CHECKPOINT if Path(path).is_dir() else Path(path)
    train_one = "train one with `socialbench talkitout train --model hierarchical --out DIR`"
    try:
        state = load_torch_file(file, "hierarchical TalkItOut checkpoint", train_one)
    except FileNotFoundError:
        raise UserError(f"{file}: no such checkpoint ({train_one})") from None
    if not isinstance(state, dict) or state.get("kind") != KIND:
        raise UserError(f"{file}: not a hierarchical TalkItOut checkpoint (no {KIND!r} kind)")
    return state


def load_policy(path: str | Path, device: str = "cpu"
                ) -> tuple[OptionPolicy, HierarchicalConfig, int]:
    """The trained policy of a checkpoint, its run's config and the frames it trained on."""
    state = load_checkpoint(path)
    config = HierarchicalConfig.from_dict(state["config"])
    policy = OptionPolicy(config.hidden)
    try:
        policy.load_state_dict(state["model"])
    except (KeyError, RuntimeError) as exc:
        raise UserError(f"{path}: the weights do not fit the policy ({first_line(exc)})") from None
    return policy.to(device).eval(), config, int(state["frames"])


def ppo_step(policy: OptionPolicy, optimiser: torch.optim.Optimizer, batch: Episodes,
             config: HierarchicalConfig, generator: torch.Generator, device: torch.device
             ) -> dict[str, float]:
    """PPO epochs over one batch of choices; the losses of the last epoch, averaged."""
    feats = torch.from_numpy(batch.feats).to(device)
    mask = torch.from_numpy(batch.mask).to(device)
    option = torch.from_numpy(batch.option).to(device)
    old_logp = torch.from_numpy(batch.logp).to(device)
    final = batch.reward[batch.episode]
    returns = torch.from_numpy(final + config.success_bonus * (final > 0)).float().to(device)
    advantage = returns - torch.from_numpy(batch.value).to(device)
    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    n = len(option)
    stats: dict[str, list[float]] = {"entropy": [], "policy_loss": [], "value_loss": []}
    for epoch in range(config.epochs):
        order = torch.randperm(n, generator=generator).to(device)
        for first in range(0, n, config.minibatch):
            idx = order[first:first + config.minibatch]
            logits, value = policy(feats[idx], mask[idx])
            dist = torch.distributions.Categorical(logits=logits)
            ratio = torch.exp(dist.log_prob(option[idx]) - old_logp[idx])
            adv = advantage[idx]
            policy_loss = -torch.min(ratio * adv,
                                     ratio.clamp(1 - config.clip, 1 + config.clip) * adv).mean()
            value_loss = (value - returns[idx]).pow(2).mean()
            entropy = dist.entropy().mean()
            loss = policy_loss + config.value_coef * value_loss - config.entropy_coef * entropy
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), config.max_grad_norm)
            optimiser.step()
            if epoch == config.epochs - 1:
                stats["entropy"].append(entropy.item())
                stats["policy_loss"].append(policy_loss.item())
                stats["value_loss"].append(value_loss.item())
    return {k: float(np.mean(v)) if v else math.nan for k, v in stats.items()}


def _state_to_resume(out: Path, resume: bool, config: HierarchicalConfig
                     ) -> dict[str, Any] | None:
    """The checkpoint in ``out`` to continue ``config``'s run from (None: a new run; the
    folder is made). Refused without ``resume``, or when it holds another run."""
    if not (out / CHECKPOINT).exists():
        out.mkdir(parents=True, exist_ok=True)
        return None
    if not resume:
        raise UserError(f"{out} already holds a run; pass --resume to continue it or choose "
                        f"another --out")
    state = load_checkpoint(out)
    saved = HierarchicalConfig.from_dict(state["config"])
    if not saved.same_run(config):
        raise UserError(f"{out} holds another run ({saved.label}, {saved.variant}, seed "
                        f"{saved.seed}); choose another --out")
    return state


def _truncate_log(log: Path, updates: int) -> None:
    """Keep the header and the rows of updates 1..``updates`` (later ones are redone)."""
    lines = log.read_text().splitlines(keepends=True) if log.exists() else []
    kept = [",".join(LOG_FIELDS) + "\n"]
    kept += [line for line in lines[1:] if int(line.split(",", 1)[0]) <= updates]
    log.write_text("".join(kept))


class HierarchicalRun:
    """A training run in ``out``: new, or resumed from its checkpoint."""

    def __init__(self, out: str | Path, config: HierarchicalConfig, resume: bool = False,
                 device: str = "cpu") -> None:
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise UserError("--device cuda asked for, but PyTorch sees no CUDA GPU here")
        self.out, self.config, self.device = Path(out), config, torch.device(device)
        state = _state_to_resume(self.out, resume, config)
        torch.manual_seed(derive_seed(config.seed, "hierarchical-init"))
        self.policy = OptionPolicy(config.hidden).to(self.device)
        self.optimiser = torch.optim.Adam(self.policy.parameters(), lr=config.lr)
        self.updates = self.frames = self.episodes = 0
        self.seconds = 0.0
        self.window: deque[float] = deque(maxlen=ROLLING)
        if state is not None:
            self.policy.load_state_dict(state["model"])
            self.optimiser.load_state_dict(state["optimiser"])
            self.updates, self.frames = int(state["updates"]), int(state["frames"])
            self.episodes, self.seconds = int(state["episodes"]), float(state["seconds"])
            self.window.extend(float(x) for x in state["window"])
        with atomic_write(self.out / CONFIG) as tmp:
            tmp.write_text(json.dumps(config.to_dict(), indent=2) + "\n")
        _truncate_log(self.out / LOG, self.updates)

    def save(self) -> None:
        state = {"kind": KIND, "config": self.config.to_dict(),
                 "model": self.policy.state_dict(), "optimiser": self.optimiser.state_dict(),
                 "updates": self.updates, "frames": self.frames, "episodes": self.episodes,
                 "seconds": self.seconds, "window": list(self.window)}
        with atomic_write(self.out / CHECKPOINT) as tmp:
            torch.save(state, tmp)

    def update(self) -> dict[str, Any]:
        """Play one batch of episodes and learn from it; the log row."""
        c, u = self.config, self.updates
        start = time.perf_counter()
        seeds = [derive_seed(c.seed, "hierarchical-train", u, i)
                 for i in range(c.episodes_per_update)]
        self.policy.eval()
        batch = play(self.policy, seeds, check_variant(c.variant), c.t_max,
                     derive_seed(c.seed, "hierarchical-agent", u),
                     torch.Generator().manual_seed(derive_seed(c.seed, "hierarchical-sample", u)),
                     c.ablation, str(self.device))
        self.policy.train()
        losses = ppo_step(self.policy, self.optimiser, batch, c,
                          torch.Generator().manual_seed(derive_seed(c.seed, "shuffle", u)),
                          self.device)
        elapsed = time.perf_counter() - start
        self.updates += 1
        self.frames += batch.frames
        self.episodes += len(seeds)
        self.seconds += elapsed
        success = batch.reward > 0
        self.window.extend(success.astype(float).tolist())
        return {"update": self.updates, "frames": self.frames, "episodes": self.episodes,
                "seconds": round(self.seconds, 3), "fps": round(batch.frames / elapsed, 1),
                "success": float(success.mean()), "success_rolling": float(np.mean(self.window)),
                "return_mean": float(batch.reward.mean()),
                "episode_length": float(batch.length.mean()),
                "decisions_per_episode": len(batch.option) / len(seeds), **losses}

    def train(self, on_update: Callable[[dict[str, Any]], None] | None = None,
              plot: bool = True) -> None:
        """Update until the frame budget is spent; checkpoint and log as it goes, then draw
        the curve (``plot``)."""
        with open(self.out / LOG, "a", newline="") as handle, StopBetweenSteps() as stop:
            log = csv.DictWriter(handle, LOG_FIELDS)
            while self.frames < self.config.frames:
                row = self.update()
                log.writerow(row)
                handle.flush()
                if on_update is not None:
                    on_update(row)
                # Ctrl-C or SIGTERM waits for the update to end: the checkpoint loses nothing
                if self.updates % self.config.checkpoint_every == 0 or stop.requested:
                    self.save()
                if stop.requested:
                    raise KeyboardInterrupt(f"checkpoint saved at {self.frames:,} frames")
        self.save()
        if plot:
            plot_curve(self.out)


def plot_curve(out: Path, path: Path | None = None) -> Path | None:
    """Training success (each update's episodes, and rolling) against frames, as
    ``curve.png`` (or ``path``); None without matplotlib or log rows."""
    try:
        from matplotlib.figure import Figure  # no pyplot: no global state, no backend choice
    except ImportError:
        return None
    rows = read_log(out / LOG)
    if not rows:
        return None
    config = HierarchicalConfig.from_dict(json.loads((out / CONFIG).read_text()))
    x = [int(r["frames"]) for r in rows]
    fig = Figure(figsize=(6, 3.5), dpi=100)
    ax = fig.add_subplot()
    for key, label, width, alpha in (("success", "each update's episodes", 0.6, 0.4),
                                     ("success_rolling", f"last {ROLLING} episodes", 1.4, 1.0)):
        ax.plot(x, [float(r[key]) for r in rows], lw=width, alpha=alpha, label=label)
    ax.set(xlabel="frames (environment steps)", ylabel="training success rate",
           ylim=(0, 1.02), title=f"{config.label} on {config.variant}, seed {config.seed}")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    target = path or out / CURVE
    fig.savefig(target)
    return target

"""One training run of a TalkItOut agent: PPO updates with logs, checkpoints and resume.

A run lives in one folder:

    config.json       what was asked (model, PPO, environment, seed, frames)
    log.csv           one row per update (frames, FPS, rolling success rate, losses, ...)
    tb/               the same scalars for TensorBoard (when tensorboard is installed)
    checkpoint.pt     the whole trainer state, written atomically every few updates
    curve.png         the learning curve (success rate against frames), like SocialAI's Fig. 3

An interrupted run resumed with ``resume=True`` continues from ``checkpoint.pt``; the log is cut
back to that checkpoint, and since the checkpoint holds every random state, the environments
and the carried-over rollout state, the resumed curve is the uninterrupted one.
"""

from __future__ import annotations

import csv
import json
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium.vector import AutoresetMode

from socialbench.core.errors import DataFileError, UserError, first_line
from socialbench.core.files import atomic_write
from socialbench.core.interrupts import StopBetweenSteps
from socialbench.core.torch_files import load_torch_file
from socialbench.rl.model import ModelConfig
from socialbench.rl.ppo import PPOConfig, PPOTrainer
from socialbench.talkitout.evaluate import check_variant
from socialbench.talkitout.vector_env import TalkItOutVectorEnv

CHECKPOINT = "checkpoint.pt"
CONFIG = "config.json"
LOG = "log.csv"
CURVE = "curve.png"
ROLLING_EPISODES = 100  # the success rate shown and logged: over the last 100 episodes
LOG_FIELDS = ("update", "frames", "seconds", "fps", "success_rolling", "success",
              "return_mean", "episode_length", "episodes", "bonus_per_frame", "entropy",
              "value", "policy_loss", "value_loss", "grad_norm", "dialogues")


@dataclass
class RunConfig:
    """Everything that defines a run (written to ``config.json``)."""

    variant: str = "original"
    frames: int = 1_000_000
    seed: int = 0
    t_max: int = 40
    model: ModelConfig = field(default_factory=ModelConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    precision: str = "fp32"
    checkpoint_every: int = 50  # updates between checkpoints

    def __post_init__(self) -> None:
        check_variant(self.variant)
        if self.frames < 1:
            raise UserError(f"--frames must be at least 1, got {self.frames}")

    def to_dict(self) -> dict[str, Any]:
        return {"variant": self.variant, "frames": self.frames, "seed": self.seed,
                "t_max": self.t_max, "model": self.model.to_dict(), "ppo": self.ppo.to_dict(),
                "precision": self.precision, "checkpoint_every": self.checkpoint_every}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        return cls(variant=data["variant"], frames=int(data["frames"]), seed=int(data["seed"]),
                   t_max=int(data["t_max"]), model=ModelConfig.from_dict(data["model"]),
                   ppo=PPOConfig.from_dict(data["ppo"]), precision=data["precision"],
                   checkpoint_every=int(data["checkpoint_every"]))

    def same_run(self, other: RunConfig) -> bool:
        """Equal in everything but the frame budget (a resumed run may be extended)."""
        mine, theirs = self.to_dict(), other.to_dict()
        mine.pop("frames")
        theirs.pop("frames")
        return mine == theirs

    @property
    def label(self) -> str:
        name = self.model.name
        return name.replace("MH-BabyAI", "MH-BabyAI-EB", 1) if self.ppo.exploration_bonus \
            and not self.model.deaf else name


def make_envs(run: RunConfig) -> TalkItOutVectorEnv:
    return TalkItOutVectorEnv(run.ppo.num_envs, liar=check_variant(run.variant), t_max=run.t_max,
                              autoreset_mode=AutoresetMode.SAME_STEP,
                              npc_direction_channel=run.model.channels == 4)


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """A checkpoint written by training, read without unpickling code (weights_only)."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT
    if not path.exists():
        raise UserError(f"{path}: no such checkpoint (train one with "
                        f"`socialbench talkitout train --out DIR`)")
    fix = "train a new run with `socialbench talkitout train --out DIR`"
    state = load_torch_file(path, "TalkItOut training checkpoint", fix)
    try:
        RunConfig.from_dict(state["run"])
    except Exception as exc:  # a readable file of another kind
        raise DataFileError(path, f"not a TalkItOut training checkpoint (its run settings: "
                                  f"{first_line(exc)}); {fix}") from None
    return state


class Run:
    """A training run in ``out``: new, or resumed from its checkpoint."""

    def __init__(self, out: str | Path, run: RunConfig, resume: bool = False,
                 device: str = "cpu") -> None:
        self.out, self.run, self.device = Path(out), run, device
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise UserError("--device cuda asked for, but PyTorch sees no CUDA GPU here")
        checkpoint = self.out / CHECKPOINT
        if checkpoint.exists() and not resume:
            raise UserError(f"{self.out} already holds a run; pass --resume to continue it "
                            f"or choose another --out")
        self.out.mkdir(parents=True, exist_ok=True)
        state = load_checkpoint(checkpoint) if checkpoint.exists() else None
        if state is not None and "history_start" not in state["run"]["model"]:
            # Made before the option existed: it continues with the input it started with.
            self.run = run = replace(run, model=replace(run.model, history_start=False))
        self.trainer = PPOTrainer(make_envs(run), run.model, run.ppo, run.seed, device,
                                  run.precision)
        self.window: deque[float] = deque(maxlen=ROLLING_EPISODES)
        self.seconds = 0.0
        if state is not None:
            saved = RunConfig.from_dict(state["run"])
            if not saved.same_run(run):
                raise UserError(f"{self.out} holds a different run ({saved.label}, "
                                f"{saved.variant}, seed {saved.seed}); choose another --out")
            self.trainer.load_state_dict(state["trainer"])
            self.window.extend(float(x) for x in state["window"])
            self.seconds = float(state["seconds"])
        with atomic_write(self.out / CONFIG) as tmp:
            tmp.write_text(json.dumps(run.to_dict(), indent=2) + "\n")
        self._cut_log(self.trainer.updates)

    # ------------------------------------------------------------------ files
    def _cut_log(self, updates: int) -> None:
        """Keep the log rows up to ``updates`` (rows after the checkpoint are redone)."""
        log = self.out / LOG
        rows = read_log(log) if log.exists() else []
        with open(log, "w", newline="") as handle:
            writer = csv.DictWriter(handle, LOG_FIELDS)
            writer.writeheader()
            writer.writerows(r for r in rows if int(r["update"]) <= updates)

    def save(self) -> None:
        state = {"run": self.run.to_dict(), "trainer": self.trainer.state_dict(),
                 "window": list(self.window), "seconds": self.seconds}
        with atomic_write(self.out / CHECKPOINT) as tmp:  # never a half-written checkpoint
            torch.save(state, tmp)

    # ------------------------------------------------------------------ training
    def train(self, on_update: Callable[[dict[str, float]], None] | None = None) -> None:
        """Update until the frame budget is spent, logging each update."""
        writer = _tensorboard(self.out / "tb", self.trainer.updates)
        try:
            with open(self.out / LOG, "a", newline="") as handle, StopBetweenSteps() as stop:
                log = csv.DictWriter(handle, LOG_FIELDS)
                while self.trainer.frames < self.run.frames:
                    start = time.perf_counter()
                    logs = self.trainer.update()
                    elapsed = time.perf_counter() - start
                    self.seconds += elapsed
                    row = self._row(logs, elapsed)
                    log.writerow(row)
                    handle.flush()
                    if writer is not None:
                        for key, value in row.items():
                            if key not in ("update", "frames") and not _nan(value):
                                writer.add_scalar(key, value, row["frames"])
                    if on_update is not None:
                        on_update(row)
                    # Ctrl-C or SIGTERM waits for the update to end: the checkpoint loses nothing
                    if self.trainer.updates % self.run.checkpoint_every == 0 or stop.requested:
                        self.save()
                    if stop.requested:
                        raise KeyboardInterrupt(f"checkpoint saved at {self.trainer.frames:,} "
                                                f"frames")
            self.save()
        finally:
            if writer is not None:
                writer.close()
        plot_curve(self.out)

    def _row(self, logs: dict[str, float], elapsed: float) -> dict[str, Any]:
        successes = logs.pop("successes")
        self.window.extend(successes)
        row = {k: logs.get(k, math.nan) for k in LOG_FIELDS}
        row.update(update=self.trainer.updates, frames=self.trainer.frames,
                   seconds=round(self.seconds, 3),
                   fps=round(self.run.ppo.frames_per_update / elapsed, 1),
                   success_rolling=float(np.mean(self.window)) if self.window else math.nan)
        return row


def _nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _tensorboard(folder: Path, purge_step: int) -> Any:
    """A SummaryWriter (events after ``purge_step`` from an interrupted run are dropped), or
    None when tensorboard is not installed."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(folder), purge_step=purge_step or None)


def read_log(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def plot_curve(out: Path) -> Path | None:
    """Success rate (rolling, last 100 episodes) against frames, as ``curve.png``."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    rows = read_log(out / LOG)
    if not rows:
        return None
    run = json.loads((out / CONFIG).read_text())
    frames = [int(r["frames"]) for r in rows]
    success = [float(r["success_rolling"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    ax.plot(frames, success, lw=1.2)
    ax.set_xlabel("frames")
    ax.set_ylabel(f"success rate (last {ROLLING_EPISODES} episodes)")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"{RunConfig.from_dict(run).label} on {run['variant']}, seed {run['seed']}")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path = out / CURVE
    fig.savefig(path)
    plt.close(fig)
    return path

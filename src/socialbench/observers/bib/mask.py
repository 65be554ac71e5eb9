"""The BIB paper's mask baseline: predict the test trial's visited cells from familiarization.

Model (BIB paper, appendix B.1 and Figure 17, ToMnet-inspired; layer sizes the paper's text
gives, the rest ours and marked so):

* A trial is its initial state (a 10 x 10 grid, one channel per element kind, see
  :mod:`.mask_data`) plus its visited-cell mask.
* **Character encoder**, per familiarization trial: the visited mask is concatenated with every
  state channel; each (channel, mask) pair goes through the same two 3 x 3 convolutions with 2
  output channels, batch norm and a residual connection; the outputs of all channels are
  concatenated and go through a 1 x 1 convolution to 24 channels and a residual pair of 3 x 3,
  24-channel convolutions with batch norm; flattened, a linear layer gives the trial's agent
  characteristic embedding. The 8 embeddings are averaged.
* **Mask decoder**: the embedding is tiled over the 10 x 10 grid, concatenated with the test
  trial's initial state and goes through 3 x 3, 32-channel convolutions with batch norm
  (residual blocks, ours: 4 blocks so the receptive field spans the grid), then a 1 x 1
  convolution gives one logit per cell: "will the agent visit this cell?".
* Trained with Adam on the per-cell binary cross-entropy of the expected test trials of the
  background training set.

Surprise (ours; the paper does not spell it out for this model): the test trial is rated every
``rate`` = 10 frames (the released baseline's rate). ``surprise_mode``:

* ``"new-cell"`` (default): a step's surprise is the largest ``-log p(visited)`` among the cells
  the agent's centre entered during that step (0 when it entered none). The video's surprise (max
  over steps) is then the surprise of the least expected cell the agent went through.
* ``"path-mean"``: a step's surprise is the mean ``-log p(visited)`` over all cells visited so far.

Cells predicted but never visited do not count: a per-step rating cannot know them before the
trial ends. Checkpoints are a plain dict of tensors and JSON-able values, read with
``torch.load(..., weights_only=True)``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from socialbench.bib.io.read import EpisodeFiles
from socialbench.bib.schema import GRID, N_FAMILIARIZATION, Episode, Trial
from socialbench.core.errors import DataFileError, UserError, first_line
from socialbench.core.files import atomic_write
from socialbench.core.progress import progress_bar
from socialbench.core.seeding import rng_for
from socialbench.observers.bib.mask_data import (
    N_CHANNELS,
    VISIT_RULES,
    ChannelMap,
    EpisodeArrays,
    episode_arrays,
    files_key,
    load_arrays,
    save_arrays,
    tensorize,
    visit_cells,
)
from socialbench.observers.bib.shards import ShardSet, prefetched
from socialbench.observers.bib.torch_files import read_torch_dict
from socialbench.voe.observer import EpisodeView, LearnedObserver
from socialbench.voe.registry import register_observer

CHECKPOINT_FORMAT = "socialbench-mask/1"
STATE_FORMAT = "socialbench-mask-train-state/1"
MAX_CHECKPOINT_BYTES = 256 << 20  # the model is ~0.3 MB; refuse to read giant files
RATE = 10  # frames per rated step (bib spec: the released baseline queries every 10 frames)
EPS = 1e-6  # probability floor for -log p
BN_EPISODES = 1024  # training episodes batch-norm statistics are recomputed on after each epoch
SURPRISE_MODES = ("new-cell", "path-mean")
PER_CHANNEL_WIDTH = 2  # bib paper, B.1: (state channel, trajectory) -> "3 x 3, 2 output channels"


@dataclass(frozen=True)
class MaskConfig:
    """The model's shape and how it rates surprise (saved in every checkpoint)."""

    embedding_dim: int = 8  # ours: the paper's text does not give it (ToMnet's e_char is 2-8)
    encoder_width: int = 24  # bib paper, B.1: "1 x 1, 24 output channels ... 3 x 3, 24"
    decoder_width: int = 32  # bib paper, B.1: "[3 x 3; 32; BN]"
    decoder_blocks: int = 4  # ours: residual blocks, receptive field 19 cells > the 10-cell grid
    rate: int = RATE
    surprise_mode: str = "new-cell"
    channels: ChannelMap = field(default_factory=ChannelMap)
    # which cells the agent visits, in the masks and in the surprise (mask_data.VISIT_RULES):
    # "centre" (the default, every checkpoint before the option) or "body" (docs/mask.md)
    visit_rule: str = "centre"

    def __post_init__(self) -> None:
        if self.surprise_mode not in SURPRISE_MODES:
            raise UserError(f"surprise_mode must be one of {', '.join(SURPRISE_MODES)}, "
                            f"got {self.surprise_mode!r}")
        if self.rate < 1:
            raise UserError(f"rate must be a positive number of frames, got {self.rate}")
        if self.visit_rule not in VISIT_RULES:
            raise UserError(f"visit_rule must be one of {', '.join(VISIT_RULES)}, "
                            f"got {self.visit_rule!r}")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["channels"] = self.channels.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MaskConfig:
        data = dict(data)
        data["channels"] = ChannelMap.from_json(data["channels"])
        return cls(**data)


# ----------------------------------------------------------------------------- the network


class _Residual(nn.Module):
    """Two 3 x 3 convolutions with batch norm and a skip connection (same width in and out)."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.body(x))


class _PerChannelResidual(nn.Module):
    """One residual pair of 3 x 3 convolutions (2 -> 2 channels, batch norm) applied, with the
    same weights, to each (state channel, visited mask) pair: input and output ``(B, C * 2, H, W)``.

    Run as one grouped convolution whose weights are the shared ones repeated C times (about
    twice as fast on a CPU as a batch of B * C two-channel images).
    """

    def __init__(self) -> None:
        super().__init__()
        w = PER_CHANNEL_WIDTH
        self.conv1, self.norm1 = nn.Conv2d(w, w, 3, padding=1), nn.BatchNorm2d(w)
        self.conv2, self.norm2 = nn.Conv2d(w, w, 3, padding=1), nn.BatchNorm2d(w)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, cw, h, w = x.shape
        groups = cw // PER_CHANNEL_WIDTH

        def conv(layer: nn.Conv2d, t: torch.Tensor) -> torch.Tensor:
            return nn.functional.conv2d(t, layer.weight.repeat(groups, 1, 1, 1),
                                        layer.bias.repeat(groups), padding=1, groups=groups)

        def norm(layer: nn.BatchNorm2d, t: torch.Tensor) -> torch.Tensor:
            return layer(t.reshape(b * groups, PER_CHANNEL_WIDTH, h, w)).reshape(b, cw, h, w)

        y = norm(self.norm2, conv(self.conv2, torch.relu(norm(self.norm1, conv(self.conv1, x)))))
        return torch.relu(x + y)


class CharacterEncoder(nn.Module):
    """(state ``(B, C, 10, 10)``, visited mask ``(B, 10, 10)``) -> embedding ``(B, E)``."""

    def __init__(self, config: MaskConfig, n_channels: int = N_CHANNELS) -> None:
        super().__init__()
        self.per_channel = _PerChannelResidual()
        self.mix = nn.Sequential(nn.Conv2d(n_channels * PER_CHANNEL_WIDTH, config.encoder_width, 1),
                                 nn.BatchNorm2d(config.encoder_width), nn.ReLU(),
                                 _Residual(config.encoder_width))
        self.head = nn.Linear(config.encoder_width * GRID * GRID, config.embedding_dim)

    def forward(self, state: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, c, h, w = state.shape
        pairs = torch.stack([state, mask[:, None].expand(b, c, h, w)], dim=2)  # (B, C, 2, H, W)
        per = self.per_channel(pairs.reshape(b, c * PER_CHANNEL_WIDTH, h, w))
        return self.head(self.mix(per).flatten(1))


class MaskDecoder(nn.Module):
    """(test state ``(B, C, 10, 10)``, embedding ``(B, E)``) -> visit logits ``(B, 10, 10)``."""

    def __init__(self, config: MaskConfig, n_channels: int = N_CHANNELS) -> None:
        super().__init__()
        width = config.decoder_width
        self.stem = nn.Sequential(
            nn.Conv2d(n_channels + config.embedding_dim, width, 3, padding=1),
            nn.BatchNorm2d(width), nn.ReLU())
        self.blocks = nn.Sequential(*[_Residual(width) for _ in range(config.decoder_blocks)])
        self.out = nn.Conv2d(width, 1, 1)

    def forward(self, state: torch.Tensor, embedding: torch.Tensor) -> torch.Tensor:
        b, _, h, w = state.shape
        tiled = embedding[:, :, None, None].expand(b, embedding.shape[1], h, w)
        return self.out(self.blocks(self.stem(torch.cat([state, tiled], dim=1))))[:, 0]


class MaskNet(nn.Module):
    """Familiarization (states ``(B, 8, C, 10, 10)``, masks ``(B, 8, 10, 10)``) and the test
    trial's initial state ``(B, C, 10, 10)`` -> logits that each test cell is visited."""

    def __init__(self, config: MaskConfig) -> None:
        super().__init__()
        self.encoder = CharacterEncoder(config)
        self.decoder = MaskDecoder(config)

    def forward(self, fam_states: torch.Tensor, fam_masks: torch.Tensor,
                test_state: torch.Tensor) -> torch.Tensor:
        b, k = fam_states.shape[:2]
        embeddings = self.encoder(fam_states.flatten(0, 1), fam_masks.flatten(0, 1))
        return self.decoder(test_state, embeddings.reshape(b, k, -1).mean(dim=1))


def _batch(arrays: EpisodeArrays | ShardSet, index: np.ndarray) -> tuple[torch.Tensor, ...]:
    """Float tensors (fam states, fam masks, test state, test mask) for some episodes."""
    states = torch.from_numpy(arrays.states[index]).float()
    masks = torch.from_numpy(arrays.masks[index]).float()
    k = N_FAMILIARIZATION
    return states[:, :k], masks[:, :k], states[:, k], masks[:, k]


# ----------------------------------------------------------------------------- the observer


@register_observer("bib", "mask")
class MaskObserver(LearnedObserver[EpisodeView[Trial]]):
    """The BIB paper's mask model as an observer (see the module docstring).

    ``MaskObserver(checkpoint=PATH)`` loads a trained model; ``MaskObserver(**config)`` builds an
    untrained one to :meth:`fit` (``embedding_dim``, ``surprise_mode``, ``rate``, ...).
    """

    name = "mask"
    benchmark = "bib"

    def __init__(self, checkpoint: str | Path | None = None, **config: Any) -> None:
        if checkpoint is not None:
            fixed = sorted(set(config) - {"surprise_mode", "rate"})
            if fixed:
                raise UserError(f"a checkpoint fixes the model's shape: only surprise_mode and "
                                f"rate can change, not {', '.join(fixed)}")
            loaded = self.load(Path(checkpoint))
            self.config = replace(loaded.config, **config)
            self.net = loaded.net
            self.training_info = loaded.training_info
            return
        self.config = MaskConfig(**config)
        self.net = MaskNet(self.config).eval()
        self.training_info: dict[str, Any] = {}

    # --- prediction ----------------------------------------------------------------------

    def predict_proba(self, arrays: EpisodeArrays, batch_size: int = 256) -> np.ndarray:
        """``(N, 10, 10)`` probabilities that each test-trial cell is visited."""
        self.net.eval()
        out = []
        with torch.no_grad():
            for start in range(0, len(arrays), batch_size):
                index = np.arange(start, min(start + batch_size, len(arrays)))
                fam_s, fam_m, test_s, _ = _batch(arrays, index)
                out.append(torch.sigmoid(self.net(fam_s, fam_m, test_s)).numpy())
        return np.concatenate(out) if out else np.zeros((0, GRID, GRID), np.float32)

    def surprise_per_step(self, episode: EpisodeView[Trial]) -> np.ndarray:
        mode = self.config.surprise_mode
        return self.steps_by_mode(episode, (mode,))[mode]

    def steps_by_mode(self, episode: EpisodeView[Trial],
                      modes: Sequence[str] = SURPRISE_MODES) -> dict[str, np.ndarray]:
        """The per-step surprise in each of ``modes``, all from one prediction."""
        rule = self.config.visit_rule
        states, masks = episode_arrays(episode, self.config.channels, rule)
        arrays = EpisodeArrays(states[None], masks[None], np.array([""]), np.array([""]))
        proba = self.predict_proba(arrays)[0].astype(np.float64)
        cells = visit_cells(episode.test, rule)
        return {mode: step_surprise(proba, cells, self.config.rate, mode) for mode in modes}

    # --- training ------------------------------------------------------------------------

    def fit(self, train: Sequence[Episode] | EpisodeArrays | ShardSet,
            validation: Sequence[Episode] | EpisodeArrays | ShardSet = (), *, epochs: int = 5,
            batch_size: int = 64, lr: float = 1e-3, seed: int = 0,
            state_path: Path | None = None, cache_prefix: Path | None = None,
            progress: bool = True, **unused: Any) -> dict[str, float]:
        """Train from scratch (or resume ``state_path``) on expected test trials; return metrics.

        ``state_path``: where the training state (weights, optimizer, epoch) is written after
        every epoch; if it exists and was written for the same data and options, training
        resumes after its last epoch. Shuffling is seeded by (``seed``, epoch), so an
        interrupted and resumed run ends with the same weights as an uninterrupted one.
        ``cache_prefix``: episode files given as :class:`EpisodeFiles` are read once and their
        arrays kept at ``PREFIX-train.npz`` / ``PREFIX-validation.npz`` for later runs.
        A :class:`~.shards.ShardSet` trains from its memory-mapped shards (batches gathered
        across shards, the next one loaded while the model trains on this one); a validation
        ShardSet is copied into memory (it is rated whole after every epoch).
        Returns the last epoch's train loss and validation loss, precision and recall.
        """
        if unused:
            raise UserError(f"unknown mask training option(s): {', '.join(sorted(unused))}")
        if epochs < 1 or batch_size < 1 or lr <= 0:
            raise UserError("epochs and batch size must be >= 1 and the learning rate > 0")
        train_a = self._as_arrays(train, _cache(cache_prefix, "train"), progress)
        val_a = self._as_arrays(validation, _cache(cache_prefix, "validation"), progress)
        if isinstance(val_a, ShardSet):
            val_a = val_a.load()
        if len(train_a) == 0:
            raise UserError("the mask model needs at least one training episode")
        options = {"epochs": epochs, "batch_size": batch_size, "lr": lr, "seed": seed}
        resume_key = {"config": self.config.to_json(), "data": train_a.fingerprint(),
                      "batch_size": batch_size, "lr": lr, "seed": seed}

        was_deterministic = torch.are_deterministic_algorithms_enabled()
        torch.use_deterministic_algorithms(True)
        try:
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed)
                self.net = MaskNet(self.config)
            optimizer = torch.optim.Adam(self.net.parameters(), lr=lr)
            history: list[dict[str, Any]] = []
            start = 0
            if state_path is not None and Path(state_path).exists():
                start, history = self._resume(Path(state_path), resume_key, optimizer)
            loss_fn = nn.BCEWithLogitsLoss()
            with progress_bar(show=progress) as bar:
                for epoch in range(start, epochs):
                    order = rng_for(seed, "mask-shuffle", epoch).permutation(len(train_a))
                    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
                    task = bar.add_task(f"mask epoch {epoch + 1}/{epochs}", total=len(batches))
                    batches = [b for b in batches if len(b) >= 2]  # batch norm needs two
                    self.net.train()
                    total, count = 0.0, 0
                    for index, tensors in prefetched(lambda i: _batch(train_a, i), batches):
                        fam_s, fam_m, test_s, test_m = tensors
                        loss = loss_fn(self.net(fam_s, fam_m, test_s), test_m)
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                        total += loss.item() * len(index)
                        count += len(index)
                        bar.update(task, advance=1)
                    self._recalibrate_batch_norm(train_a, batch_size)
                    record = {"epoch": epoch + 1, "train_loss": total / max(count, 1),
                              **self.validate(val_a)}
                    history.append(record)
                    if progress:
                        bar.console.log(_describe(record))
                    if state_path is not None:
                        self._write_state(Path(state_path), resume_key, optimizer, epoch + 1,
                                          history)
        finally:
            torch.use_deterministic_algorithms(was_deterministic)
        self.net.eval()
        self.training_info = {**options, "history": history, "train_episodes": len(train_a),
                              "validation_episodes": len(val_a)}
        return {k: float(v) for k, v in history[-1].items() if k != "epoch"} if history else {}

    def _recalibrate_batch_norm(self, arrays: EpisodeArrays | ShardSet,
                                batch_size: int) -> None:
        """Set batch norm's running statistics to their averages over (up to BN_EPISODES)
        training episodes, evenly spaced over the set so every task is in them, under the
        current weights ("precise BN", ours).

        The running averages kept during training lag behind the weights; on small or early
        runs that makes predictions in eval mode far worse than in training mode.
        """
        norms = [m for m in self.net.modules() if isinstance(m, nn.BatchNorm2d)]
        for m in norms:
            m.reset_running_stats()
            m.momentum = None  # cumulative average over the batches below
        n = min(len(arrays), BN_EPISODES)
        spread = np.unique(np.linspace(0, len(arrays) - 1, n).round().astype(np.int64))
        self.net.train()
        with torch.no_grad():
            for start in range(0, len(spread), batch_size):
                index = spread[start:start + batch_size]
                if len(index) >= 2:
                    fam_s, fam_m, test_s, _ = _batch(arrays, index)
                    self.net(fam_s, fam_m, test_s)
        for m in norms:
            m.momentum = 0.1  # PyTorch's default
        self.net.eval()

    def validate(self, arrays: EpisodeArrays) -> dict[str, float]:
        """Per-cell BCE, and precision/recall of ``p > 0.5``, overall and per task."""
        if len(arrays) == 0:
            return {}
        proba = self.predict_proba(arrays)
        truth = arrays.masks[:, N_FAMILIARIZATION].astype(bool)
        p = np.clip(proba.astype(np.float64), EPS, 1 - EPS)
        metrics = {"val_loss": float(-np.mean(np.where(truth, np.log(p), np.log(1 - p))))}
        for task in ["", *sorted(set(map(str, arrays.tasks)))]:
            rows = np.ones(len(arrays), bool) if task == "" else arrays.tasks == task
            precision, recall = precision_recall(proba[rows] > 0.5, truth[rows])
            suffix = f"/{task}" if task else ""
            metrics[f"precision{suffix}"] = precision
            metrics[f"recall{suffix}"] = recall
        return metrics

    def _as_arrays(self, episodes: Sequence[Episode] | EpisodeArrays | ShardSet,
                   cache: Path | None = None, progress: bool = False,
                   ) -> EpisodeArrays | ShardSet:
        """The episodes as arrays; files are read once and cached at ``cache`` (keyed by the
        files' paths, sizes and modification times: ~2 MB of JSON become ~23 kB)."""
        if isinstance(episodes, ShardSet):
            if episodes.channels != self.config.channels:
                raise UserError(f"the shards under {episodes.root} were built with another "
                                f"channel map than the model's; rebuild them")
            if episodes.visit_rule != self.config.visit_rule:
                raise UserError(f"the shards under {episodes.root} hold {episodes.visit_rule}-"
                                f"rule masks, the model's visit rule is "
                                f"{self.config.visit_rule!r}: build shards with "
                                f"--visit-rule {self.config.visit_rule}")
            return episodes
        if isinstance(episodes, EpisodeArrays):
            return episodes
        key = None
        if cache is not None and isinstance(episodes, EpisodeFiles):
            key = files_key(episodes.paths, self.config.channels)
            if self.config.visit_rule != "centre":  # centre: the key every cache was made with
                key += f"|{self.config.visit_rule}"
            if (cached := load_arrays(cache, key)) is not None:
                return cached
        with progress_bar(show=progress and len(episodes) > 0) as bar:
            arrays = tensorize(bar.track(episodes, description="reading episodes"),
                               self.config.channels, self.config.visit_rule)
        if key is not None and cache is not None:
            save_arrays(cache, arrays, key)
        return arrays

    def _write_state(self, path: Path, key: dict, optimizer: torch.optim.Optimizer, epoch: int,
                     history: list[dict[str, Any]]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path) as tmp:
            torch.save({"format": STATE_FORMAT, "key": json.dumps(key, sort_keys=True),
                        "model": self.net.state_dict(), "optimizer": optimizer.state_dict(),
                        "epoch": epoch, "history": json.dumps(history)}, tmp)

    def _resume(self, path: Path, key: dict,
                optimizer: torch.optim.Optimizer) -> tuple[int, list[dict[str, Any]]]:
        state = _read(path, STATE_FORMAT, "training state")
        if state.get("key") != json.dumps(key, sort_keys=True):
            raise UserError(f"{path} was written for other training data or options; delete it "
                            f"to start over, or rerun with the same data and options to resume")
        try:
            self.net.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            return int(state["epoch"]), list(json.loads(state["history"]))
        except (KeyError, RuntimeError, ValueError, TypeError) as exc:
            raise DataFileError(path, f"damaged mask training state ({first_line(exc)}); delete it "
                                      f"to start over") from None

    # --- checkpoints ---------------------------------------------------------------------

    def save(self, path: Path) -> None:
        """Write weights + config (+ training record) to ``path``, atomically."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path) as tmp:
            torch.save({"format": CHECKPOINT_FORMAT, "config": json.dumps(self.config.to_json()),
                        "model": self.net.state_dict(),
                        "training": json.dumps(self.training_info)}, tmp)

    @classmethod
    def load(cls, path: Path) -> MaskObserver:
        """Read a checkpoint written by :meth:`save` (``weights_only``: nothing is unpickled)."""
        data = _read(Path(path), CHECKPOINT_FORMAT, "mask checkpoint")
        try:
            config = MaskConfig.from_json(json.loads(data["config"]))
            observer = cls.__new__(cls)
            observer.config = config
            observer.net = MaskNet(config)
            observer.net.load_state_dict(data["model"])
            observer.net.eval()
            observer.training_info = json.loads(data.get("training", "{}"))
        except (KeyError, TypeError, ValueError, RuntimeError, UserError) as exc:
            raise DataFileError(path, f"damaged mask checkpoint ({first_line(exc)}); retrain it "
                                      f"with `socialbench bib train --observer mask`") from None
        return observer


# ----------------------------------------------------------------------------- helpers


def step_surprise(proba: np.ndarray,
                  cells: Sequence[tuple[int, int] | frozenset[tuple[int, int]] | None],
                  rate: int, mode: str = "new-cell") -> np.ndarray:
    """Per rated step (frames ``0, rate, 2 rate, ...`` and the last), the surprise of the path.

    ``proba``: ``(10, 10)`` predicted visit probabilities; ``cells``: per frame the agent's
    cell, or the set of cells it visits (:func:`.mask_data.visit_cells`).
    """
    if not cells:
        return np.zeros(0)
    nll = -np.log(np.clip(proba, EPS, 1.0))
    checkpoints = list(range(0, len(cells), rate))
    if checkpoints[-1] != len(cells) - 1:
        checkpoints.append(len(cells) - 1)
    seen: set[tuple[int, int]] = set()
    out = np.zeros(len(checkpoints))
    previous = -1
    for step, frame in enumerate(checkpoints):
        new = {c for group in cells[previous + 1: frame + 1] for c in _cell_set(group)} - seen
        seen |= new
        previous = frame
        if mode == "new-cell":
            out[step] = max((nll[c] for c in new), default=0.0)
        else:
            out[step] = float(np.mean([nll[c] for c in seen])) if seen else 0.0
    return out


def _cell_set(group: tuple[int, int] | frozenset[tuple[int, int]] | None,
              ) -> frozenset[tuple[int, int]]:
    if group is None:
        return frozenset()
    return group if isinstance(group, frozenset) else frozenset([group])


def precision_recall(predicted: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """Precision and recall of boolean predictions (nan where undefined)."""
    tp = float(np.sum(predicted & truth))
    npred, ntrue = float(np.sum(predicted)), float(np.sum(truth))
    return (tp / npred if npred else math.nan), (tp / ntrue if ntrue else math.nan)


def _describe(record: dict[str, Any]) -> str:
    parts = [f"epoch {record['epoch']}: train loss {record['train_loss']:.4f}"]
    if "val_loss" in record:
        parts.append(f"val loss {record['val_loss']:.4f}, precision {record['precision']:.2f}, "
                     f"recall {record['recall']:.2f}")
    return ", ".join(parts)



def _cache(prefix: Path | None, part: str) -> Path | None:
    return None if prefix is None else Path(f"{prefix}-{part}.npz")


def _read(path: Path, expected_format: str, what: str) -> dict[str, Any]:
    """``torch.load(weights_only=True)`` with every failure as one DataFileError line."""
    return read_torch_dict(path, expected_format, what, "mask", MAX_CHECKPOINT_BYTES)

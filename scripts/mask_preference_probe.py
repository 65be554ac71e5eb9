"""Does the BIB mask model bind the agent's preference to the preferred object's identity?

    python scripts/mask_preference_probe.py background CHECKPOINT [--episodes 500]
    python scripts/mask_preference_probe.py pairs CHECKPOINT [--pairs 1000] [--seed 1]
    python scripts/mask_preference_probe.py oracle [--episodes 2000] [--epochs 8] [--which W]

``background``: the last ``--episodes`` no-navigation preference background episodes by name
(the validation part of ``bib shards --seed 0``): the predicted visit probability at the
preferred and at the other object's cell, the paper's four outcomes of ``p > 0.5`` (BIB paper,
appendix B.1: preferred 83.2 %, other 6.9 %, both 8.4 %, neither 2.4 %), and the same with the
two objects' identities swapped in the 8 familiarization trials (a model that uses the identity
flips its choice; one that ignores it does not move).
``pairs``: the evaluation split's preference pairs (``bib generate --split eval --seed S``, built
in memory): relative accuracy (ties half, 95 % bootstrap interval) as rated and with the
familiarization identities swapped, and the probabilities at the two objects' cells.
``oracle``: trains the mask model (body rule) on no-navigation preference episodes alone, once
with its familiarization encoder and once with the encoder replaced by a fixed code (per object
channel, the share of familiarization cells where the agent's mask covers that object), and
prints per epoch how often the preferred object's cell gets the higher probability.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from socialbench.bib import generate as gen
from socialbench.bib.schema import N_FAMILIARIZATION, Episode
from socialbench.observers.bib.mask import (
    CharacterEncoder,
    MaskNet,
    MaskObserver,
    step_surprise,
)
from socialbench.observers.bib.mask_data import (
    N_CHANNELS,
    N_OBJECT_CHANNELS,
    OBJECT0,
    EpisodeArrays,
    point_cell,
    tensorize,
    visit_cells,
)
from socialbench.observers.bib.shards import generated_episodes, generated_pairs
from socialbench.voe.observer import view_of


def goal_cells(episode: Episode) -> tuple[tuple[int, int], tuple[int, int]]:
    """(preferred, other) object cells of the test trial: the goal is the object the agent
    ends next to."""
    test = episode.trials[N_FAMILIARIZATION]
    ax, ay = test.frames[-1].agent.center
    objects = test.frames[0].objects
    goal = int(np.argmin([np.hypot(o.center[0] - ax, o.center[1] - ay) for o in objects]))
    return point_cell(*objects[goal].center), point_cell(*objects[1 - goal].center)


def swapped_identities(arrays: EpisodeArrays, episodes: Sequence[Episode],
                       observer: MaskObserver) -> EpisodeArrays:
    """The arrays with the test's two object shapes' channels exchanged in familiarization."""
    states = arrays.states.copy()
    for i, episode in enumerate(episodes):
        a, b = (observer.config.channels.object_channel(o.shape)
                for o in episode.trials[N_FAMILIARIZATION].frames[0].objects)
        states[i, :N_FAMILIARIZATION, [a, b]] = arrays.states[i, :N_FAMILIARIZATION, [b, a]]
    return EpisodeArrays(states, arrays.masks, arrays.tasks, arrays.names)


def outcomes(pref: np.ndarray, other: np.ndarray) -> str:
    hit, miss = pref > .5, other > .5
    share = {"preferred only": hit & ~miss, "other only": miss & ~hit, "both": hit & miss,
             "neither": ~hit & ~miss}
    return (f"p preferred / other {pref.mean():.3f} / {other.mean():.3f}; preferred > other "
            f"{100 * np.mean(pref > other):.1f} %; " +
            ", ".join(f"{k} {100 * v.mean():.1f} %" for k, v in share.items()))


def background_episodes(first: int, count: int) -> list[Episode]:
    split = gen.get_split("train")
    jobs = gen.make_jobs(split, ["preference"], {"preference": first + count}, 0, False)
    return [generated_episodes(job)[0] for job in jobs[first:]]


def probe_background(observer: MaskObserver, count: int) -> None:
    total = gen.get_split("train").default_episodes["preference"]
    episodes = background_episodes(total - count, count)
    arrays = tensorize(episodes, observer.config.channels, observer.config.visit_rule)
    cells = [goal_cells(e) for e in episodes]
    for label, data in (("as is", arrays),
                        ("identities swapped", swapped_identities(arrays, episodes, observer))):
        p = observer.predict_proba(data)
        pref = np.array([p[i][c[0]] for i, c in enumerate(cells)])
        other = np.array([p[i][c[1]] for i, c in enumerate(cells)])
        print(f"{count} no-navigation episodes, familiarization {label}: {outcomes(pref, other)}")


def probe_pairs(observer: MaskObserver, count: int, seed: int) -> None:
    config = observer.config
    scores: dict[str, list[float]] = {"as is": [], "identities swapped": []}
    pref, other = [], []
    for _, _, expected, unexpected in generated_pairs("eval", tasks="preference",
                                                      episodes=count, seed=seed):
        arrays = tensorize([expected], config.channels, config.visit_rule)
        both = EpisodeArrays.concatenate([arrays, swapped_identities(arrays, [expected],
                                                                     observer)])
        proba = observer.predict_proba(both).astype(np.float64)
        good, bad = goal_cells(expected)
        pref.append(proba[0][good])
        other.append(proba[0][bad])
        for label, p in zip(scores, proba, strict=True):
            e, u = (float(np.max(step_surprise(p, visit_cells(v.trials[N_FAMILIARIZATION],
                                                              config.visit_rule),
                                               config.rate, config.surprise_mode)))
                    for v in (view_of(expected), view_of(unexpected)))
            scores[label].append(1.0 if e < u else 0.5 if e == u else 0.0)
    rng = np.random.default_rng(0)
    for label, values in scores.items():
        s = np.array(values)
        boot = [s[rng.integers(len(s), size=len(s))].mean() for _ in range(2000)]
        print(f"{len(s)} preference pairs, familiarization {label}: relative accuracy "
              f"{100 * s.mean():.1f} % [{100 * np.percentile(boot, 2.5):.1f}-"
              f"{100 * np.percentile(boot, 97.5):.1f}]")
    print(f"test prediction: {outcomes(np.array(pref), np.array(other))}")


def oracle_forward(self: MaskNet, fam_states: torch.Tensor, fam_masks: torch.Tensor,
                   test_state: torch.Tensor) -> torch.Tensor:
    """The decoder fed the fixed code instead of the encoder's embedding."""
    objects = fam_states[:, :, OBJECT0:OBJECT0 + N_OBJECT_CHANNELS]
    code = (objects * fam_masks[:, :, None]).sum(dim=(3, 4)).mean(dim=1)
    return self.decoder(test_state, code)


def product_map(self: CharacterEncoder, state: torch.Tensor,
                mask: torch.Tensor) -> torch.Tensor:
    """The encoder map of (state x mask, mask) pairs: each channel only where the path is."""
    b, c, h, w = state.shape
    path = mask[:, None].expand(b, c, h, w)
    pairs = torch.stack([state * path, path], dim=2)
    return self.mix(self.per_channel(pairs.reshape(b, c * 2, h, w)))


def product_forward(self: CharacterEncoder, state: torch.Tensor,
                    mask: torch.Tensor) -> torch.Tensor:
    return self.head(product_map(self, state, mask).flatten(1))


def pooled_product_forward(self: CharacterEncoder, state: torch.Tensor,
                           mask: torch.Tensor) -> torch.Tensor:
    """As :func:`product_forward`, the map averaged over the cells before the linear layer."""
    return self.pooled_head(product_map(self, state, mask).mean(dim=(2, 3)))


def pooled_init(self: CharacterEncoder, config: Any, n_channels: int = N_CHANNELS) -> None:
    ENCODER_INIT(self, config, n_channels)
    self.pooled_head = torch.nn.Linear(config.encoder_width, config.embedding_dim)


ENCODER_INIT = CharacterEncoder.__init__


def counts_init(self: CharacterEncoder, config: Any, n_channels: int = N_CHANNELS) -> None:
    ENCODER_INIT(self, config, n_channels)
    self.counts_head = torch.nn.Linear(2 * n_channels, config.embedding_dim)


def counts_forward(self: CharacterEncoder, state: torch.Tensor,
                   mask: torch.Tensor) -> torch.Tensor:
    """No convolutions: per channel, its cells under the path and all its cells, counted, then
    one linear layer (the fixed code's numbers, learned into the embedding)."""
    counts = torch.cat([(state * mask[:, None]).sum(dim=(2, 3)), state.sum(dim=(2, 3))], dim=1)
    return self.counts_head(counts)


def channel_pooled_forward(self: CharacterEncoder, state: torch.Tensor,
                           mask: torch.Tensor) -> torch.Tensor:
    """The per-channel block's output summed over the cells, then one linear layer."""
    b, c, h, w = state.shape
    pairs = torch.stack([state, mask[:, None].expand(b, c, h, w)], dim=2)
    return self.counts_head(self.per_channel(pairs.reshape(b, c * 2, h, w)).sum(dim=(2, 3)))


def no_norm_init(self: CharacterEncoder, config: Any, n_channels: int = N_CHANNELS) -> None:
    """The paper's encoder without its batch norms (each an identity)."""
    counts_init(self, config, n_channels)  # the same random draws as the counts encoder's
    for module in list(self.modules()):
        for name, child in list(module.named_children()):
            if isinstance(child, torch.nn.BatchNorm2d):
                setattr(module, name, torch.nn.Identity())


def unshared_init(self: CharacterEncoder, config: Any, n_channels: int = N_CHANNELS) -> None:
    ENCODER_INIT(self, config, n_channels)
    width = 2 * n_channels  # each (state channel, path) pair its own 2 -> 2 block
    self.unshared = torch.nn.ModuleList([
        torch.nn.Conv2d(width, width, 3, padding=1, groups=n_channels),
        torch.nn.BatchNorm2d(width),
        torch.nn.Conv2d(width, width, 3, padding=1, groups=n_channels),
        torch.nn.BatchNorm2d(width)])


def unshared_forward(self: CharacterEncoder, state: torch.Tensor,
                     mask: torch.Tensor) -> torch.Tensor:
    """The paper's encoder with the per-channel block's weights not shared between channels
    (the paper's text allows either)."""
    b, c, h, w = state.shape
    x = torch.stack([state, mask[:, None].expand(b, c, h, w)], dim=2).reshape(b, 2 * c, h, w)
    conv1, norm1, conv2, norm2 = self.unshared
    per = torch.relu(x + norm2(conv2(torch.relu(norm1(conv1(x))))))
    return self.head(self.mix(per).flatten(1))


# --which name: (label, encoder __init__, encoder forward); "fixed" replaces the encoder
VARIANTS = {
    "encoder": ("encoder", ENCODER_INIT, CharacterEncoder.forward),
    "product": ("product encoder", ENCODER_INIT, product_forward),
    "pooled": ("pooled product encoder", pooled_init, pooled_product_forward),
    "counts": ("counts encoder", counts_init, counts_forward),
    "channel-pooled": ("channel-pooled encoder", counts_init, channel_pooled_forward),
    "unshared": ("unshared encoder", unshared_init, unshared_forward),
    "no-norm": ("encoder without batch norm", no_norm_init, CharacterEncoder.forward),
}


def probe_oracle(count: int, epochs: int, which: Sequence[str], embedding_dim: int = 8
                 ) -> None:
    unknown = sorted(set(which) - {"fixed", *VARIANTS})
    if unknown:
        raise SystemExit(f"unknown --which {', '.join(unknown)}; use fixed or "
                         f"{', '.join(VARIANTS)}")
    episodes = background_episodes(0, count)
    cut = int(0.8 * count)
    for name in which:
        oracle = name == "fixed"
        label, init, forward = ("fixed code", ENCODER_INIT, CharacterEncoder.forward) \
            if oracle else VARIANTS[name]
        observer = MaskObserver(visit_rule="body",
                                embedding_dim=N_OBJECT_CHANNELS if oracle else embedding_dim)
        train = tensorize(episodes[:cut], observer.config.channels, "body")
        held = tensorize(episodes[cut:], observer.config.channels, "body")
        cells = [goal_cells(e) for e in episodes[cut:]]
        saved, saved_encoder = MaskNet.forward, CharacterEncoder.forward
        CharacterEncoder.forward, CharacterEncoder.__init__ = forward, init
        if oracle:
            MaskNet.forward = oracle_forward
        state = Path(tempfile.mkdtemp()) / "state.pt"  # each epoch resumes the last one's
        try:
            for epoch in range(1, epochs + 1):
                observer.fit(train, held, epochs=epoch, seed=0, progress=False, state_path=state)
                p = observer.predict_proba(held)
                pref = np.array([p[i][c[0]] for i, c in enumerate(cells)])
                other = np.array([p[i][c[1]] for i, c in enumerate(cells)])
                print(f"{label}, epoch {epoch}: {outcomes(pref, other)}", flush=True)
        finally:
            MaskNet.forward, CharacterEncoder.forward = saved, saved_encoder
            CharacterEncoder.__init__ = ENCODER_INIT


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe", choices=["background", "pairs", "oracle"])
    parser.add_argument("checkpoint", nargs="?")
    parser.add_argument("--episodes", type=int, default=None)
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--embedding-dim", type=int, default=8,
                        help="oracle: the learned encoders' embedding size (default 8)")
    parser.add_argument("--which", default="fixed,encoder",
                        help="oracle: the models to train, comma-separated (fixed: the fixed "
                             "code; encoder: the paper's; product: fed each state channel "
                             "times the mask; pooled: the same, its map averaged over the "
                             "cells; counts: no convolutions, each channel's cells under the "
                             "path and in all counted; channel-pooled: the per-channel block "
                             "summed over the cells; unshared: the per-channel block's weights "
                             "not shared; no-norm: the paper's without batch norm)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.probe == "oracle":
        probe_oracle(args.episodes or 2000, args.epochs, args.which.split(","),
                     args.embedding_dim)
        return
    if args.checkpoint is None:
        parser.error(f"{args.probe} needs a CHECKPOINT")
    observer = MaskObserver(checkpoint=args.checkpoint)
    if args.probe == "background":
        probe_background(observer, args.episodes or 500)
    else:
        probe_pairs(observer, args.pairs, args.seed)


if __name__ == "__main__":
    main()

"""Can ToMnet-G bind "this agent goes for that colour"? Two runs on one scenario's trials read
from a graph cache (the `--checkpoints` folder of `socialbench agent evaluate --observer
tomnet-g`; docs/agent_observers.md, "Why 1.1, 1.3 and 4.1 stay at chance"):

    python scripts/tomnet_g_binding.py colour --cache CKPT --data DIR [--scenario 1] [--epochs 15]
    python scripts/tomnet_g_binding.py train --cache CKPT --data DIR [--scenario 1]
        [--epochs 40] [--conditioning gain|gate] [--end-head] [--seed 0]
    python scripts/tomnet_g_binding.py rate --cache CKPT --data DIR
        --checkpoint CKPT/tomnet-g_all-....pt

- ``colour``: the familiarization network (graph network and LSTM, as in the model) trained
  with a linear head, told the colour code of the goal the familiarization video ends next to;
  its accuracy on the test trials' familiarization videos. It says whether the character network
  can carry the preferred colour when the loss asks for it directly.
- ``train``: the model trained as `agent evaluate` trains it (teacher-forced, batch 16, lr
  1e-3), on the scenario's training trials only, rated every quarter of the epochs on the
  scenario's test pairs three ways: the largest next-step error (the default reading), the
  largest end-head error, and their per-step sum (the `--end-head` reading).
- ``rate``: a checkpoint the command wrote (``--end-head``), rated on every scenario's test
  pairs in those three readings.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np
import torch
from torch import nn

from socialbench.agent3d.schema import TRIAL_TYPES
from socialbench.observers.agent.tomnet_g.graphs import N_COLOURS, NODE_CLASSES, position_slice
from socialbench.observers.agent.tomnet_g.model import CONDITIONING, HIDDEN, ToMnetG
from socialbench.observers.agent.tomnet_g.samples import graphs_folder, read_sample
from socialbench.observers.agent.tomnet_g.surprise import _distances
from socialbench.observers.agent.tomnet_g.training import (
    BATCH,
    LR,
    Sample,
    batch_loss,
    character,
    displacement_to_end,
)

GOAL = NODE_CLASSES.index("goal")
COLOUR = len(NODE_CLASSES) + 8  # where a node's colour code starts (graphs.video_graphs)


def load(cache: Path, data: Path, scenario: str) -> tuple[list[Sample], dict[str, list]]:
    folder = next(graphs_folder(cache, data).glob(f"scenario_{scenario}_*"))
    types = [t for t in TRIAL_TYPES if t.startswith(f"{scenario}.")]
    train = [read_sample(f) for t in types
             for f in sorted((folder / f"type_{t}" / "train_set").glob("*.npz"))]
    test = {t: [(read_sample(d / "expected.npz"), read_sample(d / "surprising.npz"))
                for d in sorted((folder / f"type_{t}" / "test_set").glob("Trial_*"))]
            for t in types}
    return train, test


def chosen_colour(sample: Sample) -> int:
    """The colour code of the goal the first familiarization video ends nearest to."""
    video = sample.familiarization[0]
    last, where = video.nodes[-1], position_slice()
    goals = [n for n in range(last.shape[0]) if last[n, GOAL] == 1]
    nearest = min(goals, key=lambda n: float(np.linalg.norm(last[n, where] - video.agent[-1])))
    return int(np.argmax(last[nearest, COLOUR:COLOUR + N_COLOURS]))


def pairwise(expected: list[float], surprising: list[float]) -> float:
    e, s = np.array(expected)[None], np.array(surprising)[:, None]
    return float((s > e).mean() + 0.5 * (s == e).mean())


def colour_run(train: list[Sample], test: dict[str, list], epochs: int, seed: int) -> None:
    torch.manual_seed(seed)
    model, head = ToMnetG(), nn.Linear(HIDDEN, N_COLOURS)
    optimizer = torch.optim.Adam([*model.parameters(), *head.parameters()], lr=LR)
    held_out = [e for pairs in test.values() for e, _ in pairs]
    wanted = torch.tensor([chosen_colour(s) for s in train])
    wanted_test = torch.tensor([chosen_colour(s) for s in held_out])
    order = list(range(len(train)))
    for epoch in range(epochs):
        random.Random(seed * 1000 + epoch).shuffle(order)
        for first in range(0, len(order), BATCH):
            index = order[first:first + BATCH]
            logits = head(character(model, [train[i] for i in index], "cpu"))
            loss = nn.functional.cross_entropy(logits, wanted[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            right = head(character(model, held_out, "cpu")).argmax(-1) == wanted_test
        print(f"epoch {epoch + 1}: chosen colour read on {len(held_out)} test trials' "
              f"familiarization: {float(right.float().mean()):.2f}", flush=True)


@torch.no_grad()
def readings(model: ToMnetG, sample: Sample) -> tuple[float, float, float]:
    """(largest next-step error, largest end error, largest sum) in metres."""
    model.eval()
    char = character(model, [sample], "cpu")
    step, _, to_end, _ = model.predictions(torch.from_numpy(sample.test.nodes)[None], char)
    steps = _distances(step, np.diff(sample.test.agent, axis=0))
    ends = (_distances(to_end, displacement_to_end(sample.test.agent)) if to_end is not None
            else np.zeros_like(steps))
    return float(steps.max()), float(ends.max()), float((steps + ends).max())


def train_run(train: list[Sample], test: dict[str, list], epochs: int, seed: int,
              conditioning: str, end: bool) -> None:
    torch.manual_seed(seed)
    model = ToMnetG(conditioning=conditioning, end=end)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    order = list(range(len(train)))
    for epoch in range(epochs):
        model.train()
        random.Random(seed * 100003 + epoch).shuffle(order)
        total = 0.0
        for first in range(0, len(order), BATCH):
            batch = [train[i] for i in order[first:first + BATCH]]
            loss = batch_loss(model, batch, "cpu", "teacher-forced")
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(batch)
        line = f"epoch {epoch + 1}: loss {total / len(train):.3f}"
        if (epoch + 1) % max(1, epochs // 4) == 0:
            for trial_type, pairs in test.items():
                e = [readings(model, a) for a, _ in pairs]
                s = [readings(model, b) for _, b in pairs]
                line += f" | {trial_type}: " + " ".join(
                    f"{name} {pairwise([x[k] for x in e], [x[k] for x in s]):.2f}"
                    for k, name in enumerate(("step", "end", "sum")))
        print(line, flush=True)


def rate_run(cache: Path, data: Path, checkpoint: Path) -> None:
    state = torch.load(checkpoint, map_location="cpu", weights_only=True)
    conditioning = "gate" if any(k.startswith("test_gnn.query") for k in state["model"]) \
        else "gain"
    model = ToMnetG(conditioning=conditioning, end=any(k.startswith("to_end.")
                                                       for k in state["model"]))
    model.load_state_dict(state["model"])
    print(f"{checkpoint.name}: epoch {state['epoch']}, conditioning {conditioning}")
    for scenario in "1234":
        _, test = load(cache, data, scenario)
        for trial_type, pairs in test.items():
            e = [readings(model, a) for a, _ in pairs]
            s = [readings(model, b) for _, b in pairs]
            print(f"{trial_type} ({len(pairs)} pairs): " + " ".join(
                f"{name} {pairwise([x[k] for x in e], [x[k] for x in s]):.2f}"
                for k, name in enumerate(("step", "end", "sum"))), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", choices=("colour", "train", "rate"))
    parser.add_argument("--checkpoint", type=Path, help="rate: a checkpoint of the command")
    parser.add_argument("--cache", type=Path, required=True, help="agent evaluate --checkpoints")
    parser.add_argument("--data", type=Path, required=True, help="the dataset it rated")
    parser.add_argument("--scenario", default="1", choices=("1", "2", "3", "4"))
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--conditioning", default="gate", choices=CONDITIONING)
    parser.add_argument("--end-head", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.run == "rate":
        if args.checkpoint is None:
            parser.error("rate needs --checkpoint")
        rate_run(args.cache, args.data, args.checkpoint)
        return
    train, test = load(args.cache, args.data, args.scenario)
    if args.run == "colour":
        colour_run(train, test, args.epochs, args.seed)
    else:
        train_run(train, test, args.epochs, args.seed, args.conditioning, args.end_head)


if __name__ == "__main__":
    main()

"""Does a trained ToMnet-G know which goal an agent prefers, and does its rating look where
an expected and a surprising test video differ? (docs/agent_observers.md, issue 12)

    python scripts/tomnet_g_probe.py --data DIR --checkpoint CKPT/tomnet-g_all-....pt \
        --cache CKPT [--horizon N] [--train-states TRAIN]

Three probes on the goal-preference (1.x) and cost-reward (4.x) types:

1. read-out: a linear read-out (multinomial logistic regression over the colour codes, 5-fold
   cross-validation) of the colour of the goal the agent ends next to in a training trial's
   test video (the goal its familiarization favoured) from the trial's character embedding,
   scored as the share of trials where the chosen goal's colour outscores the other goal's
   (chance 0.5); beside it the same read-out from the embeddings shuffled across trials (what
   the colours' frequencies alone give) and from the label itself with noise (that the read-out
   can find it);
2. onset: on the expected test videos, whether the prediction at the frame before the agent
   first moves points toward the goal it goes to (own character, zeroed, another trial's);
3. peak: on every test pair, where the per-step error that the default rating takes the largest
   of lies relative to that first move, and the errors around it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold

from socialbench.observers.agent.evaluation import ToMnetRater, find_pairs
from socialbench.observers.agent.tomnet_g.model import ToMnetG
from socialbench.observers.agent.tomnet_g.surprise import step_errors
from socialbench.observers.agent.tomnet_g.training import DISPLACEMENT_UNIT, Sample, character

GOAL_CLASS, COLOURS = 1, slice(12, 21)  # graphs.py's feature layout
MOVING = 0.005  # m per rated frame: the agent has set off


def onset(agent: np.ndarray) -> int:
    """The first rated step longer than MOVING (the video's length if none)."""
    moved = np.flatnonzero(np.linalg.norm(np.diff(agent, axis=0), axis=1) > MOVING)
    return int(moved[0]) if moved.size else len(agent) - 1


def chosen_colour(sample: Sample) -> tuple[int, int] | None:
    """(colour of the goal the test video ends nearest, the other goal's) or None."""
    last = sample.test.nodes[-1]
    goals = [(int(np.argmax(n[COLOURS])), n[4:6]) for n in last[1:]
             if n[-1] and n[GOAL_CLASS] == 1]
    if len(goals) != 2:
        return None
    near = int(np.argmin([np.linalg.norm(p - sample.test.agent[-1, :2]) for _, p in goals]))
    return goals[near][0], goals[1 - near][0]


def read_out(x: np.ndarray, labels: list[tuple[int, int]]) -> float:
    chosen, other = np.array([a for a, _ in labels]), np.array([b for _, b in labels])
    right = np.zeros(len(x), bool)
    for train, test in KFold(5, shuffle=True, random_state=0).split(x):
        fit = LogisticRegression(max_iter=2000, C=0.1).fit(x[train], chosen[train])
        score, known = fit.decision_function(x[test]), list(fit.classes_)
        for row, k in enumerate(test):
            mine = score[row, known.index(chosen[k])] if chosen[k] in known else -np.inf
            theirs = score[row, known.index(other[k])] if other[k] in known else -np.inf
            right[k] = mine > theirs
    return float(right.mean())


@torch.no_grad()
def embeddings(model: ToMnetG, samples: list[Sample]) -> np.ndarray:
    out = [character(model, samples[k:k + 16], "cpu").numpy()
           for k in range(0, len(samples), 16)]
    x = np.concatenate(out)
    return (x - x.mean(0)) / (x.std(0) + 1e-6)


@torch.no_grad()
def toward(model: ToMnetG, sample: Sample, char: torch.Tensor) -> float:
    """The prediction at the frame before the first move, along the way the agent goes (m);
    the end head's when the model has one, else the horizon head's, else the next step's."""
    steps, ahead, to_end, _ = model.predictions(torch.from_numpy(sample.test.nodes)[None], char)
    pick = to_end if to_end is not None else ahead if ahead is not None else steps
    way = sample.test.agent[-1, :2] - sample.test.agent[0, :2]
    o = onset(sample.test.agent)
    return float(pick[0, o, :2].numpy() @ (way / np.linalg.norm(way))) * DISPLACEMENT_UNIT


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--cache", type=Path, default=None, help="agent evaluate --checkpoints")
    parser.add_argument("--train-states", type=Path, default=None)
    parser.add_argument("--horizon", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    state = torch.load(args.checkpoint, map_location="cpu", weights_only=True)
    weights = state.get("model", state)
    model = ToMnetG(horizon=args.horizon, end=any(k.startswith("to_end.") for k in weights))
    model.load_state_dict(weights)
    model.eval()
    rater = ToMnetRater(args.data, find_pairs(args.data), None, False, 0, "cpu", 0,
                        args.cache, train_data=args.train_states)
    print("1. read-out of the chosen goal's colour from the character embedding "
          "(training trials; chance 0.5)")
    for group in (("1.1", "1.2", "1.3", "1.4"), ("1.1", "1.3"), ("4.1", "4.2"), ("4.1",)):
        samples = [s for t in group for s in rater.train.get(t, []) if chosen_colour(s)]
        if len(samples) < 10:
            continue
        labels = [chosen_colour(s) for s in samples]
        x = embeddings(model, samples)
        rng = np.random.default_rng(0)
        noisy = np.eye(9)[[a for a, _ in labels]] + rng.normal(0, 0.3, (len(labels), 9))
        shuffled = read_out(x[rng.permutation(len(x))], labels)
        print(f"   {'+'.join(group):16} {len(samples):4} trials: embedding "
              f"{read_out(x, labels):.2f}, shuffled {shuffled:.2f}, "
              f"the label itself {read_out(noisy, labels):.2f}")
    print("2. prediction at the last still frame toward the goal the expected video goes to "
          "(share > 0; mean mm)")
    for t in ("1.1", "1.2", "1.3", "1.4", "4.1", "4.2"):
        rows = rater.test.get(t, [])
        if not rows:
            continue
        seen: dict[str, list[float]] = {"own": [], "zeroed": [], "another trial's": []}
        for k, (expected, _) in enumerate(rows):
            own = character(model, [expected], "cpu")
            chars = {"own": own, "zeroed": torch.zeros_like(own),
                     "another trial's": character(model, [rows[(k + 1) % len(rows)][0]], "cpu")}
            for name, char in chars.items():
                seen[name].append(toward(model, expected, char))
        print(f"   {t} ({len(rows)}): " + ", ".join(
            f"{n} {np.mean(np.array(v) > 0):.2f} ({np.mean(v) * 1000:+.0f})"
            for n, v in seen.items()))
    print("3. the peak per-step error against the first move (rated frames after it; "
          "median over the type's videos), and the errors (m) at the move, median")
    for t in ("1.1", "1.3", "4.1"):
        rows = rater.test.get(t, [])
        for role, pick in (("expected", 0), ("surprising", 1)):
            after, at_move, peak = [], [], []
            for pair in rows:
                sample = pair[pick]
                errors, o = step_errors(model, sample), onset(sample.test.agent)
                after.append(int(errors.argmax()) - o)
                at_move.append(errors[o])
                peak.append(errors.max())
            if rows:
                print(f"   {t} {role:10}: peak {np.median(after):+.0f} frames after the "
                      f"move, {np.median(peak):.3f} m; at the move {np.median(at_move):.3f} m")


if __name__ == "__main__":
    main()

"""What a TalkItOut agent does, episode by episode: how its episodes end, what it says,
whether it says "Open sesame" more next to a door than elsewhere (a policy that uses what it
sees), and whether the door it opens is the right one more often once it has heard the true
guide name the exit (a policy that uses what it hears).

    python -m socialbench.rl.behaviour CHECKPOINT_OR_RUN_DIR [--steps 4000] [--eval-mode]
    python -m socialbench.rl.behaviour untrained [--variant no-liar]   # a freshly built model
    python -m socialbench.rl.behaviour probe [--steps 300]   # see :func:`door_probe`

The model acts as in training (BatchNorm in training mode, sampled actions) on 16 environments
of the run's variant; ``--eval-mode`` uses the running statistics, as evaluation does.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

import numpy as np
import torch
from gymnasium.vector import AutoresetMode
from torch import nn

from socialbench.rl.model import MHBabyAI, ModelConfig
from socialbench.rl.policy import Actor, env_actions, sample_heads
from socialbench.talkitout import vector_env
from socialbench.talkitout.grammar import NO_MOVE, PRIMITIVES

ENDING = (PRIMITIVES.index("toggle"), PRIMITIVES.index("done"))
OPEN_SESAME = (1, 0)  # (template, noun)
WHERE_IS_THE_EXIT = (0, 1)


def next_to_a_door(envs: vector_env.TalkItOutVectorEnv) -> np.ndarray:
    """Which environments' agents stand 4-adjacent to a door (where "Open sesame" ends it)."""
    return (vector_env._FRONTS[envs._doors] == envs._pos[:, None]).any(1)


def heard_the_exit(envs: vector_env.TalkItOutVectorEnv) -> np.ndarray:
    """Which environments' agents have heard the exit's colour this episode. Only the true
    guide names it (the liar names a wrong door, the wizard no colour)."""
    return (envs.utterance_history(copy=False)
            == envs.exit_colour_tokens()[:, None]).any(axis=1)


def _share(outcomes: list[bool]) -> float:
    return float(np.mean(outcomes)) if outcomes else float("nan")


@torch.no_grad()
def behaviour(model: MHBabyAI, liar: bool, t_max: int = 40, steps: int = 4000,
              num_envs: int = 16, seed: int = 0) -> dict[str, Any]:
    """Episode endings, action shares, the door-conditioned "Open sesame" probability, and the
    right-door share of the episodes ended at a door, with and without having heard the exit's
    colour, of ``model`` over ``steps`` steps of ``num_envs`` environments."""
    envs = vector_env.TalkItOutVectorEnv(num_envs, liar=liar, t_max=t_max,
                                         npc_direction_channel=model.config.channels == 4,
                                         autoreset_mode=AutoresetMode.SAME_STEP)
    obs, _ = envs.reset(seed=seed)
    actor = Actor(model, num_envs, torch.device("cpu"))
    actor.observe(obs["utterance"], np.zeros(num_envs, dtype=bool))
    memory = torch.zeros(num_envs, model.memory_size)
    mask = torch.ones(num_envs)
    sampler = torch.Generator().manual_seed(seed)
    ends: Counter[str] = Counter()
    moves: Counter[str] = Counter()
    said: Counter[tuple[int, int]] = Counter()
    sesame: dict[bool, list[float]] = {True: [], False: []}
    right_door: dict[bool, list[bool]] = {True: [], False: []}  # by heard the exit's colour
    heard_at_end: list[bool] = []
    lengths, length = [], np.zeros(num_envs, dtype=np.int64)
    for step in range(steps):
        if step % 40 == 0:
            actor.new_table()  # keeps the table of distinct dialogues small
        logits, _, memory = actor.forward(obs["image"], memory * mask[:, None])
        p = {k: torch.softmax(v.float(), 1) for k, v in logits.items()}
        p_sesame = (p["speak"][:, 1] * p["template"][:, OPEN_SESAME[0]]
                    * p["noun"][:, OPEN_SESAME[1]]).numpy()
        for near, value in zip(next_to_a_door(envs).tolist(), p_sesame.tolist(), strict=True):
            sesame[near].append(value)
        sampled = sample_heads(logits, sampler)
        action = env_actions(sampled)
        for move in action[:, 0].tolist():
            moves["none" if move == NO_MOVE else PRIMITIVES[move]] += 1
        for template, noun in action[:, 1:].tolist():
            if (template, noun) in (OPEN_SESAME, WHERE_IS_THE_EXIT):
                said[(template, noun)] += 1
        heard = heard_the_exit(envs)  # read before the step: ended episodes are reset in it
        obs, reward, terminated, truncated, _ = envs.step(action)
        done = terminated | truncated
        length += 1
        for i in np.flatnonzero(done).tolist():
            lengths.append(int(length[i]))
            length[i] = 0
            end = ("success" if reward[i] > 0 else "time out" if truncated[i]
                   else "toggle or done" if action[i, 0] in ENDING else "wrong door")
            ends[end] += 1
            heard_at_end.append(bool(heard[i]))
            if end in ("success", "wrong door"):  # "Open sesame" at a door, which may not
                right_door[bool(heard[i])].append(end == "success")  # be one it heard of
        actor.observe(obs["utterance"], done)
        mask = torch.from_numpy(1.0 - done.astype(np.float32))
    frames = steps * num_envs
    return {
        "episodes": sum(ends.values()),
        "ends": {k: v / max(sum(ends.values()), 1) for k, v in sorted(ends.items())},
        "episode_length": float(np.mean(lengths)) if lengths else float("nan"),
        "moves": {k: v / frames for k, v in sorted(moves.items())},
        "open_sesame_share": said[OPEN_SESAME] / frames,
        "where_is_the_exit_share": said[WHERE_IS_THE_EXIT] / frames,
        "p_open_sesame_next_to_a_door": float(np.mean(sesame[True])),
        "p_open_sesame_elsewhere": float(np.mean(sesame[False])),
        "heard_the_exit_share": _share(heard_at_end),
        "right_door_after_hearing_the_exit": _share(right_door[True]),
        "right_door_without_hearing_it": _share(right_door[False]),
        "door_endings_after_hearing_the_exit": len(right_door[True]),
        "door_endings_without_hearing_it": len(right_door[False]),
    }


def door_probe(history_start: bool, steps: int = 300, every: int = 50, seed: int = 0
               ) -> list[tuple[int, float]]:
    """Can the network tell "the agent stands next to a door" from one frame? MH-BabyAI's
    value output is trained as a logit (binary cross-entropy) on frames of random walks in the
    no-liar variant, heard nothing yet, with PPO's optimiser settings (Adam, lr 1e-4, eps 1e-5,
    gradient norm 0.5, batches of 64). Returns (step, held-out AUC) every ``every`` steps."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    n = 256
    envs = vector_env.TalkItOutVectorEnv(n, liar=False)
    obs, _ = envs.reset(seed=seed)
    images, labels = [], []
    for _ in range(60):
        labels.append(next_to_a_door(envs))
        images.append(np.ascontiguousarray(obs["image"]))
        turn_or_forward = rng.choice([0, 1, 2, 2, 2], n)
        obs, *_ = envs.step(np.stack([turn_or_forward, np.full(n, 4), np.full(n, 16)], 1))
    x = torch.from_numpy(np.concatenate(images))
    y = torch.from_numpy(np.concatenate(labels)).float()
    train, test = torch.arange(0, 50 * n), torch.arange(50 * n, 60 * n)
    model = MHBabyAI(ModelConfig(history_start=history_start)).train()
    start = model.config.start_tokens
    tokens, lengths = torch.tensor([start or (0,)]), torch.tensor([len(start)])
    optimiser = torch.optim.Adam(model.parameters(), 1e-4, eps=1e-5)

    def door_logits(index: torch.Tensor) -> torch.Tensor:
        dialogue = model.encode_dialogue(tokens, lengths).expand(len(index), -1)
        return model(x[index], dialogue, torch.zeros(len(index), model.memory_size))[1]

    aucs = []
    for step in range(1, steps + 1):
        batch = train[torch.randint(0, len(train), (64,))]
        loss = nn.functional.binary_cross_entropy_with_logits(door_logits(batch), y[batch])
        optimiser.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimiser.step()
        if step % every == 0:
            with torch.no_grad():
                scores, truth = door_logits(test), y[test].bool()
            aucs.append((step, float((scores[truth][:, None] > scores[~truth][None]).float()
                                     .mean())))
    return aucs


def main(argv: list[str] | None = None) -> None:
    from socialbench.rl.evaluate import load_agent
    from socialbench.talkitout.evaluate import check_variant

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--steps", type=int, default=None,
                        help="environment steps (default 4000); probe: Adam steps (300)")
    parser.add_argument("--eval-mode", action="store_true")
    parser.add_argument("--variant", default="no-liar", help="for `untrained` only")
    args = parser.parse_args(argv)
    if args.checkpoint == "probe":
        for history_start in (False, True):
            aucs = door_probe(history_start, args.steps or 300)
            print(f"history_start={history_start}: held-out AUC by step "
                  + ", ".join(f"{s}: {a:.3f}" for s, a in aucs), flush=True)
        return
    if args.checkpoint == "untrained":
        torch.manual_seed(0)
        model, liar, t_max, frames = MHBabyAI(), check_variant(args.variant), 40, 0
    else:
        model, run, frames = load_agent(args.checkpoint)
        liar, t_max = check_variant(run.variant), run.t_max
    model.train(not args.eval_mode)
    report = behaviour(model, liar, t_max, args.steps or 4000)
    print(json.dumps({"frames": frames, **report}, indent=2))


if __name__ == "__main__":
    main()

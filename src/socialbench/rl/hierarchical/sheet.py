"""A contact sheet of the trained hierarchical agent playing test episodes (a frame a step,
eight to a row, each episode from a new row; each frame titled with the option running).

    python -m socialbench.rl.hierarchical.sheet --checkpoint DIR --out sheet.png [--episodes 3]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from socialbench.rl.hierarchical.agent import HierarchicalAgent
from socialbench.rl.hierarchical.dialogue_memory import COLOUR_WORDS
from socialbench.rl.hierarchical.options import DOOR_OPTIONS, EXPLORE, NPC_OPTIONS
from socialbench.rl.hierarchical.trainer import load_policy
from socialbench.talkitout.env import TalkItOutEnv
from socialbench.talkitout.evaluate import check_variant, layout_seed


def option_name(option: int) -> str:
    if option == EXPLORE:
        return "explore"
    if option in NPC_OPTIONS:
        return f"ask NPC {option - NPC_OPTIONS[0] + 1}"
    return f"{COLOUR_WORDS[option - DOOR_OPTIONS[0]]} door"


def episode_frames(env: TalkItOutEnv, agent: HierarchicalAgent, seed: int
                   ) -> list[tuple[np.ndarray, str]]:
    """(frame, caption) for the first observation and after every step of one episode."""
    obs, _ = env.reset(seed=seed)
    agent.reset()
    frames = [(env.render(), "start")]
    while True:
        action = agent.act(obs)
        obs, reward, terminated, truncated, _ = env.step(action)
        caption = f"t={agent.ctl.steps} {option_name(agent.choices[-1][1])}"
        if terminated or truncated:
            frames.append((env.render(), f"{caption} r={reward:.2f}"))
            return frames
        frames.append((env.render(), caption))


def contact_sheet(checkpoint: str, out: Path, episodes: int = 3, first: int = 0,
                  width: int = 240, per_row: int = 8) -> Path:
    from PIL import Image, ImageDraw

    policy, config, _ = load_policy(checkpoint)
    env = TalkItOutEnv(liar=check_variant(config.variant), t_max=config.t_max,
                       render_mode="rgb_array")
    agent = HierarchicalAgent(policy, np.random.default_rng(0), config.t_max, config.ablation)
    tiles = []  # (frame, caption) for every step, each episode starting on a new row
    for i in range(episodes):
        frames = episode_frames(env, agent, layout_seed(first + i))
        frames += [(None, "")] * (-len(frames) % per_row)
        tiles += frames
    sample = tiles[0][0]
    height = int(width * sample.shape[0] / sample.shape[1])
    n_rows = len(tiles) // per_row
    sheet = Image.new("RGB", (per_row * width, n_rows * (height + 14)), "white")
    draw = ImageDraw.Draw(sheet)
    for k, (frame, caption) in enumerate(tiles):
        if frame is None:
            continue
        x, y = (k % per_row) * width, (k // per_row) * (height + 14)
        sheet.paste(Image.fromarray(frame).resize((width, height)), (x, y + 14))
        draw.text((x + 2, y + 1), caption, fill="black")
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--first", type=int, default=0, help="first test episode shown")
    args = parser.parse_args()
    print(contact_sheet(args.checkpoint, args.out, args.episodes, args.first))


if __name__ == "__main__":
    main()

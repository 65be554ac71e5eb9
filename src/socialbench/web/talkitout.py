"""A TalkItOut test episode replayed from its seed, frame by frame with the utterances.

The episode is the evaluation's: layout seed ``layout_seed(index)`` of the fixed test set, a
reference agent seeded as ``talkitout eval`` seeds it. Nothing is stored; a replay is cached.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache

MAX_EPISODE = 1000  # the fixed test set (SocialAI 0.1: 1000 environments)
MAX_STEPS_SHOWN = 200


@dataclass(frozen=True)
class Step:
    """One step of a replay: the frame after it, the agent's words and what it heard."""

    png: bytes
    action: str
    said: str
    heard: str
    reward: float


@lru_cache(maxsize=8)
def replay(index: int, agent: str = "oracle", variant: str = "original",
           seed: int = 0) -> tuple[Step, ...]:
    """Play test episode ``index`` with a reference agent; the first step is the reset."""
    from PIL import Image

    from socialbench.core.errors import UserError
    from socialbench.core.seeding import rng_for
    from socialbench.talkitout.agents import make_agent
    from socialbench.talkitout.evaluate import layout_seed, make_env, play
    from socialbench.talkitout.grammar import words_from_action
    from socialbench.talkitout.vocabulary import EMPTY_INDICATOR

    if not 0 <= index < MAX_EPISODE:
        raise UserError(f"episode {index} is outside the test set 0-{MAX_EPISODE - 1}")
    env = make_env(variant, render_mode="rgb_array")
    player = make_agent(agent, rng_for(seed, "talkitout-agent", agent))

    def png() -> bytes:
        buffer = io.BytesIO()
        Image.fromarray(env.render()).save(buffer, format="PNG")
        return buffer.getvalue()

    steps = []
    for action, obs, reward in play(env, player, layout_seed(index), MAX_STEPS_SHOWN):
        if action is None:  # the layout as reset drew it
            steps.append(Step(png(), "reset", "", "", 0.0))
            continue
        move, sentence = words_from_action(action)
        heard = "" if obs["utterance"] == EMPTY_INDICATOR else obs["utterance"].strip()
        steps.append(Step(png(), move or "-", sentence or "", heard, reward))
    env.close()
    return tuple(steps)

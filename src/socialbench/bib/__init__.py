"""BIB, the Baby Intuitions Benchmark: procedural generator, released-format reader, validator."""

from socialbench.bib.io import (
    dump_episode,
    episode_to_json,
    find_pairs,
    iter_episodes,
    load_episode,
)
from socialbench.bib.schema import Block, Episode, Frame, Run, Sprite, Trial

__all__ = [
    "Block",
    "Episode",
    "Frame",
    "Run",
    "Sprite",
    "Trial",
    "dump_episode",
    "episode_to_json",
    "find_pairs",
    "iter_episodes",
    "load_episode",
]

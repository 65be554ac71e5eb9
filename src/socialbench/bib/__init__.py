"""BIB, the Baby Intuitions Benchmark: procedural generator, released-format reader, validator."""

from socialbench.bib.schema import Block, Episode, Frame, Sprite, Trial

__all__ = ["Block", "Episode", "Frame", "Sprite", "Trial"]

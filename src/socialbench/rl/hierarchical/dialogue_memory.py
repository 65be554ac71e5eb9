"""What the agent has heard this episode, parsed generically into a small dialogue graph.

Every heard line is ``"{Speaker}: {words}"``. The memory keeps, per line, the speaker token and
the lowercase word tokens (as MH-BabyAI tokenises). From these it answers questions that make no
assumption about the puzzle: which speakers exist, which speaker's name another speaker said,
which colour words each speaker said and whether a speaker ever contradicted itself.
Colour words are the visual colours' names (the one grounding built in: the agent knows which
word names the colour it sees).
"""

from __future__ import annotations

import re

from socialbench.talkitout.vocabulary import tokenize
from socialbench.talkitout.world import SEVEN_COLOURS

_LINE = re.compile(r"^\s*(\w+)\s*:(.*)$")
COLOUR_WORDS: tuple[str, ...] = SEVEN_COLOURS


class DialogueMemory:
    """Lines heard this episode: ``(speaker, words)`` with lowercase tokens."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, tuple[str, ...]]] = []

    def hear(self, utterance: str) -> list[str]:
        """Parse one step's utterance (the empty indicator gives nothing); the speakers heard."""
        speakers = []
        for raw in utterance.splitlines():
            match = _LINE.match(raw)
            if not match:
                continue
            speaker = match.group(1).lower()
            self.lines.append((speaker, tuple(tokenize(match.group(2)))))
            speakers.append(speaker)
        return speakers

    # ------------------------------------------------------------------ the graph
    def speakers(self) -> list[str]:
        return list(dict.fromkeys(s for s, _ in self.lines))

    def named_by_other(self, speaker: str) -> bool:
        """Another speaker said this speaker's name."""
        return any(s != speaker and speaker in words for s, words in self.lines)

    def names_other(self, speaker: str) -> bool:
        """This speaker said the name of another speaker heard this episode."""
        others = set(self.speakers()) - {speaker}
        return any(s == speaker and others & set(words) for s, words in self.lines)

    def colours_said(self, speaker: str) -> list[str]:
        """Every colour word the speaker said, in order, repeats included."""
        return [w for s, words in self.lines if s == speaker for w in words
                if w in COLOUR_WORDS]

    def inconsistent(self, speaker: str) -> bool:
        """The speaker gave two different colours."""
        return len(set(self.colours_said(speaker))) > 1

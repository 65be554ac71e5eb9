"""The token vocabulary of everything a TalkItOut NPC can say, and encoding to and from it.

Tokens are lowercase words (``[a-z]+``), as the MH-BabyAI baseline tokenises the dialogue; id 0 is
padding. The vocabulary is fixed (the baseline builds its own on the fly, up to 100 words; every
word an NPC can say is here, so ours never grows). One answer is 3 tokens (the wizard's
"Gandalf: Ask John.") or 6 (a guide's "John: go to the red door"); at most the three NPCs answer
in one step, so a step's utterance is at most :data:`MAX_STEP_TOKENS` = 15 tokens.

:func:`decode` rebuilds the exact strings the single environment produces, so a batched
environment can carry utterances as arrays of ids and still be compared line for line:

>>> encode("Gandalf: Ask John.\\n")
[1, 4, 2]
>>> decode([2, 5, 6, 7, 9, 8])
'John: go to the red door\\n'
>>> decode([])
'NA\\n'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from socialbench.talkitout.world import GUIDE_NAMES, SEVEN_COLOURS, WIZARD_NAME

# Paper A.1.2: "In case of silence an 'empty indicator' symbol is used" (the symbol is ours).
EMPTY_INDICATOR = "NA\n"

PAD = 0
_NAMES = (WIZARD_NAME, *GUIDE_NAMES)
# Order fixed once and for all: ids are stored in checkpoints of models that embed them.
WORDS: tuple[str, ...] = (
    "<pad>", *(n.lower() for n in _NAMES), "ask", "go", "to", "the", "door", *SEVEN_COLOURS,
)
TOKEN: dict[str, int] = {w: i for i, w in enumerate(WORDS) if i != PAD}
VOCAB_SIZE = len(WORDS)

WIZARD_LINE_TOKENS = 3  # gandalf ask <name>
GUIDE_LINE_TOKENS = 6  # <name> go to the <colour> door
MAX_STEP_TOKENS = WIZARD_LINE_TOKENS + 2 * GUIDE_LINE_TOKENS  # wizard, guide and liar at once

_WORD = re.compile(r"[a-z]+")
_CAPITALISED = {n.lower(): n for n in _NAMES}
_COLOURS = frozenset(SEVEN_COLOURS)


def tokenize(text: str) -> list[str]:
    """Lowercase word tokens, as the MH-BabyAI baseline splits the dialogue."""
    return _WORD.findall(text.lower())


def encode(text: str) -> list[int]:
    """Token ids of an utterance (one step's or a whole history); the empty indicator is [].

    Raises ValueError on a word no NPC says.
    """
    if text == EMPTY_INDICATOR:
        return []
    try:
        return [TOKEN[w] for w in tokenize(text)]
    except KeyError as exc:
        raise ValueError(f"{exc.args[0]!r} is not a word TalkItOut's NPCs say") from None


def wizard_line(guide_name: str) -> list[int]:
    """Ids of the wizard's answer, "Gandalf: Ask {guide_name}."."""
    return [TOKEN[WIZARD_NAME.lower()], TOKEN["ask"], TOKEN[guide_name.lower()]]


def guide_line(name: str, colour: str) -> list[int]:
    """Ids of a guide's answer, "{name}: go to the {colour} door"."""
    return [TOKEN[name.lower()], TOKEN["go"], TOKEN["to"], TOKEN["the"], TOKEN[colour],
            TOKEN["door"]]


def decode(ids: Iterable[int], empty: str = EMPTY_INDICATOR) -> str:
    """The exact text of token ids: one ``"{Name}: {answer}\\n"`` line per answer.

    Padding (0) is skipped; no tokens give ``empty`` (the empty indicator for one step's
    utterance, ``""`` for a history). Raises ValueError on a sequence no NPC can say.
    """
    words = [WORDS[i] for i in ids if i != PAD]
    if not words:
        return empty
    lines, k = [], 0
    while k < len(words):
        name, rest = words[k], words[k + 1:k + 6]
        if name in _CAPITALISED and rest[:1] == ["ask"] and rest[1:2] \
                and rest[1] in _CAPITALISED:
            lines.append(f"{_CAPITALISED[name]}: Ask {_CAPITALISED[rest[1]]}.\n")
            k += WIZARD_LINE_TOKENS
        elif (name in _CAPITALISED and rest[:3] == ["go", "to", "the"] and len(rest) == 5
              and rest[3] in _COLOURS and rest[4] == "door"):
            lines.append(f"{_CAPITALISED[name]}: go to the {rest[3]} door\n")
            k += GUIDE_LINE_TOKENS
        else:
            raise ValueError(f"tokens {words[k:k + 6]} do not start an NPC's answer")
    return "".join(lines)

"""TalkItOut's template grammar and the three-part action (primitive, template, noun).

The grammar is SocialAI 0.1's Table 2: 4 templates x 16 nouns = 64 utterances. An action is a
triple of indices into ``MultiDiscrete([8, 5, 17])``; the last index of each part means
"undefined" (no move, no template, no noun). An utterance is spoken only when both the template
and the noun are defined (paper, Table 3).

>>> action_from_words("Where is the exit")
(7, 0, 1)
>>> words_from_action((2, 1, 0))
('forward', 'Open sesame')
"""

from __future__ import annotations

from collections.abc import Sequence

# SocialAI 0.1, Table 2 (templates; the paper prints them with a trailing ".").
TEMPLATES: tuple[str, ...] = ("Where is", "Open", "Close", "What is")
# SocialAI 0.1, Table 2 (nouns, in index order; "oven" has no article in the paper).
NOUNS: tuple[str, ...] = (
    "sesame", "the exit", "the wall", "the floor", "the ceiling", "the window", "the entrance",
    "the closet", "the drawer", "the fridge", "oven", "the lamp", "the trash can", "the chair",
    "the bed", "the sofa",
)
# SocialAI 0.1, A.1.1: turn left, turn right, move forward, pickup, drop, toggle, done
# (the same order and indices as minigrid.core.actions.Actions).
PRIMITIVES: tuple[str, ...] = ("left", "right", "forward", "pickup", "drop", "toggle", "done")

NO_MOVE = len(PRIMITIVES)  # 7: the undefined primitive
NO_TEMPLATE = len(TEMPLATES)  # 4
NO_NOUN = len(NOUNS)  # 16
ACTION_NVEC: tuple[int, int, int] = (NO_MOVE + 1, NO_TEMPLATE + 1, NO_NOUN + 1)

WHERE_IS_THE_EXIT = "Where is the exit"
OPEN_SESAME = "Open sesame"

_UTTERANCE_TO_PAIR = {f"{t} {n}": (ti, ni) for ti, t in enumerate(TEMPLATES)
                      for ni, n in enumerate(NOUNS)}
_PRIMITIVE_INDEX = {name: i for i, name in enumerate(PRIMITIVES)}


def utterance(template: int, noun: int) -> str | None:
    """The sentence for a (template, noun) pair, or None when either part is undefined."""
    if template == NO_TEMPLATE or noun == NO_NOUN:
        return None
    return f"{TEMPLATES[template]} {NOUNS[noun]}"


def check_action(action: object) -> tuple[int, int, int]:
    """Validate an action and return it as three Python ints.

    Raises ValueError naming the part that is wrong (shape, primitive, template or noun).
    """
    try:
        parts = [int(x) for x in action]  # type: ignore[union-attr]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a TalkItOut action is 3 integers (primitive, template, noun), "
                         f"got {action!r}") from exc
    if len(parts) != 3:
        raise ValueError(f"a TalkItOut action is 3 integers (primitive, template, noun), "
                         f"got {len(parts)}: {action!r}")
    for name, value, size in zip(("primitive", "template", "noun"), parts, ACTION_NVEC,
                                 strict=True):
        if not 0 <= value < size:
            raise ValueError(f"action {name} index {value} is outside 0..{size - 1} "
                             f"({size - 1} means undefined)")
    return parts[0], parts[1], parts[2]


def action_from_words(sentence: str | None = None, primitive: str | None = None
                      ) -> tuple[int, int, int]:
    """An action from words: an optional sentence from the grammar and an optional primitive.

    ``action_from_words("Open sesame", "forward") == (2, 1, 0)``; unknown words raise ValueError.
    """
    if primitive is None:
        move = NO_MOVE
    elif primitive in _PRIMITIVE_INDEX:
        move = _PRIMITIVE_INDEX[primitive]
    else:
        raise ValueError(f"unknown primitive {primitive!r}; choose from {', '.join(PRIMITIVES)}")
    if sentence is None:
        return move, NO_TEMPLATE, NO_NOUN
    key = " ".join(sentence.strip().rstrip(".?!").split())
    for known, pair in _UTTERANCE_TO_PAIR.items():
        if known.lower() == key.lower():
            return move, pair[0], pair[1]
    raise ValueError(f"{sentence!r} is not in the TalkItOut grammar "
                     f"(a template from {TEMPLATES} followed by a noun)")


def words_from_action(action: Sequence[int]) -> tuple[str | None, str | None]:
    """(primitive name or None, sentence or None) for a valid action."""
    move, template, noun = check_action(action)
    return (None if move == NO_MOVE else PRIMITIVES[move]), utterance(template, noun)

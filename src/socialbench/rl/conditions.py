"""Named training conditions: SocialAI 0.1's Table 1 rows and Appendix B's variants.

A condition name is a base model, then optional variant words joined by "-":

    mh-babyai | deaf | random            the base (random: the untrained uniform agent)
    eb                                   the episodic language exploration bonus
    current-dialogue                     only this step's utterance (Figure 3)
    no-mem | bigru | attgru | bow        architecture variants (Figure 4)

e.g. ``mh-babyai-eb``, ``mh-babyai-eb-no-mem``, ``deaf-eb``.
"""

from __future__ import annotations

from dataclasses import dataclass

from socialbench.core.errors import UserError
from socialbench.rl.model import ModelConfig

BASES = ("mh-babyai", "deaf", "random")
VARIANT_WORDS = ("eb", "current-dialogue", "no-mem", "bigru", "attgru", "bow")
TABLE_1 = ("mh-babyai-eb", "mh-babyai", "deaf", "random")  # SocialAI 0.1, Table 1's rows
# SocialAI 0.1, Table 1 (16 seeds, 28M frames): (mean, std) on the original and no-liar variants.
PAPER_TABLE_1 = {
    "mh-babyai-eb": ((0.236, 0.01), (0.996, 0.002)),
    "mh-babyai": ((0.259, 0.01), (0.252, 0.010)),
    "deaf": ((0.260, 0.02), (0.246, 0.014)),
    "random": ((0.002, 0.001), (0.005, 0.002)),
}
PAPER_LABELS = {"mh-babyai-eb": "MH-BabyAI-EB", "mh-babyai": "MH-BabyAI",
                "deaf": "Deaf-MH-BabyAI", "random": "Random"}


@dataclass(frozen=True)
class Condition:
    """A parsed condition: the model and whether the exploration bonus is on (None: random)."""

    name: str
    model: ModelConfig | None
    exploration_bonus: bool = False

    @property
    def trained(self) -> bool:
        return self.model is not None


def parse_condition(name: str) -> Condition:
    """The condition a name describes; unknown words are a one-line UserError."""
    text = name.strip().lower()
    base = next((b for b in BASES if text == b or text.startswith(b + "-")), None)
    if base is None:
        raise UserError(f"unknown condition {name!r}: start with one of {', '.join(BASES)} "
                        f"(e.g. mh-babyai-eb, deaf, mh-babyai-eb-no-mem)")
    rest = text[len(base):].lstrip("-")
    words: list[str] = []
    while rest:
        word = next((w for w in VARIANT_WORDS if rest == w or rest.startswith(w + "-")), None)
        if word is None:
            raise UserError(f"unknown word in condition {name!r} at {rest!r}; variant words: "
                            f"{', '.join(VARIANT_WORDS)}")
        words.append(word)
        rest = rest[len(word):].lstrip("-")
    if base == "random":
        if words:
            raise UserError(f"condition {name!r}: the random agent takes no variant words")
        return Condition(text, None)
    deaf = base == "deaf"
    if deaf and any(w in words for w in ("current-dialogue", "bigru", "attgru")):
        raise UserError(f"condition {name!r}: the deaf model has no dialogue input to vary")
    text_encoder = "attgru" if "attgru" in words else "bigru" if "bigru" in words else "gru"
    try:
        model = ModelConfig(deaf=deaf,
                            dialogue="current" if "current-dialogue" in words else "history",
                            memory="no-mem" not in words, text=text_encoder,
                            vision="bow" if "bow" in words else "conv")
    except ValueError as exc:
        raise UserError(f"condition {name!r}: {exc}") from None
    return Condition(text, model, exploration_bonus="eb" in words)


def model_condition(model: str, exploration_bonus: bool) -> str:
    """The condition name for ``train --model NAME [--exploration-bonus]``."""
    return f"{model}-eb" if exploration_bonus else model

"""MH-BabyAI: the multi-headed BabyAI agent of SocialAI 0.1 (Appendix A.2, Figure 2).

The model is BabyAI's ``original_endpool_res`` (Hui et al. 2020) with the instruction replaced
by what the NPCs said and a talking head added:

    image 7x7x3 -> Conv3x3(128)+BN+ReLU -> Conv3x3(128)+BN+ReLU --------------------+
    dialogue tokens -> Embedding(128) -> GRU(128), last real token -> y              |
    x -> FiLM(x, y) + x -> FiLM(x, y) + x -> MaxPool 7x7 -> ReLU -> LSTMCell(128) -> h
    h -> actor (8: 7 primitives + no move), speak switch (2), template (4), noun (16), critic

Every head is Linear(128, 64)-tanh-Linear. ``Deaf-MH-BabyAI`` drops the dialogue input (no GRU,
no FiLM). Appendix B's variants are options of the same class (:class:`ModelConfig`):
``dialogue="current"`` (only this step's utterance, "na" when nothing was heard), ``memory=False``
("no-mem": no LSTM), ``text="bigru"`` / ``"attgru"``, ``vision="bow"`` (BabyAI's bag-of-words
cell embedding).

The dialogue encoder runs on token sequences; :meth:`MHBabyAI.encode_dialogue` takes a padded
batch of *distinct* sequences, so callers encode each distinct history once and gather
(histories only change when something is heard, so a batch of frames shares few of them).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from socialbench.talkitout.vocabulary import VOCAB_SIZE

EMBED = 128  # SocialAI 0.1, A.2: 128-D memory; BabyAI: 128 channels and instruction size
HEAD_HIDDEN = 64  # BabyAI actor/critic: Linear(128, 64)-tanh-Linear
HEAD_SIZES = {"primitive": 8, "speak": 2, "template": 4, "noun": 16}  # SocialAI 0.1, A.2
BOW_MAX_VALUE = 147  # BabyAI's ImageBOWEmbedding: cell values below 147 in each channel
# Token ids: the vocabulary's words, 0 = padding; one extra id for the current-dialogue
# variant's "NA" (nothing heard this step); then, with ``history_start``, the five words of the
# released environment's opening line.
NA_TOKEN = VOCAB_SIZE
TOKENS = VOCAB_SIZE + 1
# The released TalkItOut starts every episode's utterance history with "This is what you hear."
# (its ``beginning_string``), so the baseline never reads an empty dialogue.
HISTORY_START_WORDS = ("this", "is", "what", "you", "hear")
HISTORY_START = tuple(range(TOKENS, TOKENS + len(HISTORY_START_WORDS)))

MODELS = ("mh-babyai", "deaf")
TEXT_ENCODERS = ("gru", "bigru", "attgru")
VISIONS = ("conv", "bow")
DIALOGUES = ("history", "current")


def known_fields(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """The entries of ``data`` that are fields of the dataclass ``cls`` (a config saved by
    another version may carry more)."""
    known = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in known}


@dataclass(frozen=True)
class ModelConfig:
    """Architecture choices (defaults: the paper's MH-BabyAI).

    - ``deaf``: Deaf-MH-BabyAI, no dialogue input (SocialAI 0.1, Table 1).
    - ``dialogue``: "history" (the whole dialogue so far, paper default) or "current" (this
      step's utterance only; Appendix B, Figure 3).
    - ``memory``: False is Appendix B's "no-mem" (no LSTM; Figure 4).
    - ``text``: "gru" (paper), "bigru" or "attgru" (Figure 4; BabyAI's encoders).
    - ``vision``: "conv" (paper) or "bow" (Figure 4; BabyAI's bag-of-words cell embedding).
    - ``channels``: image channels (3; 4 with the released code's NPC direction channel).
    - ``history_start``: the dialogue history opens with the released environment's
      "This is what you hear." (:data:`HISTORY_START_WORDS`), so it is never empty (the paper
      does not say; the released code, which made Table 1, does). False: an empty history
      until an NPC speaks, encoded as zeros, which leaves both FiLM blocks' modulation at
      ``x * W(0) + B(0) = 0`` on every frame before the first answer (runs made before this
      option existed load with False).
    """

    deaf: bool = False
    dialogue: str = "history"
    memory: bool = True
    text: str = "gru"
    vision: str = "conv"
    channels: int = 3
    history_start: bool = True

    def __post_init__(self) -> None:
        for name, allowed in (("dialogue", DIALOGUES), ("text", TEXT_ENCODERS),
                              ("vision", VISIONS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"model {name} must be one of {', '.join(allowed)}, "
                                 f"got {getattr(self, name)!r}")
        if self.channels not in (3, 4):
            raise ValueError(f"image channels must be 3 or 4, got {self.channels}")
        if self.text == "attgru" and not self.memory:
            raise ValueError("attgru attends with the LSTM memory: it needs memory=True")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelConfig:
        # Configs saved before history_start existed read an empty history at first.
        return cls(**{"history_start": False, **known_fields(cls, data)})

    @property
    def start_tokens(self) -> tuple[int, ...]:
        """What the dialogue input holds before anything is heard in an episode."""
        if self.deaf or self.dialogue != "history" or not self.history_start:
            return ()
        return HISTORY_START

    @property
    def name(self) -> str:
        """A short label in the paper's style ("MH-BabyAI", "Deaf-MH-BabyAI", "... no-mem")."""
        parts = ["Deaf-MH-BabyAI" if self.deaf else "MH-BabyAI"]
        if not self.deaf and self.dialogue == "current":
            parts.append("current-dialogue")
        if not self.memory:
            parts.append("no-mem")
        if not self.deaf and self.text != "gru":
            parts.append(self.text)
        if self.vision == "bow":
            parts.append("bow")
        return " ".join(parts)


def _init_linear(module: nn.Module) -> None:
    """BabyAI's initialisation: rows of N(0, 1) scaled to unit norm, zero bias."""
    if isinstance(module, nn.Linear):
        module.weight.data.normal_(0, 1)
        module.weight.data *= 1 / torch.sqrt(module.weight.data.pow(2).sum(1, keepdim=True))
        if module.bias is not None:
            module.bias.data.fill_(0)


class GroupedBatchNorm2d(nn.BatchNorm2d):
    """BatchNorm2d whose training-mode statistics are taken over each of ``groups`` equal,
    consecutive slices of the batch, as if each slice were its own forward call.

    torch-ac's recurrent PPO calls the model once per recurrence step on that step's frames, so
    batch statistics (and running-statistics updates) come per step. Running the convolutions
    on every step's frames at once and normalising per slice gives the same numbers, faster.
    """

    groups = 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.groups == 1:
            return super().forward(x)
        normalise = super().forward  # (zero-argument super() does not work in a comprehension)
        return torch.cat([normalise(part) for part in x.chunk(self.groups)])


def _head(out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(EMBED, HEAD_HIDDEN), nn.Tanh(), nn.Linear(HEAD_HIDDEN, out))


class FiLM(nn.Module):
    """BabyAI's FiLM block: conv-BN-ReLU-conv, then x * W(y) + B(y), BN, ReLU."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(EMBED, EMBED, 3, padding=1)
        self.bn1 = GroupedBatchNorm2d(EMBED)
        self.conv2 = nn.Conv2d(EMBED, EMBED, 3, padding=1)
        self.bn2 = GroupedBatchNorm2d(EMBED)
        self.weight = nn.Linear(EMBED, EMBED)
        self.bias = nn.Linear(EMBED, EMBED)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = self.conv2(F.relu(self.bn1(self.conv1(x))))
        x = x * self.weight(y)[:, :, None, None] + self.bias(y)[:, :, None, None]
        return F.relu(self.bn2(x))


class BOWEmbedding(nn.Module):
    """BabyAI's ImageBOWEmbedding: one learned vector per (channel, value), summed per cell."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(channels * BOW_MAX_VALUE, EMBED)
        self.register_buffer("offsets", torch.arange(channels) * BOW_MAX_VALUE,
                             persistent=False)

    def forward(self, image: torch.Tensor) -> torch.Tensor:  # (B, 7, 7, C) integers
        codes = image.long().clamp_(0, BOW_MAX_VALUE - 1) + self.offsets
        return self.embedding(codes).sum(3).permute(0, 3, 1, 2)  # (B, 128, 7, 7)


class MHBabyAI(nn.Module):
    """The actor-critic network. Memory is the LSTM's (h, c) concatenated: ``(B, 256)``."""

    def __init__(self, config: ModelConfig | None = None) -> None:
        super().__init__()
        self.config = config = config or ModelConfig()
        first_in = config.channels
        self.bow = BOWEmbedding(config.channels) if config.vision == "bow" else None
        if self.bow is not None:
            first_in = EMBED
        self.image_conv = nn.Sequential(
            nn.Conv2d(first_in, EMBED, 3, padding=1), GroupedBatchNorm2d(EMBED), nn.ReLU(),
            nn.Conv2d(EMBED, EMBED, 3, padding=1), GroupedBatchNorm2d(EMBED), nn.ReLU())
        if not config.deaf:
            tokens = TOKENS + (len(HISTORY_START) if config.history_start else 0)
            self.word_embedding = nn.Embedding(tokens, EMBED, padding_idx=0)
            bidirectional = config.text in ("bigru", "attgru")
            self.text_rnn = nn.GRU(EMBED, EMBED // 2 if bidirectional else EMBED,
                                   batch_first=True, bidirectional=bidirectional)
            if config.text == "attgru":
                self.memory_to_key = nn.Linear(self.memory_size, EMBED)
            self.films = nn.ModuleList([FiLM(), FiLM()])
        if config.memory:
            self.lstm = nn.LSTMCell(EMBED, EMBED)
        self.heads = nn.ModuleDict({name: _head(n) for name, n in HEAD_SIZES.items()})
        self.critic = _head(1)
        self.apply(_init_linear)

    def set_batch_groups(self, groups: int) -> None:
        """Normalise each of ``groups`` consecutive slices of the next batches on its own."""
        for module in self.modules():
            if isinstance(module, GroupedBatchNorm2d):
                module.groups = groups

    @property
    def memory_size(self) -> int:
        return 2 * EMBED if self.config.memory else 0

    @property
    def needs_memory_for_text(self) -> bool:
        """attgru queries the dialogue with the previous memory, so it cannot be precomputed."""
        return not self.config.deaf and self.config.text == "attgru"

    # ------------------------------------------------------------------ dialogue
    def encode_dialogue(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Encode padded token sequences ``(S, L)`` with ``lengths`` (S,).

        gru and bigru: ``(S, 128)``, the last real token's state (zeros for an empty history:
        the GRU's initial state). attgru: the per-token outputs ``(S, L, 128)``, attended per
        frame in :meth:`forward`.
        """
        if tokens.shape[1] == 0:
            tokens = tokens.new_zeros((tokens.shape[0], 1))
        embedded = self.word_embedding(tokens.long())
        outputs, final = self.text_rnn(embedded)
        if self.config.text == "attgru":
            return outputs
        if self.config.text == "bigru":
            # Forward direction at the last real token, backward direction at the first.
            half = EMBED // 2
            last = (lengths - 1).clamp(min=0)
            fwd = outputs[torch.arange(len(tokens)), last, :half]
            bwd = outputs[:, 0, half:]
            encoded = torch.cat([fwd, bwd], 1)
        else:
            last = (lengths - 1).clamp(min=0)
            encoded = outputs[torch.arange(len(tokens)), last]
        return encoded * (lengths > 0).to(encoded.dtype)[:, None]

    def _attend(self, outputs: torch.Tensor, lengths: torch.Tensor,
                memory: torch.Tensor) -> torch.Tensor:
        """BabyAI's attgru: attention over the dialogue's tokens keyed by the memory."""
        keys = self.memory_to_key(memory)
        scores = (keys[:, None, :] * outputs).sum(2)
        mask = torch.arange(outputs.shape[1], device=outputs.device)[None] < lengths[:, None]
        scores = scores.masked_fill(~mask, -1e9)
        weights = torch.softmax(scores, 1) * (lengths > 0).to(scores.dtype)[:, None]
        return (outputs * weights[:, :, None]).sum(1)

    # ------------------------------------------------------------------ one step
    def body(self, image: torch.Tensor, dialogue: torch.Tensor | None) -> torch.Tensor:
        """Vision and dialogue joined: ``(B, 128)`` before the memory."""
        x = self.bow(image) if self.bow is not None else image.permute(0, 3, 1, 2).float()
        x = self.image_conv(x)
        if not self.config.deaf:
            for film in self.films:
                x = film(x, dialogue) + x  # "res": a residual connection around each FiLM
        return F.relu(F.max_pool2d(x, kernel_size=7, stride=2)).flatten(1)

    def step_memory(self, embedding: torch.Tensor, memory: torch.Tensor
                    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The LSTM step (identity with ``memory=False``): (features, new memory)."""
        if not self.config.memory:
            return embedding, memory
        h, c = self.lstm(embedding, (memory[:, :EMBED], memory[:, EMBED:]))
        return h, torch.cat([h, c], 1)

    def forward(self, image: torch.Tensor, dialogue: torch.Tensor | None,
                memory: torch.Tensor, dialogue_lengths: torch.Tensor | None = None
                ) -> tuple[dict[str, torch.Tensor], torch.Tensor, torch.Tensor]:
        """Logits of every head, the value and the new memory for one step of B frames.

        ``dialogue``: encoded dialogue ``(B, 128)`` (attgru: token outputs ``(B, L, 128)``
        with ``dialogue_lengths``); ignored by the deaf model.
        """
        if self.needs_memory_for_text:
            dialogue = self._attend(dialogue, dialogue_lengths, memory)
        features, memory = self.step_memory(self.body(image, dialogue), memory)
        logits = {name: head(features) for name, head in self.heads.items()}
        return logits, self.critic(features).squeeze(1), memory


def count_parameters(model: nn.Module) -> int:
    return sum(math.prod(p.shape) for p in model.parameters())

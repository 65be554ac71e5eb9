"""Acting with an MH-BabyAI model on a batch of environments: one step of the policy.

Shared by PPO rollouts (training mode, as torch-ac) and by evaluation on the fixed test set
(evaluation mode). It keeps what each environment heard, encodes each distinct dialogue once,
samples the four heads and turns the samples into TalkItOut actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from socialbench.rl.dialogue import DialogueTable, Listener
from socialbench.rl.model import MHBabyAI
from socialbench.talkitout.grammar import NO_NOUN, NO_TEMPLATE


def sample_heads(logits: dict[str, torch.Tensor], generator: torch.Generator
                 ) -> dict[str, torch.Tensor]:
    """One sample per head (every head is sampled; template and noun matter only if spoken)."""
    return {name: torch.multinomial(torch.softmax(logit.float().cpu(), 1), 1,
                                    generator=generator).squeeze(1)
            for name, logit in logits.items()}


def log_probs(logits: dict[str, torch.Tensor], actions: dict[str, torch.Tensor]
              ) -> dict[str, torch.Tensor]:
    return {name: torch.log_softmax(logits[name].float().cpu(), 1)
            .gather(1, actions[name][:, None]).squeeze(1) for name in actions}


def env_actions(actions: dict[str, torch.Tensor]) -> np.ndarray:
    """The four heads' samples as TalkItOut actions ``(N, 3)``: (primitive, template, noun),
    template and noun undefined when the speak switch is off."""
    primitive = actions["primitive"].numpy()
    speak = actions["speak"].numpy().astype(bool)
    template = np.where(speak, actions["template"].numpy(), NO_TEMPLATE)
    noun = np.where(speak, actions["noun"].numpy(), NO_NOUN)
    return np.stack([primitive, template, noun], 1).astype(np.int64)


class Actor:
    """The model's step on N environments, with the dialogue each one has heard.

    Call :meth:`new_table` at the start of a rollout (rows are numbered per rollout), then per
    step :meth:`act`, then :meth:`observe` with what the environments returned.
    """

    def __init__(self, model: MHBabyAI, num_envs: int, device: torch.device,
                 autocast: bool = False) -> None:
        self.model, self.device, self.autocast = model, device, autocast
        self.listener = Listener(num_envs, model.config.dialogue, model.config.start_tokens)
        self.new_table()

    def new_table(self) -> None:
        self.table = DialogueTable()
        self.rows = torch.from_numpy(self.listener.rows(self.table))
        self.encoded = self.encode(self.table)

    def encode(self, table: DialogueTable, start: int = 0) -> torch.Tensor | None:
        """Encodings of ``table``'s rows ``start..`` (None for the deaf model)."""
        if self.model.config.deaf:
            return None
        tokens, lengths = table.padded(start)
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.autocast):
            encoded = self.model.encode_dialogue(tokens.to(self.device), lengths.to(self.device))
        return encoded.float()

    def dialogue_input(self, encoded: torch.Tensor | None, table: DialogueTable,
                       rows: torch.Tensor) -> tuple[Any, Any]:
        """The model's dialogue input for frames whose table rows are ``rows``."""
        if encoded is None:
            return None, None
        lengths = torch.tensor([len(r) for r in table.rows], device=self.device)
        rows = rows.to(self.device)
        return encoded[rows], lengths[rows]

    def forward(self, image: np.ndarray, memory: torch.Tensor
                ) -> tuple[dict[str, torch.Tensor], torch.Tensor, torch.Tensor]:
        """Logits, value and new memory for the current observations (memory already masked)."""
        dialogue, lengths = self.dialogue_input(self.encoded, self.table, self.rows)
        return self._step(image, dialogue, memory, lengths)

    def _step(self, image: np.ndarray, dialogue: Any, memory: torch.Tensor, lengths: Any
              ) -> tuple[dict[str, torch.Tensor], torch.Tensor, torch.Tensor]:
        """The model on these rows, in the actor's precision."""
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.autocast):
            logits, value, memory = self.model(torch.from_numpy(image).to(self.device),
                                               dialogue, memory, lengths)
        return logits, value.float(), memory.float()

    def forward_some(self, image: np.ndarray, memory: torch.Tensor, envs: np.ndarray
                     ) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        """:meth:`forward` for the environments ``envs`` only (evaluation: the episodes that
        have not ended): full-size logits, zeros for the other environments, and the memory,
        the others' left as it was. The model treats each row on its own, so a row's numbers
        are those of :meth:`forward`, up to the rounding of matrix kernels that the batch's
        size can change (none here in bf16, ~1e-7 in fp32: tests/rl/test_evaluate_rows.py)."""
        index = torch.from_numpy(envs).to(self.device)
        dialogue, lengths = self.dialogue_input(self.encoded, self.table, self.rows)
        if dialogue is not None:
            dialogue, lengths = dialogue[index], lengths[index]
        some, _, new = self._step(image[envs], dialogue, memory[index], lengths)
        logits = {}
        for name, part in some.items():
            logits[name] = torch.zeros(len(image), part.shape[1], dtype=part.dtype,
                                       device=part.device)
            logits[name][index] = part
        memory = memory.clone()
        memory[index] = new
        return logits, memory

    def observe(self, utterances: np.ndarray, done: np.ndarray) -> None:
        """Take the environments' new observations: forget ended episodes, hear this step."""
        for i in np.flatnonzero(done).tolist():
            self.listener.forget(i)
        self.listener.hear(utterances)
        known = len(self.table)
        self.rows = torch.from_numpy(self.listener.rows(self.table))
        if self.encoded is not None and len(self.table) > known:
            new = self.encode(self.table, known)
            if self.encoded.dim() == 3:  # attgru keeps per-token outputs: pad to one width
                width = max(new.shape[1], self.encoded.shape[1])
                self.encoded = torch.nn.functional.pad(
                    self.encoded, (0, 0, 0, width - self.encoded.shape[1]))
                new = torch.nn.functional.pad(new, (0, 0, 0, width - new.shape[1]))
            self.encoded = torch.cat([self.encoded, new])

"""What each environment's agent has heard, as token sequences the model encodes once each.

The MH-BabyAI model reads the whole dialogue history (SocialAI 0.1, A.2) or, in Appendix B's
"current-dialogue" variant, only this step's utterance ("NA" when nothing was heard). A history
only changes when an NPC speaks, so the frames of a rollout share few distinct sequences:
:class:`DialogueTable` numbers the distinct ones, each frame stores a row number, and the model
encodes each row once per forward pass instead of once per frame. This is exact: a frame's
encoding is a function of its sequence alone.
"""

from __future__ import annotations

import numpy as np
import torch

from socialbench.rl.model import NA_TOKEN


class DialogueTable:
    """Distinct token sequences, numbered in order of first appearance (row 0: the empty one)."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, ...]] = [()]
        self._index: dict[tuple[int, ...], int] = {(): 0}

    def __len__(self) -> int:
        return len(self.rows)

    def add(self, tokens: tuple[int, ...]) -> int:
        row = self._index.get(tokens)
        if row is None:
            row = self._index[tokens] = len(self.rows)
            self.rows.append(tokens)
        return row

    def padded(self, start: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
        """Rows ``start..`` as a padded ``(S, L)`` long tensor and their lengths ``(S,)``."""
        rows = self.rows[start:]
        width = max((len(r) for r in rows), default=0)
        tokens = np.zeros((len(rows), max(width, 1)), dtype=np.int64)
        for i, row in enumerate(rows):
            tokens[i, :len(row)] = row
        return torch.from_numpy(tokens), torch.tensor([len(r) for r in rows])

    def state(self) -> list[list[int]]:
        return [list(r) for r in self.rows]

    @classmethod
    def from_state(cls, rows: list[list[int]]) -> DialogueTable:
        table = cls()
        for row in rows[1:]:
            table.add(tuple(int(t) for t in row))
        return table


class Listener:
    """Per environment: the token sequence the model reads this step.

    ``mode`` is "history" (everything heard this episode, empty steps skipped) or "current"
    (this step's utterance, or the single "NA" token when nothing was heard). ``start``: what a
    history holds before anything is heard (the released environment's opening line; empty by
    default).
    """

    def __init__(self, num_envs: int, mode: str = "history",
                 start: tuple[int, ...] = ()) -> None:
        if mode not in ("history", "current"):
            raise ValueError(f"dialogue mode must be 'history' or 'current', got {mode!r}")
        if start and mode != "history":
            raise ValueError("only a dialogue history has an opening line")
        self.mode = mode
        self.empty: tuple[int, ...] = tuple(start) if mode == "history" else (NA_TOKEN,)
        self.inputs: list[tuple[int, ...]] = [self.empty] * num_envs

    def hear(self, utterances: np.ndarray) -> None:
        """Take this step's utterance tokens ``(N, L)`` (0 = padding)."""
        spoken = utterances.any(1).tolist()
        for i, heard in enumerate(spoken):
            if self.mode == "current":
                self.inputs[i] = tuple(int(t) for t in utterances[i] if t) if heard else self.empty
            elif heard:
                self.inputs[i] = self.inputs[i] + tuple(int(t) for t in utterances[i] if t)

    def forget(self, env: int) -> None:
        """A new episode starts in ``env``: nothing heard yet."""
        self.inputs[env] = self.empty

    def rows(self, table: DialogueTable) -> np.ndarray:
        """Each env's current input as a row of ``table``."""
        return np.array([table.add(seq) for seq in self.inputs], dtype=np.int64)

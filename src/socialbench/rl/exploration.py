"""The episodic language exploration bonus of SocialAI 0.1 (Appendix A.2, Eq. 2).

``r_intr = C / (N + 1)^M`` where N counts how many times this exact utterance was heard earlier
in the episode; counts reset when the episode ends. With the paper's M = 50 the bonus is C for
an utterance new to the episode and practically nothing for a repeat. Steps where nothing was
heard earn nothing (the bonus rewards making an NPC answer).
"""

from __future__ import annotations

import numpy as np

PAPER_C = 0.125  # SocialAI 0.1, Table 5: expl. bon. C
PAPER_M = 50.0  # SocialAI 0.1, Table 5: expl. bon. M


class EpisodicLanguageBonus:
    """Per-environment counts of the utterances heard this episode."""

    def __init__(self, num_envs: int, c: float = PAPER_C, m: float = PAPER_M) -> None:
        self.c, self.m = float(c), float(m)
        self.counts: list[dict[bytes, int]] = [{} for _ in range(num_envs)]

    def reward(self, utterances: np.ndarray) -> np.ndarray:
        """The bonus for this step's utterance tokens ``(N, L)`` (all zeros: nothing heard),
        counting each one."""
        bonus = np.zeros(len(utterances), dtype=np.float32)
        for i in np.flatnonzero(utterances.any(1)).tolist():
            key = utterances[i].tobytes()
            seen = self.counts[i].get(key, 0)
            bonus[i] = self.c / (seen + 1) ** self.m
            self.counts[i][key] = seen + 1
        return bonus

    def forget(self, env: int) -> None:
        """The episode in ``env`` ended: its counts start again."""
        self.counts[env].clear()

    def state(self) -> list[dict[bytes, int]]:
        return [dict(c) for c in self.counts]

    def load_state(self, counts: list[dict[bytes, int]]) -> None:
        self.counts = [dict(c) for c in counts]

"""Many trials' arrays packed into one set of tensors, so the planner runs once per batch.

Indices into situations, maps, queries and steps are shifted by what came before; every
candidate step set (one per step and option: a goal object, the key, the lock) becomes a row
of ``rows``, rated in one pass. :class:`TrialIndex` keeps, per trial, where its rows and
queries landed, for the Bayesian part that follows the agent across trials (``model.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from socialbench.observers.bib.learned_planner.tensors import NONE, TrialArrays, flat_cell


@dataclass
class TrialIndex:
    """Where one trial's pieces sit in the packed batch (NONE: absent)."""

    goal_rows: torch.Tensor  # (n, G) row of each step's candidates when heading for goal g
    key_rows: torch.Tensor  # (n,) row when heading for the key
    lock_rows: torch.Tensor  # (n,) row when carrying the key to the lock
    key_to_lock: torch.Tensor  # (n,) query
    lock_to_goal: torch.Tensor  # (n, G) queries
    prior_queries: torch.Tensor  # (G,) queries
    touching: torch.Tensor  # (G,) bool
    shapes: list[str]
    agent: str
    n_steps: int


@dataclass
class Batch:
    """Packed tensors of many trials (see the module docstring)."""

    channels: torch.Tensor  # (S, C, PAD, PAD)
    map_situation: torch.Tensor  # (M,)
    map_target_cell: torch.Tensor  # (M,) flat padded cell of the target
    query_map: torch.Tensor  # (Q,)
    query_cells: torch.Tensor  # (Q, 9)
    query_dist: torch.Tensor  # (Q, 9)
    query_own: torch.Tensor  # (Q,)
    query_straight: torch.Tensor  # (Q,)
    row_queries: torch.Tensor  # (R, K + 1) candidates' end queries, then the start's
    row_sweep: torch.Tensor  # (R, K, X) cells each candidate's square crosses
    row_end: torch.Tensor  # (R,) the observed step's end cell
    row_length: torch.Tensor  # (R,) step length (cells)
    trials: list[TrialIndex]

    def to(self, device: torch.device | str) -> Batch:
        moved = {k: (v.to(device) if isinstance(v, torch.Tensor) else v)
                 for k, v in self.__dict__.items() if k != "trials"}
        trials = [TrialIndex(**{k: (v.to(device) if isinstance(v, torch.Tensor) else v)
                                for k, v in t.__dict__.items()}) for t in self.trials]
        return Batch(**moved, trials=trials)


def _shift(index: np.ndarray, offset: int) -> np.ndarray:
    return np.where(index == NONE, NONE, index + offset)


def pack(trials: Sequence[TrialArrays]) -> Batch:
    """Pack trials (of one or many episodes, in order) into a :class:`Batch`."""
    parts: dict[str, list[np.ndarray]] = {k: [] for k in (
        "channels", "map_situation", "map_target_cell", "query_map", "query_cells", "query_dist",
        "query_own", "query_straight", "row_queries", "row_sweep", "row_end", "row_length")}
    index: list[TrialIndex] = []
    s_off = m_off = q_off = r_off = 0
    for t in trials:
        parts["channels"].append(t.channels)
        parts["map_situation"].append(t.map_situation + s_off)
        parts["map_target_cell"].append(flat_cell(t.map_target.astype(np.float64)))
        parts["query_map"].append(t.query_map + m_off)
        for name in ("query_cells", "query_dist", "query_own", "query_straight"):
            parts[name].append(getattr(t, name))
        n, g_count = t.goal_queries.shape[:2]
        step_of = [np.repeat(np.arange(n), g_count)]
        width = t.goal_queries.shape[2]
        blocks = [t.goal_queries.reshape(n * g_count, width)]
        goal_rows = np.arange(n * g_count).reshape(n, g_count) + r_off
        used = n * g_count
        extra = {}
        for name in ("key_queries", "lock_queries"):
            table = getattr(t, name)
            valid = np.flatnonzero(table[:, 0] != NONE)
            rows = np.full(n, NONE, dtype=np.int64)
            rows[valid] = np.arange(len(valid)) + r_off + used
            used += len(valid)
            blocks.append(table[valid])
            step_of.append(valid)
            extra[name] = rows
        steps = np.concatenate(step_of)
        parts["row_queries"].append(np.concatenate(blocks).reshape(-1, width) + q_off)
        parts["row_sweep"].append(t.step_sweep[steps])
        parts["row_end"].append(t.step_end[steps])
        parts["row_length"].append(t.step_length[steps])
        index.append(TrialIndex(
            goal_rows=torch.as_tensor(goal_rows), key_rows=torch.as_tensor(extra["key_queries"]),
            lock_rows=torch.as_tensor(extra["lock_queries"]),
            key_to_lock=torch.as_tensor(_shift(t.key_to_lock, q_off)),
            lock_to_goal=torch.as_tensor(_shift(t.lock_to_goal, q_off)),
            prior_queries=torch.as_tensor(t.prior_queries + q_off),
            touching=torch.as_tensor(t.touching), shapes=list(t.shapes), agent=t.agent,
            n_steps=n))
        s_off += len(t.channels)
        m_off += len(t.map_situation)
        q_off += len(t.query_map)
        r_off += used
    tensors = {k: torch.as_tensor(np.concatenate(v)) for k, v in parts.items()}
    if tensors["row_queries"].numel() == 0:
        tensors["row_queries"] = tensors["row_queries"].reshape(0, trials[0].goal_queries.shape[2]
                                                                if trials else 1)
    return Batch(**tensors, trials=index)

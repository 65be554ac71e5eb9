"""The high-level policy's input: one feature row per option, built from the controller's memory.

The controller's memory holds only what the agent saw and heard and what it did (map,
dialogue lines, whom it asked), so these features hold no hidden state. Dialogue features
describe a generic dialogue graph: for an NPC, the speaker(s) it answered as (is that speaker's
name said by another speaker? does it say another speaker's name? did it give two different
colours?); for a door, how often its colour word was said, split by the same three properties
of the speakers who said it. Which of these matter, and how, is what the policy learns.

Ablations zero groups of columns: ``no-dialogue`` (everything heard), ``no-reference`` (who names
whom), ``no-consistency`` (repeated or contradicting answers).
"""

from __future__ import annotations

import numpy as np

from socialbench.core.errors import UserError
from socialbench.rl.hierarchical.dialogue_memory import COLOUR_WORDS, DialogueMemory
from socialbench.rl.hierarchical.options import (
    DOOR_OPTIONS,
    EXPLORE,
    N_OPTIONS,
    NPC_OPTIONS,
    NPC_SLOTS,
    UNREACHABLE,
    OptionController,
    cell_distances,
    steps_to,
)

OPTION_COLUMNS = (
    "is_explore", "is_npc", "is_door", "steps", "here",
    "npc_looks_type0", "npc_looks_type1", "times_asked",
    "npc_answered", "npc_named_by_other", "npc_names_other", "npc_inconsistent",
    "colour_said", "colour_said_by_named", "colour_said_by_namer", "colour_said_by_inconsistent",
    "colour_repeated_by_consistent", "colour_said_by_unnamed",
)
GLOBAL_COLUMNS = ("time", "npcs_seen", "doors_seen", "nothing_to_explore", "speakers_heard",
                  "lines_heard")
ABLATIONS: dict[str, tuple[str, ...]] = {
    "full": (),
    "no-dialogue": ("npc_answered", "npc_named_by_other", "npc_names_other", "npc_inconsistent",
                    "colour_said", "colour_said_by_named", "colour_said_by_namer",
                    "colour_said_by_inconsistent", "colour_repeated_by_consistent",
                    "colour_said_by_unnamed", "speakers_heard", "lines_heard"),
    "no-reference": ("npc_named_by_other", "npc_names_other", "colour_said_by_named",
                     "colour_said_by_namer", "colour_said_by_unnamed"),
    "no-consistency": ("npc_inconsistent", "colour_said_by_inconsistent",
                       "colour_repeated_by_consistent"),
}
N_COLUMNS = len(OPTION_COLUMNS) + len(GLOBAL_COLUMNS)
_COL = {name: i for i, name in enumerate((*OPTION_COLUMNS, *GLOBAL_COLUMNS))}
_CAP = 3.0  # counts are capped and scaled to 0..1


def ablation_columns(ablation: str) -> np.ndarray:
    """Indices of the columns an ablation zeroes; an unknown name is a UserError."""
    if ablation not in ABLATIONS:
        raise UserError(f"unknown feature ablation {ablation!r}; choose one of: "
                        f"{', '.join(ABLATIONS)}")
    return np.array([_COL[c] for c in ABLATIONS[ablation]], dtype=np.int64)


def _count(n: float) -> float:
    return min(n, _CAP) / _CAP


def _speaker_traits(d: DialogueMemory, speaker: str) -> tuple[float, float, float]:
    return (float(d.named_by_other(speaker)), float(d.names_other(speaker)),
            float(d.inconsistent(speaker)))


def build_features(ctl: OptionController, t_max: int, ablation: str = "full"
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(features (N_OPTIONS, N_COLUMNS) float32, mask (N_OPTIONS,) bool) for the current step."""
    rows = np.zeros((N_OPTIONS, N_COLUMNS), dtype=np.float32)
    mask = np.zeros(N_OPTIONS, dtype=bool)
    targets = {option: ctl.target_cells(option) or set() for option in (*NPC_OPTIONS,
                                                                        *DOOR_OPTIONS)}
    dist = cell_distances(ctl.map, targets.values())
    d = ctl.dialogue
    speakers = d.speakers()
    traits = {s: _speaker_traits(d, s) for s in speakers}

    rows[EXPLORE, _COL["is_explore"]] = 1
    mask[EXPLORE] = True  # always possible: it wanders when nothing is left to see

    npcs = ctl.npc_cells()
    for k, option in enumerate(NPC_OPTIONS):
        if k >= len(npcs):
            continue
        steps = steps_to(dist, targets[option])
        if steps == UNREACHABLE:
            continue
        mask[option] = True
        row = rows[option]
        cell = npcs[k]
        row[_COL["is_npc"]] = 1
        row[_COL["steps"]] = steps / t_max
        row[_COL["here"]] = float(steps == 0)
        row[_COL["npc_looks_type0"]] = float(ctl.map.npc_type[cell] == 0)
        row[_COL["npc_looks_type1"]] = float(ctl.map.npc_type[cell] == 1)
        row[_COL["times_asked"]] = _count(ctl.asked.get(cell, 0))
        voices = sorted(ctl.voices.get(cell, ()))
        if voices:  # an NPC that may be one of several speakers gets their mean traits
            row[_COL["npc_answered"]] = 1
            mean = np.mean([traits[v] for v in voices if v in traits], axis=0)
            row[[_COL["npc_named_by_other"], _COL["npc_names_other"],
                 _COL["npc_inconsistent"]]] = mean

    said = {s: d.colours_said(s) for s in speakers}
    for c, option in enumerate(DOOR_OPTIONS):
        colour = COLOUR_WORDS[c]
        steps = steps_to(dist, targets[option])
        if steps == UNREACHABLE:
            continue
        mask[option] = True
        row = rows[option]
        row[_COL["is_door"]] = 1
        row[_COL["steps"]] = steps / t_max
        row[_COL["here"]] = float(steps == 0)
        counts = dict.fromkeys(("said", "named", "namer", "inconsistent", "repeated",
                                "unnamed"), 0.0)
        for s in speakers:
            n = said[s].count(colour)
            if not n:
                continue
            named, namer, inconsistent = traits[s]
            counts["said"] += n
            counts["named"] += n * named
            counts["namer"] += n * namer
            counts["inconsistent"] += n * inconsistent
            counts["repeated"] += n * (n > 1 and not inconsistent)
            counts["unnamed"] += n * (1 - named)
        for key, column in (("said", "colour_said"), ("named", "colour_said_by_named"),
                            ("namer", "colour_said_by_namer"),
                            ("inconsistent", "colour_said_by_inconsistent"),
                            ("repeated", "colour_repeated_by_consistent"),
                            ("unnamed", "colour_said_by_unnamed")):
            row[_COL[column]] = _count(counts[key])

    glob = rows[:, len(OPTION_COLUMNS):]
    glob[:, _COL["time"] - len(OPTION_COLUMNS)] = ctl.steps / t_max
    glob[:, _COL["npcs_seen"] - len(OPTION_COLUMNS)] = len(npcs) / NPC_SLOTS
    glob[:, _COL["doors_seen"] - len(OPTION_COLUMNS)] = len(ctl.map.door_colour) / 4
    glob[:, _COL["nothing_to_explore"] - len(OPTION_COLUMNS)] = float(not ctl.left_to_explore())
    glob[:, _COL["speakers_heard"] - len(OPTION_COLUMNS)] = len(speakers) / NPC_SLOTS
    glob[:, _COL["lines_heard"] - len(OPTION_COLUMNS)] = _count(len(d.lines))
    zeroed = ablation_columns(ablation)
    if len(zeroed):
        rows[:, zeroed] = 0
    return rows, mask

"""``state_info.json``'s states by entity (the ``columns`` layout): each entity once, its numbers
in one block, instead of every entity's full row in every frame (the ``rows`` layout).

A simulated video repeats every static body's row (with its 3D box) in each of its frames:
~8 MB of text a trial, most of the time spent writing a trial. In the ``columns`` layout
``state_info.json`` holds, instead of ``frames``, ``"layout": "columns"`` and ``states``: one
object per entity listed in some frame, in the order the frames list them::

    {"id": 3, "class": "agent", "label": 1, "frames": [[0, 212]],
     "rows": [[x, y, z, qx, qy, qz, qw, vx, vy, vz, wx, wy, wz], ...]}

``frames``: the runs ``[start, stop)`` of frames that list the entity (scenario 3 lists only
what the camera sees); ``rows``: its 13 numbers (position, rotation quaternion x, y, z, w,
velocity, angular velocity) in each of those frames, or one row when it is the same in all of
them (a body that cannot move). The 3D boxes are not stored: they follow from the entity's
size and pose (``io.world_boxes``). A frame lists its entities in the order of ``states``.
The numbers are written as in the ``rows`` layout (``json_rows.filled_rows``: ``repr`` of
5-decimal floats), so both layouts read back as the same states.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.agent3d.json_rows import filled_rows
from socialbench.agent3d.schema import EntitySpec, EntityState
from socialbench.core.errors import DataFileError

LAYOUTS = ("columns", "rows")  # the first is the default
NUMBERS = 13  # per state: position 3, rotation 4, velocity 3, angular velocity 3
_ROW_PIECES = ["["] + [","] * (NUMBERS - 1) + ["]"]


def entity_order(frames: Sequence[Sequence[EntityState]], ids: Sequence[int]) -> list[int] | None:
    """The entity ids listed in some frame, in the order of ``ids`` (the config's), when every
    frame lists its entities in that order (no id twice, none unknown); else None (then only
    ``rows`` fits)."""
    place = {entity_id: k for k, entity_id in enumerate(ids)}
    used: set[int] = set()
    for frame in frames:
        last = -1
        for state in frame:
            at = place.get(state.id, -1)
            if at <= last:
                return None
            last = at
            used.add(state.id)
    return [entity_id for entity_id in ids if entity_id in used]


def columns_text(frames: Sequence[Sequence[EntityState]], specs: Mapping[int, EntitySpec],
                 head: Callable[[int, EntitySpec], str]) -> str | None:
    """``"layout":"columns","states":[...]`` as compact JSON (``head`` turns an entity's
    id, class and label into the text of its object's start), or None when the frames' entity
    order does not fit one list (``entity_order``)."""
    entries = _uniform_columns(frames, list(specs))
    if entries is None:
        entries = _listed_columns(frames, list(specs))
        if entries is None:
            return None
    if not entries:  # no frames, or frames listing nothing
        return '"layout":"columns","states":[]'
    blocks, counts = [], []
    for _, _, column in entries:
        # one row when every frame holds the same state (a body that cannot move: one object
        # in every frame of a simulated video, motion.Simulation; equal ones read from a file)
        first = column[0]
        kept = column[:1] if all(s is first or s == first for s in column) else column
        counts.append(len(kept))
        blocks.append(state_numbers(kept))
    numbers = np.concatenate(blocks)
    if not np.isfinite(numbers).all():  # nan, inf: not JSON
        raise ValueError(f"a state holds a number JSON cannot write: "
                         f"{numbers[~np.isfinite(numbers)][0]}")
    rows = filled_rows(_ROW_PIECES, numbers)
    parts, start = [], 0
    for (entity_id, runs, _), count in zip(entries, counts, strict=True):
        spans = ",".join(f"[{a},{b}]" for a, b in runs)
        parts.append(f'{head(entity_id, specs[entity_id])}"frames":[{spans}],'
                     f'"rows":[{",".join(rows[start:start + count])}]}}')
        start += count
    return f'"layout":"columns","states":[{",".join(parts)}]'


_FIELDS = attrgetter("position", "orientation", "velocity", "angular_velocity")


def state_numbers(states: Sequence[EntityState]) -> np.ndarray:
    """(len(states), 13) the states' numbers in file order (position, rotation, velocity,
    angular velocity). One flat pass through the tuples into ``np.fromiter`` (three times as
    fast as an array per field from lists of tuples; the same floats)."""
    flat = chain.from_iterable(chain.from_iterable(map(_FIELDS, states)))
    numbers = np.fromiter(flat, dtype=float)
    if numbers.size != NUMBERS * len(states):
        raise ValueError(f"a state does not hold {NUMBERS} numbers (3 position, 4 rotation, "
                         f"3 velocity, 3 angular velocity)")
    return numbers.reshape(-1, NUMBERS)


_Entry = tuple[int, list[tuple[int, int]], Sequence[EntityState]]  # id, runs, its states


def _uniform_columns(frames: Sequence[Sequence[EntityState]], ids: Sequence[int]
                     ) -> list[_Entry] | None:
    """Per entity, its states, when every frame lists the same entities in the config's order
    (a simulated video); else None. Checked a column at a time (in C, no loop per state)."""
    if not frames or len(set(map(len, frames))) != 1:
        return None
    place = {entity_id: k for k, entity_id in enumerate(ids)}
    entries, last = [], -1
    get_id = attrgetter("id")
    for column in zip(*frames, strict=True):
        listed = set(map(get_id, column))
        if len(listed) != 1 or place.get(column[0].id, -1) <= last:
            return None
        last = place[column[0].id]
        entries.append((column[0].id, [(0, len(frames))], column))
    return entries


def _listed_columns(frames: Sequence[Sequence[EntityState]], ids: Sequence[int]
                    ) -> list[_Entry] | None:
    """Per entity, the runs of frames listing it and its states there (scenario 3's camera
    view lists what is seen), or None when no single order fits (``entity_order``)."""
    order = entity_order(frames, ids)
    if order is None:
        return None
    listed: dict[int, list[int]] = {entity_id: [] for entity_id in order}
    states: dict[int, list[EntityState]] = {entity_id: [] for entity_id in order}
    for t, frame in enumerate(frames):
        for state in frame:
            listed[state.id].append(t)
            states[state.id].append(state)
    return [(entity_id, _runs(listed[entity_id]), states[entity_id]) for entity_id in order]


def _runs(frames: list[int]) -> list[tuple[int, int]]:
    """Sorted frame indices as runs ``[start, stop)``."""
    runs: list[tuple[int, int]] = []
    for t in frames:
        if runs and runs[-1][1] == t:
            runs[-1] = (runs[-1][0], t + 1)
        else:
            runs.append((t, t + 1))
    return runs


def read_columns(info: Mapping[str, Any], where: Path, max_frames: int, max_entities: int
                 ) -> list[list[EntityState]]:
    """The frames of a ``columns`` layout ``state_info.json`` (parsed), checked: one-line
    ``DataFileError`` for anything off; sizes bounded before anything is built."""
    count = info.get("num_frames")
    if type(count) is not int or not 0 <= count <= max_frames:
        raise DataFileError(where, f"'num_frames' must be a whole number 0-{max_frames}, "
                            f"got {count!r:.60}")
    entities = info.get("states")
    if not isinstance(entities, list) or len(entities) > max_entities:
        raise DataFileError(where, f"'states' must be a list of at most {max_entities} "
                            f"entities")
    frames: list[list[EntityState]] = [[] for _ in range(count)]
    seen: set[int] = set()
    for raw in entities:
        entity_id, listed, rows = _entity(raw, where, count)
        if entity_id in seen:
            raise DataFileError(where, f"entity {entity_id} appears twice in 'states'")
        seen.add(entity_id)
        states = list(map(EntityState, [entity_id] * len(rows), *_vectors(rows, where, entity_id)))
        if len(states) == 1:
            states = states * len(listed)
        for t, state in zip(listed, states, strict=True):
            frames[t].append(state)
    return frames


def _entity(raw: Any, where: Path, count: int) -> tuple[int, list[int], list]:
    """(id, the frames listing it, its rows), checked."""
    if not isinstance(raw, dict):
        raise DataFileError(where, "every entry of 'states' must be an object")
    entity_id, runs, rows = raw.get("id"), raw.get("frames"), raw.get("rows")
    if type(entity_id) is not int:
        raise DataFileError(where, f"'states': id must be a whole number, got {entity_id!r:.60}")
    name = f"'states' of entity {entity_id}"
    if not isinstance(runs, list) or not isinstance(rows, list) or len(rows) > count:
        raise DataFileError(where, f"{name}: 'frames' and 'rows' must be lists, at most one "
                            f"row a frame")
    listed: list[int] = []
    for run in runs:
        if not (isinstance(run, list) and len(run) == 2 and all(type(v) is int for v in run)
                and (listed[-1] if listed else -1) < run[0] < run[1] <= count):
            raise DataFileError(where, f"{name}: 'frames' must hold increasing runs "
                                f"[start, stop) within the {count} frames, got {run!r:.60}")
        listed.extend(range(run[0], run[1]))
    if not listed or len(rows) not in (1, len(listed)):
        raise DataFileError(where, f"{name}: {len(rows)} rows for {len(listed)} frames (one "
                            f"row a listed frame, or one for all)")
    return entity_id, listed, rows


def _vectors(rows: list, where: Path, entity_id: int) -> tuple[list, list, list, list]:
    """Per row, its position, rotation, velocity and angular velocity as float tuples; rows
    checked in bulk (lists of 13 finite numbers, no bools)."""
    flat = list(chain.from_iterable(row if isinstance(row, list) else [None] for row in rows))
    if any(not isinstance(row, list) or len(row) != NUMBERS for row in rows) or \
            set(map(type, flat)) - {float, int} or \
            not np.isfinite(np.array(flat, dtype=float)).all():
        raise DataFileError(where, f"'states' of entity {entity_id}: every row must be a list "
                            f"of {NUMBERS} finite numbers")
    if any(type(v) is int for v in flat):
        rows = [[float(v) for v in row] for row in rows]
    return ([tuple(row[0:3]) for row in rows], [tuple(row[3:7]) for row in rows],
            [tuple(row[7:10]) for row in rows], [tuple(row[10:13]) for row in rows])

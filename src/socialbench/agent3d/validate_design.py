"""Dataset-level design checks of an AGENT dataset: the paper's counts and counterbalanced cues.

- Counts: with the generator's ``manifest.json``, each planned type and split holds
  ``counts.split_counts(type, scale)`` trial folders (a test folder is one expected/surprising
  pair, two of the paper's test trials), and nothing else is there.
- Cues (scenarios 1 and 4, test split): nothing but the agent's behaviour may tell which object
  is preferred. Per type, the preferred object has the lower id, is listed first, stands on the
  camera's left, has the lower colour code and the first shape name in half of the test trials
  (n trials: floor(n/2) or ceil(n/2)); in scenario 4 the first familiarization video shows it,
  and shows its object on the preferred object's side of the agent, each in half. Judged from
  the configs, with the preferred object's id from ``_meta/``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.agent3d.counts import split_counts
from socialbench.agent3d.io import CONFIG_FILE, EXPECTED, meta_path, read_json
from socialbench.core.errors import UserError
from socialbench.core.runner import MANIFEST_NAME

GENERATOR = "socialbench.agent3d"
CUES = {  # name -> how the check reports it
    "lower_id": "has the lower id", "listed_first": "is listed first",
    "left": "stands on the camera's left", "lower_code": "has the lower colour code",
    "first_shape": "has the shape name that sorts first",
    "shown_first": "is the first familiarization video's object",
    "familiar_side": "stands on the side of the agent where the first familiarization video's "
                     "object stood",
}


def check_counts(root: Path, found: Iterable[tuple[str, str]]) -> list[str]:
    """``found``: (trial type, split) of every trial folder. Empty without our manifest."""
    manifest = root / MANIFEST_NAME
    info = read_json(manifest).get("dataset") if manifest.is_file() else None
    if not isinstance(info, Mapping) or info.get("generator") != GENERATOR:
        return []
    try:
        scale, types, splits = float(info["scale"]), list(info["types"]), list(info["splits"])
        wanted = {(t, s): split_counts(t, scale)[s] for t in types for s in splits}
    except (KeyError, TypeError, ValueError, UserError):
        return [f"{MANIFEST_NAME}: its dataset record has no valid scale, types and splits"]
    have = Counter(found)
    problems = []
    for (trial_type, split), n in sorted({**dict.fromkeys(have, 0), **wanted}.items()):
        if have[(trial_type, split)] != n:
            what = " (one per expected/surprising pair)" if split == "test" else ""
            problems.append(f"type {trial_type} {split}: {have[(trial_type, split)]} trial "
                            f"folders, the manifest's scale {scale:g} makes {n}{what}")
    return problems


def answer_cues(trial_dir: Path, meta: Mapping[str, Any]) -> dict[str, bool] | None:
    """How each cue relates to the preferred object in one two-goal test trial (None: not
    one, or its files cannot say)."""
    if meta.get("split") != "test" or meta.get("scenario") not in (1, 4):
        return None
    try:
        notes = read_json(meta_path(trial_dir))["annotations"][EXPECTED]
        preferred = int(notes["preferred_goal_id"])
        config = read_json(trial_dir / EXPECTED / CONFIG_FILE)
        goals = [e for e in config["entities"] if e.get("kind") == "goal"]
        first_video = read_json(trial_dir / "Familiarization_video_1" / CONFIG_FILE)
        shown = [e for e in first_video["entities"] if e.get("kind") == "goal"]
        right = _camera_right(config["camera"])
        start, first_start = _agent(config), _agent(first_video)
    except (UserError, KeyError, TypeError, ValueError, IndexError):
        return None
    ours = [g for g in goals if g["id"] == preferred]
    others = [g for g in goals if g["id"] != preferred]
    if len(ours) != 1 or len(others) != 1:
        return None
    (mine,), (theirs,) = ours, others

    def across(goal: Mapping[str, Any], origin: np.ndarray | None = None) -> float:
        offset = np.asarray(goal["position"], dtype=float) - (0.0 if origin is None else origin)
        return float(np.dot(offset, right))

    cues = {"lower_id": mine["id"] < theirs["id"], "listed_first": goals[0] is mine,
            "left": across(mine) < across(theirs), "lower_code": mine["label"] < theirs["label"],
            "first_shape": mine["shape"] < theirs["shape"]}
    if meta.get("scenario") == 4 and len(shown) == 1 and start is not None \
            and first_start is not None:
        # scenario 4's first video is always one the agent completes (each object's videos
        # come overcome, then give up)
        cues["shown_first"] = shown[0]["id"] == preferred
        cues["familiar_side"] = (across(shown[0], first_start) > 0) == (across(mine, start) > 0)
    return cues


def _agent(config: Mapping[str, Any]) -> np.ndarray | None:
    agent = next((e for e in config["entities"] if e.get("kind") == "agent"), None)
    return None if agent is None else np.asarray(agent["position"], dtype=float)


def _camera_right(camera: Mapping[str, Any]) -> np.ndarray:
    forward = np.subtract(camera["target"], camera["position"], dtype=float)
    return np.cross(forward, np.asarray(camera.get("up", (0.0, 0.0, 1.0)), dtype=float))


def check_cues(cues_by_type: Mapping[str, list[dict[str, bool]]]) -> list[str]:
    """Each cue holds in half of each type's test trials (floor or ceil of n/2)."""
    problems = []
    for trial_type, rows in sorted(cues_by_type.items()):
        for name, says in CUES.items():
            flags = [row[name] for row in rows if name in row]
            n, count = len(flags), sum(flags)
            if flags and count not in (n // 2, (n + 1) // 2):
                problems.append(f"type {trial_type}: the preferred object {says} in {count} of "
                                f"{n} test trials; half should, or the cue tells the answer")
    return problems

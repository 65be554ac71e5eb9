"""A BIB dataset root: task folders of ``<id>e.json`` / ``<id>u.json`` pairs, and its splits.

Ours and the released layout alike (bib spec "Files"): an evaluation root has 9 task folders,
a background-training root 4. Generated roots also hold ``manifest.json``, ``audit.json`` and
``_meta/`` (``core.runner.META_DIR``: design facts per episode; never read by observers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from socialbench.core.errors import UserError
from socialbench.core.paths import safe_join
from socialbench.core.runner import MANIFEST_NAME, load_manifest

# Task folders (bib spec "Files": an evaluation root has 9 folders, in the papers' order, a
# training root 4).
EVALUATION_TASKS = (
    "preference", "multi_agent", "inaccessible_goal", "efficiency_path", "efficiency_time",
    "efficiency_irrational", "instrumental_no_barrier", "instrumental_inconsequential_barrier",
    "instrumental_blocking_barrier",
)
TRAINING_TASKS = ("single_object", "preference", "multi_agent", "instrumental_action")
TASK_FOLDERS = frozenset(EVALUATION_TASKS + TRAINING_TASKS)
VALIDATION_FRACTION = 0.2  # bib spec: train/validation 80/20 by sorted name within each task


def episode_name(path: Path) -> str:
    """``000010loe.json`` -> ``000010lo`` (the pair's shared name)."""
    stem = Path(path).stem
    return stem[:-1] if stem[-1:] in ("e", "u") else stem


def expected_from_name(path: Path) -> bool | None:
    """True for ``*e.json``, False for ``*u.json``, None otherwise."""
    suffix = Path(path).stem[-1:]
    return {"e": True, "u": False}.get(suffix)


def train_validation_split(names: Sequence[str],
                           fraction: float = VALIDATION_FRACTION) -> tuple[list[str], list[str]]:
    """(train, validation) names of one task: the last ``fraction`` by sorted name validate."""
    ordered = sorted(names)
    n_val = int(round(len(ordered) * fraction))
    cut = len(ordered) - n_val
    return ordered[:cut], ordered[cut:]


@dataclass(frozen=True)
class EpisodePair:
    """The files of one episode: its expected file and, in evaluation sets, its unexpected one."""

    task: str | None
    name: str
    expected: Path | None
    unexpected: Path | None


def _json_files(root: Path) -> list[Path]:
    """Episode files under root: from the manifest when there is one, else by walking.

    Names starting with ``.`` or ``_`` (staging, journals, ``_meta/`` audit files) are skipped.
    """
    if (root / MANIFEST_NAME).exists():
        rels = list(load_manifest(root)["files"])
    else:
        rels = [p.relative_to(root).as_posix() for p in root.rglob("*.json")]
    return [safe_join(root, rel) for rel in sorted(rels)
            if rel.endswith(".json") and rel != MANIFEST_NAME
            and not any(part[:1] in (".", "_") for part in Path(rel).parts)]


def find_pairs(root: Path | str) -> list[EpisodePair]:
    """Every episode under a dataset root (ours or the released layout), sorted by task, name.

    Files are grouped by folder and shared name (``<task>/<name>e.json`` + ``<name>u.json``);
    ``task`` is the folder's name when it is a task folder (or the root's, for a task folder
    given as root), else None.
    """
    root = Path(root)
    if not root.is_dir():
        raise UserError(f"{root} is not a folder: give the root of a BIB dataset")
    groups: dict[tuple[Path, str], dict[bool | None, Path]] = {}
    for path in _json_files(root):
        groups.setdefault((path.parent, episode_name(path)), {})[expected_from_name(path)] = path
    pairs = []
    for (folder, name), files in groups.items():
        task = folder.name if folder.name in TASK_FOLDERS else None
        if None in files:  # a file without an e/u suffix is an episode on its own
            pairs.append(EpisodePair(task, name, files[None], None))
        if True in files or False in files:
            pairs.append(EpisodePair(task, name, files.get(True), files.get(False)))
    return sorted(pairs, key=lambda p: (p.task or "", str(p.expected or p.unexpected)))

"""How many AGENT trials and videos each type and split holds (agent spec, "Dataset").

The paper counts *test trials* as test videos: 960 test trials are 480 expected/surprising
pairs, each pair one test folder (``expected/`` + ``surprising/``, sharing familiarization).
So a type's test count in the spec's table is twice its number of test folders (type 1.1:
60 test trials = 30 folders). Train and validation trials hold one test video (expected) each.
At ``scale=1``: 1,920 train + 480 validation + 480 test folders (960 test trials), 8,400
videos. Light on purpose (no PyBullet): the validator and the docs' table read it too.
"""

from __future__ import annotations

from socialbench.core.errors import UserError

# agent spec, "Trials per type (train/val/test)"; test counts are trials, i.e. 2 per folder
PAPER_COUNTS: dict[str, tuple[int, int, int]] = {
    "1.1": (120, 30, 60), "1.2": (160, 40, 80), "1.3": (120, 30, 60), "1.4": (160, 40, 80),
    "2.1": (80, 20, 40), "2.2": (80, 20, 40), "2.3": (80, 20, 40), "2.4": (160, 40, 80),
    "2.5": (80, 20, 40), "3.1": (160, 40, 80), "3.2": (240, 60, 120),
    "4.1": (240, 60, 120), "4.2": (240, 60, 120),
}
SPLITS = ("train", "validation", "test")
VALIDATION_FRACTION = 0.2  # agent spec: validation = a random 20% of each type's trials
TEST_VIDEOS_PER_FOLDER = 2  # expected + surprising: one pair is two of the paper's test trials


def familiarization_videos(trial_type: str) -> int:
    """4 familiarization videos in scenario 4, 1 in the others (agent spec)."""
    return 4 if trial_type.startswith("4.") else 1


def split_counts(trial_type: str, scale: float) -> dict[str, int]:
    """Trial *folders* per split for one type at a scale (at least 1 each when scale > 0).

    Test folders are pairs: half the paper's test-trial count (see the module docstring)."""
    if not 0 < scale <= 1:
        raise UserError(f"--scale must be in (0, 1], got {scale}")
    train, val, test = PAPER_COUNTS[trial_type]
    pool = max(2, round((train + val) * scale))
    n_val = max(1, round(pool * VALIDATION_FRACTION))
    pairs = max(1, round(test / TEST_VIDEOS_PER_FOLDER * scale))
    return {"train": pool - n_val, "validation": n_val, "test": pairs}


def split_videos(trial_type: str, split: str, folders: int) -> int:
    """Videos in ``folders`` trial folders of a type and split (familiarization + tests)."""
    tests = TEST_VIDEOS_PER_FOLDER if split == "test" else 1
    return folders * (familiarization_videos(trial_type) + tests)


def dataset_videos(scale: float = 1.0, types: tuple[str, ...] | None = None) -> int:
    """Every video of a generated dataset (8,400 at ``scale=1``, agent spec)."""
    return sum(split_videos(t, split, n)
               for t in (types or tuple(PAPER_COUNTS))
               for split, n in split_counts(t, scale).items())

"""Validating a BIB dataset root (ours or the released layout): every episode, pair and video,
and the manifest's checksums; worker processes check pairs in parallel."""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path

from socialbench.bib.io.layout import EpisodePair, find_pairs
from socialbench.bib.io.read import load_episode
from socialbench.bib.schema import Episode
from socialbench.bib.validate.episode import validate_episode
from socialbench.bib.validate.pair import validate_pair
from socialbench.bib.validate.video import check_video
from socialbench.core.errors import UserError
from socialbench.core.parallel import ordered_map
from socialbench.core.progress import progress_bar
from socialbench.core.runner import MANIFEST_NAME, load_manifest, verify_manifest


def _pair_problems(pair: EpisodePair, video_check: bool, render: str = "2d") -> list[str]:
    episodes: dict[str, Episode] = {}
    problems: list[str] = []
    for path in (pair.expected, pair.unexpected):
        if path is None:
            continue
        try:
            episode = load_episode(path)
        except UserError as exc:
            problems.append(str(exc))
            continue
        episodes[path.name] = episode
        problems += [f"{path.name}: {p}" for p in validate_episode(episode)]
        if video_check:
            problems += check_video(episode, path.with_suffix(".mp4"), render=render)
    if pair.expected and pair.unexpected and len(episodes) == 2:
        e, u = episodes[pair.expected.name], episodes[pair.unexpected.name]
        problems += [f"{pair.name} ({pair.task}): {p}" for p in validate_pair(pair.task, e, u)]
    elif pair.expected is None:
        problems.append(f"{pair.unexpected}: no matching expected (e) file")
    return problems


def validate_dataset(root: Path | str, *, max_problems: int | None = None, workers: int = 1,
                     progress: bool = False, video_check: bool | None = None,
                     pairs: list[EpisodePair] | None = None) -> list[str]:
    """Problems found in a dataset root (ours or the released layout), first ones first.

    The arguments AGENT's ``validate_dataset`` shares come first, with the same defaults: stop
    once ``max_problems`` are found (None: never); ``workers`` processes check pairs in
    parallel (the report is the same for any number); ``progress`` shows a bar. Without a
    manifest (released data), checksums are not checked. ``video_check=None`` checks the videos
    when the dataset has them (:func:`has_videos`). ``pairs``: the root's :func:`find_pairs`,
    when the caller has them already.
    """
    root = Path(root)
    problems: list[str] = []
    if (root / MANIFEST_NAME).exists():
        problems += [f"manifest: {p}" for p in verify_manifest(root)]
    if pairs is None:
        pairs = find_pairs(root)
    if not pairs:
        problems.append(f"{root}: no episode files (*e.json / *u.json) found")
    if video_check is None:
        video_check = has_videos(root, pairs)
    check = functools.partial(_pair_problems, video_check=video_check,
                              render=render_mode(root))
    with progress_bar("validating", show=progress, transient=True) as bar, \
            contextlib.closing(ordered_map(check, pairs, workers)) as reports:
        for report in bar.track(reports, total=len(pairs)):
            if max_problems is not None and len(problems) >= max_problems:
                break
            problems += report
    return problems if max_problems is None else problems[:max_problems]


def render_mode(root: Path) -> str:
    """How the dataset's videos were drawn, as its manifest says: ``3d``, or ``2d`` (manifests
    without a ``render`` entry, and released data)."""
    if (root / MANIFEST_NAME).exists():
        return str(load_manifest(root).get("dataset", {}).get("render", "2d"))
    return "2d"


def has_videos(root: Path, pairs: list[EpisodePair]) -> bool:
    """Whether a dataset comes with videos: as its manifest says (``--no-video`` datasets do
    not), or, without one (released data), whether its first episode file has an mp4 beside it.
    A dataset with videos then misses none unnoticed: each pair's are checked."""
    if (root / MANIFEST_NAME).exists():
        return bool(load_manifest(root).get("dataset", {}).get("video", True))
    first = next((p.expected or p.unexpected for p in pairs), None)
    return first is not None and first.with_suffix(".mp4").exists()

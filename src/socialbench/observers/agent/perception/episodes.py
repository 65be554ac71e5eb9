"""Episodes built from rendered frames: what ``--from-frames`` hands the observers in place of
the state files. A trial's videos are found by their folder names; only ``frames.npz`` and the
config's camera are read (never ``trial.json``'s annotations, ``state_info.json`` or ``_meta/``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from socialbench.agent3d.io import EXPECTED, SURPRISING, find_trials
from socialbench.agent3d.schema import Episode, VideoStates
from socialbench.core.errors import DataFileError, UserError
from socialbench.observers.agent.perception.assemble import perceived_states
from socialbench.observers.agent.perception.frames import read_rendered
from socialbench.observers.agent.perception.rgbd import segment_rgbd
from socialbench.observers.agent.perception.truth_masks import segment_truth

SEGMENTATIONS = ("rgbd", "truth")  # ours from RGB-D; the renderer's (the upper bound)
FAMILIARIZATION = "Familiarization_video_"


def perceive_video(video_dir: Path | str, segmentation: str = "rgbd") -> VideoStates:
    """One video's perceived states."""
    if segmentation not in SEGMENTATIONS:
        raise ValueError(f"segmentation {segmentation!r}: one of {', '.join(SEGMENTATIONS)}")
    video = read_rendered(video_dir, segmentation=segmentation == "truth")
    sightings = segment_truth(video) if segmentation == "truth" else segment_rgbd(video)
    states = perceived_states(sightings, video.camera)
    if not any(spec.kind == "agent" for spec in states.entities):
        # the observers need an agent to follow: say which video, not a traceback
        raise UserError(f"{video_dir}: perception found no agent in any frame; rate this "
                        f"dataset from its states (without --from-frames)")
    return states


def familiarization_dirs(trial_dir: Path) -> list[Path]:
    found = [p for p in trial_dir.iterdir()
             if p.is_dir() and p.name.startswith(FAMILIARIZATION)
             and p.name.removeprefix(FAMILIARIZATION).isdigit()]
    return sorted(found, key=lambda p: int(p.name.removeprefix(FAMILIARIZATION)))


@dataclass(frozen=True)
class FrameEpisodes:
    """Loads episodes from frames; the evaluation's stand-in for the state-file loaders."""

    segmentation: str = "rgbd"
    # the last trial's perceived familiarization: a pair's two test videos are asked for one
    # after the other and share it, so it is perceived once (perception is most of the cost)
    _last: dict[Path, list[VideoStates]] = field(default_factory=dict, compare=False,
                                                 repr=False)

    def test(self, video_dir: Path) -> Episode:
        """The episode of one test video folder (``expected/`` or ``surprising/``)."""
        video_dir = Path(video_dir)
        if video_dir.name not in (EXPECTED, SURPRISING):
            raise DataFileError(video_dir, f"not a test video folder ({EXPECTED} or "
                                           f"{SURPRISING})")
        trial_dir = video_dir.parent
        familiarization = self._last.get(trial_dir)
        if familiarization is None:
            familiarization = [perceive_video(v, self.segmentation)
                               for v in familiarization_dirs(trial_dir)]
            self._last.clear()
            self._last[trial_dir] = familiarization
        return Episode(trials=[*familiarization, perceive_video(video_dir, self.segmentation)],
                       name=trial_dir.name, task=_trial_type(trial_dir),
                       expected=video_dir.name == EXPECTED)

    def training(self, root: Path, types: tuple[str, ...],
                 max_per_type: int | None = None) -> list[Episode]:
        """The training split's trials of ``types``: familiarization videos, then expected."""
        episodes: list[Episode] = []
        counts: dict[str, int] = {}
        for trial_dir in find_trials(root):
            trial_type = _trial_type(trial_dir)
            if trial_dir.parent.name != "train_set" or trial_type not in types:
                continue
            if max_per_type is not None and counts.get(trial_type, 0) >= max_per_type:
                continue
            counts[trial_type] = counts.get(trial_type, 0) + 1
            videos = [*familiarization_dirs(trial_dir), trial_dir / EXPECTED]
            episodes.append(Episode(trials=[perceive_video(v, self.segmentation)
                                            for v in videos],
                                    name=trial_dir.name, task=trial_type, expected=True))
        return episodes


def _trial_type(trial_dir: Path) -> str:
    return trial_dir.parent.parent.name.removeprefix("type_")


def check_rendered(root: Path, pairs: list[tuple[str, Path, Path]]) -> None:
    """One clear error, before any work, when a test video has no rendered frames."""
    from socialbench.agent3d.render import NPZ_NAME

    missing = [v for _, e, s in pairs for v in (*familiarization_dirs(e.parent), e, s)
               if not (v / NPZ_NAME).is_file()]
    if missing:
        raise UserError(f"{root}: {len(missing)} test videos have no rendered frames (e.g. "
                        f"{missing[0]}); --from-frames needs a dataset made with `socialbench "
                        f"agent generate --render`")

"""Checks that a BIB dataset is what the paper describes (see docs/bib.md, "Validation").

Every check is a small function returning a list of problems (strings, first ones first), so
generators and tests can run them on one episode or one pair. One module per job:

* :mod:`~socialbench.bib.validate.episode` (:func:`validate_episode`): 9 trials; plausible
  trial lengths; the border ring of walls; walls, objects and the agent's shape constant within
  a trial; the agent never overlaps a wall or a present barrier; it moves at most 2 px per axis
  per frame; it sits on home for the first 31 frames, holds still for the last 84 and ends
  touching exactly one object (or the key or lock); it never touches another object on its
  way; objects never overlap.
* :mod:`~socialbench.bib.validate.pair` (:func:`validate_pair`): the expected and unexpected
  episodes share their familiarization frame for frame (efficiency_irrational: their tests are
  identical instead), and their test trials differ exactly as the task's rule says.
* :mod:`~socialbench.bib.validate.video` (:func:`check_video`): the mp4 exists, has one
  200 x 200 frame per JSON frame, and sampled decoded frames match the renderer's.
* :mod:`~socialbench.bib.validate.dataset` (:func:`validate_dataset`): all of the above over a
  dataset root, plus the manifest checksums.

Indices in messages count from 0 (trial 8 is the test trial).
"""

from socialbench.bib.validate.dataset import has_videos, validate_dataset
from socialbench.bib.validate.episode import validate_episode, validate_episodes
from socialbench.bib.validate.pair import validate_pair
from socialbench.bib.validate.video import check_video

__all__ = ["check_video", "has_videos", "validate_dataset", "validate_episode",
           "validate_episodes", "validate_pair"]

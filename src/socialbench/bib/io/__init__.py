"""BIB episode files: the released layout, read (ours and the released files) and written.

A file is a JSON list of 9 trials, each a list of per-frame dicts (bib paper, data
specification). Keys, in the released order: ``size, walls, fuse_walls, pin, key, objects,
blocking, home, agent``. Two conventions name the key and the lock: the newer (released
evaluation files) ``pin`` = key, ``key`` = lock; the older ``key`` = key, ``lock`` = lock. The
reader checks for ``pin`` first; the writer always writes the newer one.

One module per job:

* :mod:`~socialbench.bib.io.read`: a file -> a typed :class:`~socialbench.bib.schema.Episode`
  (quirks of the released files normalised, sizes bounded, one-line errors);
* :mod:`~socialbench.bib.io.fast_json`: a file's bytes -> JSON values, each distinct walls text
  parsed once (the walls are most of a file);
* :mod:`~socialbench.bib.io.encode`: episodes -> the released JSON text, byte for byte;
* :mod:`~socialbench.bib.io.write`: episodes -> files (a pair's two written side by side,
  atomically, with their SHA-256);
* :mod:`~socialbench.bib.io.layout`: a dataset root's task folders, pairs and splits.
"""

from socialbench.bib.io.encode import episode_to_json, episodes_to_json, frame_to_dict
from socialbench.bib.io.layout import EpisodePair, find_pairs
from socialbench.bib.io.read import EpisodeFiles, iter_episodes, load_episode
from socialbench.bib.io.write import dump_episode, dump_episodes, write_episodes

__all__ = [
    "EpisodeFiles",
    "EpisodePair",
    "dump_episode",
    "dump_episodes",
    "episode_to_json",
    "episodes_to_json",
    "find_pairs",
    "frame_to_dict",
    "iter_episodes",
    "load_episode",
    "write_episodes",
]

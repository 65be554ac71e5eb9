"""A contact sheet of the 3D frames the video model trains on (3 fps, 64 x 64, ``--frames 3d``).

    nice -n 5 python scripts/bib_video3d_frames.py SHARD.npz... [--out PNG]

One episode per background task in the frame shards (``bib train --frames 3d`` writes them
beside its checkpoint: ``OUT.data-train-NNNN.npz``): the first, middle and last sampled frame
of the first familiarization trial and of the test trial, each 64 x 64 frame shown 3x (nearest
neighbour, so the pixels the model sees stay visible), labelled with the shard's source.
Default output: docs/img/bib/video3d_frames.png.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from socialbench.bib.schema import N_FAMILIARIZATION
from socialbench.observers.bib.video_model.frame_cache import read_shard

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bib_contact_sheet import sheet  # noqa: E402  (the 2D sheet's tile layout)


def enlarged_tile(frame: np.ndarray) -> np.ndarray:
    """A 64 x 64 frame enlarged 3x (nearest) on a 200 x 200 grey tile."""
    big = frame.repeat(3, axis=0).repeat(3, axis=1)
    tile = np.full((200, 200, 3), 200, np.uint8)
    offset = (200 - big.shape[0]) // 2
    tile[offset:offset + big.shape[0], offset:offset + big.shape[1]] = big
    return tile


def episode_row(frames: np.ndarray, counts: np.ndarray, label: str) -> list:
    """Start, middle and end of the first familiarization trial and of the test trial."""
    test_start = int(counts[:N_FAMILIARIZATION].sum())
    trials = {"fam 1": (0, int(counts[0])), "test": (test_start, int(counts[N_FAMILIARIZATION]))}
    row = []
    for name, (start, n) in trials.items():
        for where, k in (("start", 0), ("middle", n // 2), ("end", n - 1)):
            row.append((f"{label} {name} {where} ({k + 1}/{n})", enlarged_tile(frames[start + k])))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shards", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=Path("docs/img/bib/video3d_frames.png"))
    args = parser.parse_args()
    rows, seen = [], set()
    for path in args.shards:
        shard = read_shard(path)
        for index, task in enumerate(str(t) for t in shard.tasks):
            if task not in seen:
                seen.add(task)
                frames, counts = shard.episode(index)
                rows.append(episode_row(frames, counts, f"{shard.source} {task[:12]}"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    sheet(rows).save(args.out)
    print(f"wrote {args.out} ({len(rows)} episodes)")


if __name__ == "__main__":
    main()

"""What the BIB video model predicts: input, predicted and actual next frame, and the change.

    nice -n 5 python scripts/bib_video_predictions.py CHECKPOINT SHARD.npz... [--per-task 2]
        [--out PNG]

For the first episode of each background task in the frame shards (``bib train`` writes them
beside its checkpoint: ``OUT.data-validation-NNNN.npz``), the test steps where the frame
changes (the agent moves, the barrier fades), one row each: the input frame, the model's
predicted next frame, the actual next frame, the predicted change and the actual change (both
|difference| x 4). Every 64 x 64 frame is shown 3x (nearest neighbour). The familiarization is
all 8 trials, as rating uses. Each row's label gives the step's squared error against copying
the input frame. Default output: docs/img/bib_video_predictions.png.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

from socialbench.observers.bib.video_model.frame_cache import read_shard
from socialbench.observers.bib.video_model.observer import VideoObserver
from socialbench.observers.bib.video_model.training import make_batch, moving_steps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bib_contact_sheet import sheet  # noqa: E402  (the 2D sheet's tile layout)
from bib_video3d_frames import enlarged_tile  # noqa: E402  (64 px frames shown 3x)


def _image(pixels: torch.Tensor) -> np.ndarray:
    """A ``(3, H, W)`` tensor in [0, 1] as a uint8 picture."""
    return (pixels.clamp(0, 1).permute(1, 2, 0).numpy() * 255).round().astype(np.uint8)


def _change(a: torch.Tensor, b: torch.Tensor) -> np.ndarray:
    """|a - b| x 4, as a picture (the largest channel, grey)."""
    diff = ((a - b).abs().amax(dim=0) * 4).clamp(0, 1)
    return _image(diff.expand(3, -1, -1))


def rows_of(observer: VideoObserver, frames: np.ndarray, counts: np.ndarray, task: str,
            steps: int) -> list:
    """One row per chosen moving test step of an episode."""
    moving = moving_steps(frames, counts)
    if not len(moving):
        return []
    # up to ``steps`` of them, spread from the first to the last
    chosen = moving[np.linspace(0, len(moving) - 1, min(steps, len(moving))).round().astype(int)]
    batch = make_batch([(frames, counts)], steps=[chosen])
    with torch.no_grad():
        predicted = observer.net(batch.fam_frames, batch.fam_counts, batch.inputs, batch.owner)
    rows = []
    for k, step in enumerate(chosen.tolist()):
        now, guess, then = batch.inputs[k], predicted[k], batch.targets[k]
        error = float(((guess - then) ** 2).mean())
        copying = float(((now - then) ** 2).mean())
        label = f"{task[:14]} step {step}: {error / max(copying, 1e-12):.2f} of copy"
        rows.append([(label, enlarged_tile(_image(now))),
                     ("predicted", enlarged_tile(_image(guess))),
                     ("actual next", enlarged_tile(_image(then))),
                     ("predicted change x4", enlarged_tile(_change(guess, now))),
                     ("actual change x4", enlarged_tile(_change(then, now)))])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("shards", type=Path, nargs="+")
    parser.add_argument("--per-task", type=int, default=2, help="rows per background task")
    parser.add_argument("--out", type=Path, default=Path("docs/img/bib_video_predictions.png"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    observer = VideoObserver.load(args.checkpoint)
    rows, seen = [], set()
    for path in args.shards:
        shard = read_shard(path)
        for index, task in enumerate(str(t) for t in shard.tasks):
            if task in seen:
                continue
            frames, counts = shard.episode(index)
            found = rows_of(observer, frames, counts, task, args.per_task)
            if found:
                seen.add(task)
                rows += found
    args.out.parent.mkdir(parents=True, exist_ok=True)
    sheet(rows).save(args.out)
    print(f"wrote {args.out} ({len(rows)} steps of {len(seen)} tasks)")


if __name__ == "__main__":
    main()

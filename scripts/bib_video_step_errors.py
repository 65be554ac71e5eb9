"""The BIB video model's next-frame error on moving and on still test steps, beside copying.

    nice -n 5 python scripts/bib_video_step_errors.py CHECKPOINT SHARD.npz...

For every episode of the frame shards (``bib train`` writes them beside its checkpoint:
``OUT.data-validation-NNNN.npz``), each test step's squared error (the model's prediction of the
next frame, every test step, all 8 familiarization trials, as rating uses) is split by task into
steps where the next frame differs from the current one (the agent moves, the barrier fades)
and still steps, and set beside the error of copying the current frame (0 on still steps).
A model that adds error on still steps expects changes that do not come.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from socialbench.observers.bib.video_model.frame_cache import read_shard
from socialbench.observers.bib.video_model.observer import VideoObserver
from socialbench.observers.bib.video_model.training import make_batch, moving_steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("shards", type=Path, nargs="+")
    args = parser.parse_args()
    torch.set_num_threads(1)
    observer = VideoObserver(checkpoint=args.checkpoint)
    sums: dict[tuple[str, str], list[float]] = {}
    for path in args.shards:
        shard = read_shard(path)
        for index in range(len(shard)):
            frames, counts = shard.episode(index)
            errors = observer.step_errors(frames, counts)
            if not len(errors):
                continue
            # copying's error on the same tensors the model is scored on (as validation does)
            batch = make_batch([(frames, counts)])
            copying = ((batch.inputs - batch.targets) ** 2).mean(dim=(1, 2, 3)).numpy()
            moving = np.zeros(len(errors), dtype=bool)
            moving[moving_steps(frames, counts)] = True
            for kind, chosen in (("moving", moving), ("still", ~moving)):
                total = sums.setdefault((str(shard.tasks[index]), kind), [0.0, 0.0, 0])
                total[0] += float(errors[chosen].sum())
                total[1] += float(copying[chosen].sum())
                total[2] += int(chosen.sum())
    print("| task | steps | kind | model MSE | copying MSE | model / copying |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    for (task, kind), (error, copy_error, steps) in sorted(sums.items()):
        ratio = f"{error / copy_error:.2f}" if copy_error > 0 else "-"
        print(f"| {task} | {steps} | {kind} | {error / max(steps, 1):.2e} | "
              f"{copy_error / max(steps, 1):.2e} | {ratio} |")


if __name__ == "__main__":
    main()

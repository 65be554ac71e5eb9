"""Training success of several TalkItOut PPO runs on one plot, and a table of means per window.

    python scripts/talkitout_compare_runs.py RUN_DIR [RUN_DIR ...] --labels A,B --out PNG
        [--max-frames N] [--window 200000]

Each RUN_DIR is a `socialbench talkitout train --out` folder; its `log.csv` is read (nothing else).
The table prints, per window of frames, the mean of the per-update success rate over the updates
that ended an episode, so runs of different episode lengths compare fairly.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from socialbench.rl.train import read_log


def window_means(rows: list[dict[str, str]], window: int, max_frames: int) -> list[float]:
    """Mean per-update success in each frame window (NaN where no update ended an episode)."""
    sums: dict[int, list[float]] = {}
    for row in rows:
        frames = int(row["frames"])
        if frames > max_frames or int(row["episodes"]) == 0:
            continue
        sums.setdefault((frames - 1) // window, []).append(float(row["success"]))
    count = math.ceil(max_frames / window)
    return [sum(v) / len(v) if (v := sums.get(i)) else math.nan for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--labels", required=True, help="comma-separated, one per run")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--max-frames", type=int, default=1_000_000)
    parser.add_argument("--window", type=int, default=200_000)
    args = parser.parse_args()
    labels = args.labels.split(",")
    if len(labels) != len(args.runs):
        parser.error(f"{len(args.runs)} runs but {len(labels)} labels")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    header = " | ".join(f"{(i + 1) * args.window / 1e6:.1f}M"
                        for i in range(math.ceil(args.max_frames / args.window)))
    print(f"| run | {header} |")
    for run, label in zip(args.runs, labels, strict=True):
        rows = read_log(run / "log.csv")
        kept = [r for r in rows if int(r["frames"]) <= args.max_frames]
        ax.plot([int(r["frames"]) for r in kept], [float(r["success_rolling"]) for r in kept],
                lw=1.0, label=label)
        means = window_means(rows, args.window, args.max_frames)
        print(f"| {label} | " + " | ".join(f"{m:.3f}" for m in means) + " |")
    ax.set_xlabel("frames")
    ax.set_ylabel("training success (last 100 episodes)")
    ax.set_ylim(0, None)
    ax.legend(fontsize=8)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

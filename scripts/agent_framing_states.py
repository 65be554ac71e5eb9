"""Our camera's framing of the agent, from the states alone (no rendering): per trial type,
how many videos have frames in which the agent's box leaves the picture, and how large the
agent is (its width over its distance, in pixels of a 320 x 320 frame: the median over a
video's frames, the least of the videos). Run: ``python scripts/agent_framing_states.py
[--trials 20] [--seed 0] [--types 1.3,2.4]``."""

from __future__ import annotations

import argparse

import numpy as np

from socialbench.agent3d.framing import REFERENCE_SIDE, agent_frames_outside
from socialbench.agent3d.generate import make_trial
from socialbench.agent3d.layout.cameras import agent_pixels_at
from socialbench.agent3d.schema import TRIAL_TYPES, Video
from socialbench.core.seeding import derive_seed


def agent_pixels(video: Video, side: int = REFERENCE_SIDE) -> float:
    """The median over frames of the agent's width in pixels (its size over its depth)."""
    agent = next(e for e in video.config.entities if e.kind == "agent")
    return float(np.median([agent_pixels_at(video.config.camera, point, side)
                            for point in video.track(agent.id)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20,
                        help="test trials per type (each its own seed)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--types", default=",".join(TRIAL_TYPES))
    args = parser.parse_args()
    print("| type | videos | videos with the agent outside the picture | frames outside | "
          "agent px across (least video median, 320 x 320) |")
    print("| --- | --- | --- | --- | --- |")
    for trial_type in args.types.split(","):
        videos = []
        for index in range(args.trials):
            trial = make_trial(trial_type, "test", index,
                               derive_seed(args.seed, "framing", trial_type, index))
            videos += [*trial.familiarization, trial.expected, trial.surprising]
        outside = [agent_frames_outside(v) for v in videos]
        frames = sum(len(v.frames) for v in videos)
        print(f"| {trial_type} | {len(videos)} | {sum(o > 0 for o in outside)} | "
              f"{sum(outside)} of {frames} | {min(agent_pixels(v) for v in videos):.1f} |",
              flush=True)


if __name__ == "__main__":
    main()

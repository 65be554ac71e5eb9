"""Video lengths and jumps of generated AGENT trials, per type, beside the paper's figures.

Builds test-split trials as ``socialbench agent generate --split test`` does (the same jobs and
seeds, ``generate.plan_jobs``), in memory, and reads their videos (frame counts, the agent's
track) and annotations (each jump's apex and clearance). Prints two Markdown tables:

- video length per type (min / median / max seconds at 35 fps; the paper: 5.6-25.2 s) and how
  many videos end with more than ``--still`` seconds of nothing moving (a padded ending would
  show here: the motion's own endings are 1 s at the goal, 2 s when giving up);
- jumps by obstacle (wall height, chasm width, platform height): count, the centre's apex above
  take-off (planned, and measured from the track), and the clearance of the agent's bottom
  over the obstacle's top (planned, and measured from the track at 35 fps: over a wall, at a
  platform's edge).

Run: ``python scripts/agent_motion_stats.py [--scale 0.05] [--seed 4] [--still 2.5]``.
"""

from __future__ import annotations

import argparse
import collections
import math

import numpy as np

from socialbench.agent3d.generate import make_trial, plan_jobs
from socialbench.agent3d.io import named_videos
from socialbench.agent3d.layout.constants import AGENT_ID, AGENT_SIZE
from socialbench.agent3d.schema import FPS, TRIAL_TYPES

STILL_SPEED = 0.02  # m/s: the agent counts as standing still below this (motion.STOP_SPEED)
STILL_TURN = 1e-3  # rad/s: ... and not turning


def still_tail_seconds(video) -> float:
    """How long the video ends with nothing moving (the agent neither walking nor turning,
    no occluder falling)."""
    count = 0
    for frame in reversed(video.frames):
        if any(s.velocity is not None and (math.hypot(*s.velocity) > STILL_SPEED
                                           or abs(s.angular_velocity[2]) > STILL_TURN)
               for s in frame):
            break
        count += 1
    return count / FPS


def jump_obstacle(config, jump: dict):
    """What a jump went over, from the scene: (name, the wall or platform entity or None for
    a chasm) of the obstacle between take-off and landing on the lane."""
    low, high = sorted((jump["takeoff"][0], jump["landing"][0]))
    for entity in config.entities:
        x, half = entity.position[0], entity.size[0] / 2
        if not (x - half < high and x + half > low):
            continue
        if entity.kind == "obstacle" and entity.name.startswith("wall"):
            return f"wall {entity.size[2]:.1f} m", entity
        if entity.kind == "obstacle" and entity.name.startswith("platform"):
            return f"platform {entity.size[2]:.1f} m", entity
    gaps = [e for e in config.entities if e.kind == "floor" and e.name.startswith("raised")]
    if gaps:
        width = _gap_between(gaps, low, high)
        if width is not None:
            return f"chasm {width:.2f} m", None
    return "other", None


def measured_clearance(track: np.ndarray, obstacle) -> float:
    """The least height of the agent's bottom above a wall's top while over it (its footprint
    along the lane, widened by the agent's half-size), or above a platform's top in the first
    frame over its edge; nan for a chasm."""
    if obstacle is None:
        return float("nan")
    top = obstacle.position[2] + obstacle.size[2] / 2
    reach = obstacle.size[0] / 2 + AGENT_SIZE / 2
    over = track[np.abs(track[:, 0] - obstacle.position[0]) < reach]
    heights = over[:, 2] - AGENT_SIZE / 2 - top
    if obstacle.name.startswith("platform"):  # at its edge: the first frame the agent is over it
        heights = heights[:1]
    return float(heights.min()) if len(heights) else float("nan")


def _gap_between(pieces, low: float, high: float) -> float | None:
    edges = sorted((e.position[0] - e.size[0] / 2, e.position[0] + e.size[0] / 2) for e in pieces)
    for (_, right), (left, _) in zip(edges, edges[1:], strict=False):
        if low < right < left < high:
            return left - right
    return None


def trials(seed: int, scale: float):
    """The test-split trials of every type at ``scale``, as the generator's jobs build them."""
    for job in plan_jobs(seed, TRIAL_TYPES, ["test"], scale):
        params = job.params
        yield make_trial(params["trial_type"], params["split"], params["index"], job.seed,
                         params.get("extended", False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--still", type=float, default=2.5,
                        help="seconds of nothing moving at the end that count as padding")
    args = parser.parse_args()
    lengths: dict[str, list[float]] = collections.defaultdict(list)
    padded: dict[str, int] = collections.Counter()
    jumps: dict[str, list[tuple[float, float, float]]] = collections.defaultdict(list)
    for trial in trials(args.seed, args.scale):
        for _, video in named_videos(trial):
            seconds = len(video.frames) / FPS
            lengths[trial.trial_type].append(seconds)
            padded[trial.trial_type] += still_tail_seconds(video) > args.still
            track = np.array(video.track(AGENT_ID))
            for jump in video.config.annotations["plan"]["jumps"]:
                if "(replayed)" in video.config.annotations["plan"]["path"]:
                    continue  # a surprising video's replay: the obstacle may not be there
                # measured: the track's peak between take-off and landing, above the start
                low, high = sorted((jump["takeoff"][0], jump["landing"][0]))
                inside = track[(track[:, 0] > low) & (track[:, 0] < high)]
                start = track[np.argmin(np.abs(track[:, 0] - jump["takeoff"][0])), 2]
                measured = float(inside[:, 2].max() - start) if len(inside) else float("nan")
                name, obstacle = jump_obstacle(video.config, jump)
                jumps[name].append((jump["apex"], measured, jump["clearance"],
                                    measured_clearance(track, obstacle)))
    every = [s for values in lengths.values() for s in values]
    print("| type | videos | min s | median s | max s | ending still > "
          f"{args.still:g} s |\n|---|---|---|---|---|---|")
    for trial_type in sorted(lengths, key=lambda t: tuple(map(int, t.split(".")))):
        values = lengths[trial_type]
        print(f"| {trial_type} | {len(values)} | {min(values):.1f} | {np.median(values):.1f} | "
              f"{max(values):.1f} | {padded[trial_type]} |")
    print(f"| all | {len(every)} | {min(every):.1f} | {np.median(every):.1f} | {max(every):.1f} |"
          f" {sum(padded.values())} |")
    print("| paper | 8,400 | 5.6 | | 25.2 | |\n")
    print("| jump over | jumps | apex planned, m (mean) | apex measured, m (mean) | "
          "clearance planned, m | clearance measured, m (min-max) |\n|---|---|---|---|---|---|")
    for name in sorted(jumps):
        rows = np.array(jumps[name])
        measured = rows[:, 3][np.isfinite(rows[:, 3])]
        span = f"{measured.min():.3f}-{measured.max():.3f}" if len(measured) else "n/a"
        print(f"| {name} | {len(rows)} | {rows[:, 0].mean():.3f} | {np.nanmean(rows[:, 1]):.3f} "
              f"| {rows[:, 2].min():.3f}-{rows[:, 2].max():.3f} | {span} |")


if __name__ == "__main__":
    main()

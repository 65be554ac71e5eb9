"""Do the speed tricks in BIB's data model pay? Each one against its plain form, same run.

    nice -n 10 python benchmarks/bib_data_model.py [--episodes 3] [--rounds 3]

Generates ``--episodes`` pairs of every evaluation task (no video) into a temporary folder,
then times, with each trick on and then replaced by its plain form (rounds alternate; the
best round of each is reported, in CPU time of this process):

* trial equality memo: the pair validator compares trials with ``validate.pair.same_trial``,
  which compares each pair of shared wall/object tuples once (memo keyed on their ids),
  instead of ``Trial.__eq__`` frame by frame. Timed: ``validate_pair`` of every pair read from
  the files, as ``bib validate`` runs it;
* trials as runs: generated trials are a few template frames and an array of the agent's
  corners (``Trial(runs=...)``) instead of a list of frames. Timed: building, self-checking
  and writing every pair's JSON, as ``bib generate --no-video`` does;
* one frame per agent position: ``Run.frames`` makes one Frame per distinct agent position
  (a waiting agent repeats one object) instead of one per frame. Timed: drawing the frames of
  built episodes (``video.episode_frames``, which draws a repeated object once), and drawing
  and encoding their videos (``write_episode_video``), as ``bib generate`` does.

Two more were measured by this script's first version (commit f68e86d) and removed since they
did not pay: frames made without the dataclass constructor (reading 4 %, building 7 % faster)
and the validator's wall facts remembered by tuple id (no difference).

A trick pays when its time is clearly below the plain form's (the machine is shared: compare
the ratio, not the absolute times).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from socialbench.bib.generate import SPLITS, build_episode, generate, make_jobs
from socialbench.bib.io import find_pairs, load_episode, write_episodes
from socialbench.bib.schema import Episode, Frame, Run, Trial
from socialbench.bib.tasks import base
from socialbench.bib.validate import pair as pair_rules
from socialbench.bib.validate import validate_pair
from socialbench.bib.video import episode_frames, write_episode_video
from socialbench.core import grid_planning


def _plain_same_trial(a: Trial, b: Trial) -> bool:
    return a == b


def _plain_run_frames(self: Run) -> list[Frame]:
    return [self.frame(i) for i in range(len(self))]


# trick name -> the (module or class, attribute, plain replacement) it swaps
PLAIN = {
    "trial equality memo": [(pair_rules, "same_trial", _plain_same_trial)],
    "trials as runs": [(Trial, "runs", property(lambda self: None))],
    "one frame per agent position": [(Run, "frames", _plain_run_frames)],
}


def timed(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3, help="pairs per evaluation task")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    split = SPLITS["eval"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, "eval", episodes=args.episodes, seed=args.seed, video=False,
                 show_progress=False)
        pairs = [p for p in find_pairs(root) if p.expected and p.unexpected]
        files = [path for p in pairs for path in (p.expected, p.unexpected)]
        jobs = make_jobs(split, list(split.tasks), dict.fromkeys(split.tasks, args.episodes),
                         args.seed, video=False)

        def build() -> list:
            for cached in (base._planned, base._sprite_at, base._blocks_of, grid_planning._graph):
                cached.cache_clear()  # a real run builds each episode once: no cache hits
            return [build_episode(split.tasks[j.params["task"]], split.shapes, j.seed,
                                  j.params["index"], check=False, side=j.params.get("side"))
                    for j in jobs]

        def built_episodes() -> list[Episode]:
            return [Episode(trials) for b in build()
                    for trials in (b.expected, b.unexpected) if trials is not None]

        loaded = [(p.task, load_episode(p.expected), load_episode(p.unexpected)) for p in pairs]

        def draw() -> None:
            for e in built_episodes()[:6]:
                for _ in episode_frames(e):
                    pass

        def videos() -> None:
            for k, e in enumerate(built_episodes()[:2]):
                write_episode_video(e, root / "videos" / f"{k}.mp4")

        def generate_pairs() -> None:
            for k, j in enumerate(jobs):
                b = build_episode(split.tasks[j.params["task"]], split.shapes, j.seed,
                                  j.params["index"], side=j.params.get("side"))  # self-check on
                outcomes = [(b.expected, "e"), (b.unexpected, "u")]
                write_episodes([(Episode(t), root / "json" / f"{k}{s}.json")
                                for t, s in outcomes if t is not None], atomic=False)

        stages: dict[str, list[tuple[str, Callable[[], object]]]] = {
            "trial equality memo": [("validate_pair of the read pairs",
                                     lambda: [validate_pair(t, e, u) for t, e, u in loaded])],
            "trials as runs": [("build + self-check + write JSON, all pairs", generate_pairs)],
            "one frame per agent position": [("build + draw 6 episodes", draw),
                                             ("build + draw + encode 2 videos", videos)],
        }
        print(f"{len(pairs)} pairs, {len(files)} files; best of {args.rounds} rounds, CPU s")
        print(f"{'trick':30} {'timed':40} {'with it':>8} {'plain':>8} {'plain/with':>10}")
        for trick, swaps in PLAIN.items():
            for label, work in stages[trick]:
                best = {"with": float("inf"), "plain": float("inf")}
                for _ in range(args.rounds):
                    best["with"] = min(best["with"], timed(work))
                    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in swaps]
                    try:
                        for owner, name, plain in swaps:
                            setattr(owner, name, plain)
                        best["plain"] = min(best["plain"], timed(work))
                    finally:
                        for owner, name, value in saved:
                            setattr(owner, name, value)
                print(f"{trick:30} {label:40} {best['with']:8.3f} {best['plain']:8.3f} "
                      f"{best['plain'] / best['with']:10.2f}")


if __name__ == "__main__":
    main()

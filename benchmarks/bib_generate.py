"""BIB generation speed: episodes per second with and without video, and where the time goes.

    nice -n 10 python benchmarks/bib_generate.py [--episodes 2] [--split eval] [--tasks a,b]
                                                 [--json-only]

For ``--episodes`` episodes of every task of the split (one process), it times each stage of a
generation job separately on the same episodes:

* plan + build: the task recipe (layout sampling, planning, motion, typed frames);
* self-check: the validator on every pair (``generate.problems``), which generation runs;
* JSON: ``io.write_episodes`` of each pair as generation writes it (e and u side by side,
  shared trials serialised once, each file written once under its name);
* draw: the frames as ``video.episode_frames`` draws them for ``write_episode_video`` (a frame
  repeated while the agent waits is drawn once), beside ``Renderer.render`` of every frame;
* encode: ``core.video.write_mp4`` of the already drawn frames of every file - the raw encode
  rate of every frame the generator writes (the reference);
* encode once: what the generator does with the same drawn frames (``bib.video``): each
  distinct trial of a pair encoded once (``core.video_segments.encode_segment``, a held frame
  converted to YUV once), then each file muxed from its trials' packets;

then the end-to-end rates through the runner's builder (``generate.build_job``), JSON-only and
with video, and prints them beside the raw encode rate (target: with video >= 1.6 x it; a
pair's two videos share their eight familiarization trials).
``--json-only`` skips the video stages (draw, encode, end-to-end with video).

Last, the whole JSON-only command as a user runs it (``generate.generate``: worker processes,
staging, journal, manifest, audit; wall clock, ``--command-episodes`` per task, ``--workers``
processes, into a fresh folder under ``--dir``), beside its reference in the same run: the same
number of processes only writing files of the same sizes (the disk's and kernel's share, which
no generator can beat). ``--command-episodes 0`` skips it.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import shutil
import tempfile
import time
from pathlib import Path

from socialbench.bib.generate import (
    SPLITS,
    build_episode,
    build_job,
    generate,
    make_jobs,
    parse_tasks,
    problems,
)
from socialbench.bib.io import write_episodes
from socialbench.bib.render import Renderer
from socialbench.bib.schema import FPS, Episode
from socialbench.bib.tasks import base
from socialbench.bib.video import episode_frames, trial_frames
from socialbench.core import grid_planning
from socialbench.core.runner import load_manifest
from socialbench.core.video import write_mp4
from socialbench.core.video_segments import encode_segment, write_segments_mp4


def cold_caches() -> None:
    """Empty the per-process planning and sprite caches, so that timing the same episodes
    twice does not measure cache hits (a real run builds each episode once)."""
    for cached in (base._planned, base._sprite_at, base._blocks_of, grid_planning._graph):
        cached.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=2, help="episodes per task")
    parser.add_argument("--split", default="eval", choices=list(SPLITS))
    parser.add_argument("--tasks", default=None, help="comma-separated task folders")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json-only", action="store_true", help="skip the video stages")
    parser.add_argument("--command-episodes", type=int, default=40,
                        help="episodes per task for the whole-command run (0: skip it)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="worker processes for the whole-command run")
    parser.add_argument("--dir", default=None, help="folder for the whole-command run's files")
    args = parser.parse_args()
    split = SPLITS[args.split]
    tasks = parse_tasks(split, args.tasks)
    jobs = make_jobs(split, tasks, {t: args.episodes for t in tasks}, args.seed, video=False)
    n = len(jobs)

    # CPU time of this process: the machine is shared, so wall time measures the neighbours too
    # (the wall-clock rates are printed at the end for reference).
    clock = time.process_time
    wall0 = time.perf_counter()
    cold_caches()
    # Stages run with the garbage collector paused, as a generation job does
    # (generate._gc_paused): here every episode is in memory at once, and the collector's passes
    # over them would otherwise be timed as the stages' cost.
    gc.disable()
    t0 = clock()
    built = [build_episode(split.tasks[j.params["task"]], split.shapes, j.seed, j.params["index"],
                           check=False, side=j.params.get("side")) for j in jobs]
    t_build = clock() - t0
    t0 = clock()
    for j, b in zip(jobs, built, strict=True):
        problems(split.tasks[j.params["task"]], b)
    t_check = clock() - t0
    pairs = []
    for b in built:
        pairs.append([Episode(b.expected, "bench", None, True)])
        if b.unexpected is not None:
            pairs[-1].append(Episode(b.unexpected, "bench", None, False))
    episodes = [e for pair in pairs for e in pair]
    frames_total = sum(len(t) for e in episodes for t in e.trials)

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        root = Path(tmp)
        t0 = clock()
        for i, pair in enumerate(pairs):
            write_episodes([(e, root / f"{i}{'eu'[k]}.json") for k, e in enumerate(pair)],
                           atomic=False)
        t_json = clock() - t0

        # Draw and encode one file at a time (holding every drawn frame would take gigabytes),
        # timing the two stages apart.
        gc.enable()
        t_draw_plain = t_draw = t_encode = 0.0
        t_once, t_once_plain = _encode_once(root, [] if args.json_only else pairs)
        for i, e in enumerate([] if args.json_only else episodes):
            t0 = clock()
            plain = Renderer()
            for t in e.trials:
                for f in t.frames:
                    plain.render(f)
            t1 = clock()  # as generation draws: a held frame is drawn once
            for _ in episode_frames(e):
                pass
            t2 = clock()
            drawn = list(episode_frames(e))  # untimed: the encoder's input, drawn beforehand
            t3 = clock()
            write_mp4(root / f"{i}.mp4", drawn, FPS)
            t4 = clock()
            t_draw_plain, t_draw, t_encode = (t_draw_plain + t1 - t0, t_draw + t2 - t1,
                                              t_encode + t4 - t3)
            del drawn

        cold_caches()
        t0 = clock()
        for job in jobs:
            build_job(job, root / "json-only")  # one staging folder, as in a run
        t_json_only = clock() - t0
        if args.json_only:
            _print_json_only(split.name, n, len(tasks), args.episodes, len(episodes),
                             frames_total, t_build, t_check, t_json, t_json_only)
            whole_command(args, split.name, tasks)
            return
        video_jobs = make_jobs(split, tasks, {t: args.episodes for t in tasks}, args.seed,
                               video=True)
        cold_caches()
        t0 = clock()
        for job in video_jobs:
            build_job(job, root / "video")
        t_video = clock() - t0

    per = 1000.0 / n
    print(f"BIB generation, split {split.name}: {n} episodes ({len(tasks)} tasks x "
          f"{args.episodes}), {len(episodes)} files, {frames_total} frames, one process")
    print(f"  stage costs per episode: plan+build {t_build * per:6.1f} ms | self-check "
          f"{t_check * per:5.1f} ms | JSON write {t_json * per:6.1f} ms | draw "
          f"{t_draw * per:6.1f} ms | encode {t_encode * per:6.1f} ms")
    print(f"  frames/s: draw {frames_total / t_draw:8.0f} (every frame drawn: "
          f"{frames_total / t_draw_plain:.0f}) | encode {frames_total / t_encode:8.0f}")
    raw = n / t_encode
    print(f"  reference, raw encode of every frame written: {raw:6.2f} episodes/s")
    print(f"  encode once (each distinct trial of a pair once, then muxed): {n / t_once:6.2f} "
          f"episodes/s ({t_encode / t_once:.2f} x raw encode; sharing alone, every frame "
          f"converted to YUV: {t_encode / t_once_plain:.2f} x)")
    print(f"  end-to-end with video : {n / t_video:6.2f} episodes/s "
          f"({(n / t_video) / raw:.2f} x raw encode; target >= 1.6 x)")
    print(f"  end-to-end JSON only  : {n / t_json_only:6.2f} episodes/s "
          "(one process; the target is the whole command's); "
          f"of which plan+build alone {n / t_build:6.1f} episodes/s")
    print(f"  JSON-only, stage sum (build + check + JSON): "
          f"{n / (t_build + t_check + t_json):6.2f} episodes/s (the rest of a job: its _meta "
          "file, folders, renames)")
    print(f"  (CPU-time rates; whole script: {time.perf_counter() - wall0:.0f} s wall, "
          f"{time.process_time():.0f} s CPU)")
    whole_command(args, split.name, tasks)


def _encode_once(root: Path, pairs: list[list[Episode]]) -> tuple[float, float]:
    """CPU seconds to encode each pair's distinct trials once (frames drawn beforehand, untimed)
    and mux its files, as ``bib.video.write_episode_videos`` does; and the same with every frame
    converted to YUV (each frame a new view: the share of trials alone)."""
    total = plain = 0.0
    for i, pair in enumerate(pairs):
        renderer = Renderer()
        drawn = {id(t): list(trial_frames(t, renderer)) for e in pair for t in e.trials}
        for views in (False, True):
            t0 = time.process_time()
            segments = {key: encode_segment((f[...] for f in frames) if views else frames, FPS)
                        for key, frames in drawn.items()}
            for k, e in enumerate(pair):
                write_segments_mp4(root / f"once{i}{'eu'[k]}.mp4",
                                   [segments[id(t)] for t in e.trials], FPS)
            elapsed = time.process_time() - t0
            if views:
                plain += elapsed
            else:
                total += elapsed
        del drawn
    return total, plain


def _print_json_only(split: str, n: int, n_tasks: int, per_task: int, files: int, frames: int,
                     t_build: float, t_check: float, t_json: float, t_json_only: float) -> None:
    per = 1000.0 / n
    print(f"BIB generation, split {split}: {n} episodes ({n_tasks} tasks x {per_task}), "
          f"{files} files, {frames} frames, one process, JSON only")
    print(f"  stage costs per episode: plan+build {t_build * per:6.1f} ms | self-check "
          f"{t_check * per:5.1f} ms | JSON write {t_json * per:6.1f} ms")
    print(f"  end-to-end JSON only  : {n / t_json_only:6.2f} episodes/s "
          "(one process; the target is the whole command's); "
          f"of which plan+build alone {n / t_build:6.1f} episodes/s")
    print(f"  JSON-only, stage sum (build + check + JSON): "
          f"{n / (t_build + t_check + t_json):6.2f} episodes/s")
    print(f"  (CPU-time rates; whole script: {time.process_time():.0f} s CPU)")


def whole_command(args: argparse.Namespace, split: str, tasks: list[str]) -> None:
    """Wall-clock rate of the JSON-only command with worker processes, and of only writing
    files of the same sizes with as many processes."""
    if args.command_episodes <= 0:
        return
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        out = Path(tmp) / "dataset"
        os.sync()  # earlier runs' dirty pages are not this run's to write back
        t0 = time.perf_counter()
        generate(out, split, tasks=tasks, episodes=args.command_episodes, seed=args.seed,
                 workers=args.workers, video=False, show_progress=False)
        t_command = time.perf_counter() - t0
        files = load_manifest(out)["files"]
        sizes = [record["bytes"] for rel, record in sorted(files.items())]
        total = sum(sizes)
        shutil.rmtree(out)
        os.sync()
        t0 = time.perf_counter()
        with multiprocessing.get_context("fork").Pool(args.workers) as pool:
            pool.starmap(_write_sized, [(Path(tmp) / "raw", k, size)
                                        for k, size in enumerate(sizes)], chunksize=8)
        t_raw = time.perf_counter() - t0
    pairs = args.command_episodes * len(tasks)
    print(f"  whole command, {args.workers} workers, {pairs} episodes ({total / 2**30:.2f} GiB): "
          f"{t_command:.2f} s = {pairs / t_command:.1f} episodes/s wall (target >= 100)")
    print(f"  reference, {args.workers} processes only writing files of the same sizes: "
          f"{t_raw:.2f} s = {pairs / t_raw:.1f} episodes/s ({total / 2**20 / t_raw:.0f} MiB/s)")


_BLOCK = bytes(range(256)) * 1024  # 256 KiB written over and over


def _write_sized(folder: Path, k: int, size: int) -> None:
    path = folder / f"{k % 16}" / f"{k}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb", buffering=0) as handle:
        for start in range(0, size, len(_BLOCK)):
            handle.write(_BLOCK[:min(len(_BLOCK), size - start)])


if __name__ == "__main__":
    main()

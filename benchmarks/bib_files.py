"""Speed of BIB file reading, writing, rendering and video, beside references from the same run.

    python benchmarks/bib_files.py [--file PATH] [--rounds 3]

On one released sample (~2 MB, 1,300+ frames):
* read: ``load_episode`` vs the references ``json.loads`` and ``orjson.loads`` of the same
  bytes (plain parses, no typed frames; ``load_episode`` parses each distinct walls text once);
* write: ``episode_to_json`` vs the reference ``json.dumps`` of the parsed JSON value;
* render: frames/s of ``Renderer.render`` (static layer cached per trial) vs the reference of a
  fresh renderer per frame (everything redrawn, glyph masks still cached);
* video: frames/s of ``write_episode_video`` vs the reference ``write_mp4`` of frames rendered
  beforehand (the H.264 encoder alone).
Rounds alternate the measured and reference code so a busy machine slows them alike; the best
round of each is reported.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from socialbench.bib.io import episode_to_json, load_episode
from socialbench.bib.io.fast_json import orjson
from socialbench.bib.render import Renderer
from socialbench.bib.schema import FPS
from socialbench.bib.video import write_episode_video
from socialbench.core.video import write_mp4

SAMPLE = Path("/work/shared/data/bib_real_samples/000010loe.json")


def best(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=SAMPLE)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    data = args.file.read_bytes()
    episode = load_episode(args.file)
    frames = [f for trial in episode.trials for f in trial.frames]
    value = json.loads(data)
    n = len(frames)
    print(f"{args.file.name}: {len(data) / 1e6:.1f} MB, {n} frames")

    t_load = best(lambda: load_episode(args.file), args.rounds)
    t_json = best(lambda: json.loads(data), args.rounds)
    t_orjson = best(lambda: orjson.loads(data), args.rounds) if orjson else float("nan")
    print(f"read    load_episode {t_load * 1e3:7.1f} ms   reference json.loads  "
          f"{t_json * 1e3:7.1f} ms   orjson.loads {t_orjson * 1e3:6.1f} ms")
    t_dump = best(lambda: episode_to_json(episode), args.rounds)
    t_dumps = best(lambda: json.dumps(value), args.rounds)
    print(f"write   episode_to_json {t_dump * 1e3:4.1f} ms   reference json.dumps  "
          f"{t_dumps * 1e3:7.1f} ms")

    renderer = Renderer()
    t_cached = best(lambda: [renderer.render(f) for f in frames], args.rounds)
    t_fresh = best(lambda: [Renderer().render(f) for f in frames], args.rounds)
    print(f"render  cached {n / t_cached:9.0f} frames/s   reference redraw every frame "
          f"{n / t_fresh:7.0f} frames/s")

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "v.mp4"
        images = [renderer.render(f) for f in frames]
        t_video = best(lambda: write_episode_video(episode, out), args.rounds)
        t_encode = best(lambda: write_mp4(out, images, FPS), args.rounds)
    print(f"video   write_episode_video {n / t_video:5.0f} frames/s   reference encode only "
          f"{n / t_encode:5.0f} frames/s")


if __name__ == "__main__":
    main()

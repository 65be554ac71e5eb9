"""The real BIB trials walked again by our planner on their own layouts, printed and drawn.

    python scripts/bib_real_replay.py [--out docs/img/bib/real_replay.png]

Prints how many of the real samples' distinct trials our planner and motion reproduce frame for
frame, and up to where the first of the two walks stops; the agent's steps of the real walks, of
ours and of ours with the earlier motion (no 1-px step at turns: ``--scene-style released-v1``);
and how far from its goal's centre the real agent stops, per goal icon. Draws one tile
per trial: walls (grey), the real track (red dots), ours (blue line), the A* cell path (green)
and the goal (magenta square).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from PIL import Image, ImageDraw

from socialbench.bib.replay import (
    RealTrial,
    real_trials,
    replay,
    same_route,
    step_shares,
    stop_distances,
)
from socialbench.bib.schema import CELL, GRID
from socialbench.bib.world import blocked_grid
from socialbench.core.grid_planning import astar

REAL = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "bib_real_samples"
SCALE = 2
LABEL = 14
SIDE = GRID * CELL * SCALE


def _tile(trial: RealTrial, ours) -> Image.Image:
    image = Image.new("RGB", (SIDE, SIDE + LABEL), "white")
    draw = ImageDraw.Draw(image)

    def at(x: float, y: float) -> tuple[float, float]:  # y up -> image rows
        return x * SCALE, (GRID * CELL - y) * SCALE + LABEL

    for c, r in trial.walls:
        x0, y0 = at(c * CELL, (r + 1) * CELL)
        draw.rectangle([x0, y0, x0 + CELL * SCALE - 1, y0 + CELL * SCALE - 1], fill=(90, 90, 90))
    start = trial.track[0]
    cells = astar(blocked_grid(trial.walls), (int(start[0]) // CELL, int(start[1]) // CELL),
                  (trial.goal[0] // CELL, trial.goal[1] // CELL)) or []
    if len(cells) > 1:
        draw.line([at(c * CELL + CELL / 2, r * CELL + CELL / 2) for c, r in cells],
                  fill=(0, 170, 0))
    gx, gy = trial.goal
    draw.rectangle([*at(gx - 9, gy + 9), *at(gx + 9, gy - 9)], outline=(255, 0, 255))
    draw.line([at(float(x), float(y)) for x, y in ours], fill=(0, 0, 255))
    for x, y in trial.track:
        draw.point(at(float(x), float(y)), fill=(255, 0, 0))
    mark = "=" if len(ours) == len(trial.track) and (ours == trial.track).all() else (
        "~" if same_route(trial.track, ours) else "x")
    draw.text((2, 1), f"{trial.name} t{trial.index} {mark}", fill="black")
    return image


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, default=REAL)
    parser.add_argument("--out", type=Path, default=Path("docs/img/bib/real_replay.png"))
    args = parser.parse_args()
    trials = list(real_trials(args.real))
    ours = [replay(t) for t in trials]
    exact = sum(len(o) == len(t.track) and bool((o == t.track).all())
                for t, o in zip(trials, ours, strict=True))
    route = sum(same_route(t.track, o) for t, o in zip(trials, ours, strict=True))
    print(f"{len(trials)} distinct real trials: {exact} reproduced frame for frame, "
          f"{route} on the same route up to the first stop")
    earlier = [replay(t, turn_first=None) for t in trials]
    for name, tracks in (("real", [t.track for t in trials]), ("ours", ours),
                         ("ours, released-v1", earlier)):
        shares = step_shares(tracks)
        print(f"steps {name}: " + ", ".join(
            f"{k}: {shares.get(k, 0.0):.1%}" for k in ((0, 2), (1, 2), (2, 2), (0, 1), (1, 1))))
    stops: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for t in trials:
        stops[Path(t.goal_shape).stem].append(stop_distances(t))
    for shape, pairs in sorted(stops.items()):
        last = [a for a, _ in pairs]
        before = [b for _, b in pairs]
        print(f"stop distance, goal {shape}: last frame {min(last):.1f}-{max(last):.1f} px, "
              f"the frame before {min(before):.1f}-{max(before):.1f} px ({len(pairs)} trials)")
    tiles = [_tile(t, o) for t, o in zip(trials, ours, strict=True)]
    cols = 6
    rows = (len(tiles) + cols - 1) // cols
    sheet = Image.new("RGB", (cols * (SIDE + 4), rows * (SIDE + LABEL + 4)), (200, 200, 200))
    for k, tile in enumerate(tiles):
        sheet.paste(tile, ((k % cols) * (SIDE + 4), (k // cols) * (SIDE + LABEL + 4)))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

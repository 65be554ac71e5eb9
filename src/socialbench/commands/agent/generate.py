"""`socialbench agent generate`."""

from __future__ import annotations

import os
from pathlib import Path

import click

from socialbench.commands.backend import backend_options
from socialbench.core.errors import UserError


def _resolution(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UserError(f"--resolution {text!r} is not WIDTHxHEIGHT, e.g. 200x200") from None
    return width, height


@click.command(name="generate")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Dataset folder (created; re-running the same command resumes).")
@click.option("--split", type=click.Choice(["train", "validation", "test"]), default=None,
              help="Only this split (default: all three).")
@click.option("--types", default=None,
              help="Comma-separated trial types, e.g. 2.1,4.2 (default: all 13).")
@click.option("--scale", type=float, default=1.0, show_default=True,
              help="Fraction of the paper's counts (1 = 1,920 train / 480 validation trials, "
                   "480 test pairs: the paper's 960 test trials); every type and split keeps "
                   "at least one trial.")
@click.option("--seed", type=int, default=0, show_default=True, help="Root seed.")
@click.option("--workers", type=int, default=os.cpu_count() or 1, show_default="one per CPU",
              help="Worker processes (the files do not depend on it).")
@click.option("--render/--no-render", default=False, show_default=True,
              help="Also write RGB, depth and segmentation frames and an mp4 per video.")
@click.option("--resolution", default="320x320", show_default=True,
              help="Rendered frame size WIDTHxHEIGHT (even numbers).")
@click.option("--frames", "frame_format", type=click.Choice(["npz", "png", "none"]),
              default="npz", show_default=True, help="Rendered per-frame arrays' format.")
@click.option("--extended-shapes", is_flag=True,
              help="Goal objects from the unseen-shape set (pyramid, bowl, cylinder, "
                   "octahedron) instead of the basic shapes.")
@click.option("--camera", type=click.Choice(["ours", "released"]), default="ours",
              show_default=True,
              help="ours: frames the lane, goals whole; released: the released generator's "
                   "fixed cameras (docs/agent.md, Coordinates and cameras).")
@click.option("--states", type=click.Choice(["columns", "rows"]), default="columns",
              show_default=True,
              help="state_info.json layout: columns (each entity once, ~25x smaller) or rows "
                   "(every entity's row and 3D box in every frame, as before; docs/agent.md, "
                   "Files).")
@backend_options()
def generate(out_dir: Path, split: str | None, types: str | None, scale: float, seed: int,
             workers: int, render: bool, resolution: str, frame_format: str,
             extended_shapes: bool, camera: str, states: str) -> None:
    """Generate AGENT trials (PyBullet physics) in the released folder layout."""
    from socialbench.agent3d.generate import SPLITS, parse_types
    from socialbench.agent3d.generate import generate as run
    from socialbench.agent3d.render import RenderOptions

    options = None
    if render:
        width, height = _resolution(resolution)
        options = RenderOptions(width=width, height=height, frames=frame_format)  # type: ignore[arg-type]
    manifest = run(out_dir, seed=seed, types=parse_types(types),
                   splits=(split,) if split else SPLITS, scale=scale, workers=workers,
                   render=options, extended=extended_shapes, camera=camera, states=states)
    trials = len(manifest["jobs"])
    click.echo(f"{trials} trials, {len(manifest['files'])} files in {out_dir} "
               f"(manifest.json has their checksums)")

"""BIB 3D videos (``--render 3d``): the same frame states drawn by PyBullet; one frame per JSON
frame at 200 x 200; walls where the camera projects them; a removed barrier gone, a carried
key with the agent; deterministic files; the 2D default untouched."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pybullet")

from socialbench.bib import generate as gen  # noqa: E402
from socialbench.bib.io import load_episode  # noqa: E402
from socialbench.bib.render3d import CAMERA, WALL_COLOR, Renderer3D, object_body  # noqa: E402
from socialbench.bib.schema import CELL, Block, Episode, Frame, Sprite, Trial  # noqa: E402
from socialbench.bib.validate import check_video, validate_dataset  # noqa: E402
from socialbench.bib.video import write_episode_videos  # noqa: E402
from socialbench.core.errors import UserError  # noqa: E402
from socialbench.core.video import read_mp4  # noqa: E402

AGENT = "./shapes/train/agents/kite.png"
OBJECT = "./shapes/train/objects/heart.png"
KEY = "./shapes/key.png"
HOME = "./shapes/home.png"


def project(point: tuple[float, float, float], size: int = 200) -> tuple[int, int]:
    """(row, column) of a scene point in the 3D camera's image (a pinhole model of CAMERA,
    written independently of PyBullet's matrices)."""
    eye, target = np.array(CAMERA.eye), np.array(CAMERA.target)
    forward = (target - eye) / np.linalg.norm(target - eye)
    right = np.cross(forward, CAMERA.up)
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    d = np.array(point) - eye
    focal = (size / 2) / np.tan(np.radians(CAMERA.fov_deg) / 2)
    x, y, z = d @ right, d @ up, d @ forward
    return int(round(size / 2 - focal * y / z)), int(round(size / 2 + focal * x / z))


def scene(walls: tuple[Block, ...] = (), fuse: tuple[Block, ...] = (), agent_x: int = 24,
          key: bool = False) -> Frame:
    agent = Sprite(agent_x, 24, 7, AGENT, (0, 0, 128))
    keys = (Sprite(agent_x + 2, 40, 5, KEY, (255, 215, 0)),) if key else ()
    return Frame(walls=walls, objects=(Sprite(150, 150, 9, OBJECT, (220, 20, 60)),),
                 agent=agent, home=Sprite(20, 20, 8, HOME, (255, 105, 180)), fuse_walls=fuse,
                 key=keys)


def cell_top(col: int, row: int) -> tuple[float, float, float]:
    return col + 0.5, row + 0.5, 0.9


@pytest.fixture(scope="module")
def renderer():
    with Renderer3D() as r:
        yield r


def test_a_wall_block_appears_where_the_camera_projects_it(renderer):
    row, col = project(cell_top(4, 6))
    renderer.reset()
    walled = renderer.render(scene(walls=(Block(4 * CELL, 6 * CELL),)))
    renderer.reset()
    empty = renderer.render(scene())
    assert walled.shape == (200, 200, 3) and walled.dtype == np.uint8
    patch = walled[row - 2:row + 3, col - 2:col + 3].astype(int)
    assert patch.max() < 120, "the wall's top is dark, as the 2D walls are black"
    assert abs(patch.mean() - np.mean(WALL_COLOR)) < 60
    assert empty[row - 2:row + 3, col - 2:col + 3].min() > 180, "there the floor is light"


def test_a_removed_barrier_disappears_and_a_carried_key_moves(renderer):
    barrier = (Block(6 * CELL, 3 * CELL),)
    row, col = project(cell_top(6, 3))
    renderer.reset()
    with_barrier = renderer.render(scene(fuse=barrier)).astype(int)
    without = renderer.render(scene()).astype(int)  # same trial: the barrier body is hidden
    r, g, b = with_barrier[row, col]
    assert g > r + 60 and g > b + 60, "the barrier is green"
    assert without[row, col].min() > 180, "a removed barrier leaves the floor"
    renderer.reset()
    fresh = renderer.render(scene())
    assert np.array_equal(without, fresh), "a frame's pixels depend on its state alone"

    def gold(image: np.ndarray) -> np.ndarray:
        cols = np.nonzero(((image[..., 0] > 150) & (image[..., 1] > 120)
                           & (image[..., 2] < 80)).any(axis=0))[0]
        return cols.mean()

    renderer.reset()
    before = gold(renderer.render(scene(key=True, agent_x=24)))
    after = gold(renderer.render(scene(key=True, agent_x=104)))
    assert after - before > 3.0, "the key moved right with the agent"


def test_object_bodies_follow_the_shape_class():
    assert object_body(OBJECT) == "cylinder"
    assert object_body("./shapes/train/objects/cross.png") == "box"
    assert object_body("./shapes/x/objects/never_seen.png") == object_body(
        "./shapes/y/objects/never_seen.png")


def short_episode() -> Episode:
    built = gen.build_episode(gen.SPLITS["eval"].tasks["instrumental_blocking_barrier"],
                              gen.SPLITS["eval"].shapes, seed=3, index=0)
    test = built.expected[-1]
    frames = test.frames
    picks = [frames[0], frames[len(frames) // 2], frames[-1]]
    trials = [Trial([f] * 3) for f in picks]  # three short trials from one real one
    return Episode(trials=trials, name="000000ib", task="instrumental_blocking_barrier",
                   expected=True)


def test_3d_video_frames_count_size_and_bytes_repeat(tmp_path: Path):
    episode = short_episode()
    paths = [tmp_path / "a.mp4", tmp_path / "b.mp4"]
    assert write_episode_videos([(episode, paths[0])], render="3d") == [9]
    write_episode_videos([(episode, paths[1])], render="3d")
    assert paths[0].read_bytes() == paths[1].read_bytes()
    frames = read_mp4(paths[0])
    assert frames.shape == (9, 200, 200, 3)
    assert check_video(episode, paths[0], render="3d") == []
    assert check_video(episode, paths[0], render="2d"), "3D pixels are not the 2D drawing"
    write_episode_videos([(episode, tmp_path / "flat.mp4")])
    assert check_video(episode, tmp_path / "flat.mp4") == []
    assert (tmp_path / "flat.mp4").read_bytes() != paths[0].read_bytes()


def test_render_mode_is_checked_and_2d_jobs_unchanged():
    split = gen.SPLITS["eval"]
    flat = gen.make_jobs(split, ["preference"], {"preference": 1}, 0, True)
    assert "render" not in flat[0].params, "2D jobs (and so their files) are as before"
    deep = gen.make_jobs(split, ["preference"], {"preference": 1}, 0, True, render="3d")
    assert deep[0].params["render"] == "3d" and deep[0].seed == flat[0].seed
    with pytest.raises(UserError, match="--render"):
        gen.generate(Path("/nonexistent/never"), render="4d")


@pytest.mark.slow
def test_3d_dataset_same_bytes_whatever_the_workers_and_validates(tmp_path: Path):
    runs = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        gen.generate(out, tasks="preference,instrumental_blocking_barrier", episodes=1,
                     workers=workers, show_progress=False, render="3d")
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["dataset"]["render"] == "3d"
        runs[workers] = manifest["files"]
    assert runs[1] == runs[2]
    out = tmp_path / "w1"
    assert validate_dataset(out) == []
    episode = load_episode(out / "preference" / "000000loe.json")
    assert len(read_mp4(out / "preference" / "000000loe.mp4")) == sum(
        len(t) for t in episode.trials)


def test_cli_offers_render_and_refuses_unknown_modes(tmp_path: Path):
    from click.testing import CliRunner

    from socialbench.cli import main

    made = CliRunner().invoke(main, ["bib", "generate", "--out", str(tmp_path / "d"),
                                     "--render", "4d"])
    assert made.exit_code == 2 and "4d" in made.output
    assert not (tmp_path / "d").exists(), "nothing written"
    assert "--render [2d|3d]" in CliRunner().invoke(main, ["bib", "generate", "--help"]).output

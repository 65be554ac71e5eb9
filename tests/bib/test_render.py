"""BIB pixels: walls and icons where the coordinates say (y up), distinct glyphs, the video."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from socialbench.bib.render import FUSE_COLOR, WALL_COLOR, Renderer, render_frame
from socialbench.bib.schema import Block, Episode, Frame, Sprite, Trial
from socialbench.bib.shapes import NEW, TRAIN, glyph_mask
from socialbench.bib.video import write_episode_video
from socialbench.core.video import read_mp4

PINK = (255, 105, 180)


def frame(**changes) -> Frame:
    base = dict(walls=(Block(100, 160), Block(0, 0)), objects=(), agent=None)
    base.update(changes)
    return Frame(**base)


def test_a_wall_cell_is_black_at_its_flipped_rows() -> None:
    image = render_frame(frame())
    assert image.shape == (200, 200, 3) and image.dtype == np.uint8
    # bottom-left corner (100, 160), y up: rows 200-180 .. 200-160 from the top
    assert (image[20:40, 100:120] == WALL_COLOR).all()
    assert (image[19, 100:120] != WALL_COLOR).any() and (image[40, 100:120] != WALL_COLOR).any()
    assert (image[180:200, 0:20] == WALL_COLOR).all()  # (0, 0) is the bottom-left cell
    assert (image[0:20, 0:20] != WALL_COLOR).any()


def test_fuse_walls_are_green_and_home_is_pink_under_the_agent() -> None:
    home = Sprite(151, 139, 6, "./shapes/home.png", PINK)
    agent = Sprite(151, 139, 6, "./shapes/train/agents/clove.png", (0, 0, 128))
    image = render_frame(frame(fuse_walls=(Block(40, 40),), home=home, agent=agent))
    assert (image[140:160, 40:60] == FUSE_COLOR).all()
    square = image[200 - 139 - 12:200 - 139, 151:163]  # the 12 x 12 px home square
    colours = {tuple(p) for p in square.reshape(-1, 3)}
    assert colours == {PINK, (0, 0, 128)}  # clove leaves the corners pink
    assert tuple(square[0, 0]) == PINK


def test_an_icon_is_its_glyph_in_its_colour_at_its_place() -> None:
    heart = Sprite(40, 10, 9, "./shapes/train/objects/heart.png", (200, 30, 30))
    image = render_frame(frame(walls=(), objects=(heart,)))
    patch = image[200 - 10 - 18:200 - 10, 40:58]
    painted = (patch == (200, 30, 30)).all(axis=2)
    assert (painted == glyph_mask("heart", 18)).all()
    assert painted.sum() > 100 and (image[:150] == 255).all()  # near the bottom, nothing else


def test_glyphs_are_distinct_per_shape_at_icon_sizes() -> None:
    names = TRAIN.objects + TRAIN.agents + NEW.objects + NEW.agents
    assert len(set(names)) == len(names) == 28
    assert not set(TRAIN.objects + TRAIN.agents) & set(NEW.objects + NEW.agents)
    for side, least in ((18, 12), (12, 5)):  # objects: half 9; agents: half 6 (bib spec)
        masks = {n: glyph_mask(n, side) for n in names}
        for n in names:
            assert 0.2 < masks[n].mean() < 0.95, n  # a real silhouette, not a blob or a speck
        for a, b in itertools.combinations(names, 2):
            assert (masks[a] != masks[b]).sum() >= least, (a, b, side)


def test_unknown_shapes_still_render_distinctly() -> None:
    a, b = glyph_mask("never_seen_a", 18), glyph_mask("never_seen_b", 18)
    assert a.any() and (a != b).any()
    assert (glyph_mask("never_seen_a", 18) == a).all()


def test_cached_static_layer_follows_the_frame() -> None:
    renderer = Renderer()
    one = renderer.render(frame(walls=(Block(20, 20),)))
    two = renderer.render(frame(walls=(Block(60, 60),)))
    assert (one[160:180, 20:40] == 0).all() and (two[160:180, 20:40] == 255).all()
    again = renderer.render(frame(walls=(Block(20, 20),)))
    assert (again == one).all()
    again[:] = 7  # frames are fresh arrays: scribbling on one leaves the cache intact
    assert (renderer.render(frame(walls=(Block(20, 20),))) == one).all()


def test_icons_off_the_edge_are_clipped() -> None:
    corner = Sprite(-5, 195, 9, "./shapes/train/objects/moon.png", (1, 2, 3))
    image = render_frame(frame(walls=(), objects=(corner,)))
    assert image.shape == (200, 200, 3)


@pytest.fixture
def short_episode() -> Episode:
    agent = "./shapes/train/agents/kite.png"
    trials = [Trial([frame(agent=Sprite(20 + 2 * f, 100, 6, agent, (0, 0, 255)))
                     for f in range(3 + t)]) for t in range(9)]
    return Episode(trials=trials, name="short")


def test_video_has_every_frame_at_200_px(tmp_path: Path, short_episode: Episode) -> None:
    path = tmp_path / "v" / "shorte.mp4"
    count = write_episode_video(short_episode, path)
    assert count == sum(len(t) for t in short_episode.trials) == 63
    video = read_mp4(path)
    assert video.shape == (63, 200, 200, 3)
    # decoded frames look like the renderer's (H.264 is lossy: compare means)
    expected = render_frame(short_episode.trials[8].frames[-1]).astype(float)
    assert np.abs(video[-1].astype(float) - expected).mean() < 3
    assert [p.name for p in path.parent.iterdir()] == ["shorte.mp4"]


def test_same_episode_gives_byte_identical_video(tmp_path: Path, short_episode: Episode) -> None:
    write_episode_video(short_episode, tmp_path / "ae.mp4")
    write_episode_video(short_episode, tmp_path / "be.mp4")
    assert (tmp_path / "ae.mp4").read_bytes() == (tmp_path / "be.mp4").read_bytes()


def test_a_repeated_frame_is_drawn_once_with_the_same_pixels() -> None:
    """The one video path (write_episode_video -> episode_frames): a Frame object repeated in a
    row (the generator shares one while the agent waits) is drawn once."""
    from socialbench.bib.generate import build_episode
    from socialbench.bib.tasks import EVAL_TASKS
    from socialbench.bib.video import episode_frames

    class Counting(Renderer):
        calls = 0

        def render(self, frame: Frame) -> np.ndarray:
            Counting.calls += 1
            return super().render(frame)

    b = build_episode(EVAL_TASKS["preference"], TRAIN, 5, 0)
    trial = b.expected[0]
    episode = Episode([trial])
    images = list(episode_frames(episode, Counting()))
    runs = 1 + sum(a is not b for a, b in itertools.pairwise(trial.frames))
    assert Counting.calls == runs < len(trial.frames) / 2
    plain = Renderer()
    for frame, image in zip(trial.frames, images, strict=True):
        assert np.array_equal(image, plain.render(frame))
        assert not image.flags.writeable

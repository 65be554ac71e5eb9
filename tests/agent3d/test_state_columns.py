"""state_info.json's two layouts: ``columns`` (the default: each entity once) and ``rows`` (every
entity's full row in every frame, as before). Both read back as the same states; old files
(rows) stay readable; a damaged columns file gives a one-line error."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from socialbench.agent3d import io
from socialbench.agent3d.io import load_trial, load_video, state_info_text, states_text, write_trial
from socialbench.agent3d.samples import sample_trial, walk_video
from socialbench.agent3d.state_columns import LAYOUTS, entity_order
from socialbench.agent3d.visibility import camera_view
from socialbench.core.errors import DataFileError


def _view(video):
    """A camera's view: some frames leave out the agent (as scenario 3's files do)."""
    agent = next(s.id for s in video.config.entities if s.kind == "agent")
    return replace(video, frames=[[s for s in frame if s.id != agent or t % 3]
                                  for t, frame in enumerate(video.frames)])


def test_columns_is_the_default_and_rows_the_former_bytes():
    video = walk_video()
    assert LAYOUTS[0] == "columns"
    assert json.loads(states_text(video))["layout"] == "columns"
    assert states_text(video, "rows") == state_info_text(video)  # the former layout, exactly
    with pytest.raises(ValueError, match="unknown state layout"):
        states_text(video, "tiles")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_both_layouts_read_back_the_written_trial(tmp_path, layout):
    trial = sample_trial("test")
    write_trial(trial, tmp_path / layout, states=layout)
    assert load_trial(tmp_path / layout, annotations=True) == trial


def test_the_layouts_hold_the_same_states_also_for_a_camera_view(tmp_path):
    occluded = walk_video(scenario=3, trial_type="3.1")  # written as the camera sees it
    videos = [walk_video(), _view(walk_video()), occluded]
    for k, video in enumerate(videos):
        shown = camera_view(video) if video is occluded else video
        for layout in LAYOUTS:
            folder = tmp_path / f"{k}_{layout}" / "expected"
            io.write_video(video, folder, truth=folder.parent / "truth" / "expected",
                           states=layout)
            assert load_video(folder).frames == shown.frames, (k, layout)
            if video is occluded:
                assert load_video(folder.parent / "truth" / "expected").frames == video.frames
    # a static body is stored once; the file is several times smaller
    info = json.loads((tmp_path / "0_columns" / "expected" / "state_info.json").read_text())
    rows = {entry["id"]: len(entry["rows"]) for entry in info["states"]}
    frames = len(videos[0].frames)
    assert sorted(rows.values()) == [1, 1, 1, frames]  # floor, goal, obstacle; the agent
    sizes = [(tmp_path / f"0_{layout}" / "expected" / "state_info.json").stat().st_size
             for layout in ("columns", "rows")]
    assert sizes[0] * 4 < sizes[1]
    # runs of frames: the view leaves the agent out of every third frame
    view = json.loads((tmp_path / "1_columns" / "expected" / "state_info.json").read_text())
    agent = next(e for e in view["states"] if e["class"] == "agent")
    assert agent["frames"][:2] == [[1, 3], [4, 6]]


def test_frames_in_no_single_order_are_written_as_rows(tmp_path):
    video = walk_video()
    swapped = replace(video, frames=[video.frames[0], list(reversed(video.frames[1]))])
    assert entity_order(swapped.frames, [s.id for s in video.config.entities]) is None
    assert states_text(swapped) == state_info_text(swapped)
    io.write_video(swapped, tmp_path / "expected")
    assert load_video(tmp_path / "expected").frames == swapped.frames


def _damage(folder: Path, change) -> None:
    path = folder / "state_info.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: d["states"][1]["rows"][0].__setitem__(0, True), "every row must be a list of 13"),
    (lambda d: d["states"][1]["rows"][0].pop(), "every row must be a list of 13"),
    (lambda d: d["states"][1].__setitem__("frames", [[0, 10 ** 6]]), "increasing runs"),
    (lambda d: d["states"][1].__setitem__("frames", [[5, 3]]), "increasing runs"),
    (lambda d: d["states"][1].__setitem__("frames", [[0, 2]]), "rows for 2 frames"),
    (lambda d: d["states"][1].__setitem__("id", 99), "does not define"),
    (lambda d: d["states"].append(d["states"][1]), "appears twice"),
    (lambda d: d.__setitem__("num_frames", 10 ** 9), "'num_frames' must be"),
    (lambda d: d.__setitem__("states", {}), "'states' must be a list"),
])
def test_a_damaged_columns_file_is_named_in_one_line(tmp_path, change, words):
    folder = tmp_path / "expected"
    io.write_video(walk_video(), folder)
    _damage(folder, change)
    with pytest.raises(DataFileError) as error:
        load_video(folder)
    assert words in str(error.value) and "\n" not in str(error.value)


def test_state_numbers_are_the_fields_in_file_order_and_refuse_a_short_state():
    from socialbench.agent3d.schema import EntityState
    from socialbench.agent3d.state_columns import NUMBERS, state_numbers

    states = [EntityState(1, (0.1, 0.2, 0.3), (0.0, 0.0, 0.6, 0.8), (1.0, 2.0, 3.0),
                          (-1.0, -2.0, -3.0)),
              EntityState(1, (4.0, 5.0, 6.0), (0.0, 0.0, 0.0, 1.0))]
    numbers = state_numbers(states)
    assert numbers.shape == (2, NUMBERS)
    assert numbers[0].tolist() == [0.1, 0.2, 0.3, 0.0, 0.0, 0.6, 0.8, 1.0, 2.0, 3.0,
                                   -1.0, -2.0, -3.0]
    assert numbers[1, 7:].tolist() == [0.0] * 6
    with pytest.raises(ValueError, match="13 numbers"):
        state_numbers([EntityState(1, (0.0, 0.0), (0.0, 0.0, 0.0, 1.0))])

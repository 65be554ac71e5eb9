"""BIB files: the six released samples, the two key/lock conventions, quirks, errors, writing."""

from __future__ import annotations

import functools
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from socialbench.bib import dump_episode, episode_to_json, find_pairs, iter_episodes, load_episode
from socialbench.bib.io import encode, fast_json, read
from socialbench.bib.io.write import dump_episodes
from socialbench.bib.schema import Block, Episode, Sprite, Trial
from socialbench.core.errors import DataFileError, UserError

SAMPLES = Path("/work/shared/data/bib_real_samples")
SAMPLE_NAMES = ["000010loe", "000010lou", "000011loe", "000011lou", "000012loe", "000012lou"]
# Trial lengths counted in the released files.
LENGTHS = {
    "000010loe": [146, 140, 139, 145, 160, 138, 147, 143, 160],
    "000010lou": [146, 140, 139, 145, 160, 138, 147, 143, 137],
    "000011lou": [136, 140, 147, 150, 137, 152, 144, 149, 137],
}

pytestmark = pytest.mark.skipif(not SAMPLES.is_dir(), reason="released BIB samples not present")


def sample(name: str) -> Path:
    return SAMPLES / f"{name}.json"


@functools.cache
def loaded(name: str) -> Episode:
    """Each sample parsed once per session (tests must not change it)."""
    return load_episode(sample(name))


def small_raw(name: str = "000010loe", frames: int = 3) -> list:
    """The first frames of each trial of a released file: small, but real."""
    return [trial[:frames] for trial in json.loads(sample(name).read_text())]


def write(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value))
    return path


# --- the released samples --------------------------------------------------------------------
@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_every_released_sample_loads_as_nine_trials(name: str) -> None:
    episode = loaded(name)
    assert len(episode.trials) == 9
    assert episode.name == name[:-1]
    assert episode.expected is (name[-1] == "e")
    assert episode.task is None  # the samples' folder is not a task folder
    assert episode.meta["convention"] == "pin"
    assert "normalised" not in episode.meta
    if name in LENGTHS:
        assert [len(t) for t in episode.trials] == LENGTHS[name]
    for trial in episode.trials:
        assert all(f.agent is not None and f.home is not None for f in trial.frames)
        assert all(len(f.objects) == 2 for f in trial.frames)


def test_released_frame_values_and_coordinates() -> None:
    frame = loaded("000010loe").trials[0].frames[0]
    assert frame.size == (200, 200)
    assert len(frame.walls) == 48  # 12 listed interior entries + the 36-cell border ring
    assert frame.walls[0] == Block(100, 160, 20, 20)
    assert frame.objects[0] == Sprite(112, 86, 9, "./shapes/train/objects/capsule.png",
                                      (245, 222, 179))
    assert frame.objects[0].center == (121, 95)
    assert frame.objects[1].name == "flag"
    assert frame.home == Sprite(151, 139, 6, "./shapes/home.png", (255, 105, 180))
    assert frame.agent.name == "clove" and frame.agent.half == 6
    assert frame.key == () and frame.lock == () and frame.fuse_walls == ()


def test_expected_and_unexpected_samples_share_familiarization() -> None:
    e, u = loaded("000011loe"), loaded("000011lou")
    assert [t.frames for t in e.familiarization] == [t.frames for t in u.familiarization]
    assert e.test.frames[0] == u.test.frames[0]  # bib spec: test first frames identical
    assert e.test.frames[-1].agent != u.test.frames[-1].agent


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_writing_a_released_file_back_gives_the_same_bytes(name: str) -> None:
    assert episode_to_json(loaded(name)) == sample(name).read_text()


def test_dump_then_load_round_trips(tmp_path: Path) -> None:
    episode = loaded("000012lou")
    out = tmp_path / "preference" / "000012lou.json"
    dump_episode(episode, out)
    again = load_episode(out)
    assert again.trials == episode.trials
    assert again.task == "preference" and again.expected is False
    assert [p.name for p in out.parent.iterdir()] == ["000012lou.json"]  # no temporary left


# --- conventions and quirks ------------------------------------------------------------------
def test_older_key_lock_convention_maps_onto_key_and_lock(tmp_path: Path) -> None:
    raw = small_raw()
    key = [[40, 40], 5, "./shapes/key.png", [255, 215, 0]]
    lock = [[60, 60], 6, "./shapes/lock.png", [255, 215, 0]]
    for trial in raw:
        for frame in trial:
            del frame["pin"]
            frame["key"], frame["lock"] = [key], [lock]
    episode = load_episode(write(tmp_path / "olde.json", raw))
    frame = episode.trials[0].frames[0]
    assert episode.meta["convention"] == "key-lock"
    assert frame.key[0].x == 40 and frame.lock[0].x == 60
    written = json.loads(episode_to_json(episode))[0][0]
    assert written["pin"] == [key] and written["key"] == [lock] and "lock" not in written
    assert list(written) == list(encode.FRAME_KEYS)


def test_newer_pin_convention_pin_is_the_key(tmp_path: Path) -> None:
    raw = small_raw()
    raw[0][0]["pin"] = [[40, 40], 5, "./shapes/key.png", [255, 215, 0]]  # a bare entry
    raw[0][0]["key"] = [[[60, 60], 6, "./shapes/lock.png", [255, 215, 0]]]
    frame = load_episode(write(tmp_path / "newe.json", raw)).trials[0].frames[0]
    assert frame.key[0].x == 40 and frame.lock[0].x == 60


def test_quirky_file_is_normalised(tmp_path: Path) -> None:
    raw = small_raw(frames=4)
    raw[2] = [raw[2]]  # frames nested in an extra list
    raw.insert(5, [])  # an empty top-level entry
    raw.append(small_raw()[0])  # a 10th trial
    del raw[0][0]["agent"]  # agent missing from the first frames
    raw[0][1]["agent"] = []
    for frame in raw[1][:2]:
        frame["objects"] = []  # objects appearing late
    episode = load_episode(write(tmp_path / "quirke.json", raw))
    assert len(episode.trials) == 9
    assert [len(t) for t in episode.trials] == [4] * 9
    first = episode.trials[0].frames
    assert first[0].agent == first[1].agent == first[2].agent
    assert episode.trials[1].frames[0].objects == episode.trials[1].frames[3].objects != ()
    notes = " | ".join(episode.meta["normalised"])
    for expected in ("unwrapped", "empty, dropped", "after the 9th dropped",
                     "agent filled into frames 0-1", "objects filled into frames 0-1"):
        assert expected in notes
    raw_kept = load_episode(tmp_path / "quirke.json", fill_missing=False)
    assert raw_kept.trials[0].frames[0].agent is None


# --- errors: one line naming the file and the problem -----------------------------------------
def error_for(path: Path) -> str:
    with pytest.raises(DataFileError) as info:
        load_episode(path)
    message = str(info.value)
    assert "\n" not in message and path.name in message
    return message


def test_truncated_file_is_named_with_line_and_column(tmp_path: Path) -> None:
    text = sample("000010loe").read_text()
    path = tmp_path / "cute.json"
    path.write_text(text[: len(text) // 2])
    message = error_for(path)
    assert "not valid JSON" in message and "line 1 column" in message and "truncated" in message


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda raw: raw[3][2].__setitem__("agent", [[1, 2], 6, "a.png"]),
     "trial 3 frame 2: 'agent' is not [[x, y], s, path, [r, g, b]]"),
    (lambda raw: raw[0][1]["walls"].__setitem__(0, [[0, 0], 20]),
     "trial 0 frame 1: 'walls' entry 0 is not [[x, y], [w, h]]"),
    (lambda raw: raw[8].__setitem__(0, "frame"), "trial 8 frame 0: is a str, not a frame dict"),
    (lambda raw: raw.__delitem__(slice(4, None)), "has 4 non-empty trials, expected 9"),
    (lambda raw: raw[0][0].__setitem__("objects", {"x": 1}),
     "trial 0 frame 0: 'objects' is not a list of [[x, y], s, path, [r, g, b]]"),
    (lambda raw: raw[1][0]["objects"][0].__setitem__(1, 10**9),
     "trial 1 frame 0: 'objects' entry 0 has half-side 1000000000, expected 0-100 px"),
    (lambda raw: raw[1][1]["agent"].__setitem__(3, [0, 0, 256]),
     "trial 1 frame 1: 'agent' has colour [0, 0, 256], expected [r, g, b] in 0-255"),
    (lambda raw: raw[2][0]["home"][0].__setitem__(0, float("nan")),
     "trial 2 frame 0: 'home' is not [[x, y], s, path, [r, g, b]]"),
])
def test_wrong_structure_names_the_place(tmp_path: Path, mutate, expected: str) -> None:
    raw = small_raw()
    mutate(raw)
    assert expected in error_for(write(tmp_path / "bade.json", raw))


def test_top_level_not_a_list(tmp_path: Path) -> None:
    assert "not a list of trials" in error_for(write(tmp_path / "x.json", {"trials": []}))


def test_empty_and_binary_files(tmp_path: Path) -> None:
    (tmp_path / "empty.json").write_text("")
    assert "is empty" in error_for(tmp_path / "empty.json")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00[")
    error_for(tmp_path / "bin.json")


def test_allocation_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "bige.json", small_raw())
    monkeypatch.setattr(fast_json, "MAX_FILE_BYTES", 100)
    assert "over the 100-byte limit" in error_for(path)
    monkeypatch.undo()
    monkeypatch.setattr(read, "MAX_FRAMES_PER_TRIAL", 2)
    assert "trial 0 has 3 frames, over the limit of 2" in error_for(path)
    many = write(tmp_path / "manye.json", [[] for _ in range(read.MAX_TOP_LEVEL + 1)])
    assert "top-level entries, over the limit" in error_for(many)


# --- dataset roots -----------------------------------------------------------------------------
def released_layout(root: Path) -> Path:
    folder = root / "preference"
    folder.mkdir(parents=True)
    for name in SAMPLE_NAMES[:4]:
        shutil.copy(sample(name), folder / f"{name}.json")
    (root / "_meta").mkdir()
    (root / "_meta" / "000010lo.json").write_text("{}")  # audit files are not episodes
    return root


def test_find_pairs_walks_the_released_layout(tmp_path: Path) -> None:
    pairs = find_pairs(released_layout(tmp_path))
    assert [(p.task, p.name) for p in pairs] == [("preference", "000010lo"),
                                                 ("preference", "000011lo")]
    assert pairs[0].expected.name == "000010loe.json"
    assert pairs[0].unexpected.name == "000010lou.json"
    _, e, u = next(iter(iter_episodes(tmp_path)))
    assert e.expected and u.expected is False and e.task == "preference"


def test_find_pairs_uses_the_manifest_and_refuses_unsafe_paths(tmp_path: Path) -> None:
    root = released_layout(tmp_path)
    record = {"bytes": 1, "sha256": "0" * 64}
    manifest = {"format": "socialbench-manifest/1", "dataset": {}, "jobs": {},
                "files": {"preference/000011loe.json": record}}
    (root / "manifest.json").write_text(json.dumps(manifest))
    assert [(p.name, p.unexpected) for p in find_pairs(root)] == [("000011lo", None)]
    manifest["files"]["../outside/000001loe.json"] = record
    (root / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(UserError, match="unsafe path"):
        find_pairs(root)


# --- the fast writer equals the plain json.dumps path -----------------------------------------
@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_fast_writer_equals_json_dumps_on_released_samples(name: str) -> None:
    episode = loaded(name)
    text = episode_to_json(episode)
    assert text == encode.episode_to_json_reference(episode)
    assert text == sample(name).read_text()


def test_fast_writer_equals_json_dumps_on_generated_episodes() -> None:
    from socialbench.bib.generate import build_episode
    from socialbench.bib.shapes import TRAIN
    from socialbench.bib.tasks import EVAL_TASKS, TRAIN_TASKS

    # A pair (shared familiarization), and key, lock and a barrier removed cell by cell.
    for recipe in (EVAL_TASKS["preference"], TRAIN_TASKS["instrumental_action"]):
        b = build_episode(recipe, TRAIN, 3, 0)
        episodes = [Episode(t) for t in (b.expected, b.unexpected) if t is not None]
        texts = encode.episodes_to_json(episodes)
        assert texts == [encode.episode_to_json_reference(e) for e in episodes]


def test_chunked_file_writer_writes_the_same_bytes(tmp_path: Path) -> None:
    """dump_episodes writes trials as chunks: the files are the texts, byte for byte (a pair
    sharing its familiarization trials, and an episode without trials)."""
    from socialbench.bib.generate import build_episode
    from socialbench.bib.shapes import TRAIN
    from socialbench.bib.tasks import EVAL_TASKS

    b = build_episode(EVAL_TASKS["efficiency_path"], TRAIN, 4, 0)
    episodes = [Episode(b.expected), Episode(b.unexpected), Episode([])]
    paths = [tmp_path / "t" / f"{k}.json" for k in range(3)]
    dump_episodes(list(zip(episodes, paths, strict=True)))
    assert [p.read_text() for p in paths] == encode.episodes_to_json(episodes)
    assert paths[2].read_text() == "[]" and not list(tmp_path.glob("t/.*"))


def test_fast_writer_handles_floats_missing_sprites_and_equal_copies() -> None:
    """Frames that are equal but distinct objects, floats, no home/agent: same text as dumps."""
    episode = loaded("000010loe")
    trial = episode.trials[0]
    frames = [replace(f) for f in trial.frames[:3]]
    frames.append(replace(frames[0], agent=None, home=None))
    frames.append(replace(frames[1], agent=replace(frames[1].agent, x=10.5, y=1e-7)))
    weird = Episode([Trial(frames)] * 9)
    assert episode_to_json(weird) == encode.episode_to_json_reference(weird)


@pytest.mark.parametrize("text", [
    # a walls text shared by two frames, and an empty one
    b'[[{"size": [200, 200], "walls": [[[0, 0], [20, 20]], [[20, 0], [20, 20]]]}, '
    b'{"walls": [[[0, 0], [20, 20]], [[20, 0], [20, 20]]]}], [{"walls": []}]]',
    # "walls" inside a string, and a walls value of another form: not substituted
    b'[{"shape": "a \\"walls\\": [[[1, 2], [3, 4]]]", "walls": [[[[1]]]]}]',
    # a value deeper than a frame: its placeholder is not restored, so the plain parse is used
    b'[{"other": {"walls": [[[0, 0], [20, 20]]]}, "walls": [[[0, 0], [20, 20]]]}]',
    # duplicate keys (the last wins) and a literal placeholder value in the file
    b'[{"walls": [[[0, 0], [20, 20]]], "walls": []}, {"walls": -4611686018427387904}]',
])
def test_shared_walls_parse_equals_plain_json(text: bytes) -> None:
    """The fast parse (each distinct walls text parsed once) gives what json.loads gives."""
    if fast_json.orjson is None:
        pytest.skip("orjson not installed")
    assert fast_json._loads_shared_walls(text) == json.loads(text)


def test_shared_walls_parse_shares_one_value_per_distinct_text() -> None:
    if fast_json.orjson is None:
        pytest.skip("orjson not installed")
    raw = fast_json._loads_shared_walls(sample("000010loe").read_bytes())
    assert raw == json.loads(sample("000010loe").read_bytes())
    assert raw[0][0]["walls"] is raw[0][1]["walls"]


def test_dump_episodes_returns_the_written_files_sha256(tmp_path: Path) -> None:
    """The digests hashed while writing (the generation runner's manifest uses them) are the
    files' SHA-256."""
    import hashlib

    from socialbench.bib.generate import build_episode
    from socialbench.bib.shapes import TRAIN
    from socialbench.bib.tasks import EVAL_TASKS

    b = build_episode(EVAL_TASKS["efficiency_path"], TRAIN, 4, 0)
    paths = [tmp_path / "e.json", tmp_path / "u.json"]
    digests = dump_episodes([(Episode(b.expected), paths[0]),
                                    (Episode(b.unexpected), paths[1])])
    assert digests == [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]

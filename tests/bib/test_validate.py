"""The BIB validator: valid episodes pass, the released samples pass, injected faults are named."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from socialbench.bib import dump_episode, load_episode
from socialbench.bib.schema import Block, Episode, Frame, Sprite, Trial
from socialbench.bib.shapes import HOME_PATH
from socialbench.bib.validate import (
    check_video,
    validate_dataset,
    validate_episode,
    validate_pair,
)
from socialbench.bib.validate.episode import BORDER_RING
from socialbench.bib.video import write_episode_video
from socialbench.commands.bib.validate import validate

SAMPLES = Path("/work/shared/data/bib_real_samples")
KITE = "./shapes/train/agents/kite.png"
CLOVE = "./shapes/train/agents/clove.png"
HOME = Sprite(24, 84, 6, HOME_PATH, (255, 105, 180))  # centre (30, 90)
OBJ_A = Sprite(140, 81, 9, "./shapes/train/objects/heart.png", (255, 0, 0))  # centre (149, 90)
OBJ_B = Sprite(24, 140, 9, "./shapes/train/objects/moon.png", (0, 0, 255))  # centre (33, 149)
WALLS = tuple(Block(x, y) for x, y in sorted(BORDER_RING)) + (Block(100, 140), Block(140, 20))
# The agent's bottom-left corner where it touches each object (centre distance 12 and 12.4).
ENDS = {"A": (131, 84), "B": (24, 131)}


def make_trial(to: str = "A", agent: str = KITE, hold: int = 84, **frame_fields) -> Trial:
    """A valid trial: 31 frames on home, 2 px per frame in a straight line, hold ``hold`` frames."""
    x, y = HOME.x, HOME.y
    path = [(x, y)] * 31  # bib spec: the agent sits on home for the first 31 frames
    ex, ey = ENDS[to]
    while (x, y) != (ex, ey):
        x += max(-2, min(2, ex - x))
        y += max(-2, min(2, ey - y))
        path.append((x, y))
    path += [(ex, ey)] * (hold - 1)  # the arrival frame is the first held frame
    fields = dict(walls=WALLS, objects=(OBJ_A, OBJ_B), home=HOME) | frame_fields
    return Trial([Frame(agent=Sprite(px, py, 6, agent, (0, 0, 128)), **fields)
                  for px, py in path])


def make_pair(test_e: Trial | None = None, test_u: Trial | None = None) -> tuple[Episode, Episode]:
    e = Episode([make_trial() for _ in range(8)] + [test_e or make_trial("A")], "000001xx",
                "preference", True)
    u = Episode([make_trial() for _ in range(8)] + [test_u or make_trial("B")], "000001xx",
                "preference", False)
    return e, u


def nudge(trial: Trial, index: int, **agent_changes) -> None:
    frame = trial.frames[index]
    trial.frames[index] = replace(frame, agent=replace(frame.agent, **agent_changes))


# --- one episode -------------------------------------------------------------------------------
def test_a_valid_synthetic_pair_passes() -> None:
    e, u = make_pair()
    assert validate_episode(e) == [] and validate_episode(u) == []
    assert validate_pair("preference", e, u) == []


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="released BIB samples not present")
def test_the_released_samples_pass_as_preference_pairs() -> None:
    for n in (10, 11, 12):
        e = load_episode(SAMPLES / f"0000{n}loe.json")
        u = load_episode(SAMPLES / f"0000{n}lou.json")
        assert validate_episode(e) == [] and validate_episode(u) == []
        assert validate_pair("preference", e, u) == []


def test_a_teleport_is_caught() -> None:
    e, _ = make_pair()
    nudge(e.trials[4], 60, x=e.trials[4].frames[60].agent.x + 10)
    problems = validate_episode(e)
    assert any(p.startswith("trial 4 frame 60: the agent jumps (12, 0) px") for p in problems)


def test_overlapping_a_wall_is_caught() -> None:
    e, _ = make_pair()
    e.trials[2] = make_trial(walls=WALLS + (Block(60, 80),))
    assert any("trial 2 frame" in p and "overlaps the wall at (60, 80)" in p
               for p in validate_episode(e))
    e.trials[2] = make_trial(fuse_walls=(Block(60, 80),))
    assert any("overlaps the fuse wall at (60, 80)" in p for p in validate_episode(e))


def test_leaving_home_early_moving_at_the_end_and_missing_the_goal_are_caught() -> None:
    e, _ = make_pair()
    nudge(e.trials[0], 5, x=25)
    e.trials[1] = make_trial(hold=40)
    e.trials[2] = Trial(e.trials[2].frames[:100])
    far = replace(OBJ_A, x=160, y=160)
    e.trials[3] = make_trial(objects=(far, replace(OBJ_B, x=40, y=40)))
    problems = validate_episode(e)
    assert problems[0] == ("trial 0 frame 5: the agent is not on home during the first 31 "
                           "frames")
    assert ("trial 1 frame 40: the agent moves during the last 84 frames (it should hold at its "
            "goal)") in problems
    assert "trial 2: 100 frames, expected 115-1000" in problems
    assert any(p.startswith("trial 3: the agent ends 85.2 px from the nearest object")
               for p in problems)


def test_overlapping_objects_and_touching_a_non_goal_object_are_caught() -> None:
    e, _ = make_pair()
    # The other object right beside the goal: the icons overlap and the agent's end touches both.
    beside = replace(OBJ_B, x=128, y=92)  # centre (137, 101): 11 px from the agent's end
    e.trials[1] = make_trial(objects=(OBJ_A, beside))
    # The other object on the way (the agent walks y = 84 from x = 24 to 131): passed through.
    on_the_way = replace(OBJ_B, x=71, y=81)  # centre (80, 90)
    e.trials[2] = make_trial(objects=(OBJ_A, on_the_way))
    problems = validate_episode(e)
    assert "trial 1: objects 0 and 1 overlap" in problems
    assert "trial 1: the agent ends touching 2 objects (its goal is ambiguous)" in problems
    assert any(p.startswith("trial 2 frame") and p.endswith("touches object 1, which is not its "
                                                             "goal") for p in problems)
    assert not any(p.startswith("trial 0") for p in problems)


def test_a_trial_with_a_single_move_is_long_enough() -> None:
    """31 frames on home + 84 held, the arrival frame being the first held one: 115 frames."""
    e, _ = make_pair()
    start = replace(HOME, x=129, y=84)  # centre (135, 90): 14 px from the goal's, not touching
    agent = Sprite(129, 84, 6, KITE, (0, 0, 128))
    frames = [Frame(WALLS, (OBJ_A, OBJ_B), agent, start)] * 31 + [
        Frame(WALLS, (OBJ_A, OBJ_B), replace(agent, x=131), start)] * 84  # ENDS["A"]
    e.trials[4] = Trial(frames)
    assert not any(p.startswith("trial 4") for p in validate_episode(e))
    e.trials[4] = Trial(e.trials[4].frames[1:])
    assert "trial 4: 114 frames, expected 115-1000" in validate_episode(e)


def test_structure_problems_are_caught() -> None:
    e, _ = make_pair()
    assert validate_episode(Episode(e.trials[:8])) == ["8 trials, expected 9"]
    e.trials[5].frames[3] = replace(e.trials[5].frames[3], walls=WALLS[1:])
    problems = validate_episode(e)
    assert "trial 5 frame 3: walls change within the trial" in problems
    e.trials[6] = make_trial(walls=WALLS[5:])
    assert "trial 6: the walls lack 5 border-ring cells" in validate_episode(e)


# --- pairs -------------------------------------------------------------------------------------
def test_broken_familiarization_sharing_is_caught() -> None:
    e, u = make_pair()
    frame = u.trials[3].frames[10]
    u.trials[3].frames[10] = replace(frame, objects=(replace(OBJ_A, color=(1, 1, 1)), OBJ_B))
    problems = validate_pair("preference", e, u)
    assert problems == ["trial 3: the expected and unexpected familiarizations differ (they must "
                        "be shared frame for frame)"]


def test_each_task_rule_is_applied() -> None:
    same_path = make_pair(make_trial("A"), make_trial("A", agent=CLOVE))
    assert validate_pair("multi_agent", *same_path) == []
    assert any("agent paths differ" in p for p in validate_pair("multi_agent", *make_pair()))
    assert any("agent shapes differ" in p for p in validate_pair("preference", *same_path))

    e, u = make_pair(make_trial("A"), make_trial("A"))
    assert validate_pair("efficiency_irrational", e, u) == [
        "the expected and unexpected familiarizations are identical (this task shows different "
        "agents in them)"]
    assert any("agent paths are the same" in p for p in validate_pair("efficiency_path", e, u))
    assert any("walls are the same" in p for p in validate_pair("inaccessible_goal", e, u))
    assert any("test lengths differ" in p for p in validate_pair("efficiency_time", *make_pair()))

    barrier = make_pair(make_trial("A", fuse_walls=(Block(60, 40),)),
                        make_trial("B", fuse_walls=(Block(60, 40),)))
    assert validate_pair("instrumental_inconsequential_barrier", *barrier) == []
    assert validate_pair("instrumental_no_barrier", *barrier) == [
        "test trial: a removable barrier is present (this task has none)"]
    assert any("removable barriers are the same" in p
               for p in validate_pair("instrumental_blocking_barrier", *barrier))


# --- files, videos and the command ---------------------------------------------------------------
@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A valid two-file preference dataset with videos (built once: encoding takes ~1 s)."""
    root = tmp_path_factory.mktemp("bibdata")
    for episode in make_pair():
        path = root / "preference" / f"{episode.name}{'e' if episode.expected else 'u'}.json"
        dump_episode(episode, path)
        write_episode_video(episode, path.with_suffix(".mp4"))
    return root


def copy_of(dataset: Path, tmp_path: Path) -> Path:
    root = tmp_path / "copy"
    shutil.copytree(dataset, root)
    return root


def test_a_valid_dataset_with_videos_passes(dataset: Path) -> None:
    assert validate_dataset(dataset) == []
    episode = load_episode(dataset / "preference" / "000001xxe.json")
    assert check_video(episode, dataset / "preference" / "000001xxe.mp4") == []


def test_missing_and_mismatched_videos_are_caught(dataset: Path, tmp_path: Path) -> None:
    root = copy_of(dataset, tmp_path)
    folder = root / "preference"
    (folder / "000001xxu.mp4").unlink()
    assert validate_dataset(root) == ["000001xxu.mp4: video missing"]
    assert validate_dataset(root, video_check=False) == []
    e = load_episode(folder / "000001xxe.json")
    shorter = Episode(e.trials[:8] + [Trial(e.test.frames[:-5])])
    assert check_video(shorter, folder / "000001xxe.mp4")[0] == (
        f"000001xxe.mp4: video has {sum(map(len, e.trials))} frames, the JSON "
        f"{sum(map(len, shorter.trials))}")
    moved = Episode(e.trials[:8] + [Trial([replace(f, agent=replace(f.agent, x=f.agent.x - 60))
                                          for f in e.test.frames])])
    problems = check_video(moved, folder / "000001xxe.mp4")
    assert len(problems) == 1 and "does not match the JSON" in problems[0]


def test_thin_pure_blue_strokes_pass_as_h264_keeps_them(tmp_path: Path) -> None:
    """Seed 0's second instrumental pair opens on a pure-blue icon whose thin strokes 4:2:0
    colour smears by 50 against the drawn frame; compared as the codec holds colour, it passes."""
    from socialbench.bib.generate import generate

    generate(tmp_path, split="eval", tasks=["instrumental_no_barrier"], episodes=2, seed=0,
             workers=1, show_progress=False)
    assert validate_dataset(tmp_path) == []


def test_manifest_checksums_and_unreadable_files_are_caught(dataset: Path, tmp_path: Path) -> None:
    root = copy_of(dataset, tmp_path)
    files = {}
    for path in sorted(root.rglob("*.*")):
        data = path.read_bytes()
        files[path.relative_to(root).as_posix()] = {
            "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    manifest = {"format": "socialbench-manifest/1", "dataset": {}, "jobs": {}, "files": files}
    (root / "manifest.json").write_text(json.dumps(manifest))
    assert validate_dataset(root, video_check=False) == []
    broken = root / "preference" / "000001xxu.json"
    broken.write_text(broken.read_text()[:-10])
    problems = validate_dataset(root, video_check=False)
    assert problems[0] == "manifest: preference/000001xxu.json: checksum differs from the manifest"
    assert any("000001xxu.json: is not valid JSON" in p for p in problems)


def test_the_command_exits_nonzero_naming_problems_or_prints_ok(dataset: Path,
                                                                 tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(validate, [str(dataset)])
    assert ok.exit_code == 0, ok.output
    last = ok.output.strip().splitlines()[-1]
    assert last.startswith("OK: 2 episode files (1 expected/unexpected pairs)")
    root = copy_of(dataset, tmp_path)
    (root / "preference" / "000001xxu.mp4").unlink()
    bad = runner.invoke(validate, [str(root), "--max-problems", "1"])
    assert bad.exit_code == 1
    assert "000001xxu.mp4: video missing" in bad.output
    assert "1 problem(s)" in bad.output
    missing = runner.invoke(validate, [str(tmp_path / "nope")])
    assert missing.exit_code == 2


def test_first_overlap_names_the_first_frame_when_frames_repeat() -> None:
    """Repeated Frame objects are checked together: the report still names the earliest
    frame."""
    from socialbench.bib.validate.episode import _first_overlap, _segments

    wall = (Block(100, 100),)

    def at(x: float, fuse: tuple[Block, ...] = ()) -> Frame:
        return Frame(walls=wall, objects=(), agent=Sprite(x, 100, 6, "a.png", (0, 0, 0)),
                     fuse_walls=fuse)

    free, hit, fused = at(40), at(90), at(40, fuse=(Block(40, 100),))

    def first(frames: list[Frame]) -> str | None:
        return _first_overlap(_segments(Trial(frames)))

    assert first([free, free, free]) is None
    assert first([free, hit, free, hit]) == "frame 1: the agent overlaps the wall at (100, 100)"
    assert first([free, free, hit, free, hit]).startswith("frame 2: ")
    assert first([free, hit, fused, hit]).startswith("frame 1: the agent overlaps the wall")
    assert first([fused, hit, fused]) == ("frame 0: the agent overlaps the fuse wall at "
                                          "(40, 100)")


def test_overlap_lookup_on_the_cell_grid_equals_comparing_every_block() -> None:
    """The occupancy-grid shortcut for whole-cell blocks finds exactly the squares that the
    block-by-block comparison finds (touching is not overlapping)."""
    import numpy as np

    from socialbench.bib.validate.episode import _overlapping_rows

    rng = np.random.default_rng(0)
    cells = {(int(x), int(y)) for x, y in rng.integers(0, 10, size=(30, 2))}
    walls = tuple(Block(20 * x, 20 * y) for x, y in sorted(cells))
    xy = np.vstack([rng.uniform(-15, 205, size=(4000, 2)),
                    rng.integers(-1, 11, size=(400, 2)) * 20.0])  # squares flush with cells
    side = rng.choice([1.0, 12.0, 18.0, 20.0], size=len(xy))
    fast = _overlapping_rows(walls, xy, side)
    # A far-away block off the grid makes every block be compared one by one.
    slow = _overlapping_rows((*walls, Block(-500, -500, 1, 1)), xy, side)
    assert 0 < len(fast) < len(xy)
    assert np.array_equal(fast, slow)


@pytest.mark.slow  # several seconds of CPU: the default suite keeps its 5-minute budget
def test_validation_reports_the_same_whatever_the_worker_count(tmp_path: Path) -> None:
    """Pairs are checked in worker processes in order: the same problems, the same order, for
    a dataset with faults in several pairs; a --no-video dataset is not asked for videos."""
    from socialbench.bib.generate import generate
    from socialbench.bib.io import find_pairs
    from socialbench.bib.validate import has_videos, validate_dataset

    root = tmp_path / "d"
    generate(root, "eval", tasks="preference,multi_agent", episodes=3, seed=2, video=False,
             show_progress=False)
    assert not has_videos(root, find_pairs(root))
    assert validate_dataset(root, workers=2) == []
    for name in ("preference/000001lou.json", "multi_agent/000002mae.json"):
        path = root / name
        path.write_bytes(path.read_bytes()[:-100])  # truncated
    one = validate_dataset(root, workers=1)
    assert one == validate_dataset(root, workers=2)
    assert len([p for p in one if "is not valid JSON" in p]) == 2

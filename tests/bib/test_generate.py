"""`socialbench bib generate`: layout, determinism across workers, resume, audit, bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from socialbench.bib import generate as gen
from socialbench.bib import load_episode
from socialbench.bib.io.layout import train_validation_split
from socialbench.bib.validate import validate_dataset
from socialbench.cli import main
from socialbench.core.errors import UserError
from socialbench.core.runner import verify_manifest


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


TASKS = "preference,instrumental_blocking_barrier"


def test_layout_names_manifest_and_audit(tmp_path: Path) -> None:
    audit = gen.generate(tmp_path, "eval", tasks=TASKS, episodes=2, seed=1, video=False,
                         show_progress=False)
    names = sorted(tree(tmp_path))
    assert "preference/000000loe.json" in names and "preference/000001lou.json" in names
    assert "instrumental_blocking_barrier/000001ibu.json" in names
    assert "_meta/preference/000000lo.json" in names
    for name in names:
        if name.endswith(".json") and "/" in name and not name.startswith("_"):
            assert re.fullmatch(r"[a-z_]+/\d{6}[a-z]{2}[eu]\.json", name)
    assert verify_manifest(tmp_path) == []
    assert audit["preference"]["episodes"] == 2
    assert json.loads((tmp_path / "audit.json").read_text()) == audit
    meta = json.loads((tmp_path / "_meta/preference/000000lo.json").read_text())
    assert meta["design"]["preferred"].startswith("./shapes/train/objects/")
    episode = json.loads((tmp_path / "preference/000000loe.json").read_text())
    assert len(episode) == 9 and "audit" not in json.dumps(episode[0][0])


def test_same_files_whatever_the_worker_count(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    gen.generate(one, "eval", tasks=TASKS, episodes=3, seed=5, workers=1, video=False,
                 show_progress=False)
    gen.generate(two, "eval", tasks=TASKS, episodes=3, seed=5, workers=2, video=False,
                 show_progress=False)
    assert tree(one) == tree(two)


def test_same_video_bytes_whatever_the_worker_count(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for out, workers in ((one, 1), (two, 2)):
        gen.generate(out, "train", tasks="preference", episodes=2, seed=2, workers=workers,
                     show_progress=False)
    files = tree(one)
    assert "preference/000000npe.mp4" in files and not any(n.endswith("u.json") for n in files)
    assert files == tree(two)


def test_resume_after_a_killed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    options = dict(tasks="preference", episodes=4, seed=3, video=False, show_progress=False)
    gen.generate(clean, "eval", **options)

    real, calls = gen.build_job, []

    def dies_on_third(job, staging):
        calls.append(job.name)
        if len(calls) == 3:
            (staging / "preference").mkdir(parents=True, exist_ok=True)
            (staging / "preference" / "half-written.json").write_text("[")
            raise KeyboardInterrupt
        real(job, staging)

    monkeypatch.setattr(gen, "build_job", dies_on_third)
    with pytest.raises(KeyboardInterrupt):
        gen.generate(killed, "eval", **options)
    assert not (killed / "manifest.json").exists()
    assert not (killed / "preference" / "half-written.json").exists()

    calls.clear()
    monkeypatch.setattr(gen, "build_job", lambda job, staging: (calls.append(job.name),
                                                                 real(job, staging)))
    gen.generate(killed, "eval", **options)
    assert calls == ["preference/000002", "preference/000003"]  # the first two were kept
    assert tree(clean) == tree(killed)


def test_train_validation_split_is_last_fifth_by_sorted_name(tmp_path: Path) -> None:
    names = [f"{i:06d}so" for i in range(10)][::-1]
    train, val = train_validation_split(names)
    assert train == sorted(names)[:8] and val == sorted(names)[8:]
    gen.generate(tmp_path, "train", tasks="single_object", episodes=5, seed=0, video=False,
                 show_progress=False)
    info = json.loads((tmp_path / "manifest.json").read_text())["dataset"]["validation"]
    assert info["first_validation_episode"] == {"single_object": "000004so"}


def test_defaults_are_the_papers_sizes() -> None:
    assert set(gen.SPLITS["eval"].default_episodes.values()) == {1000}
    assert dict(gen.SPLITS["train"].default_episodes) == {
        "single_object": 10_000, "preference": 10_000, "multi_agent": 4_000,
        "instrumental_action": 4_000}


def test_bad_input_is_one_line_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="valid: preference, multi_agent"):
        gen.generate(tmp_path, "eval", tasks="preference,telepathy", episodes=1, video=False)
    with pytest.raises(UserError, match="--episodes"):
        gen.generate(tmp_path, "eval", episodes=0, video=False)
    with pytest.raises(UserError, match="unknown split"):
        gen.generate(tmp_path, "test", episodes=1, video=False)
    result = CliRunner().invoke(main, ["bib", "generate", "--out", str(tmp_path / "x"),
                                       "--tasks", "single_object", "--no-video"])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "single_object" in lines[0] and "valid:" in lines[0]


def test_cli_generates(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["bib", "generate", "--out", str(tmp_path), "--split",
                                       "eval-new-shapes", "--tasks", "multi_agent",
                                       "--episodes", "1", "--no-video", "--seed", "4"])
    assert result.exit_code == 0, result.output
    first = json.loads((tmp_path / "multi_agent/000000mae.json").read_text())[0][0]
    assert first["agent"][2].startswith("./shapes/new/agents/")


def test_an_episode_the_validator_rejects_is_redrawn() -> None:
    real = gen.SPLITS["eval"].tasks["preference"]
    calls: list[int] = []

    def first_one_broken(rng, shapes, index):
        built = real.build(rng, shapes, index)
        calls.append(1)
        if len(calls) == 1:
            built.expected = built.expected[:8]  # a trial missing: invalid
        return built

    flaky = gen.Recipe("preference", "lo", "eval", first_one_broken)
    built = gen.build_episode(flaky, gen.SPLITS["eval"].shapes, 5, 0)
    assert len(built.expected) == 9 and built.meta["attempts"] >= 2
    assert built.meta["rejected"] == ["8 trials, expected 9"]


def test_walls_follow_the_released_order_and_the_border_quirk_is_optional(tmp_path) -> None:
    """Released ``walls``: random cells, then the ring (left column, bottom row, right column,
    top row; (0, 0) twice); with ``border_repeats`` some border cells are also listed among the
    random ones (bib spec), without changing the grid."""
    from socialbench.bib.world import BORDER

    plain = tmp_path / "plain"
    quirk = tmp_path / "quirk"
    released = tmp_path / "released"
    # Off: --border-repeats 0; a fixed number; the released style's default (2-5 a wall list,
    # as in the real samples).
    gen.generate(plain, "eval", tasks="preference", episodes=1, video=False, show_progress=False,
                 border_repeats=0)
    gen.generate(quirk, "eval", tasks="preference", episodes=1, video=False, show_progress=False,
                 border_repeats=3)
    gen.generate(released, "eval", tasks="preference", episodes=1, video=False,
                 show_progress=False)
    ring = [(c[0] * 20, c[1] * 20) for c in BORDER]
    for root, extra in ((plain, {0}), (quirk, {3}), (released, {2, 3, 4, 5})):
        for name in ("000000loe.json", "000000lou.json"):
            episode = load_episode(root / "preference" / name)
            for trial in episode.trials:
                walls = [(b.x, b.y) for b in trial.frames[0].walls]
                assert walls[-len(ring):] == ring
                random_part = walls[:-len(ring)]
                on_border = [w for w in random_part if w in set(ring)]
                assert len(on_border) in extra
    e_plain = load_episode(plain / "preference" / "000000loe.json")
    e_quirk = load_episode(quirk / "preference" / "000000loe.json")
    for a, b in zip(e_plain.trials, e_quirk.trials, strict=True):
        assert {(w.x, w.y) for w in a.frames[0].walls} == {(w.x, w.y) for w in b.frames[0].walls}
        assert a.agent_path == b.agent_path
    assert validate_dataset(quirk, video_check=False) == []


def test_regenerating_in_one_process_gives_the_same_files(tmp_path: Path) -> None:
    """The runner keeps a process's staging folder between jobs: a second run into the same
    (emptied) folder and a run into another folder still work, byte for byte, and leave no
    staging folder behind."""
    import shutil

    options = dict(tasks=TASKS, episodes=2, seed=4, video=False, show_progress=False)
    gen.generate(tmp_path / "a", "eval", **options)
    first = tree(tmp_path / "a")
    shutil.rmtree(tmp_path / "a")
    gen.generate(tmp_path / "a", "eval", **options)
    gen.generate(tmp_path / "b", "eval", **options)
    assert tree(tmp_path / "a") == first == tree(tmp_path / "b")
    assert not list(tmp_path.glob("*/.socialbench-*"))

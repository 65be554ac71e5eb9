"""Pre-tensorised mask shards: built in memory like `bib generate`'s files, resumable, bounded
reads, and the mask model trained from them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from click.testing import CliRunner  # noqa: E402

from socialbench.bib.generate import generate  # noqa: E402
from socialbench.bib.io.read import EpisodeFiles  # noqa: E402
from socialbench.cli import main  # noqa: E402
from socialbench.core.errors import DataFileError, UserError  # noqa: E402
from socialbench.observers.bib import shards as sh  # noqa: E402
from socialbench.observers.bib.evaluation import collect_pairs, evaluate_observer  # noqa: E402
from socialbench.observers.bib.mask import MaskObserver  # noqa: E402
from socialbench.observers.bib.mask_data import ChannelMap, tensorize  # noqa: E402
from socialbench.observers.bib.training import train_from_shards, training_files  # noqa: E402
from socialbench.voe.observer import view_of  # noqa: E402

TASKS = "single_object,instrumental_action"


@pytest.fixture(scope="module", autouse=True)
def single_thread():
    """One PyTorch thread while these tests run (tiny nets; the cores are shared)."""
    saved = torch.get_num_threads()
    try:
        yield torch.set_num_threads(1)
    finally:
        torch.set_num_threads(saved)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """5 episodes of two tasks in shards of 2 (3 shards a task)."""
    root = tmp_path_factory.mktemp("shards")
    sh.build_shards(root, sh.plan_shards(tasks=TASKS, episodes=5, seed=3, shard_size=2),
                    progress=False)
    return root


def test_shards_equal_the_arrays_of_bib_generate_files(built, tmp_path):
    """Same seed: the in-memory episodes are those `bib generate` writes, array for array."""
    generate(tmp_path / "files", "train", tasks=TASKS, episodes=5, seed=3, video=False,
             workers=1, show_progress=False)
    train, validation = training_files([tmp_path / "files"])
    from_files = tensorize(EpisodeFiles(train + validation), ChannelMap())
    shards = sh.ShardSet(built)
    names = [Path(p).name.removesuffix("e.json") for p in train + validation]
    rows = [list(shards.names).index(name) for name in names]
    in_memory = shards.subset(rows).load()
    assert np.array_equal(in_memory.states, from_files.states)
    assert np.array_equal(in_memory.masks, from_files.masks)
    assert list(in_memory.tasks) == list(from_files.tasks)
    # the 80/20 split is the files' one: 4 + 1 episodes per task, the last by name validates
    fit, held = shards.split()
    assert len(fit) == 8 and sorted(held.names) == sorted(names[len(train):])


def test_round_trip_and_batches_across_shards(built):
    shards = sh.ShardSet(built)
    assert len(shards) == 10 and [len(e["names"]) for e in shards.index["shards"]] == [2, 2, 1] * 2
    everything = shards.load()
    order = np.array([9, 0, 5, 2, 7, 3])  # rows of several shards, shuffled
    assert np.array_equal(shards.states[order], everything.states[order])
    assert np.array_equal(shards.masks[order], everything.masks[order])
    part = shards.subset([4, 1])
    assert np.array_equal(part.states[np.array([1, 0])], everything.states[[1, 4]])
    assert everything.masks[:, 8].any(axis=(1, 2)).all()  # every test trial visits cells


def test_resume_rebuilds_only_missing_or_stale_shards(built, tmp_path, monkeypatch):
    plans = sh.plan_shards(tasks=TASKS, episodes=5, seed=3, shard_size=2)
    calls = []
    real = sh._build_one

    def counting(out, plan, channels):
        calls.append(plan.stem)
        if len(calls) == 3:
            raise KeyboardInterrupt  # interrupted while building the third shard
        return real(out, plan, channels)

    monkeypatch.setattr(sh, "_build_one", counting)
    with pytest.raises(KeyboardInterrupt):
        sh.build_shards(tmp_path, plans, progress=False)
    assert len(sh.read_index(tmp_path)["shards"]) == 2  # the finished ones are recorded
    calls.clear()
    monkeypatch.setattr(sh, "_build_one", real)
    monkeypatch.setattr(sh, "_build_one", lambda *a: calls.append(a[1].stem) or real(*a))
    sh.build_shards(tmp_path, plans, progress=False)
    assert calls == [p.stem for p in plans[2:]]  # resumed at the interrupted shard
    for kind in sh.ROW_SHAPES:
        for entry in sh.read_index(tmp_path)["shards"]:
            name = entry["files"][kind]["file"]
            assert (tmp_path / name).read_bytes() == (built / name).read_bytes()
    # a stale key (other generator source, say) is rebuilt; the rest is kept
    index = json.loads((tmp_path / sh.INDEX_NAME).read_text())
    index["shards"][0]["key"] = "stale"
    (tmp_path / sh.INDEX_NAME).write_text(json.dumps(index))
    calls.clear()
    sh.build_shards(tmp_path, plans, progress=False)
    assert calls == [plans[0].stem]


def test_a_shard_claiming_more_than_its_size_is_a_clear_error(built, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(built, copy)
    name = sh.read_index(copy)["shards"][0]["files"]["states"]["file"]
    data = (copy / name).read_bytes()
    (copy / name).write_bytes(data[:-1000])  # header still says 2 episodes
    with pytest.raises(DataFileError, match="header claims 2 episodes"):
        sh.ShardSet(copy)
    index = json.loads((copy / sh.INDEX_NAME).read_text())
    index["shards"][0]["count"] = 10 ** 9
    (copy / sh.INDEX_NAME).write_text(json.dumps(index))
    with pytest.raises(DataFileError):
        sh.ShardSet(copy)
    (copy / sh.INDEX_NAME).write_text("[1, 2")
    with pytest.raises(DataFileError, match="not JSON"):
        sh.ShardSet(copy)
    with pytest.raises(UserError, match="bib shards"):
        sh.ShardSet(tmp_path / "nothing")


def _same_weights(one: MaskObserver, other: MaskObserver) -> bool:
    pairs = zip(one.net.state_dict().values(), other.net.state_dict().values(), strict=True)
    return all(torch.equal(a, b) for a, b in pairs)


def test_mask_trains_from_shards_and_resumes(built, tmp_path):
    out = tmp_path / "mask.pt"
    observer, metrics = train_from_shards("mask", built, out=out, progress=False, epochs=2,
                                          batch_size=4, seed=1)
    history = observer.training_info["history"]
    assert observer.training_info["train_episodes"] == 8
    assert observer.training_info["validation_episodes"] == 2
    assert np.isfinite(metrics["val_loss"]) and history[1]["train_loss"] < history[0]["train_loss"]
    # the same epochs again: nothing to train, the checkpoint comes from the resume state
    again, _ = train_from_shards("mask", built, out=out, progress=False, epochs=2,
                                 batch_size=4, seed=1)
    assert _same_weights(again, observer)
    # one more epoch from the resume state = three epochs in one go
    longer, _ = train_from_shards("mask", built, out=out, progress=False, epochs=3,
                                  batch_size=4, seed=1)
    fresh, _ = train_from_shards("mask", built, out=tmp_path / "fresh.pt", progress=False,
                                 epochs=3, batch_size=4, seed=1)
    assert _same_weights(longer, fresh)
    assert MaskObserver.load(out).training_info["epochs"] == 3


def test_shards_and_train_commands(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["bib", "shards", "--out", str(tmp_path / "s"), "--tasks",
                                  "preference", "--episodes", "5", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "1 shards, 5 episodes" in result.output
    result = runner.invoke(main, ["bib", "train", "--shards", str(tmp_path / "s"), "--out",
                                  str(tmp_path / "m.pt"), "--epochs", "1", "--batch-size", "2",
                                  "--quiet"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "m.pt").is_file()
    result = runner.invoke(main, ["bib", "train", "--out", str(tmp_path / "m.pt")])
    assert result.exit_code != 0 and "either --train DIR" in result.output


@pytest.mark.slow  # several seconds of CPU: the default suite keeps its 5-minute budget
def test_generated_pairs_rate_as_their_files(tmp_path):
    """Pairs built in memory get the ratings `bib evaluate` gives the written files."""
    tasks = "preference,efficiency_path,instrumental_blocking_barrier"
    generate(tmp_path, "eval", tasks=tasks, episodes=2, seed=1, video=False, workers=1,
             show_progress=False)
    torch.manual_seed(0)
    observer = MaskObserver()  # untrained: random weights rate every path differently
    from_files, _ = evaluate_observer(observer, collect_pairs(tmp_path), progress=False)
    in_memory = [(task, name, observer.surprise(view_of(e)), observer.surprise(view_of(u)))
                 for task, name, e, u in sh.generated_pairs("eval", tasks=tasks, episodes=2,
                                                            seed=1)]
    # (a file's rating is named by the expected file's stem, <id>e)
    assert [(r.task, r.name.removesuffix("e"), r.expected, r.unexpected)
            for r in from_files] == in_memory
    assert len({r for _, _, *pair in in_memory for r in pair}) >= 6  # not a constant rating


def test_body_rule_shards_hold_body_masks_and_train_a_body_model(built, tmp_path):
    """`bib shards --visit-rule body`: the masks are tensorize's body masks of the same episodes
    (each a superset of the centre mask), the index records the rule, the keys differ from
    centre shards', and a model trained on them marks visits the same way."""
    plans = sh.plan_shards(tasks=TASKS, episodes=5, seed=3, shard_size=2, visit_rule="body")
    centre_plans = sh.plan_shards(tasks=TASKS, episodes=5, seed=3, shard_size=2)
    assert {p.key for p in plans}.isdisjoint(p.key for p in centre_plans)
    root = tmp_path / "body"
    sh.build_shards(root, plans, progress=False)
    body, centre = sh.ShardSet(root), sh.ShardSet(built)
    assert body.visit_rule == "body" and centre.visit_rule == "centre"
    job = plans[0].jobs[0]
    expected = tensorize(sh.generated_episodes(job)[:1], ChannelMap(), "body")
    assert np.array_equal(body.masks[np.array([0])], expected.masks)
    b, c = body.load(), centre.load()
    assert np.array_equal(b.states, c.states)
    assert (b.masks >= c.masks).all() and (b.masks > c.masks).any()
    observer, _ = train_from_shards("mask", root, progress=False, epochs=1, batch_size=4)
    assert observer.config.visit_rule == "body"
    with pytest.raises(UserError, match="body-rule masks"):
        MaskObserver().fit(body, epochs=1, progress=False)
    with pytest.raises(UserError, match="--visit-rule must be"):
        sh.plan_shards(tasks=TASKS, episodes=1, visit_rule="corner")
    result = CliRunner().invoke(main, ["bib", "train", "--shards", str(root), "--out",
                                       str(tmp_path / "m.pt"), "--visit-rule", "body"])
    assert result.exit_code != 0 and "drop --visit-rule" in result.output

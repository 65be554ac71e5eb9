"""Training the BIB video model: it learns motion beyond copying the frame, and the options
that buy optimiser steps per CPU-second (a few test steps, a few familiarization trials per
episode) draw what they say, reproducibly."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from socialbench.bib.schema import Trial  # noqa: E402
from socialbench.core.errors import UserError  # noqa: E402
from socialbench.observers.bib import handmade  # noqa: E402
from socialbench.observers.bib.video_model import training  # noqa: E402
from socialbench.observers.bib.video_model.frame_cache import (  # noqa: E402
    FrameShard,
    frame_shard,
)
from socialbench.observers.bib.video_model.network import VideoConfig, VideoNet  # noqa: E402
from socialbench.observers.bib.video_model.observer import VideoObserver  # noqa: E402
from tests.observers.test_bib_video_model import SMALL  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _walk_right(row: int, start: int) -> handmade.Episode:
    """The agent walks right along ``row`` to the object at column 8; trials cut to the walk."""
    trial = handmade.trial(handmade.OPEN, [("heart", (8, row))], [(start, row), (8, row)])
    walk = Trial(trial.frames[24:100])
    return handmade.episode([walk] * 8, walk, name=f"r{row}s{start}", task="single_object")


@pytest.fixture(scope="module")
def rightward():
    train = [_walk_right(row, start) for row in (1, 2, 3, 5, 6, 8) for start in (1, 2)]
    return train, [_walk_right(row, 1) for row in (4, 7)]


@pytest.mark.slow  # several seconds of CPU: the default suite keeps its 5-minute budget
def test_learns_to_predict_motion_on_unseen_rows(rightward):
    # The agent always walks right: after 75 updates the validation error on rows never
    # trained on falls clearly below copying the current frame (where an untrained model is;
    # measured 0.68 of it; ~10 s of CPU).
    train, validation = rightward
    observer = VideoObserver(**SMALL)
    metrics = observer.fit(train, validation, epochs=25, batch_size=4, lr=3e-3, test_steps=4,
                           progress=False)
    assert metrics["val_mse"] < 0.85 * metrics["val_copy_mse"]
    first = observer.training_info["history"][0]
    assert first["val_mse"] == pytest.approx(first["val_copy_mse"], rel=0.05)
    assert observer.training_info["history"][-1]["updates"] == 25 * 3


def test_validation_reports_the_error_of_copying_the_frame(rightward):
    _, validation = rightward
    shard = frame_shard(validation, 32, 3.0)
    metrics = training.validate(VideoNet(VideoConfig(**SMALL)), [shard], torch.device("cpu"))
    by_hand = []
    for index in range(len(shard)):
        frames, counts = shard.episode(index)
        test = frames[-counts[-1]:].astype(np.float64) / 255
        by_hand += list(((test[1:] - test[:-1]) ** 2).mean(axis=(1, 2, 3)))
    assert metrics["val_copy_mse"] == pytest.approx(np.mean(by_hand), rel=1e-5)
    # untrained, the model's prediction is the current frame (the U-Net's output starts at 0)
    assert metrics["val_mse"] == pytest.approx(metrics["val_copy_mse"], rel=1e-5)
    assert metrics["val_copy_mse/single_object"] == metrics["val_copy_mse"]


def test_a_batch_keeps_the_chosen_test_steps_and_familiarization_trials(rightward):
    train, _ = rightward
    frames, counts = frame_shard(train[:1], 32, 3.0).episode(0)
    starts = np.concatenate([[0], np.cumsum(counts)])
    batch = training.make_batch([(frames, counts)], steps=[np.array([1, 4])],
                                trials=[np.array([2, 5])])
    pixels = torch.from_numpy(frames).permute(0, 3, 1, 2).float() / 255
    test = pixels[starts[8]:]
    assert torch.equal(batch.inputs, test[[1, 4]]) and torch.equal(batch.targets, test[[2, 5]])
    assert batch.fam_counts.tolist() == [[counts[2], counts[5]]]
    assert torch.equal(batch.fam_frames, torch.cat([pixels[starts[2]:starts[3]],
                                                    pixels[starts[5]:starts[6]]]))
    assert batch.owner.tolist() == [0, 0]


def test_sampled_batches_mix_shards_and_repeat_for_a_seed(rightward):
    train, _ = rightward
    shards = [frame_shard(train[:6], 32, 3.0), frame_shard(train[6:], 32, 3.0)]

    def drawn(seed):
        rng = np.random.default_rng(seed)
        out = list(training.episode_batches(shards, rng, 4, torch.device("cpu"), test_steps=3,
                                            fam_trials=2))
        return [(b.inputs.sum().item(), b.fam_counts.tolist()) for _, b in out], out

    first, batches = drawn(0)
    assert first == drawn(0)[0] and first != drawn(1)[0]
    assert [count for count, _ in batches] == [4, 4, 4]
    assert all(len(b.inputs) == 3 * 4 and b.fam_counts.shape == (4, 2) for _, b in batches)


def test_he_initialisation_keeps_the_unets_signal():
    # PyTorch's default initialisation shrank the U-Net's activations ~10x per level, so early
    # updates barely moved the prediction; He's (the U-Net paper's) keeps them near the input's.
    x = torch.rand(4, 19, 64, 64)

    def bottom_scale(init):
        torch.manual_seed(0)
        unet = VideoNet(VideoConfig(init=init)).predictor
        h = x
        with torch.no_grad():
            for level in unet.down:
                h = torch.nn.functional.max_pool2d(level(h), 2)
            return float(unet.bottom(h).std() / x.std())

    assert 0.3 < bottom_scale("he") < 5
    assert bottom_scale("torch") < 0.1


def test_moving_step_sampling_draws_only_steps_where_the_frame_changes(rightward):
    # the walk is cut to the moving part, so add still frames after it: those steps change
    # nothing and "moving" never draws them; "all" does
    train, _ = rightward
    frames, counts = frame_shard(train[:1], 32, 3.0).episode(0)
    still = np.repeat(frames[-1:], 6, axis=0)
    frames, counts = np.concatenate([frames, still]), counts + np.eye(9, dtype=counts.dtype)[8] * 6
    moving = training.moving_steps(frames, counts)
    test = frames[int(counts[:8].sum()):]
    changed = [t for t in range(len(test) - 1) if not np.array_equal(test[t], test[t + 1])]
    assert moving.tolist() == changed and 0 < len(changed) < len(test) - 1
    shard = FrameShard(frames, counts[None], np.array(["single_object"]),
                                np.array(["x"]))
    drawn = {"all": set(), "moving": set()}
    for seed in range(30):
        for sampling in drawn:
            rng = np.random.default_rng(seed)
            (_, batch), = training.episode_batches([shard], rng, 1, torch.device("cpu"), 2,
                                                   step_sampling=sampling)
            steps = [int(np.flatnonzero([torch.equal(batch.inputs[i], _px(f)) for f in test])[0])
                     for i in range(2)]
            drawn[sampling] |= set(steps)
    assert drawn["moving"] <= set(changed) and drawn["all"] - set(changed)


def test_moving_step_sampling_falls_back_to_all_steps_when_nothing_moves():
    frames = np.zeros((9 + 5, 8, 8, 3), np.uint8)
    counts = np.array([1] * 8 + [6])
    rng = np.random.default_rng(0)
    assert training.moving_steps(frames, counts).size == 0
    assert len(training._draw_steps(rng, frames, counts, 3, "moving")) == 3


def _px(frame: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(frame).permute(2, 0, 1).float() / 255


def test_fit_takes_moving_step_sampling_and_checks_it(rightward):
    train, validation = rightward
    observer = VideoObserver(**SMALL)
    metrics = observer.fit(train[:4], validation[:1], epochs=1, batch_size=2, test_steps=2,
                           step_sampling="moving", progress=False)
    assert observer.training_info["step_sampling"] == "moving" and metrics["updates"] == 2
    with pytest.raises(UserError, match="--test-steps"):
        observer.fit(train[:4], epochs=1, step_sampling="moving", progress=False)
    with pytest.raises(UserError, match="step sampling"):
        observer.fit(train[:4], epochs=1, test_steps=2, step_sampling="still", progress=False)


def test_fit_in_bf16_keeps_fp32_weights_and_records_it(rightward):
    train, validation = rightward
    observer = VideoObserver(**SMALL)
    before = VideoObserver(**SMALL)
    before.fit(train[:4], validation[:1], epochs=1, batch_size=2, test_steps=2, progress=False)
    metrics = observer.fit(train[:4], validation[:1], epochs=1, batch_size=2, test_steps=2,
                           precision="bf16", progress=False)
    assert observer.training_info["precision"] == "bf16" and metrics["updates"] == 2
    for name, value in observer.net.state_dict().items():  # a plain fp32 model to rate with
        assert value.dtype == torch.float32 and value.is_contiguous(), name
    # the steps ran in bf16: other weights than fp32's, near them
    moved = [float((a - b).abs().max()) for a, b in
             zip(observer.net.state_dict().values(), before.net.state_dict().values(),
                 strict=True)]
    assert 0 < max(moved) < 1e-2
    with pytest.raises(UserError, match="precision"):
        observer.fit(train[:4], epochs=1, precision="fp16", progress=False)


def _one_task_shards(train) -> list[FrameShard]:
    """Three shards of 4 episodes, each shard one 'task' (as frame shards hold one task after
    another); the task names tell which shard an episode came from."""
    shards = []
    for number in range(3):
        shard = frame_shard(train[4 * number:4 * number + 4], 32, 3.0)
        shards.append(FrameShard(shard.frames, shard.counts, np.array([f"t{number}"] * 4),
                                 shard.names))
    return shards


def _shards_per_batch(shards, seed: int, epoch: int, shards_in_memory):
    """For each batch of an epoch, the set of shards its episodes came from."""
    out = []
    for rank, group in enumerate(training._groups(len(shards), seed, epoch, shards_in_memory)):
        held = [shards[int(i)] for i in group]
        rng = (training.rng_for(seed, training.ALL_SHARDS_STREAM, epoch)
               if shards_in_memory is None else
               training.rng_for(seed, "video-episodes", epoch, rank))
        firsts = {int(s.episode(i)[0][0].astype(np.int64).sum()): str(s.tasks[i])
                  for s in held for i in range(len(s))}
        assert len(firsts) == sum(len(s) for s in held)  # every episode tells its shard
        for _, batch in training.episode_batches(held, rng, 4, torch.device("cpu"), 2):
            starts = np.concatenate([[0], np.cumsum(batch.fam_counts.sum(dim=1).numpy())])
            out.append({firsts.get(int((batch.fam_frames[int(k)] * 255).round().sum()), "?")
                        for k in starts[:-1]})
    return out


def test_all_shards_mixing_draws_every_batch_from_the_whole_set(rightward):
    # shards_in_memory=None (`--shards-in-memory all`, the third run's sampler): one pass
    # over every shard, so batches mix shards that groups of one shard never mix; the order
    # repeats for a seed and epoch and changes with either
    shards = _one_task_shards(rightward[0])
    assert [g.tolist() for g in training._groups(3, 0, 0, None)] == [[0, 1, 2]]
    alone = _shards_per_batch(shards, 0, 0, 1)
    assert len(alone) == 3 and all(len(tasks) == 1 for tasks in alone)
    mixed = _shards_per_batch(shards, 0, 0, None)
    assert len(mixed) == 3 and set().union(*mixed) == {"t0", "t1", "t2"}
    assert max(len(tasks) for tasks in mixed) >= 2
    assert mixed == _shards_per_batch(shards, 0, 0, None)
    draws = [[int(b.inputs.sum()) for _, b in training.episode_batches(
        shards, training.rng_for(seed, training.ALL_SHARDS_STREAM, epoch), 4,
        torch.device("cpu"), 2)] for seed, epoch in ((0, 0), (0, 0), (1, 0), (0, 1))]
    assert draws[0] == draws[1] and draws[0] != draws[2] and draws[0] != draws[3]


@pytest.mark.parametrize(("shards_in_memory", "precision"),
                         [(None, "fp32"), (2, "fp32"), (2, "bf16")])
def test_a_run_stopped_by_max_updates_resumes_to_the_same_weights(rightward, tmp_path,
                                                                  shards_in_memory, precision):
    # --max-updates stops mid-epoch (mid-group for all shards); the same command with a larger
    # limit continues to the weights of one uninterrupted run
    shards = _one_task_shards(rightward[0])
    options = {"epochs": 3, "batch_size": 2, "lr": 1e-3, "seed": 5, "device":
               torch.device("cpu"), "resume_key": {"k": 1}, "progress": False,
               "log": lambda _text: None, "test_steps": 2, "fam_trials": 2,
               "step_sampling": "moving", "shards_in_memory": shards_in_memory,
               "precision": precision}

    def net():
        torch.manual_seed(0)
        return VideoNet(VideoConfig(**SMALL))

    whole = net()
    history = training.train(whole, shards, shards[:1], state_path=None, max_updates=9,
                             **options)
    assert history[-1]["stopped"] and history[-1]["updates"] == 9
    assert [r["updates"] for r in history[:-1]] == [6]  # one epoch: 12 episodes / 2
    state = tmp_path / "run.resume"
    first = training.train(net(), shards, shards[:1], state_path=state, max_updates=4,
                           **options)
    assert first[-1]["updates"] == 4 and first[-1]["stopped"]
    resumed = net()
    again = training.train(resumed, shards, shards[:1], state_path=state, max_updates=9,
                           **options)
    assert again[-1]["updates"] == 9
    for (name, a), b in zip(whole.state_dict().items(), resumed.state_dict().values(),
                            strict=True):
        assert torch.equal(a, b), name
    finished = training.train(resumed, shards, shards[:1], state_path=state, **options)
    assert [r["updates"] for r in finished] == [6, 12, 18] and "stopped" not in finished[-1]

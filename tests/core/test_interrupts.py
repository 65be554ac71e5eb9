"""Ctrl-C and SIGTERM held until a step ends (core.interrupts), and a training run that saves
on them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import torch
from click.testing import CliRunner

from socialbench.core.interrupts import StopBetweenSteps
from socialbench.rl.ppo import PPOConfig
from socialbench.rl.train import Run, RunConfig, load_checkpoint, read_log


def ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)


def sigterm() -> None:
    os.kill(os.getpid(), signal.SIGTERM)


@pytest.fixture(autouse=True)
def ctrl_c_interrupts():
    """Python's own Ctrl-C handling, also where the tests run as a background job (which
    ignores SIGINT)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_the_first_ctrl_c_is_a_request_the_second_interrupts():
    with StopBetweenSteps() as stop:
        ctrl_c()
        assert stop.requested  # held: the code goes on to the end of its step
        with pytest.raises(KeyboardInterrupt):
            ctrl_c()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # as it was
    with pytest.raises(KeyboardInterrupt):
        ctrl_c()


def test_the_first_sigterm_is_a_request_the_second_interrupts():
    before = signal.getsignal(signal.SIGTERM)
    with StopBetweenSteps() as stop:
        sigterm()
        assert stop.requested and stop.received == "SIGTERM"
        with pytest.raises(KeyboardInterrupt):
            sigterm()
    assert signal.getsignal(signal.SIGTERM) is before  # as it was


def test_an_ignored_ctrl_c_stays_ignored():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as in a `nohup ... &` job
    with StopBetweenSteps() as stop:
        ctrl_c()
        assert not stop.requested
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def tiny(frames: int) -> RunConfig:
    return RunConfig(frames=frames, variant="no-liar", checkpoint_every=50,
                     ppo=PPOConfig(num_envs=4, frames_per_env=10, recurrence=5, epochs=1))


def test_ctrl_c_in_training_saves_the_update_it_ends_and_resumes_the_same(tmp_path):
    """Interrupted during its second update (checkpoints every 50), the run saves after that
    update; resumed, it ends where an uninterrupted run ends."""
    part = Run(tmp_path / "part", tiny(frames=160))
    with pytest.raises(KeyboardInterrupt, match="checkpoint saved at 80 frames"):
        part.train(lambda row: ctrl_c() if row["update"] == 2 else None)
    assert load_checkpoint(tmp_path / "part")["trainer"]["frames"] == 80
    Run(tmp_path / "part", tiny(frames=160), resume=True).train()
    whole = Run(tmp_path / "whole", tiny(frames=160))
    whole.train()
    keys = ("update", "frames", "success", "return_mean", "policy_loss", "entropy")
    rows = [[r[k] for k in keys] for r in read_log(tmp_path / "whole" / "log.csv")]
    assert len(rows) == 4
    assert rows == [[r[k] for k in keys] for r in read_log(tmp_path / "part" / "log.csv")]
    resumed = load_checkpoint(tmp_path / "part")["trainer"]["model"]
    for name, value in load_checkpoint(tmp_path / "whole")["trainer"]["model"].items():
        assert torch.equal(value, resumed[name]), name


def test_sigterm_in_training_saves_the_update_it_ends(tmp_path):
    run = Run(tmp_path / "r", tiny(frames=10**6))
    with pytest.raises(KeyboardInterrupt, match="checkpoint saved at 80 frames"):
        run.train(lambda row: sigterm() if row["update"] == 2 else None)
    assert load_checkpoint(tmp_path / "r")["trainer"]["frames"] == 80


def test_a_background_training_command_killed_with_sigterm_keeps_its_last_update(tmp_path):
    """As a `nohup ... &` job stopped by `kill` or a scheduler's time limit: the command saves
    the update under way and says so, and the checkpoint holds every logged update."""
    out = tmp_path / "run"
    command = [sys.executable, "-c", "from socialbench.cli import main; main()", "talkitout",
               "train", "--model", "deaf", "--variant", "no-liar", "--frames", "100000000",
               "--threads", "1", "--checkpoint-every", "1000", "--out", str(out)]

    def as_nohup_job() -> None:  # Ctrl-C ignored, SIGTERM as the system delivers it
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)

    job = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=as_nohup_job)
    try:
        deadline = time.monotonic() + 120
        while not (out / "log.csv").exists() or len(read_log(out / "log.csv")) < 1:
            assert job.poll() is None and time.monotonic() < deadline, job.communicate()
            time.sleep(0.2)
        job.send_signal(signal.SIGTERM)
        _, err = job.communicate(timeout=120)
    finally:
        job.kill()
    assert job.returncode == 130, err
    frames = load_checkpoint(out)["trainer"]["frames"]
    assert f"interrupted (checkpoint saved at {frames:,} frames)" in err
    assert frames == int(read_log(out / "log.csv")[-1]["frames"]) > 0


def test_the_command_says_where_the_interrupted_run_stands(monkeypatch):
    from socialbench.cli import main

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("checkpoint saved at 80 frames")

    monkeypatch.setattr(Run, "__init__", interrupted)
    result = CliRunner().invoke(main, ["talkitout", "train", "--model", "deaf", "--out", "x"])
    assert result.exit_code == 130
    assert "interrupted (checkpoint saved at 80 frames): re-run the same command" in \
        result.output

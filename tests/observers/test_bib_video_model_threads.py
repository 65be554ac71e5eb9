"""The video model with more than one PyTorch thread (``bib train --threads 2``).

torch 2.13's CPU build corrupts the heap in the backward pass of a 1 x 1 stride-2 convolution
on a channels-last input with an odd batch and more than one thread (oneDNN's strided 1 x 1
weight gradient); the frame encoder's residual skips were such convolutions, and frames arrive
channels-last (uint8 ``(N, H, W, 3)`` permuted). The skip now keeps every second pixel, then
applies a 1 x 1 convolution: the same function and parameters.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

from socialbench.observers.bib.video_model.network import ResidualBlock  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_strided_skip_is_the_strided_1x1_convolution():
    block = ResidualBlock(8, 16, stride=2)
    strided = torch.nn.Conv2d(8, 16, 1, stride=2)
    strided.load_state_dict(block.skip.state_dict())  # the same parameters, the same shapes
    x = torch.rand(3, 8, 32, 32)
    with torch.no_grad():
        expected = torch.relu(strided(x) + block.body(x))
        assert torch.allclose(block(x), expected, atol=1e-6)


def test_encoder_backward_with_two_threads_on_an_odd_channels_last_batch():
    # In a child process: the bug kills the process (double free / segfault), not a test.
    script = textwrap.dedent("""
        import torch
        from socialbench.observers.bib.video_model.network import VideoConfig, VideoNet
        torch.set_num_threads(2)
        torch.manual_seed(0)
        frames = torch.rand(9, 64, 64, 3).permute(0, 3, 1, 2)  # channels-last, odd batch
        VideoNet(VideoConfig()).frames(frames).sum().backward()
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr[-500:]

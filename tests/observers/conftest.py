"""Fixtures shared by the observer tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def one_torch_thread():
    """Tiny networks run fastest on one thread (and the test machine's cores are shared)."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def tiny_agent(tmp_path_factory):
    """An AGENT dataset of one training trial and one test pair of types 2.1 and 2.2."""
    pytest.importorskip("pybullet")
    from socialbench.agent3d.generate import generate

    root = tmp_path_factory.mktemp("agent-tiny")
    generate(root, seed=2, types=("2.1", "2.2"), splits=("train", "test"), scale=1e-6,
             show_progress=False)
    return root

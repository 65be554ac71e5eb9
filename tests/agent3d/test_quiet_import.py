"""PyBullet's import banner stays out of every command's output."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)


def test_the_cli_does_not_load_pybullet():
    done = _run("import sys, socialbench.cli; print('pybullet' in sys.modules)")
    assert done.stdout == "False\n" and done.stderr == ""


def test_loading_pybullet_prints_nothing():
    done = _run("from socialbench.agent3d.physics import p; print(p.DIRECT)")
    assert done.stdout == "2\n" and done.stderr == ""  # pybullet.DIRECT

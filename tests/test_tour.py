"""`socialbench run`: the README's tour of every benchmark, end to end."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from socialbench.cli import main


@pytest.mark.slow
def test_the_tour_runs_every_benchmark():
    result = CliRunner().invoke(main, ["run"], env={"COLUMNS": "140"})
    assert result.exit_code == 0, result.output
    for heading in ("TalkItOut (SocialAI 0.1)", "BIB (Baby Intuitions Benchmark)", "AGENT",
                    "BIB generation audit", "BIB observers: relative accuracy",
                    "BIB learned observer (shipped checkpoint)", "BIB Table 1",
                    "Hierarchical (shipped), first 100 episodes",
                    "AGENT: one generated test trial per type",
                    "AGENT: BIPaCK on these test pairs (protocol all)", "paper: BIPaCK All",
                    "paper: Human"):
        assert heading in result.output
    assert "validation: OK" in result.output

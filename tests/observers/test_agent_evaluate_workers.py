"""`agent evaluate --workers N`: BIPaCK plans the videos on N processes (or Ray tasks) and rates
exactly as in one process."""

import json

import pytest
from click.testing import CliRunner

from socialbench.cli import main


@pytest.mark.slow
def test_bipack_ratings_do_not_depend_on_the_workers(tiny_agent):
    outputs = []
    for workers in ("1", "2"):
        result = CliRunner().invoke(main, ["agent", "evaluate", "--data", str(tiny_agent),
                                           "--observer", "bipack", "--protocol", "all,G1",
                                           "--json", "--workers", workers])
        assert result.exit_code == 0, result.output
        outputs.append([json.loads(line) for line in result.output.strip().splitlines()
                        if line.startswith("{")])
    assert outputs[0] == outputs[1]
    assert [o["protocol"] for o in outputs[0]] == ["all", "G1"]

"""`socialbench agent ...`: generate and validate AGENT datasets (one module per sub-command)."""

import click

from socialbench.commands.agent.generate import generate
from socialbench.commands.agent.validate import validate


@click.group(name="agent")
def agent() -> None:
    """AGENT (3D physical trials, PyBullet): generate and validate datasets."""


for _command in (generate, validate):
    agent.add_command(_command)

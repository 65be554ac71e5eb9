"""`socialbench agent ...`: generate and validate AGENT datasets."""

import click

from socialbench.agent3d.commands.generate import generate
from socialbench.agent3d.commands.validate import validate


@click.group(name="agent")
def agent() -> None:
    """AGENT (3D physical trials, PyBullet): generate and validate datasets."""


for _command in (generate, validate):
    agent.add_command(_command)

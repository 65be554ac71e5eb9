"""`socialbench agent ...`: generate, validate and audit AGENT datasets (one module per
sub-command)."""

import click

from socialbench.commands.agent.audit import audit
from socialbench.commands.agent.evaluate import evaluate
from socialbench.commands.agent.generate import generate
from socialbench.commands.agent.validate import validate


@click.group(name="agent")
def agent() -> None:
    """AGENT (3D physical trials, PyBullet): generate, validate and audit datasets."""


for _command in (generate, validate, audit, evaluate):
    agent.add_command(_command)

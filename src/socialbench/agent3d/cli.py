"""`socialbench agent ...` sub-commands."""

import click


@click.group(name="agent")
def agent() -> None:
    """agent3d benchmark commands."""

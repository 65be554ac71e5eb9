"""`socialbench agent validate`."""

import click


@click.command(name="validate")
def validate() -> None:
    """Not built yet."""
    raise click.ClickException("socialbench agent validate is not built yet")

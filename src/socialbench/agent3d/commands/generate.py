"""`socialbench agent generate`."""

import click


@click.command(name="generate")
def generate() -> None:
    """Not built yet."""
    raise click.ClickException("socialbench agent generate is not built yet")

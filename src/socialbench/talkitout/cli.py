"""`socialbench talkitout ...` sub-commands."""

import click


@click.group(name="talkitout")
def talkitout() -> None:
    """talkitout benchmark commands."""

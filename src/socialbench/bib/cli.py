"""`socialbench bib ...` sub-commands."""

import click


@click.group(name="bib")
def bib() -> None:
    """bib benchmark commands."""

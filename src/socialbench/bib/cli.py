"""`socialbench bib ...`: generate, validate and evaluate BIB datasets."""

import click

from socialbench.bib.commands.evaluate import evaluate
from socialbench.bib.commands.generate import generate
from socialbench.bib.commands.train import train
from socialbench.bib.commands.validate import validate


@click.group(name="bib")
def bib() -> None:
    """BIB (Baby Intuitions Benchmark): generate, validate and evaluate datasets."""


for _command in (generate, validate, evaluate, train):
    bib.add_command(_command)

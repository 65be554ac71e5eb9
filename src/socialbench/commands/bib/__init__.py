"""`socialbench bib ...`: generate, validate, evaluate and audit BIB datasets; train observers.

One module per sub-command. Each imports its libraries inside the command, so `socialbench bib
generate` loads neither the observers nor PyTorch.
"""

import click

from socialbench.commands.bib.audit import audit
from socialbench.commands.bib.evaluate import evaluate
from socialbench.commands.bib.generate import generate
from socialbench.commands.bib.shards import shards
from socialbench.commands.bib.train import train
from socialbench.commands.bib.validate import validate


@click.group(name="bib")
def bib() -> None:
    """BIB (Baby Intuitions Benchmark): generate, validate and evaluate datasets."""


for _command in (generate, validate, evaluate, audit, train, shards):
    bib.add_command(_command)

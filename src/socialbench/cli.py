"""The ``socialbench`` command. It only parses and calls: every sub-command lives with its
benchmark (``talkitout/cli.py``, ``bib/cli.py``, ``agent3d/cli.py``)."""

from __future__ import annotations

import sys

import click

from socialbench import __version__
from socialbench.errors import UserError


class _Group(click.Group):
    """A group that turns :class:`UserError` into a one-line message and exit status 2."""

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except UserError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("interrupted: re-run the same command to resume", err=True)
            sys.exit(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="socialbench")
def main() -> None:
    """socialbench: TalkItOut, BIB and AGENT, three benchmarks of machine social reasoning."""


@main.command()
@click.option("--quick/--full", default=True, show_default=True,
              help="--quick keeps the tour to a few minutes on a laptop.")
def run(quick: bool) -> None:
    """The tour: a small, complete run of every benchmark, printed beside the papers' numbers."""
    from socialbench.tour import run_tour

    run_tour(quick=quick)


def _add_benchmark_groups() -> None:
    from socialbench.agent3d.cli import agent
    from socialbench.bib.cli import bib
    from socialbench.talkitout.cli import talkitout

    for group in (talkitout, bib, agent):
        main.add_command(group)


_add_benchmark_groups()

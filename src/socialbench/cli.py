"""The ``socialbench`` command. It only parses and calls: each benchmark's command group is a
module of :mod:`socialbench.commands`, the layer that joins benchmarks with their observers."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from socialbench import __version__
from socialbench.core.errors import UserError

# Each benchmark's command group, imported only when used: a command then starts without
# loading the other benchmarks' libraries (MiniGrid, PyBullet, ...).
_BENCHMARK_GROUPS = {
    "talkitout": ("socialbench.commands.talkitout", "talkitout"),
    "bib": ("socialbench.commands.bib", "bib"),
    "agent": ("socialbench.commands.agent", "agent"),
    # the web app, its static report and the rating study (the `web` extra)
    "serve": ("socialbench.commands.web", "serve"),
    "report": ("socialbench.commands.web", "report"),
    "study": ("socialbench.commands.web", "study"),
}


class _Group(click.Group):
    """A group that turns :class:`UserError` into a one-line message and exit status 2, and
    imports each benchmark's commands when first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_BENCHMARK_GROUPS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _BENCHMARK_GROUPS and cmd_name not in self.commands:
            module, attribute = _BENCHMARK_GROUPS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except UserError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        except KeyboardInterrupt as exc:
            saved = f" ({exc})" if str(exc) else ""  # e.g. a training run's last checkpoint
            click.echo(f"interrupted{saved}: re-run the same command to resume", err=True)
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
    from socialbench.commands.tour import run_tour

    run_tour(quick=quick)

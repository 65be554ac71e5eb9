"""``socialbench run``: one small, complete tour of every benchmark, tables beside the papers.

One module per benchmark's section (``talkitout``, ``bib``, ``agent``), each printing its own
tables."""

from __future__ import annotations

import time

from rich.console import Console


def run_tour(quick: bool = True, console: Console | None = None) -> None:
    """Run each benchmark's tour section in turn (each prints its own tables)."""
    from socialbench.commands.tour.agent import tour as agent_tour
    from socialbench.commands.tour.bib import tour as bib_tour
    from socialbench.commands.tour.talkitout import tour as talkitout_tour

    if console is None:
        console = Console()
        if not console.is_terminal:  # piped to a file: wide enough for the results tables
            console = Console(width=140)
    for title, section in (("TalkItOut (SocialAI 0.1)", talkitout_tour),
                           ("BIB (Baby Intuitions Benchmark)", bib_tour),
                           ("AGENT", agent_tour)):
        console.rule(f"[bold]{title}")
        start = time.perf_counter()
        section(console=console, quick=quick)
        console.print(f"[dim]{title}: {time.perf_counter() - start:.1f} s[/dim]")

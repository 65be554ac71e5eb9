"""`socialbench run`, TalkItOut section: the shipped hierarchical agent's rows."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from socialbench.commands.tour.talkitout_learned import hierarchical_rows


def test_tour_prints_the_shipped_agent_beside_its_full_test_set_scores():
    table = Table("condition", "original", "no liar", "source")
    note = hierarchical_rows(table, episodes=10)
    console = Console(width=200, record=True)
    console.print(table)
    console.print(note)
    text = console.export_text()
    assert "Hierarchical (ours, shipped), first 10 test episodes" in text
    assert "all 1000 test episodes" in text and "0.971" in text and "0.999" in text
    assert "ceiling on these" in text
    assert "801,417 frames" in text

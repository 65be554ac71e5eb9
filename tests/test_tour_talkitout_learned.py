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
    assert "Hierarchical (shipped), first 10 episodes" in text
    assert "Hierarchical (shipped), 1000 episodes" in text
    assert "0.971 +- 0.000 (3 seeds)" in text and "0.999" in text
    assert "ceiling here" in text
    assert "801,417 frames" in text

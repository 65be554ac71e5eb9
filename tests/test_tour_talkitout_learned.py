"""`socialbench run`, TalkItOut section: the shipped hierarchical agent's rows."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from socialbench.commands.tour.talkitout import results_table
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
    assert "(ceiling " in text
    assert "801,417 frames" in text


def test_every_talkitout_row_label_keeps_to_one_line_at_140_columns():
    """A wrapped condition label reads as two rows (and hides the label from a search)."""
    table, notes = results_table(quick=True, episodes=20)
    console = Console(width=140, record=True)
    console.print(table)
    text = console.export_text()
    for label in ("Hierarchical (shipped), first 20 episodes",
                  "Hierarchical (shipped), 1000 episodes", "Deaf-MH-BabyAI (trained here)",
                  "informed plan fits in t_max=40"):
        assert label in text
    assert all(len(line) <= 140 for line in text.splitlines())
    assert any("door-guess" in note for note in notes)

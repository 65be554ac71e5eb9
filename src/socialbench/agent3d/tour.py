"""This benchmark's section of `socialbench run`."""

from rich.console import Console


def tour(console: Console, quick: bool = True) -> None:
    """Run a small, complete pass of this benchmark and print its tables."""
    console.print("not built yet")

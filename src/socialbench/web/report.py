"""``socialbench report``: the results' tables and plots as one self-contained HTML page (its
style inline, plots as inline SVG, no scripts or links), to attach to a paper or a CI run."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from socialbench.core.files import atomic_write
from socialbench.web.plots import bars_svg, curves_svg
from socialbench.web.results import Results, surprise_curve, task_table

HERE = Path(__file__).parent
SHOWN_MODELS = ("mask", "video", "IRENE", "HBToM")  # as `bib evaluate` prints beside ours


def accuracy_bars(results: Sequence[Results]) -> str:
    """Per task: each observer's relative accuracy beside the published models'."""
    from socialbench.bib.published import RELATIVE_ACCURACY

    tasks = list(dict.fromkeys(t for r in results for t in r.tasks))
    rows = []
    for task in tasks:
        values: list[tuple[str, float | None]] = [
            (r.observer, 100 * r.tasks[task]["relative_accuracy"] if task in r.tasks else None)
            for r in results]
        values += [(f"{m} (paper)", RELATIVE_ACCURACY.get(task, {}).get(m))
                   for m in SHOWN_MODELS[-2:]]
        rows.append((task, values))
    return bars_svg(rows)


def episode_curves(results: Sequence[Results], data: Path, per_task: int
                   ) -> list[tuple[str, list[str]]]:
    """(episode name, [expected curves svg, unexpected curves svg]) for the first episodes of
    each task of a BIB dataset."""
    from socialbench.web.datasets import bib_episode, open_dataset

    dataset = open_dataset(data)
    shown: list[tuple[str, list[str]]] = []
    for task in dataset.tasks():
        for ref in [e for e in dataset.episodes if e.task == task][:per_task]:
            figures = []
            for side, path in (("expected", ref.expected), ("unexpected", ref.unexpected)):
                if path:
                    episode = bib_episode(dataset, path)
                    curves = {r.observer: c for r in results
                              if (c := surprise_curve(r.observer, episode)) is not None}
                    figures.append(curves_svg(curves, title=f"{side} test trial",
                                              cursor=False))
            shown.append((ref.name, figures))
    return shown


def render_report(results: Sequence[Results], *, data: Path | None = None,
                  episodes_per_task: int = 1) -> str:
    """The report's HTML text."""
    env = Environment(loader=FileSystemLoader(str(HERE / "templates")),
                      autoescape=select_autoescape(["html"]))
    return env.get_template("report.html").render(
        results=results, table=task_table(results), bars=accuracy_bars(results),
        curves=episode_curves(results, data, episodes_per_task) if data else [],
        style=(HERE / "static" / "app.css").read_text(), data=data,
        made=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"))


def write_report(results: Sequence[Results], out: Path, *, data: Path | None = None,
                 episodes_per_task: int = 1) -> None:
    text = render_report(results, data=data, episodes_per_task=episodes_per_task)
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(out) as tmp:
        tmp.write_text(text)

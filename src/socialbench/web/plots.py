"""Plots as inline SVG, one implementation for the app and the static report: no JavaScript or
files needed to see them; the app adds a cursor that follows the video."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

WIDTH, HEIGHT, PAD = 420, 150, 28
TOP = 48  # room above the plot for the title and legend
# Colour-blind-safe series colours (Okabe & Ito 2008).
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")


def colour(index: int) -> str:
    return COLOURS[index % len(COLOURS)]


def curves_svg(curves: Mapping[str, Sequence[float]], *, title: str = "",
               cursor: bool = True) -> str:
    """Surprise of each observer over the test trial's rated steps (x: 0 to the trial's end),
    each curve scaled to its own maximum (observers' units differ); a legend names the maxima."""
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - TOP - PAD
    parts = [f'<svg class="curves" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
             f'height="{HEIGHT}" role="img" aria-label="{escape(title or "surprise curves")}">',
             f'<rect x="{PAD}" y="{TOP}" width="{inner_w}" height="{inner_h}" fill="#fff" '
             f'stroke="#bbb"/>']
    if title:
        parts.append(f'<text x="{PAD}" y="14" font-size="11" font-weight="bold">'
                     f'{escape(title)}</text>')
    if not curves:
        parts.append(f'<text x="{WIDTH / 2}" y="{TOP + inner_h / 2}" font-size="11" '
                     f'text-anchor="middle">no observer can rate this episode</text>')
    for k, (name, values) in enumerate(curves.items()):
        finite = [v for v in values if math.isfinite(v)]
        highest = max(finite, default=0.0)
        top = highest or 1.0
        values = list(values) * 2 if len(values) == 1 else values  # one step: a level line
        n = len(values)
        points = " ".join(
            f"{PAD + inner_w * (i / (n - 1) if n > 1 else 0.5):.1f},"
            f"{TOP + inner_h * (1 - (v if math.isfinite(v) else 0.0) / top):.1f}"
            for i, v in enumerate(values))
        parts.append(f'<polyline class="curve" data-observer="{escape(name)}" points="{points}" '
                     f'fill="none" stroke="{colour(k)}" stroke-width="1.6"/>')
        parts.append(f'<text x="{PAD + 190 * (k % 2)}" y="{28 + 12 * (k // 2)}" '
                     f'font-size="10" fill="{colour(k)}">{escape(name)} (max {highest:.3g})</text>')
    parts.append(f'<text x="{PAD}" y="{HEIGHT - 8}" font-size="10">test trial start</text>'
                 f'<text x="{WIDTH - PAD}" y="{HEIGHT - 8}" font-size="10" text-anchor="end">'
                 f'end</text>')
    if cursor:
        parts.append(f'<line class="cursor" x1="{PAD}" x2="{PAD}" y1="{TOP}" '
                     f'y2="{HEIGHT - PAD}" stroke="#c00" stroke-width="1.5" '
                     f'data-left="{PAD}" data-width="{inner_w}"/>')
    parts.append("</svg>")
    return "".join(parts)


def bars_svg(rows: Sequence[tuple[str, Sequence[tuple[str, float | None]]]]) -> str:
    """Grouped horizontal bars: per task, each series' relative accuracy (0-100 %)."""
    series = list(dict.fromkeys(name for _, values in rows for name, _ in values))
    bar, gap, label_w, plot_w = 9, 8, 230, 360
    height = PAD + 14 * ((len(series) - 1) // 4) + sum(bar * len(series) + gap for _ in rows) + 40
    parts = [f'<svg class="bars" viewBox="0 0 {label_w + plot_w + 40} {height}" '
             f'width="{label_w + plot_w + 40}" height="{height}" role="img" '
             f'aria-label="relative accuracy per task">']
    for k, name in enumerate(series):
        x, y = 10 + 150 * (k % 4), 4 + 14 * (k // 4)
        parts.append(f'<rect x="{x}" y="{y}" width="10" height="10" fill="{colour(k)}"/>'
                     f'<text x="{x + 14}" y="{y + 9}" font-size="10">{escape(name)}</text>')
    top = y = PAD + 14 * ((len(series) - 1) // 4)
    for task, values in rows:
        parts.append(f'<text x="{label_w - 6}" y="{y + bar * len(series) / 2 + 4}" '
                     f'font-size="11" text-anchor="end">{escape(task)}</text>')
        for name, value in values:
            k = series.index(name)
            if value is not None and math.isfinite(value):
                parts.append(f'<rect x="{label_w}" y="{y}" width="{plot_w * value / 100:.1f}" '
                             f'height="{bar - 1}" fill="{colour(k)}"><title>{escape(name)}: '
                             f'{value:.1f}%</title></rect>')
            y += bar
        y += gap
    for tick in (0, 50, 100):
        x = label_w + plot_w * tick / 100
        parts.append(f'<line x1="{x}" x2="{x}" y1="{top - 4}" y2="{y}" stroke="#999" '
                     f'stroke-dasharray="{"" if tick != 50 else "3,3"}"/><text x="{x}" '
                     f'y="{y + 14}" font-size="10" text-anchor="middle">{tick}%</text>')
    parts.append("</svg>")
    return "".join(parts)

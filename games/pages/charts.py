"""Small SVG charts drawn by the server: bars, grouped columns, stacked rows, a line with a band.

No chart library and no script: each function returns one ``<svg>`` element
(safe to put in a template) whose ``viewBox`` is about a phone's width, so it
scales down to a 375 px screen without overflowing and up to a laptop's
column without blurring. Every number is written next to its mark, and each
mark carries a ``<title>``, so nothing is told by colour alone; pages put the
same numbers in a table beside the chart.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

WIDTH = 360  # viewBox units; about CSS pixels on a phone
FONT = 11
PALETTE = ("#1f6a40", "#c8102e", "#1d5fd0", "#b7791f", "#6b4e9b", "#4a5568")


def _svg(height: float, label: str, body: list[str], css_class: str = "chart") -> SafeString:
    return mark_safe(
        f'<svg class="{css_class}" viewBox="0 0 {WIDTH} {height:.0f}" role="img" aria-label="{escape(label)}" '
        f'xmlns="http://www.w3.org/2000/svg" font-size="{FONT}" font-family="system-ui, sans-serif">'
        + "".join(body)
        + "</svg>"
    )


def _text(x: float, y: float, text: str, anchor: str = "start", css: str = "", weight: str = "") -> str:
    extra = f' class="{css}"' if css else ""
    extra += f' font-weight="{weight}"' if weight else ""
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{escape(text)}</text>'


@dataclass(frozen=True)
class Bar:
    label: str
    value: float  # the bar's length, 0..maximum
    shown: str  # the number written beside it


def bars(items: Sequence[Bar], label: str, maximum: float | None = None) -> SafeString:
    """Horizontal bars, one per item, its number at its end."""
    label_width, row, top = 112, 24, 6
    maximum = maximum or max((b.value for b in items), default=0) or 1
    span = WIDTH - label_width - 70
    body = []
    for i, item in enumerate(items):
        y = top + i * row
        length = span * max(0.0, item.value) / maximum
        body.append(_text(label_width - 6, y + 15, item.label, "end"))
        body.append(
            f'<rect x="{label_width}" y="{y + 4}" width="{length:.1f}" height="{row - 8}" rx="2" fill="{PALETTE[0]}">'
            f"<title>{escape(item.label)}: {escape(item.shown)}</title></rect>"
        )
        body.append(_text(label_width + length + 5, y + 15, item.shown))
    return _svg(top * 2 + row * len(items), label, body)


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float]  # one per bin
    pattern: bool = False  # hatched, so two series differ in more than colour


def columns(bins: Sequence[str], series: Sequence[Series], label: str, unit: str = "%") -> SafeString:
    """Grouped vertical columns: one group per bin, one column per series, a legend above."""
    left, right, top, bottom, height = 30, 6, 26, 30, 190
    plot_h = height - top - bottom
    plot_w = WIDTH - left - right
    maximum = max((v for s in series for v in s.values), default=0) or 1
    nice = _nice_ceiling(maximum)
    body = [
        '<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        f'<rect width="4" height="4" fill="#fff"/><rect width="2" height="4" fill="{PALETTE[1]}"/></pattern></defs>'
    ]
    for step in range(5):  # grid and y labels
        value = nice * step / 4
        y = top + plot_h - plot_h * step / 4
        body.append(f'<line x1="{left}" x2="{WIDTH - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e4dfd3"/>')
        body.append(_text(left - 3, y + 3.5, f"{value:g}{unit}", "end", "axis"))
    group = plot_w / max(1, len(bins))
    width = (group - 4) / max(1, len(series))
    for b, name in enumerate(bins):
        x0 = left + b * group + 2
        for s, serie in enumerate(series):
            value = serie.values[b]
            h = plot_h * value / nice
            fill = "url(#hatch)" if serie.pattern else PALETTE[0]
            stroke = f' stroke="{PALETTE[1]}"' if serie.pattern else ""
            body.append(
                f'<rect x="{x0 + s * width:.1f}" y="{top + plot_h - h:.1f}" width="{max(width - 1, 1):.1f}" '
                f'height="{h:.1f}" fill="{fill}"{stroke}><title>{escape(serie.name)}, {escape(name)}: '
                f"{value:.1f}{escape(unit)}</title></rect>"
            )
        if len(bins) <= 8 or b % 2 == 0:
            body.append(_text(x0 + group / 2 - 2, height - bottom + 13, name, "middle", "axis"))
    x = left
    for serie in series:  # legend
        fill = "url(#hatch)" if serie.pattern else PALETTE[0]
        stroke = f' stroke="{PALETTE[1]}"' if serie.pattern else ""
        body.append(f'<rect x="{x}" y="6" width="12" height="12" fill="{fill}"{stroke}/>')
        body.append(_text(x + 16, 16, serie.name))
        x += 24 + 7 * len(serie.name)
    return _svg(height, label, body)


@dataclass(frozen=True)
class StackedRow:
    group: str  # written above its rows (e.g. a player type)
    label: str  # short, left of the bar (e.g. "won")
    parts: Sequence[tuple[str, int]]  # (legend name, count), in legend order


def stacked(rows: Sequence[StackedRow], legend: Sequence[str], label: str) -> SafeString:
    """Horizontal 100% bars made of parts (counts written inside when they fit), in groups with a heading each."""
    label_width, row, heading, top = 40, 22, 18, 28
    span = WIDTH - label_width - 8
    body = []
    x: float = 6
    for i, name in enumerate(legend):
        body.append(f'<rect x="{x}" y="6" width="12" height="12" fill="{PALETTE[i % len(PALETTE)]}"/>')
        body.append(_text(x + 16, 16, name))
        x += 24 + 6.5 * len(name)
    y = top
    group = None
    for item in rows:
        if item.group != group:
            group = item.group
            y += heading
            body.append(_text(6, y - 5, group, weight="700"))
        body.append(_text(label_width - 6, y + 14, item.label, "end", "axis"))
        total = sum(n for _, n in item.parts)
        start = float(label_width)
        if not total:
            body.append(_text(start, y + 14, gettext("none"), css="axis"))
        for name, n in item.parts:
            if not n:
                continue
            index = list(legend).index(name)
            length = span * n / total
            body.append(
                f'<rect x="{start:.1f}" y="{y + 2}" width="{length:.1f}" height="{row - 5}" '
                f'fill="{PALETTE[index % len(PALETTE)]}"><title>{escape(item.group)}, {escape(item.label)}: '
                f"{escape(name)} {n} ({100 * n / total:.0f}%)</title></rect>"
            )
            if length >= 16:
                body.append(_text(start + length / 2, y + 14.5, str(n), "middle", "on-bar"))
            start += length
        y += row
    return _svg(y + 4, label, body)


@dataclass(frozen=True)
class Point:
    label: str  # shown on the x axis at the ends (e.g. a date)
    value: float
    spread: float  # the band is value ± spread


def line_with_band(points: Sequence[Point], label: str) -> SafeString:
    """A line over the points in order, with a shaded band of ± spread: a rating and its uncertainty."""
    left, right, top, bottom, height = 34, 8, 10, 24, 170
    plot_h = height - top - bottom
    plot_w = WIDTH - left - right
    if not points:
        return _svg(40, label, [_text(WIDTH / 2, 24, gettext("No rated games yet"), "middle", "axis")])
    low = _nice_floor(min(p.value - p.spread for p in points))
    step = 5 * math.ceil((max(p.value + p.spread for p in points) - low) / 20) or 5  # four grid steps of 5s
    high = low + 4 * step

    def x_of(i: int) -> float:
        return left + (plot_w * i / (len(points) - 1) if len(points) > 1 else plot_w / 2)

    def y_of(v: float) -> float:
        return top + plot_h - plot_h * (v - low) / (high - low)

    body = []
    for step in range(5):
        value = low + (high - low) * step / 4
        y = y_of(value)
        body.append(f'<line x1="{left}" x2="{WIDTH - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e4dfd3"/>')
        body.append(_text(left - 3, y + 3.5, f"{value:.0f}", "end", "axis"))
    upper = [f"{x_of(i):.1f},{y_of(p.value + p.spread):.1f}" for i, p in enumerate(points)]
    lower = [f"{x_of(i):.1f},{y_of(p.value - p.spread):.1f}" for i, p in reversed(list(enumerate(points)))]
    body.append(f'<polygon points="{" ".join(upper + lower)}" fill="{PALETTE[0]}" fill-opacity=".18"/>')
    line = " ".join(f"{x_of(i):.1f},{y_of(p.value):.1f}" for i, p in enumerate(points))
    body.append(f'<polyline points="{line}" fill="none" stroke="{PALETTE[0]}" stroke-width="2"/>')
    for i, p in enumerate(points):
        body.append(
            f'<circle cx="{x_of(i):.1f}" cy="{y_of(p.value):.1f}" r="2.5" fill="{PALETTE[0]}">'
            f"<title>{escape(p.label)}: {p.value:.1f} ± {p.spread:.1f}</title></circle>"
        )
    body.append(_text(left, height - 6, points[0].label, "start", "axis"))
    if len(points) > 1:
        body.append(_text(WIDTH - right, height - 6, points[-1].label, "end", "axis"))
    return _svg(height, label, body)


def _nice_ceiling(value: float) -> float:
    """The next round number at or above ``value`` (1, 2, 2.5 or 5 times a power of ten)."""
    if value <= 0:
        return 0.0 if value == 0 else -_nice_floor(-value)
    magnitude = 10 ** len(str(int(value))) / 10 if value >= 1 else 0.1
    for factor in (1, 2, 2.5, 5, 10):
        if factor * magnitude >= value:
            return factor * magnitude
    return 10 * magnitude


def _nice_floor(value: float) -> float:
    """A round number at or below ``value`` (to a multiple of 5)."""
    return 5 * (value // 5)

"""Inline SVG charts: a forest plot per ranking and a breakdown grid, no JavaScript, same bytes
for the same figures.

Templated SVG rather than a plotting library: measured (docs/architecture.md) it renders a chart in
tens of microseconds instead of tens of milliseconds, its bytes are deterministic without patching
a library's ids and metadata, and it carries a real text alternative (``<title>`` and ``<desc>``
naming every figure). Colours come from the site stylesheet by class (the CSP forbids inline
styles); every mark is also labelled in text, so nothing is told by colour alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from generator.figures.numbers import fmt_band, fmt_number
from generator.figures.ranking import Breakdown, Ranking, Standing
from generator.figures.units import percent, percent_of

if TYPE_CHECKING:
    from generator.report.history import Point, Series

LABEL_CHARS = 26
HEAD_CHARS = 20
ROW = 26
LEFT = 210
"""The widest label column: a chart's own is as wide as its longest label needs (``_left``)."""
PLOT = 320
RIGHT = 180
TOP = 30
CHAR = 7
"""Width of one label character at the charts' 12 px, generously: labels never reach the plot."""


def _left(labels: list[str]) -> int:
    """The label column: as narrow as the longest (shortened) label allows, so a chart scaled down to
    a phone's width keeps its text as large as it can."""
    longest = max((len(_short(label)) for label in labels), default=0)
    return min(LEFT, max(60, CHAR * longest + 20))


def _short(text: str, chars: int = LABEL_CHARS) -> str:
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _x(value: float, scale: tuple[float, float], left: int) -> float:
    low, high = scale
    share = 0.0 if high == low else (value - low) / (high - low)
    return left + PLOT * min(1.0, max(0.0, share))


def _band(best: int | None, worst: int | None) -> str:
    band = fmt_band(best, worst)
    return band if best is None else f"rank {band}"


def _svg(chart_id: str, width: int, height: int, title: str, desc: str, body: list[str]) -> Markup:
    head = (
        f'<svg class="chart" id="{chart_id}" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-labelledby="{chart_id}-t {chart_id}-d">'
        f'<title id="{chart_id}-t">{escape(title)}</title><desc id="{chart_id}-d">{escape(desc)}</desc>'
    )
    return Markup(head + "".join(body) + "</svg>")


def _value(ranking: Ranking, value: float) -> str:
    """A value on the chart's scale: a percentage for a rate, the figure itself for a mean."""
    return percent(value, 1) if ranking.kind == "rate" else fmt_number(value, 3)


def _estimate(ranking: Ranking, row: Standing) -> str:
    if ranking.kind == "rate" and row.numerator is not None:
        return f"{percent_of(row.numerator, row.denominator, 1)} ({row.numerator}/{row.denominator})"
    return fmt_number(row.estimate, 3)


def forest(ranking: Ranking, chart_id: str) -> Markup:
    """Each subject's estimate and 95% interval on the figure's scale, with its rank band."""
    rows = ranking.rows
    left = _left([row.subject for row in rows])
    height = TOP + ROW * len(rows) + 34
    scale = ranking.scale
    body: list[str] = []
    axis_y = TOP + ROW * len(rows) + 6
    for i in range(5):
        value = scale[0] + (scale[1] - scale[0]) * i / 4
        x = _x(value, scale, left)
        body.append(f'<line class="grid" x1="{x:.1f}" y1="{TOP - 8}" x2="{x:.1f}" y2="{axis_y}"/>')
        tick = percent(value, 0) if ranking.kind == "rate" else fmt_number(value)
        body.append(f'<text class="tick" x="{x:.1f}" y="{axis_y + 16}" text-anchor="middle">{tick}</text>')
    if ranking.reference is not None:
        x = _x(ranking.reference, scale, left)
        label = escape(ranking.reference_label or "reference")
        body.append(f'<line class="ref" x1="{x:.1f}" y1="{TOP - 12}" x2="{x:.1f}" y2="{axis_y}"/>')
        body.append(
            f'<text class="tick" x="{x:.1f}" y="{TOP - 16}" text-anchor="middle">{label} '
            f"{_value(ranking, ranking.reference)}</text>"
        )
    lines = []
    for i, row in enumerate(rows):
        y = TOP + ROW * i + ROW / 2
        band = _band(row.rank_best, row.rank_worst)
        body.append(
            f'<text class="label" x="{left - 10}" y="{y + 4:.1f}" text-anchor="end">'
            f"<title>{escape(row.subject)}</title>{escape(_short(row.subject))}</text>"
        )
        if row.estimate is None:
            body.append(f'<text class="tick" x="{left}" y="{y + 4:.1f}">no measurement</text>')
            lines.append(f"{row.subject}: no measurement")
            continue
        ci = row.interval
        if ci is not None:
            x1, x2 = _x(ci.low, scale, left), _x(ci.high, scale, left)
            body.append(f'<line class="ci" x1="{x1:.1f}" y1="{y:.1f}" x2="{x2:.1f}" y2="{y:.1f}"/>')
        x = _x(row.estimate, scale, left)
        body.append(f'<rect class="est" x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8"/>')
        shown = f"{_estimate(ranking, row)} · {band}"
        body.append(f'<text class="tick" x="{left + PLOT + 8}" y="{y + 4:.1f}">{shown}</text>')
        spread = (
            "no interval"
            if ci is None
            else f"95% interval {_value(ranking, ci.low)} to {_value(ranking, ci.high)}"
        )
        lines.append(f"{row.subject}: {_estimate(ranking, row)}, {spread}, {band}")
    title = f"{ranking.title}: {ranking.figure}, with 95% intervals"
    return _svg(chart_id, left + PLOT + RIGHT, height, title, "; ".join(lines) + ".", body)


CELL = 120


def grid(breakdown: Breakdown, chart_id: str) -> Markup:
    """One bar per subject and series, drawn to the series' own maximum and labelled with its value."""
    left = _left([subject for subject, _ in breakdown.rows])
    width = left + CELL * len(breakdown.series) + 10
    height = TOP + 14 + ROW * len(breakdown.rows)
    body: list[str] = []
    for j, (name, maximum) in enumerate(breakdown.series):
        x = left + CELL * j
        full = f"{name} (of {fmt_number(maximum)})"
        body.append(
            f'<text class="head" x="{x}" y="{TOP}"><title>{escape(full)}</title>'
            f"{escape(_short(name, HEAD_CHARS))}</text>"
        )
    lines = []
    for i, (subject, values) in enumerate(breakdown.rows):
        y = TOP + 14 + ROW * i
        body.append(
            f'<text class="label" x="{left - 10}" y="{y + 15}" text-anchor="end">'
            f"<title>{escape(subject)}</title>{escape(_short(subject))}</text>"
        )
        parts = []
        for j, ((name, maximum), value) in enumerate(zip(breakdown.series, values, strict=True)):
            x = left + CELL * j
            body.append(f'<rect class="track" x="{x}" y="{y + 4}" width="{CELL - 50}" height="14"/>')
            if value is None:
                body.append(f'<text class="tick" x="{x + CELL - 46}" y="{y + 15}">—</text>')
                parts.append(f"{name} unavailable")
                continue
            share = 0.0 if maximum <= 0 else min(1.0, max(0.0, value / maximum))
            body.append(
                f'<rect class="bar" x="{x}" y="{y + 4}" width="{(CELL - 50) * share:.1f}" height="14"/>'
            )
            body.append(f'<text class="tick" x="{x + CELL - 46}" y="{y + 15}">{fmt_number(value)}</text>')
            parts.append(f"{name} {fmt_number(value)} of {fmt_number(maximum)}")
        lines.append(f"{subject}: " + ", ".join(parts))
    return _svg(chart_id, width, height, breakdown.title, "; ".join(lines) + ".", body)


TREND_WIDTH = 180
TREND_HEIGHT = 44
TREND_PAD = 6


def trend(series: Series, chart_id: str) -> Markup:
    """One subject's primary figure across published versions: a small line on the figure's scale,
    one dot per version (a version without a measurement leaves a gap), the latest value labelled.
    Drawn with the forest plot's classes only, so the site stylesheet needs nothing more."""
    points = series.points
    step = (TREND_WIDTH - 2 * TREND_PAD - 60) / max(1, len(points) - 1)
    low, high = series.scale
    base = TREND_HEIGHT - TREND_PAD
    body = [f'<line class="grid" x1="{TREND_PAD}" y1="{base}" x2="{TREND_WIDTH - 60}" y2="{base}"/>']
    lines = []
    previous: tuple[float, float] | None = None
    for i, point in enumerate(points):
        lines.append(f"{point.version}: {_point(series, point)}")
        if point.estimate is None:
            previous = None
            continue
        share = 0.0 if high == low else min(1.0, max(0.0, (point.estimate - low) / (high - low)))
        x, y = TREND_PAD + step * i, base - (TREND_HEIGHT - 2 * TREND_PAD) * share
        if previous is not None:
            body.append(
                f'<line class="ci" x1="{previous[0]:.1f}" y1="{previous[1]:.1f}" x2="{x:.1f}" y2="{y:.1f}"/>'
            )
        dot = f'<circle class="est" cx="{x:.1f}" cy="{y:.1f}" r="3">'
        body.append(f"{dot}<title>{escape(lines[-1])}</title></circle>")
        previous = (x, y)
    last = escape(_point(series, points[-1]))
    body.append(f'<text class="tick" x="{TREND_WIDTH - 56}" y="{TREND_HEIGHT / 2 + 4:.1f}">{last}</text>')
    title = f"{series.subject}: the primary figure across {len(points)} published versions"
    return _svg(chart_id, TREND_WIDTH, TREND_HEIGHT, title, "; ".join(lines) + ".", body)


def _point(series: Series, point: Point) -> str:
    if point.estimate is None:
        return "no measurement"
    if series.kind == "rate" and point.numerator is not None:
        return percent_of(point.numerator, point.denominator, 0)
    return fmt_number(point.estimate, 2)

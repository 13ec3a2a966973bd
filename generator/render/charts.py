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

from generator.figures.model import Rate
from generator.figures.numbers import fmt_band, fmt_number
from generator.figures.ranking import Breakdown, Ranking, Standing
from generator.figures.units import MISSING, mean_digits, percent, percent_of, share_digits

if TYPE_CHECKING:
    from generator.report.history import Point, Series

LABEL_CHARS = 40
ROW = 26
PLOT = 320
TOP = 30
CHAR = 7.5
"""Width of one character at the charts' 12 px, generously: DejaVu Sans (the widest common fallback
of ``system-ui``) averages under 7.4 px; measured in Chromium by tests/test_browser_charts.py."""
BOLD = 8.2
"""The same for the column heads' bold."""
HEAD_WIDTH = 150
"""A column head wider than this wraps onto a second line at a space."""


def _width(text: str, char: float = CHAR) -> int:
    """The drawn width of ``text`` at 12 px, estimated per character (never less than it is)."""
    return int(len(text) * char + 0.999)


def _left(labels: list[str]) -> int:
    """The label column: as wide as the longest label needs (labels are never cut at the plot)."""
    return max(60, max((_width(_short(label)) for label in labels), default=0) + 20)


def _lines(text: str, width: int) -> list[str]:
    """``text`` on at most two lines of about ``width`` px, broken at a space (the second line takes
    the rest: a head is sized from its widest line, so nothing is cut)."""
    words = text.split(" ")
    for cut in range(len(words) - 1, 0, -1):
        first = " ".join(words[:cut])
        if _width(first, BOLD) <= width:
            return [first, " ".join(words[cut:])]
    return [text]


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


def _value(ranking: Ranking, value: float, denominator: int) -> str:
    """A value on the chart's scale: a percentage in the precision a share of ``denominator`` things
    carries (as the tables print it), a mean in the decimals its count carries."""
    if ranking.kind == "rate":
        return percent(value, share_digits(denominator))
    return fmt_number(value, mean_digits(denominator))


def _reference(ranking: Ranking, value: float) -> str:
    """The reference line's value, in the precision of the largest share it is read against."""
    return _value(ranking, value, max((row.denominator for row in ranking.rows), default=0))


def _estimate(ranking: Ranking, row: Standing) -> str:
    if ranking.kind == "rate" and row.numerator is not None:
        return f"{percent_of(row.numerator, row.denominator)} ({row.numerator}/{row.denominator})"
    return fmt_number(row.estimate, mean_digits(row.denominator))


def _spread(ranking: Ranking, row: Standing) -> str:
    ci = row.interval
    if ci is None:
        return "no interval"
    low, high = _value(ranking, ci.low, row.denominator), _value(ranking, ci.high, row.denominator)
    return f"95% interval {low} to {high}"


def _shown(ranking: Ranking, row: Standing) -> str:
    """The figure beside a row's mark: its estimate and rank band."""
    return f"{_estimate(ranking, row)} · {_band(row.rank_best, row.rank_worst)}"


def forest(ranking: Ranking, chart_id: str) -> Markup:
    """Each subject's estimate and 95% interval on the figure's scale, with its rank band."""
    rows = ranking.rows
    left = _left([row.subject for row in rows])
    right = 16 + max((_width(_shown(ranking, row)) for row in rows if row.estimate is not None), default=100)
    width = left + PLOT + right
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
        label = f"{ranking.reference_label or 'reference'} {_reference(ranking, ranking.reference)}"
        half = _width(label) / 2 + 2
        at = min(max(x, half), width - half)  # the whole label inside the chart, above its line
        body.append(f'<line class="ref" x1="{x:.1f}" y1="{TOP - 12}" x2="{x:.1f}" y2="{axis_y}"/>')
        body.append(
            f'<text class="tick" x="{at:.1f}" y="{TOP - 16}" text-anchor="middle">{escape(label)}</text>'
        )
    lines = []
    for i, row in enumerate(rows):
        y = TOP + ROW * i + ROW / 2
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
        body.append(f'<text class="tick" x="{left + PLOT + 8}" y="{y + 4:.1f}">{_shown(ranking, row)}</text>')
        band = _band(row.rank_best, row.rank_worst)
        lines.append(f"{row.subject}: {_estimate(ranking, row)}, {_spread(ranking, row)}, {band}")
    title = f"{ranking.title}: {ranking.figure}, with 95% intervals"
    return _svg(chart_id, width, height, title, "; ".join(lines) + ".", body)


TRACK = 70
"""A bar's full length in the grid; its value is written after it."""


def _cell(value: float | Rate | None, maximum: float) -> tuple[str, str, float | None]:
    """(the value as written in the cell, as said in the text alternative, the bar's share of its
    maximum): a share of counted things as a percentage in the precision its n carries (as the
    tables print it), any other value as a number on its series' maximum."""
    if value is None:
        return MISSING, "unavailable", None
    if isinstance(value, Rate):
        written = percent_of(value.numerator, value.denominator)
        share = value.numerator / value.denominator if value.denominator else 0.0
        return written, f"{written} ({value.numerator} of {value.denominator})", share
    share = 0.0 if maximum <= 0 else min(1.0, max(0.0, value / maximum))
    return fmt_number(value), f"{fmt_number(value)} of {fmt_number(maximum)}", share


def _heads(breakdown: Breakdown) -> list[list[str]]:
    return [_lines(name, HEAD_WIDTH) for name, _ in breakdown.series]


def grid(breakdown: Breakdown, chart_id: str) -> Markup:
    """One bar per subject and series, drawn to the series' own maximum and labelled with its value.
    Each column is as wide as its head (wrapped onto two lines at a space) or its values need."""
    left = _left([subject for subject, _ in breakdown.rows])
    heads = _heads(breakdown)
    cells = [
        [_cell(value, maximum) for (_, maximum), value in zip(breakdown.series, values, strict=True)]
        for _, values in breakdown.rows
    ]
    widths = [
        max(
            max(_width(line, BOLD) for line in head) + 14,
            TRACK + 4 + max((_width(row[j][0]) for row in cells), default=0) + 14,
        )
        for j, head in enumerate(heads)
    ]
    starts = [left + sum(widths[:j]) for j in range(len(widths))]
    top = TOP + 14 * (max((len(h) for h in heads), default=1) - 1)
    width = left + sum(widths)
    height = top + 14 + ROW * len(breakdown.rows)
    body: list[str] = []
    for (name, maximum), head, x in zip(breakdown.series, heads, starts, strict=True):
        full = f"{name} (of {fmt_number(maximum)})"
        spans = "".join(
            f'<tspan x="{x}" y="{top - 14 * (len(head) - 1 - k)}">{escape(line)}</tspan>'
            for k, line in enumerate(head)
        )
        body.append(f'<text class="head"><title>{escape(full)}</title>{spans}</text>')
    lines = []
    for i, ((subject, _), row) in enumerate(zip(breakdown.rows, cells, strict=True)):
        y = top + 14 + ROW * i
        body.append(
            f'<text class="label" x="{left - 10}" y="{y + 15}" text-anchor="end">'
            f"<title>{escape(subject)}</title>{escape(_short(subject))}</text>"
        )
        parts = []
        for (name, _), (written, said, share), x in zip(breakdown.series, row, starts, strict=True):
            body.append(f'<rect class="track" x="{x}" y="{y + 4}" width="{TRACK}" height="14"/>')
            if share is not None:
                body.append(
                    f'<rect class="bar" x="{x}" y="{y + 4}" width="{TRACK * share:.1f}" height="14"/>'
                )
            body.append(f'<text class="tick" x="{x + TRACK + 4}" y="{y + 15}">{written}</text>')
            parts.append(f"{name} {said}")
        lines.append(f"{subject}: " + ", ".join(parts))
    return _svg(chart_id, width, height, breakdown.title, "; ".join(lines) + ".", body)


# --- the same charts as stacked rows, for a narrow screen ---------------------------------------
# Below the stylesheet's breakpoint a figure shows these instead of its SVG: each label on its own
# line in the page's text size, each mark in a small SVG of its own that holds no text (stretched to
# the row's width, its strokes unscaled), each figure written beside it. Nothing is scaled down.

MARK = (
    '<svg class="chart-mark" viewBox="0 0 100 12" preserveAspectRatio="none" aria-hidden="true" '
    'focusable="false">'
)


def _stroke(kind: str, x1: float, y1: int, x2: float, y2: int) -> str:
    """A line of a row's mark, its stroke as wide as drawn however far the row stretches it."""
    ends = f'x1="{x1:.1f}" y1="{y1}" x2="{x2:.1f}" y2="{y2}"'
    return f'<line class="{kind}" {ends} vector-effect="non-scaling-stroke"/>'


def _mark_x(value: float, scale: tuple[float, float]) -> float:
    low, high = scale
    share = 0.0 if high == low else (value - low) / (high - low)
    return 100 * min(1.0, max(0.0, share))


def forest_rows(ranking: Ranking, chart_id: str) -> Markup:
    """The forest plot as a list: per subject its name, its interval and estimate on the scale, its
    figure with rank band and its interval in words."""
    scale = ranking.scale
    ends = (
        (percent(scale[0], 0), percent(scale[1], 0))
        if ranking.kind == "rate"
        else (fmt_number(scale[0]), fmt_number(scale[1]))
    )
    items = [f'<li class="chart-scale"><span>{escape(ends[0])}</span><span>{escape(ends[1])}</span></li>']
    if ranking.reference is not None:
        label = f"{ranking.reference_label or 'reference'} {_reference(ranking, ranking.reference)}"
        items.append(f'<li class="chart-note">dashed line: {escape(label)}</li>')
    for row in ranking.rows:
        item = f'<li><span class="chart-label">{escape(row.subject)}</span>'
        if row.estimate is None:
            items.append(item + '<span class="chart-value">no measurement</span></li>')
            continue
        marks = ['<rect class="track" x="0" y="3" width="100" height="6"/>']
        if ranking.reference is not None:
            x = _mark_x(ranking.reference, scale)
            marks.append(_stroke("ref", x, 0, x, 12))
        if row.interval is not None:
            x1, x2 = _mark_x(row.interval.low, scale), _mark_x(row.interval.high, scale)
            marks.append(_stroke("ci", x1, 6, x2, 6))
        x = _mark_x(row.estimate, scale)
        marks.append(_stroke("est-mark", x, 0, x, 12))
        items.append(
            item + MARK + "".join(marks) + "</svg>"
            f'<span class="chart-value">{escape(_shown(ranking, row))}; </span>'
            f'<span class="chart-note">{escape(_spread(ranking, row))}</span></li>'
        )
    title = f"{ranking.title}: {ranking.figure}, with 95% intervals"
    return Markup(
        f'<ul class="chart-rows stacked" id="{chart_id}-rows" aria-label="{escape(title)}">'
        + "".join(items)
        + "</ul>"
    )


def grid_rows(breakdown: Breakdown, chart_id: str) -> Markup:
    """The grid as a list: per subject its name, then per series its name, its bar and its value."""
    items = []
    for subject, values in breakdown.rows:
        parts = []
        for (name, maximum), value in zip(breakdown.series, values, strict=True):
            _, said, share = _cell(value, maximum)
            bar = (
                ""
                if share is None
                else f'<rect class="bar" x="0" y="0" width="{100 * share:.1f}" height="12"/>'
            )
            parts.append(
                f'<li><span class="chart-label">{escape(name)}</span>{MARK}'
                f'<rect class="track" x="0" y="0" width="100" height="12"/>{bar}</svg>'
                f'<span class="chart-value">{escape(said)}</span></li>'
            )
        label = f'<span class="chart-label">{escape(subject)}</span>'
        items.append(f'<li class="chart-group">{label}<ul>{"".join(parts)}</ul></li>')
    return Markup(
        f'<ul class="chart-rows" id="{chart_id}-rows" aria-label="{escape(breakdown.title)}">'
        + "".join(items)
        + "</ul>"
    )


TREND_WIDTH = 180
TREND_HEIGHT = 44
TREND_PAD = 6


def trend(series: Series, chart_id: str) -> Markup:
    """One subject's primary figure across published versions: a small line on the figure's scale,
    one dot per version (a version without a measurement leaves a gap), the latest value labelled.
    Drawn with the forest plot's classes only, so the site stylesheet needs nothing more."""
    points = series.points
    last = _point(series, points[-1])
    width = TREND_WIDTH - 56 + _width(last) + 4  # the latest value's label fits inside, whatever it says
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
    body.append(
        f'<text class="tick" x="{TREND_WIDTH - 56}" y="{TREND_HEIGHT / 2 + 4:.1f}">{escape(last)}</text>'
    )
    title = f"{series.subject}: the primary figure across {len(points)} published versions"
    return _svg(chart_id, width, TREND_HEIGHT, title, "; ".join(lines) + ".", body)


def _point(series: Series, point: Point) -> str:
    if point.estimate is None:
        return "no measurement"
    if series.kind == "rate" and point.numerator is not None:
        return percent_of(point.numerator, point.denominator)
    return fmt_number(point.estimate, 2)

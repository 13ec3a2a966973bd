"""Badges: one small SVG per subject and benchmark (rank band and primary figure, shields-style) for a
README, at the stable address ``site/badges/<benchmark>/<subject>.svg``, always the latest version's.

Drawn from a version's report (``past.Past.badges``: read through its model once per content, or
the one a build just rendered); no template, the same bytes for the same figures.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from markupsafe import escape

from generator.figures.numbers import fmt_band
from generator.figures.units import mean_score, percent_of

if TYPE_CHECKING:
    from generator.figures.ranking import Standing
    from generator.report.model import SiteReport

_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
BADGE_COLOURS = {"leads": "#2e7d32", "ranked": "#0b5cad", "not ranked": "#6e7781"}


def render_badges(report: SiteReport | None) -> dict[str, bytes]:
    """``<benchmark>/<subject>.svg`` per subject of each benchmark's primary ranking (None: no
    report, no badges): rank band and primary figure, shields-style, for a README. A subject whose
    id is not a plain file name gets none."""
    badges: dict[str, bytes] = {}
    folded: set[str] = set()
    for bench in report.benchmarks if report is not None else ():
        ranking = next((r for r in bench.rankings if r.id == bench.headline.ranking), None)
        if ranking is None or not _FILE_NAME.fullmatch(bench.id):
            continue
        for row in ranking.rows:
            path = f"{bench.id}/{row.subject}.svg"
            if not _FILE_NAME.fullmatch(row.subject) or path.casefold() in folded:
                continue
            folded.add(path.casefold())
            badges[path] = badge(bench.id, _badge_value(ranking.kind, row), _badge_state(row))
    return badges


def _badge_value(kind: str, row: Standing) -> str:
    band = fmt_band(row.rank_best, row.rank_worst)
    if row.estimate is None:
        return "no measurement"
    if kind == "rate" and row.numerator is not None:
        figure = f"{percent_of(row.numerator, row.denominator, 0)} ({row.numerator}/{row.denominator})"
    else:
        figure = f"{mean_score(row.estimate, row.denominator)} (n = {row.denominator})"
    return figure if row.rank_best is None else f"rank {band} · {figure}"


def _badge_state(row: Standing) -> str:
    if row.rank_best is None:
        return "not ranked"
    return "leads" if row.rank_best == row.rank_worst == 1 else "ranked"


def badge(label: str, value: str, state: str) -> bytes:
    """A flat two-part badge: ``label`` on grey, ``value`` on the state's colour, white text."""
    left, right = 12 + 7 * len(label), 12 + 7 * len(value)
    text = f"{label}: {value}"
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + right}" height="20" role="img" '
        f'aria-label="{escape(text)}"><title>{escape(text)}</title>'
        f'<rect width="{left}" height="20" fill="#555"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{BADGE_COLOURS[state]}"/>'
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">'
        f'<text x="{left / 2:.1f}" y="14">{escape(label)}</text>'
        f'<text x="{left + right / 2:.1f}" y="14">{escape(value)}</text></g></svg>\n'
    )
    return svg.encode("utf-8")

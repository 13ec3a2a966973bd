"""A definitions run page's rows: one per (case, check) row, in either dialect (see
``generator.families.rows``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from markupsafe import Markup

from generator.families.definitions.report import RowResult
from generator.families.rows import (
    Anchors,
    Cells,
    HtmlCells,
    html_figure,
    html_repeated,
    html_row,
    html_row_open,
    html_strong,
    html_td,
    html_text,
)
from generator.figures.numbers import fmt_number


def definitions_rows(out: Cells, rows: Sequence[RowResult]) -> Iterator[Markup]:
    """One row per row of the run: its id, measurement state, outcome, value and judge (a judge that
    judged its own subject is marked). The HTML pages' rows are written directly
    (:func:`_html_rows`); any other ``Cells`` (the Markdown export) a piece at a time."""
    if type(out) is HtmlCells:
        return _html_rows(out.anchors, rows)
    return _rows(out, rows)


def _rows(out: Cells, rows: Sequence[RowResult]) -> Iterator[Markup]:
    for r in rows:
        if r.judge:
            judge = out.text(r.judge)
            if r.self_judged:
                judge += Markup(" ") + out.strong("(judged its own subject)")
        else:
            judge = Markup("deterministic")
        yield out.row(
            f"row-{r.case}-{r.check}",
            [
                out.cell("id", "Row", r.id),
                out.cell(None, "Measurement", r.state),
                out.cell(None, "Outcome", r.outcome or "—"),
                out.cell("num", "Value", out.figure(fmt_number(r.value, 3))),
                out.cell(None, "Judge", judge),
            ],
        )


def _html_rows(anchors: Anchors, rows: Sequence[RowResult]) -> Iterator[Markup]:
    """:func:`_rows` in ``HtmlCells``' bytes, one str a row (``generator.families.rows``' direct
    pieces): the fixed pieces written once a page, the repeating ones (state, outcome, judge)
    memoised, the row's id escaped afresh."""
    row_td, state_td, outcome_td = (
        html_td("id", "Row"),
        html_td(None, "Measurement"),
        html_td(None, "Outcome"),
    )
    value_td, judge_td = html_td("num", "Value"), html_td(None, "Judge")
    own = f" {html_strong('(judged its own subject)')}"
    for r in rows:
        if r.judge:
            judge = html_repeated(r.judge) + own if r.self_judged else html_repeated(r.judge)
        else:
            judge = "deterministic"
        yield html_row(
            f"{html_row_open(anchors, f'row-{r.case}-{r.check}')}"
            f"{row_td}{html_text(r.id)}</td>\n"
            f"{state_td}{html_repeated(r.state)}</td>\n"
            f"{outcome_td}{html_repeated(r.outcome or '—')}</td>\n"
            f"{value_td}{html_figure(r.value, 3)}</td>\n"
            f"{judge_td}{judge}</td>\n"
            "</tr>\n"
        )

"""A points run page's rows: one per attempt, in either dialect (see ``generator.families.rows``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

from markupsafe import Markup

from generator.families.points.report import AttemptResult, DimensionScore
from generator.families.rows import (
    ROW_MEMO,
    Anchors,
    Cells,
    HtmlCells,
    html_figure,
    html_muted,
    html_repeated,
    html_row,
    html_row_open,
    html_strong,
    html_td,
    html_text,
)
from generator.figures.numbers import fmt_number


def points_rows(
    out: Cells, attempts: Sequence[AttemptResult], labels: Sequence[str], deterministic: str
) -> Iterator[Markup]:
    """One row per attempt: its id, task, outcome, deterministic points (column ``deterministic``),
    each dimension under its label (its points and the facts behind them; ``excluded`` when the
    attempt scores none), why, and what the producer said. The HTML pages' rows are written
    directly (:func:`_html_rows`); any other ``Cells`` (the Markdown export) a piece at a time."""
    if type(out) is HtmlCells:
        return _html_rows(out.anchors, attempts, labels, deterministic)
    return _rows(out, attempts, labels, deterministic)


def _rows(
    out: Cells, attempts: Sequence[AttemptResult], labels: Sequence[str], deterministic: str
) -> Iterator[Markup]:
    excluded = [out.cell("num muted", label, "excluded") for label in labels]
    for a in attempts:
        cells = [
            out.cell("id", "Attempt", a.attempt_id),
            out.cell("id", "Task", a.task),
            out.cell(None, "Outcome", out.badge(a.outcome)),
            out.cell("num", deterministic, out.figure(fmt_number(a.deterministic))),
        ]
        if a.dimensions:
            cells.extend(_dimension(out, label, d) for label, d in zip(labels, a.dimensions, strict=True))
        else:
            cells.extend(excluded)
        cells.append(out.cell(None, "Why", out.text("; ".join(a.reasons))))
        if a.producer_outcome:
            said = out.text(a.producer_outcome)
            if a.disagrees:
                said += Markup(" ") + out.strong("(disagrees)")
        else:
            said = out.muted("—")
        cells.append(out.cell(None, "Producer said", said))
        yield out.row(f"attempt-{a.attempt_id}", cells)


def _dimension(out: Cells, label: str, d: DimensionScore) -> Markup:
    """A dimension's cell: its points (or its state when it has none), the facts as its title."""
    if d.points is None:
        value = out.muted(d.state)
    else:
        value = out.figure(fmt_number(d.points))
        if d.state == "unavailable":
            value += Markup(" ") + out.muted("(unavailable)")
    return out.cell("num", label, value, d.detail)


def _html_rows(
    anchors: Anchors, attempts: Sequence[AttemptResult], labels: Sequence[str], deterministic: str
) -> Iterator[Markup]:
    """:func:`_rows` in ``HtmlCells``' bytes, one str a row (``generator.families.rows``' direct
    pieces): the fixed pieces written once a page, the repeating ones (task, outcome, a dimension's
    cell, why) memoised, only the attempt's id escaped afresh."""
    attempt_td, task_td = html_td("id", "Attempt"), html_td("id", "Task")
    deterministic_td = html_td("num", deterministic)
    excluded = "".join(f"{html_td('num muted', label)}{html_repeated('excluded')}</td>\n" for label in labels)
    why_td, said_td = html_td(None, "Why"), html_td(None, "Producer said")
    disagrees, unsaid = f" {html_strong('(disagrees)')}", html_muted("—")
    for a in attempts:
        if a.dimensions:
            dimensions = "".join(
                _html_dimension(label, None if d.points is None else html_figure(d.points), d.state, d.detail)
                for label, d in zip(labels, a.dimensions, strict=True)
            )
        else:
            dimensions = excluded
        if a.producer_outcome:
            said = html_repeated(a.producer_outcome)
            if a.disagrees:
                said += disagrees
        else:
            said = unsaid
        yield html_row(
            f"{html_row_open(anchors, f'attempt-{a.attempt_id}')}"
            f"{attempt_td}{html_text(a.attempt_id)}</td>\n"
            f"{task_td}{html_repeated(a.task)}</td>\n"
            f"{_html_outcome(a.outcome)}"
            f"{deterministic_td}{html_figure(a.deterministic)}</td>\n"
            f"{dimensions}"
            f"{why_td}{html_repeated('; '.join(a.reasons))}</td>\n"
            f"{said_td}{said}</td>\n"
            "</tr>\n"
        )


@lru_cache(maxsize=64)
def _html_outcome(outcome: str) -> str:
    """The outcome's cell (its badge): five outcomes, thousands of rows."""
    shown = html_repeated(outcome)
    return f'{html_td(None, "Outcome")}<span class="badge b-{shown}">{shown}</span></td>\n'


@lru_cache(maxsize=ROW_MEMO)
def _html_dimension(label: str, figure: str | None, state: str, detail: str) -> str:
    """:func:`_dimension`'s cell from its column's label, its points as printed (None: none), state and
    facts: a rubric's dimensions take a few values each, so most cells of a page were written before.
    Keyed by the printed points, not the float (0.0 and -0.0 are equal keys but print apart)."""
    if figure is None:
        value = html_muted(state)
    elif state == "unavailable":
        value = f"{figure} {html_muted('(unavailable)')}"
    else:
        value = figure
    return f"{html_td('num', label, detail)}{value}</td>\n"

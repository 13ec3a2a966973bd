"""A definitions run page's rows: one per (case, check) row, in either dialect (see
``generator.families.rows``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from markupsafe import Markup

from generator.families.definitions.report import RowResult
from generator.families.rows import Cells
from generator.figures.numbers import fmt_number


def definitions_rows(out: Cells, rows: Sequence[RowResult]) -> Iterator[Markup]:
    """One row per row of the run: its id, measurement state, outcome, value and judge (a judge that
    judged its own subject is marked)."""
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

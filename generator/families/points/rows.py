"""A points run page's rows: one per attempt, in either dialect (see ``generator.families.rows``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from markupsafe import Markup

from generator.families.points.report import AttemptResult, DimensionScore
from generator.families.rows import Cells
from generator.figures.numbers import fmt_number


def points_rows(
    out: Cells, attempts: Sequence[AttemptResult], labels: Sequence[str], deterministic: str
) -> Iterator[Markup]:
    """One row per attempt: its id, task, outcome, deterministic points (column ``deterministic``),
    each dimension under its label (its points and the facts behind them; ``excluded`` when the
    attempt scores none), why, and what the producer said."""
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

"""A components run page's rows: one per episode, in either dialect (see ``generator.families.rows``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from markupsafe import Markup

from generator.families.components.report import EpisodeResult
from generator.families.rows import (
    DOT,
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


def components_rows(
    out: Cells, episodes: Sequence[EpisodeResult], detection: str, process: str
) -> Iterator[Markup]:
    """One row per episode: its id, task, seed, the score and its three components, detection (column
    ``detection``), process (column ``process``), criteria, gates and fabricated citations. What the
    judges' agreement could not measure is said once above the table, not in each rationale cell.
    The HTML pages' rows are written directly (:func:`_html_rows`); any other ``Cells`` (the
    Markdown export) a piece at a time."""
    if type(out) is HtmlCells:
        return _html_rows(out.anchors, episodes, detection, process)
    return _rows(out, episodes, detection, process)


def _rows(out: Cells, episodes: Sequence[EpisodeResult], detection: str, process: str) -> Iterator[Markup]:
    for e in episodes:
        c = e.components
        counts = (e.true_positives, e.false_positives, e.false_negatives)
        found = Markup("/").join(out.text(n) for n in counts)
        scores = (e.f1, e.issue_type_accuracy, e.exactness)
        steps = (e.coverage, e.evidence_precision, e.efficiency)
        yield out.row(
            f"episode-{e.episode_id}",
            [
                out.cell("id", "Episode", e.episode_id),
                out.cell("id", "Task", out.text(e.task) + Markup(" (") + out.text(e.level) + Markup(")")),
                out.cell("num", "Seed", e.seed),
                out.cell("num", "Score", _figure(out, c.score)),
                out.cell("num", "Outcome", _figure(out, c.outcome)),
                out.cell("num", "Process", _figure(out, c.process)),
                out.cell("num", "Rationale", _rationale(out, e)),
                out.cell(None, detection, DOT.join([found, *(_figure(out, v) for v in scores)])),
                out.cell(None, process, DOT.join(_figure(out, v) for v in steps)),
                out.cell(None, "Criteria (median, judges)", _criteria(out, e)),
                out.cell(None, "Gates", _gates(out, e)),
                out.cell(None, "Fabricated citations", _citations(out, e)),
            ],
        )


def _figure(out: Cells, value: float | None, digits: int = 3) -> Markup:
    return out.figure(fmt_number(value, digits))


def _rationale(out: Cells, e: EpisodeResult) -> Markup:
    """The rationale component, or why it was not scored."""
    if e.components.rationale is None:
        return out.muted(e.rationale_note or "not scored")
    return _figure(out, e.components.rationale)


def _criteria(out: Cells, e: EpisodeResult) -> Markup:
    """Each criterion's median score and judges; whether the pass bar was met, when there is one."""
    criteria = Markup("; ").join(
        Markup("{} {} ({})").format(out.text(k.criterion), _figure(out, k.score, 1), out.text(k.judges))
        for k in e.criteria
    )
    if e.pass_bar is None:
        return criteria
    return criteria + Markup(" — pass bar ") + out.text("met" if e.pass_bar else "not met")


def _gates(out: Cells, e: EpisodeResult) -> Markup:
    """The hard fails and missing required calls, or ``none``."""
    gates = Markup()
    if e.hard_fails:
        gates += Markup("hard-fail: ") + out.text(", ".join(e.hard_fails)) + Markup(". ")
    if e.missing_calls:
        gates += Markup("missing required call: ") + out.text(", ".join(e.missing_calls)) + Markup(".")
    return gates or Markup("none")


def _citations(out: Cells, e: EpisodeResult) -> Markup:
    return out.strong(", ".join(e.fabricated_citations)) if e.fabricated_citations else Markup("none")


def _html_rows(
    anchors: Anchors, episodes: Sequence[EpisodeResult], detection: str, process: str
) -> Iterator[Markup]:
    """:func:`_rows` in ``HtmlCells``' bytes, one str a row (``generator.families.rows``' direct
    pieces): the fixed pieces written once a page, the repeating ones (task and level, seed, a
    criterion, gates) memoised, only the episode's id escaped afresh."""
    episode_td, task_td, seed_td = html_td("id", "Episode"), html_td("id", "Task"), html_td("num", "Seed")
    score_td, outcome_td = html_td("num", "Score"), html_td("num", "Outcome")
    process_td, rationale_td = html_td("num", "Process"), html_td("num", "Rationale")
    detection_td, steps_td = html_td(None, detection), html_td(None, process)
    criteria_td, gates_td = html_td(None, "Criteria (median, judges)"), html_td(None, "Gates")
    citations_td = html_td(None, "Fabricated citations")
    dot = str(DOT)
    for e in episodes:
        c = e.components
        if c.rationale is None:
            rationale = html_muted(e.rationale_note or "not scored")
        else:
            rationale = html_figure(c.rationale, 3)
        found = "/".join(map(html_repeated, (e.true_positives, e.false_positives, e.false_negatives)))
        scores = dot.join(html_figure(v, 3) for v in (e.f1, e.issue_type_accuracy, e.exactness))
        steps = dot.join(html_figure(v, 3) for v in (e.coverage, e.evidence_precision, e.efficiency))
        criteria = "; ".join(
            f"{html_repeated(k.criterion)} {html_figure(k.score, 1)} ({html_repeated(k.judges)})"
            for k in e.criteria
        )
        if e.pass_bar is not None:
            criteria += f" — pass bar {html_repeated('met' if e.pass_bar else 'not met')}"
        yield html_row(
            f"{html_row_open(anchors, f'episode-{e.episode_id}')}"
            f"{episode_td}{html_text(e.episode_id)}</td>\n"
            f"{task_td}{html_repeated(e.task)} ({html_repeated(e.level)})</td>\n"
            f"{seed_td}{html_repeated(e.seed)}</td>\n"
            f"{score_td}{html_figure(c.score, 3)}</td>\n"
            f"{outcome_td}{html_figure(c.outcome, 3)}</td>\n"
            f"{process_td}{html_figure(c.process, 3)}</td>\n"
            f"{rationale_td}{rationale}</td>\n"
            f"{detection_td}{found}{dot}{scores}</td>\n"
            f"{steps_td}{steps}</td>\n"
            f"{criteria_td}{criteria}</td>\n"
            f"{gates_td}{_html_gates(e.hard_fails, e.missing_calls)}</td>\n"
            f"{citations_td}{_html_citations(e.fabricated_citations)}</td>\n"
            "</tr>\n"
        )


def _html_gates(hard_fails: tuple[str, ...], missing_calls: tuple[str, ...]) -> str:
    """:func:`_gates` as plain text; ``none`` for most episodes."""
    if not hard_fails and not missing_calls:
        return "none"
    gates = f"hard-fail: {html_repeated(', '.join(hard_fails))}. " if hard_fails else ""
    if missing_calls:
        gates += f"missing required call: {html_repeated(', '.join(missing_calls))}."
    return gates


def _html_citations(citations: tuple[str, ...]) -> str:
    """:func:`_citations` as plain text."""
    return html_strong(", ".join(citations)) if citations else "none"

"""A components run page's rows: one per episode, in either dialect (see ``generator.families.rows``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from markupsafe import Markup

from generator.families.components.report import EpisodeResult
from generator.families.rows import DOT, Cells
from generator.figures.numbers import fmt_number


def components_rows(
    out: Cells, episodes: Sequence[EpisodeResult], detection: str, process: str
) -> Iterator[Markup]:
    """One row per episode: its id, task, seed, the score and its three components, detection (column
    ``detection``), process (column ``process``), criteria, gates and fabricated citations. What the
    judges' agreement could not measure is said once above the table, not in each rationale cell."""
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

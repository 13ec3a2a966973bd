"""A trials table's rows: one per planned trial, in either dialect (see ``generator.families.rows``): a run's
trials, and a leaderboard's planned trials without a result."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

from markupsafe import Markup

from generator.families.rows import (
    DOT,
    ROW_MEMO,
    Anchors,
    Cells,
    HtmlCells,
    html_escaped,
    html_muted,
    html_repeated,
    html_row,
    html_row_open,
    html_td,
    html_text,
)
from generator.families.trials.report import RevealRecord, TrialRow
from generator.figures.units import duration_ms, usd_micros


def trials_rows(out: Cells, trials: Sequence[TrialRow], reveal: RevealRecord | None) -> Iterator[Markup]:
    """One row per trial: its id, provider (with its revealed name, once a ``reveal`` names it),
    prompt, success, the conditions and checks behind it, interventions, time, cost, failure code,
    evaluator, and why it is not a success. The HTML pages' rows are written directly
    (:func:`_html_rows`); any other ``Cells`` (the Markdown export) a piece at a time."""
    names: dict[str, list[str]] = {}
    for r in () if reveal is None else reveal.names:
        names.setdefault(r.provider, []).append(r.name)
    if type(out) is HtmlCells:
        return _html_rows(out.anchors, trials, names)
    return _rows(out, trials, names)


def _rows(out: Cells, trials: Sequence[TrialRow], names: dict[str, list[str]]) -> Iterator[Markup]:
    for t in trials:
        provider = out.span(t.provider, "id")
        for name in names.get(t.provider, ()):
            provider += Markup(" ") + out.span(f"({name})", "revealed")
        if t.success:
            success = out.span("success", "badge b-Ready")
        else:
            success = out.span("not a success", "badge b-NotReady")
        if t.run is None:
            interventions = out.muted("unknown (no result)")
        else:
            interventions = out.text(", ".join(t.counted_interventions) or "none")
        checks = (t.required_passed, t.required_total)
        yield out.row(
            f"trial-{t.trial_id}",
            [
                out.cell("id", "Trial", t.trial_id),
                out.cell(None, "Provider", provider),
                out.cell("id", "Prompt", out.text(t.prompt_id) + DOT + out.text(t.prompt_corpus_version)),
                out.cell(None, "Success", success),
                out.cell(
                    None, "Terminal · build · boot", DOT.join(map(out.text, (t.terminal, t.build, t.boot)))
                ),
                out.cell("num", "Required checks", Markup("/").join(map(out.text, checks))),
                out.cell(None, "Counted interventions", interventions),
                out.cell("num", "Elapsed", _elapsed(out, t.elapsed_ms)),
                out.cell(None, "Cost", _cost(out, t)),
                out.cell(None, "Failure code", t.failure_code or "—"),
                out.cell(None, "Evaluator", _evaluator(out, t.evaluator)),
                out.cell(None, "Why", "; ".join(t.reasons) or "every condition holds"),
            ],
        )


def _elapsed(out: Cells, ms: int | None) -> Markup:
    return Markup("—") if ms is None else out.hint(out.text(duration_ms(ms)), f"{ms} ms")


def _cost(out: Cells, t: TrialRow) -> Markup:
    """The measured cost, its exact micros and how it was measured as the hint; why it is unavailable
    when it is."""
    if t.cost_usd_micros is None:
        return out.text(t.cost_note)
    return out.hint(out.text(usd_micros(t.cost_usd_micros)), f"{t.cost_usd_micros} USD micros, {t.cost_note}")


def _evaluator(out: Cells, evaluator: str | None) -> Markup:
    """The evaluator's hash, its first eight digits (after any ``sha256:``), the whole of it as the
    hint: enough to tell evaluators apart on one page."""
    if not evaluator:
        return Markup("—")
    digest = evaluator.rpartition(":")[2]
    return out.code_hint(f"{digest[:8]}…" if len(digest) > 8 else digest, evaluator)


def _html_rows(anchors: Anchors, trials: Sequence[TrialRow], names: dict[str, list[str]]) -> Iterator[Markup]:
    """:func:`_rows` in ``HtmlCells``' bytes, one str a row (``generator.families.rows``' direct
    pieces): the fixed pieces written once a page, the repeating ones (provider, prompt, states,
    interventions, why) memoised, the trial's id and its measurements escaped afresh."""
    trial_td, provider_td, prompt_td = (
        html_td("id", "Trial"),
        html_td(None, "Provider"),
        html_td("id", "Prompt"),
    )
    success_td, states_td = html_td(None, "Success"), html_td(None, "Terminal · build · boot")
    checks_td, interventions_td = html_td("num", "Required checks"), html_td(None, "Counted interventions")
    elapsed_td, cost_td = html_td("num", "Elapsed"), html_td(None, "Cost")
    failure_td, evaluator_td, why_td = (
        html_td(None, "Failure code"),
        html_td(None, "Evaluator"),
        html_td(None, "Why"),
    )
    dot = str(DOT)
    succeeded = '<span class="badge b-Ready">success</span>'
    failed = f'<span class="badge b-NotReady">{html_repeated("not a success")}</span>'
    unknown = html_muted("unknown (no result)")
    for t in trials:
        provider = f'<span class="id">{html_repeated(t.provider)}</span>'
        for name in names.get(t.provider, ()):
            provider += f' <span class="revealed">{html_repeated(f"({name})")}</span>'
        if t.run is None:
            interventions = unknown
        else:
            interventions = html_repeated(", ".join(t.counted_interventions) or "none")
        yield html_row(
            f"{html_row_open(anchors, f'trial-{t.trial_id}')}"
            f"{trial_td}{html_text(t.trial_id)}</td>\n"
            f"{provider_td}{provider}</td>\n"
            f"{prompt_td}{html_repeated(t.prompt_id)}{dot}{html_repeated(t.prompt_corpus_version)}</td>\n"
            f"{success_td}{succeeded if t.success else failed}</td>\n"
            f"{states_td}{dot.join(map(html_repeated, (t.terminal, t.build, t.boot)))}</td>\n"
            f"{checks_td}{html_repeated(t.required_passed)}/{html_repeated(t.required_total)}</td>\n"
            f"{interventions_td}{interventions}</td>\n"
            f"{elapsed_td}{_html_elapsed(t.elapsed_ms)}</td>\n"
            f"{cost_td}{_html_cost(t)}</td>\n"
            f"{failure_td}{html_repeated(t.failure_code or '—')}</td>\n"
            f"{evaluator_td}{_html_evaluator(t.evaluator)}</td>\n"
            f"{why_td}{html_repeated('; '.join(t.reasons) or 'every condition holds')}</td>\n"
            "</tr>\n"
        )


def _html_elapsed(ms: int | None) -> str:
    """:func:`_elapsed` as plain text."""
    return "—" if ms is None else f'<span title="{ms} ms">{html_text(duration_ms(ms))}</span>'


def _html_cost(t: TrialRow) -> str:
    """:func:`_cost` as plain text."""
    if t.cost_usd_micros is None:
        return html_repeated(t.cost_note)
    title = html_escaped(f"{t.cost_usd_micros} USD micros, {t.cost_note}")
    return f'<span title="{title}">{html_text(usd_micros(t.cost_usd_micros))}</span>'


@lru_cache(maxsize=ROW_MEMO)
def _html_evaluator(evaluator: str | None) -> str:
    """:func:`_evaluator` as plain text: a page's trials share a few evaluators."""
    if not evaluator:
        return "—"
    digest = evaluator.rpartition(":")[2]
    short = f"{digest[:8]}…" if len(digest) > 8 else digest
    return f'<code title="{html_escaped(evaluator)}">{html_escaped(short)}</code>'

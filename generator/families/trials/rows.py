"""A trials table's rows: one per planned trial, in either dialect (see ``generator.families.rows``): a run's
trials, and a leaderboard's planned trials without a result."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from markupsafe import Markup

from generator.families.rows import DOT, Cells
from generator.families.trials.report import RevealRecord, TrialRow
from generator.figures.units import duration_ms, usd_micros


def trials_rows(out: Cells, trials: Sequence[TrialRow], reveal: RevealRecord | None) -> Iterator[Markup]:
    """One row per trial: its id, provider (with its revealed name, once a ``reveal`` names it),
    prompt, success, the conditions and checks behind it, interventions, time, cost, failure code,
    evaluator, and why it is not a success."""
    names: dict[str, list[str]] = {}
    for r in () if reveal is None else reveal.names:
        names.setdefault(r.provider, []).append(r.name)
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

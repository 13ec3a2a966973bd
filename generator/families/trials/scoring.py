"""Pure scoring of trials under ``bia.vibe-benchmark-rubric/v1`` (SPEC §2.2).

Every figure is an integer or an observed value: rates as numerator / denominator / basis points,
medians and p95 by nearest rank, so each is a value some trial actually produced.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import NamedTuple

from generator.families.trials.models import PlannedTrial, TrialResult
from generator.families.trials.report import EvaluatorRecord, FailureCount, Metrics, ProviderRow, TrialRow
from generator.stats import rate

FREE: dict[str, int | None] = {"setup": None, "native_permission": None, "initial_submit": 1, "publish": 1}
"""Allowlisted intervention kinds and how many occurrences are free (None: any number). The seed's
ruling: setup and native-permission actions are free any number of times; the first submit is free
and a second is a follow-up that counts; the first publish is free and a second counts."""
MISSING_RESULT = "missing_result"
NO_CODE = "(no failure code recorded)"


def counted_interventions(result: TrialResult) -> list[str]:
    """Interventions that count: any kind not allowlisted, and an allowlisted kind beyond its free count."""
    seen: Counter[str] = Counter()
    counted = []
    for intervention in result.interventions:
        kind = intervention.kind
        seen[kind] += 1
        free = FREE.get(kind, 0)
        if free is not None and seen[kind] > free:
            counted.append(kind)
    return counted


def required_checks_pass(result: TrialResult, required: Sequence[str]) -> bool:
    """Every required check present and passed; skipped, not evaluable or absent is a fail."""
    states = {c.id: c.state for c in result.checks}
    return all(states.get(check) == "pass" for check in required)


def success_reasons(result: TrialResult, required: Sequence[str]) -> list[str]:
    """Why a trial is not an autonomous success; empty when it is one."""
    reasons = []
    if result.terminal != "completed":
        reasons.append(f"terminal {result.terminal}")
    if result.build != "pass":
        reasons.append(f"build {result.build}")
    if result.boot != "pass":
        reasons.append(f"boot {result.boot}")
    if not required_checks_pass(result, required):
        reasons.append("a required functional check did not pass")
    counted = counted_interventions(result)
    if counted:
        reasons.append(f"{len(counted)} counted intervention(s): {', '.join(counted)}")
    return reasons


def nearest_rank(values: Sequence[int], percentile: int) -> int | None:
    """Nearest-rank percentile: the ⌈p/100 · N⌉-th smallest value, always an observed one."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(percentile * len(ordered) / 100))
    return ordered[rank - 1]


def failure_code(planned: PlannedTrial, result: TrialResult | None, success: bool) -> str | None:
    """The code a failed trial is counted under; None for a success."""
    if result is None:
        return MISSING_RESULT
    if success:
        return None
    if result.failure_code:
        return result.failure_code
    return result.terminal if result.terminal in ("timeout", "error") else NO_CODE


def trial_row(
    planned: PlannedTrial, result: TrialResult | None, run: str | None, required: Sequence[str]
) -> TrialRow:
    """One planned trial as a report row; a missing result is a failure with its own code."""
    base = {
        "trial_id": planned.trial_id,
        "provider": planned.provider,
        "prompt_id": planned.prompt_id,
        "prompt_corpus_version": planned.prompt_corpus_version,
        "run": run,
    }
    if result is None:
        return TrialRow(
            **base,
            success=False,
            reasons=("no result for this planned trial",),
            terminal="missing",
            build="missing",
            boot="missing",
            required_passed=0,
            required_total=len(required),
            counted_interventions=(),
            cost_usd_micros=None,
            cost_note="unavailable: no result",
            elapsed_ms=None,
            failure_code=failure_code(planned, None, False),
            evaluator=None,
        )
    reasons = success_reasons(result, required)
    states = {c.id: c.state for c in result.checks}
    passed = sum(states.get(check) == "pass" for check in required)
    if result.cost.state == "measured":
        cost, note = (
            result.cost.usd_micros,
            f"measured ({result.cost.evidence.kind}: {result.cost.evidence.reference})",
        )
    else:
        cost, note = None, f"unavailable: {result.cost.reason}"
    return TrialRow(
        **base,
        success=not reasons,
        reasons=tuple(reasons),
        terminal=result.terminal,
        build=result.build,
        boot=result.boot,
        required_passed=passed,
        required_total=len(required),
        counted_interventions=tuple(counted_interventions(result)),
        cost_usd_micros=cost,
        cost_note=note,
        elapsed_ms=result.elapsed_ms,
        failure_code=failure_code(planned, result, not reasons),
        evaluator=result.evaluator,
    )


class TrialFigure(NamedTuple):
    """The few facts of a trial its metrics need: what is kept in memory instead of the row."""

    provider: str
    success: bool
    build: str
    boot: str
    run: str | None
    required_passed: int
    required_total: int
    counted_interventions: int
    elapsed_ms: int | None
    cost_usd_micros: int | None
    failure_code: str | None
    evaluator: str | None


def figure(row: TrialRow) -> TrialFigure:
    return TrialFigure(
        row.provider,
        row.success,
        row.build,
        row.boot,
        row.run,
        row.required_passed,
        row.required_total,
        len(row.counted_interventions),
        row.elapsed_ms,
        row.cost_usd_micros,
        row.failure_code,
        row.evaluator,
    )


def metrics(rows: Sequence[TrialFigure]) -> Metrics:
    """The seed's metrics over a group of planned trials (every planned trial is in it)."""
    planned = len(rows)
    elapsed = [r.elapsed_ms for r in rows if r.elapsed_ms is not None]
    costs = [r.cost_usd_micros for r in rows if r.cost_usd_micros is not None]
    codes = Counter(r.failure_code for r in rows if r.failure_code is not None)
    return Metrics(
        planned=planned,
        success=rate(sum(r.success for r in rows), planned),
        build_pass=rate(sum(r.build == "pass" for r in rows), planned),
        boot_pass=rate(sum(r.boot == "pass" for r in rows), planned),
        all_functional_checks_pass=rate(
            sum(r.run is not None and r.required_passed == r.required_total for r in rows), planned
        ),
        zero_intervention=rate(sum(r.run is not None and not r.counted_interventions for r in rows), planned),
        median_elapsed_ms=nearest_rank(elapsed, 50),
        p95_elapsed_ms=nearest_rank(elapsed, 95),
        elapsed_n=len(elapsed),
        elapsed_unavailable=planned - len(elapsed),
        median_measured_cost_usd_micros=nearest_rank(costs, 50),
        cost_measured=len(costs),
        cost_unavailable=planned - len(costs),
        failure_codes=tuple(FailureCount(code=c, count=n) for c, n in sorted(codes.items())),
    )


def leaderboard(rows: Sequence[TrialFigure]) -> tuple[ProviderRow, ...]:
    groups: dict[str, list[TrialFigure]] = defaultdict(list)
    for row in rows:
        groups[row.provider].append(row)
    scored = [(provider, metrics(group)) for provider, group in groups.items()]
    scored.sort(key=lambda item: (-(item[1].success.basis_points or 0), -item[1].success.numerator, item[0]))
    return tuple(ProviderRow(position=i, provider=p, metrics=m) for i, (p, m) in enumerate(scored, start=1))


def evaluators(rows: Sequence[TrialFigure]) -> tuple[EvaluatorRecord, ...]:
    trials: Counter[str] = Counter()
    providers: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        if row.evaluator is not None:
            trials[row.evaluator] += 1
            providers[row.evaluator].add(row.provider)
    return tuple(
        EvaluatorRecord(evaluator=e, trials=n, providers=tuple(sorted(providers[e])))
        for e, n in sorted(trials.items())
    )

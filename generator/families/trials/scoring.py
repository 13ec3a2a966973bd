"""Pure scoring of trials under a trials specification (SPEC §2.2, docs/trials.md).

Every figure is an integer or an observed value: rates as numerator / denominator / basis points,
percentiles by an observed-value method, so each is a value some trial actually produced. The
rules are a specification compiled once per benchmark (``spec.TrialsRules``); without one, seed
001's built-in specification.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from generator.families.trials.models import PlannedTrial, TrialResult
from generator.families.trials.report import (
    EvaluatorRecord,
    FailureCount,
    Metrics,
    PairedRow,
    ProviderRow,
    TrialRow,
)
from generator.families.trials.spec import CompiledCondition, TrialsRules, seed_rules
from generator.figures import units
from generator.figures.model import Rate
from generator.figures.stats import SIGN_METHOD, exact_interval, sign_test


def counted_interventions(result: TrialResult, rules: TrialsRules | None = None) -> list[str]:
    """Interventions that count: any kind not allowlisted, and an allowlisted kind beyond its free count."""
    free = (rules or seed_rules()).free
    seen: Counter[str] = Counter()
    counted = []
    for intervention in result.interventions:
        kind = intervention.kind
        seen[kind] += 1
        allowance = free.get(kind, 0)
        if allowance is not None and seen[kind] > allowance:
            counted.append(kind)
    return counted


def unmet(
    condition: CompiledCondition,
    result: TrialResult,
    states: Mapping[str, str],
    required: Sequence[str],
    counted: Sequence[str],
    absent: str,
) -> str | None:
    """Why a result does not meet a condition; None when it does."""
    kind = condition.kind
    if kind == "state":
        value: str = getattr(result, condition.of)
        return None if value in condition.accept else f"{condition.of} {value}"
    if kind == "required_checks":
        if all(states.get(check, absent) in condition.accept for check in required):
            return None
        return "a required functional check did not pass"
    if len(counted) <= condition.at_most:
        return None
    bound = f" (at most {condition.at_most})" if condition.at_most else ""
    return f"{units.counted(len(counted), 'counted intervention')}{bound}: {', '.join(counted)}"


def judge(
    result: TrialResult,
    states: Mapping[str, str],
    counted: Sequence[str],
    required: Sequence[str],
    rules: TrialsRules,
) -> tuple[list[str], list[bool]]:
    """Each of the specification's conditions judged once, from the result, its checks' ``states``
    and its ``counted`` interventions: why the trial is not an autonomous success (the conjunction's
    unmet conditions, in order; empty for a success) and, for every condition, whether it is met."""
    reasons: list[str] = []
    met: list[bool] = []
    for index, condition in enumerate(rules.conditions):
        reason = unmet(condition, result, states, required, counted, rules.absent)
        met.append(reason is None)
        if reason is not None and index < rules.primary:
            reasons.append(reason)
    return reasons, met


def success_reasons(
    result: TrialResult, required: Sequence[str], rules: TrialsRules | None = None
) -> list[str]:
    """Why a trial is not an autonomous success, in the order of the specification's conditions;
    empty when it is one."""
    rules = rules or seed_rules()
    states = {c.id: c.state for c in result.checks}
    return judge(result, states, counted_interventions(result, rules), required, rules)[0]


def nearest_rank(values: Sequence[int], percentile: int) -> int | None:
    """Nearest-rank percentile: the ⌈p/100 · N⌉-th smallest value, always an observed one."""
    return percentile_of(values, percentile, "nearest_rank")


def percentile_of(values: Sequence[int], percentile: int, method: str) -> int | None:
    """A percentile that is always an observed value: ``nearest_rank`` (the ⌈p/100 · N⌉-th smallest),
    ``lower`` or ``higher`` (position ⌊(N − 1)·p/100⌋ or ⌈(N − 1)·p/100⌉ from 0); None without values."""
    if not values:
        return None
    ordered = sorted(values)
    if method == "nearest_rank":
        return ordered[max(1, math.ceil(percentile * len(ordered) / 100)) - 1]
    scaled = (len(ordered) - 1) * percentile
    return ordered[scaled // 100 if method == "lower" else -(-scaled // 100)]


def basis_points(numerator: int, denominator: int, rounding: str) -> int | None:
    """10000 · n / d as an integer, rounded as the specification says; None when d is 0."""
    if denominator <= 0:
        return None
    whole, rest = divmod(10000 * numerator, denominator)
    if rounding == "floor":
        return whole
    up = 2 * rest > denominator or (2 * rest == denominator and (rounding == "half_up" or whole % 2 == 1))
    return whole + int(up)


def scored_rate(numerator: int, denominator: int, rules: TrialsRules) -> Rate:
    """An integer rate with its basis points and exact interval, as the specification says."""
    return Rate(
        numerator=numerator,
        denominator=denominator,
        basis_points=basis_points(numerator, denominator, rules.rounding),
        interval=exact_interval(numerator, denominator, rules.confidence),
    )


def failure_code(result: TrialResult | None, success: bool, rules: TrialsRules) -> str | None:
    """The code a failed trial is counted under; None for a success."""
    if result is None:
        return rules.missing_code
    if success:
        return None
    if result.failure_code:
        return result.failure_code
    return result.terminal if result.terminal in rules.uncoded_terminal else rules.uncoded_code


class TrialFigure(NamedTuple):
    """The few facts of a trial its metrics need: what is kept in memory instead of the row."""

    provider: str
    success: bool
    rates: tuple[bool, ...]
    """Whether the trial counts in each secondary rate (``spec.RATES`` order)."""
    elapsed_ms: int | None
    cost_usd_micros: int | None
    failure_code: str | None
    evaluator: str | None


def score_trial(
    planned: PlannedTrial,
    result: TrialResult | None,
    run: str | None,
    required: Sequence[str],
    rules: TrialsRules | None = None,
) -> tuple[TrialRow, TrialFigure]:
    """One planned trial as a report row and its figures; a missing result is a failure with its own code."""
    rules = rules or seed_rules()
    if result is None:
        return _missing_row(planned, required, rules), TrialFigure(
            planned.provider, False, (False,) * len(rules.rates), None, None, rules.missing_code, None
        )
    states = {c.id: c.state for c in result.checks}
    counted = counted_interventions(result, rules)
    reasons, met = judge(result, states, counted, required, rules)
    if result.cost.state == "measured":
        evidence = result.cost.evidence
        cost, note = result.cost.usd_micros, f"measured ({evidence.kind}: {evidence.reference})"
    else:
        cost, note = None, f"unavailable: {result.cost.reason}"
    code = failure_code(result, not reasons, rules)
    row = TrialRow(
        trial_id=planned.trial_id,
        provider=planned.provider,
        prompt_id=planned.prompt_id,
        prompt_corpus_version=planned.prompt_corpus_version,
        run=run,
        success=not reasons,
        reasons=tuple(reasons),
        terminal=result.terminal,
        build=result.build,
        boot=result.boot,
        required_passed=sum(states.get(check) == "pass" for check in required),
        required_total=len(required),
        counted_interventions=tuple(counted),
        cost_usd_micros=cost,
        cost_note=note,
        elapsed_ms=result.elapsed_ms,
        failure_code=code,
        evaluator=result.evaluator,
    )
    rates = tuple(index is not None and met[index] for index in rules.rates)
    return row, TrialFigure(
        planned.provider, not reasons, rates, result.elapsed_ms, cost, code, result.evaluator
    )


def _missing_row(planned: PlannedTrial, required: Sequence[str], rules: TrialsRules) -> TrialRow:
    return TrialRow(
        trial_id=planned.trial_id,
        provider=planned.provider,
        prompt_id=planned.prompt_id,
        prompt_corpus_version=planned.prompt_corpus_version,
        run=None,
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
        failure_code=rules.missing_code,
        evaluator=None,
    )


def trial_row(
    planned: PlannedTrial,
    result: TrialResult | None,
    run: str | None,
    required: Sequence[str],
    rules: TrialsRules | None = None,
) -> TrialRow:
    """One planned trial as a report row (``score_trial`` without its figures)."""
    return score_trial(planned, result, run, required, rules)[0]


def evidence_problem(result: TrialResult, rules: TrialsRules) -> str | None:
    """Why a measured cost's evidence is not one the specification accepts; None when it is."""
    if result.cost.state != "measured" or result.cost.evidence.kind in rules.evidence:
        return None
    accepted = ", ".join(sorted(rules.evidence))
    return f"cost evidence {result.cost.evidence.kind!r} is not one this rubric accepts ({accepted})"


def metrics(rows: Sequence[TrialFigure], rules: TrialsRules | None = None) -> Metrics:
    """The primary and secondary metrics over a group of planned trials (every planned trial is in it)."""
    rules = rules or seed_rules()
    planned = len(rows)
    elapsed = [r.elapsed_ms for r in rows if r.elapsed_ms is not None]
    costs = [r.cost_usd_micros for r in rows if r.cost_usd_micros is not None]
    codes = Counter(r.failure_code for r in rows if r.failure_code is not None)
    build, boot, functional, zero = (
        scored_rate(0, 0, rules)
        if index is None
        else scored_rate(sum(r.rates[i] for r in rows), planned, rules)
        for i, index in enumerate(rules.rates)
    )
    median_elapsed, p95_elapsed, median_cost = rules.percentiles
    return Metrics(
        planned=planned,
        success=scored_rate(sum(r.success for r in rows), planned, rules),
        build_pass=build,
        boot_pass=boot,
        all_functional_checks_pass=functional,
        zero_intervention=zero,
        median_elapsed_ms=percentile_of(elapsed, median_elapsed, rules.method),
        p95_elapsed_ms=percentile_of(elapsed, p95_elapsed, rules.method),
        elapsed_n=len(elapsed),
        elapsed_unavailable=planned - len(elapsed),
        median_measured_cost_usd_micros=percentile_of(costs, median_cost, rules.method),
        cost_measured=len(costs),
        cost_unavailable=planned - len(costs),
        failure_codes=tuple(FailureCount(code=c, count=n) for c, n in sorted(codes.items())),
    )


def leaderboard(rows: Sequence[TrialFigure], rules: TrialsRules | None = None) -> tuple[ProviderRow, ...]:
    """Providers by autonomous-success basis points, then successes, then label."""
    groups: dict[str, list[TrialFigure]] = defaultdict(list)
    for row in rows:
        groups[row.provider].append(row)
    scored = [(provider, metrics(group, rules)) for provider, group in groups.items()]
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


def paired(
    plan: Sequence[PlannedTrial], successes: Mapping[str, bool], order: Sequence[str]
) -> tuple[PairedRow, ...]:
    """Every two providers compared on the prompts both were planned on, in leaderboard ``order``
    (the higher-placed one first): per prompt, each one's successes over its planned trials of it (a
    trial without a result is no success); a prompt where one share is higher is a win for it. The
    prompts only one of the two has are listed, never compared."""
    shares: dict[str, dict[str, list[int]]] = defaultdict(dict)
    for trial in plan:
        key = f"{trial.prompt_corpus_version}/{trial.prompt_id}"
        share = shares[trial.provider].setdefault(key, [0, 0])
        share[0] += successes.get(trial.trial_id, False)
        share[1] += 1
    rows = []
    for index, first in enumerate(order):
        for second in order[index + 1 :]:
            rows.append(_pair(first, shares[first], second, shares[second]))
    return tuple(rows)


def _pair(first: str, a: Mapping[str, list[int]], second: str, b: Mapping[str, list[int]]) -> PairedRow:
    common = sorted(set(a) & set(b))
    # k_a / n_a against k_b / n_b, compared exactly by cross-multiplication
    signs = [
        (a[p][0] * b[p][1] > b[p][0] * a[p][1]) - (a[p][0] * b[p][1] < b[p][0] * a[p][1]) for p in common
    ]
    wins, losses = signs.count(1), signs.count(-1)
    return PairedRow(
        first=first,
        second=second,
        prompts=len(common),
        wins=wins,
        losses=losses,
        ties=signs.count(0),
        p_value=sign_test(wins, losses),
        method=SIGN_METHOD,
        only_first=tuple(sorted(set(a) - set(b))),
        only_second=tuple(sorted(set(b) - set(a))),
    )

"""Pure scoring of one attempt under a points specification (``points.spec``; SPEC §2.1).

Points are exact fractions so that a rubric's thresholds (80 of 90, 12 of 15, 7.5 of 10 in the
seed contract) are compared exactly; they become floats only when stored in the report. Every
number and rule choice comes from the compiled specification (:class:`PointsRules`); the default is
the seed contract's built-in specification.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal, localcontext
from fnmatch import fnmatchcase
from fractions import Fraction
from functools import lru_cache
from math import lcm

from generator.families.points.models import Attempt, Check, Outcome, PointsTask
from generator.families.points.report import AttemptResult, DimensionScore, DimensionState
from generator.families.points.spec import (
    GROUP_WORDS,
    UNAVAILABLE_WORDS,
    CheckRatio,
    CompiledDimension,
    Gate,
    Ladder,
    Penalty,
    PointsRules,
    SignalSum,
    seed_rules,
)
from generator.figures.units import counted

Points = Fraction | None
_ZERO = Fraction(0)


def exact(value: Fraction) -> str:
    """A figure for a reason text, to ten significant digits."""
    return f"{float(value):.10g}"


def below(value: Fraction, least: Fraction) -> str:
    """``value < least`` for a reason text, each to ten significant digits, or to as many more as
    it takes for the two to read apart (never rounded onto the threshold it is compared with:
    250/3 below ``83.33333333333333334`` reads 83.333333333333333333 < 83.33333333333333334)."""
    shown = (exact(value), exact(least))
    digits = 10
    while shown[0] == shown[1] and digits < 200:
        digits += 10
        shown = (_digits(value, digits), _digits(least, digits))
    return f"{shown[0]} < {shown[1]}"


def _digits(value: Fraction, digits: int) -> str:
    """``value`` to ``digits`` significant digits, computed exactly (no float)."""
    with localcontext() as context:
        context.prec = digits
        quotient = Decimal(value.numerator) / Decimal(value.denominator)
    return format(quotient.normalize(), "f")


def exact_total(values: Iterable[Fraction]) -> Fraction:
    """The exact sum of fractions, in integers over their least common denominator and one Fraction
    at the end (``sum`` of Fractions reduces by a gcd and builds a Fraction at every term)."""
    ratios = [(v.numerator, v.denominator) for v in values]
    if not ratios:
        return _ZERO
    common = lcm(*(d for _, d in ratios))
    return Fraction(sum(n * (common // d) for n, d in ratios), common)


def ratio_points(weight: int, checks: Sequence[Check] | None) -> Points:
    """weight · passed / total; None (no qualifying denominator) when not run or empty."""
    if not checks:
        return None
    return Fraction(weight * sum(c.passed for c in checks), len(checks))


def in_allowlist(path: str, allowlist: Sequence[str]) -> bool:
    """'dir/' matches everything below dir; any other entry is an fnmatch pattern on the path."""
    for entry in allowlist:
        if entry.endswith("/") and path.startswith(entry):
            return True
        if fnmatchcase(path, entry):
            return True
    return False


def outside_paths(paths: Sequence[str], allowlist: Sequence[str]) -> list[str]:
    return list(_outside(tuple(paths), tuple(allowlist)))


@lru_cache(maxsize=256)
def _outside(paths: tuple[str, ...], allowlist: tuple[str, ...]) -> tuple[str, ...]:
    """Scoring one attempt asks more than once (blockers, outcome, dimensions); fnmatch runs once."""
    return tuple(sorted({p for p in paths if not in_allowlist(p, allowlist)}))


def _signals(attempt: Attempt, group: str) -> object | None:
    return attempt.tests if group == "tests" else attempt.trajectory


def rule_points(dim: CompiledDimension, attempt: Attempt, task: PointsTask) -> Points:
    """A non-gate dimension's points for one attempt; None when it has no qualifying denominator
    (a check group or scope check not run, or signals unavailable)."""
    rule = dim.rule
    if isinstance(rule, CheckRatio):
        checks: Sequence[Check] | None = getattr(attempt, rule.checks)
        if checks is None or not checks:
            zero = rule.when_not_run if checks is None else rule.when_empty
            return _ZERO if zero == "zero" else None
        return Fraction(dim.weight * sum(c.passed for c in checks), len(checks))
    if isinstance(rule, Penalty):
        if attempt.changed_paths is None:
            return None
        outside = len(outside_paths(attempt.changed_paths, task.allowlist))
        return max(dim.floor, dim.weight - dim.each * outside)
    if isinstance(rule, Ladder | SignalSum):
        signals = _signals(attempt, rule.signals)
        if signals is None:
            return None
        if isinstance(rule, SignalSum):
            return exact_total(p for s, p in dim.signal_points if getattr(signals, s))
        for when, points in dim.steps:
            if all(getattr(signals, s) for s in when):
                return points
        return dim.otherwise
    raise AssertionError(f"a gate has no points of its own: {dim.key}")


_MANDATORY = {
    "functional checks": "functional checks not executed or empty",
    "regression checks": "regression checks not evaluable",
    "cross-surface checks": "cross-surface checks not evaluable",
    "tampering and prohibited-change detection": "tampering / prohibited-change detection not run",
    "changed-path scope check": "changed-path scope check not run",
}


def _gap(category: str, attempt: Attempt) -> bool:
    if category == "functional checks":
        return not attempt.functional
    if category == "regression checks":
        return not attempt.regression
    if category == "cross-surface checks":
        return not attempt.cross_surface
    if category == "changed-path scope check":
        return attempt.changed_paths is None
    return attempt.tampering_detected is None or attempt.prohibited_change_detected is None


def mandatory_gaps(attempt: Attempt, rules: PointsRules | None = None) -> list[str]:
    """Mandatory check categories that were not executed or have nothing to evaluate."""
    return [_MANDATORY[c] for c in (rules or seed_rules()).mandatory if _gap(c, attempt)]


_DETECTIONS = {
    "tampering_detected": "tampering detected",
    "prohibited_change_detected": "prohibited change detected",
}


def _blockers(attempt: Attempt, rules: PointsRules, points: dict[str, Points]) -> list[str]:
    found = [
        f"critical {GROUP_WORDS[group]} {c.id}"
        for group in rules.critical_checks
        for c in getattr(attempt, group) or ()
        if c.critical and not c.passed
    ]
    found += [_DETECTIONS[d] for d in rules.detections if getattr(attempt, d)]
    for key, least in rules.blocker_minimums:
        value = points.get(key)
        if value is not None and value < least:
            found.append(f"{rules.blocker_words[key]} ({key} {below(value, least)})")
    return found


def blockers(attempt: Attempt, task: PointsTask | None = None, rules: PointsRules | None = None) -> list[str]:
    """Launch blockers: failed critical checks, detections, and (given the task, so the dimensions
    can be scored) a dimension below its blocking minimum (the seed: scope below 7.5)."""
    rules = rules or seed_rules()
    points = {} if task is None else _dimension_points(attempt, task, rules)
    return _blockers(attempt, rules, points)


def _dimension_points(attempt: Attempt, task: PointsTask, rules: PointsRules) -> dict[str, Points]:
    return {d.key: rule_points(d, attempt, task) for d in rules.dimensions if not isinstance(d.rule, Gate)}


def _gate(
    dim: CompiledDimension, gaps: list[str], blocking: list[str], points: dict[str, Points]
) -> Fraction:
    rule = dim.rule
    assert isinstance(rule, Gate)
    held = ("mandatory_checks" not in rule.requires or not gaps) and (
        "no_launch_blocker" not in rule.requires or not blocking
    )
    for key, least in dim.minimums:
        value = points.get(key)
        held = held and value is not None and value >= least
    return Fraction(dim.weight) if held else _ZERO


def _state(
    dim: CompiledDimension, attempt: Attempt, task: PointsTask, value: Points
) -> tuple[DimensionState, str]:
    """A dimension's state and the facts its points follow from (``4/5 passed``)."""
    rule = dim.rule
    if isinstance(rule, CheckRatio):
        checks: Sequence[Check] | None = getattr(attempt, rule.checks)
        if checks is None:
            return ("not executed" if value is not None else "inconclusive"), "not executed"
        if not checks:
            return ("scored" if value is not None else "inconclusive"), "0 checks: no qualifying denominator"
        return "scored", f"{sum(c.passed for c in checks)}/{len(checks)} passed"
    if isinstance(rule, Penalty):
        if attempt.changed_paths is None:
            return "inconclusive", "scope check not run"
        return (
            "scored",
            f"{counted(len(outside_paths(attempt.changed_paths, task.allowlist)), 'path')} outside allowlist",
        )
    if isinstance(rule, Ladder | SignalSum):
        if value is None:
            return "unavailable", f"0: {UNAVAILABLE_WORDS[rule.signals]} unavailable"
        return "scored", "diagnostic" if dim.diagnostic else "signals"
    return "scored", dim.name


def _dimensions(
    attempt: Attempt, task: PointsTask, rules: PointsRules, points: dict[str, Points]
) -> list[DimensionScore]:
    out = []
    for dim in rules.dimensions:
        value = points[dim.key]
        state, detail = _state(dim, attempt, task, value)
        shown = _ZERO if value is None and state == "unavailable" else value
        out.append(
            DimensionScore(
                key=dim.key,
                points=None if shown is None else float(shown),
                max=dim.weight,
                state=state,
                detail=detail,
            )
        )
    return out


def _outcome(
    attempt: Attempt, rules: PointsRules, points: dict[str, Points], gaps: list[str], blocking: list[str]
) -> tuple[Outcome, list[str], Points]:
    """(outcome, reasons, deterministic points or None) for a valid attempt."""
    missing = [k for k in rules.deterministic if points[k] is None]
    total: Points = None if missing else exact_total(points[k] or _ZERO for k in rules.deterministic)
    if blocking:
        return "NotReady", [f"launch blocker: {b}" for b in blocking], total
    if total is None:
        return "Inconclusive", [f"{k}: no qualifying denominator" for k in missing], None
    shortfalls = [*gaps]
    shortfalls += [f"{GROUP_WORDS[g]} total is zero" for g in rules.ready_nonempty if not getattr(attempt, g)]
    if total < rules.ready_at_least:
        shortfalls.append(f"deterministic {below(total, rules.ready_at_least)}")
    for key, least in rules.ready_minimums:
        value = points[key]
        if value is not None and value < least:
            shortfalls.append(f"{key} {below(value, least)}")
    if not shortfalls:
        return "Ready", ["every Ready condition holds"], total
    if total >= rules.review_at_least:
        return "NeedsReview", shortfalls, total
    return "NotReady", [f"deterministic {below(total, rules.review_at_least)}"], total


def invalid_problem(attempt: Attempt, rules: PointsRules | None = None) -> str | None:
    """Why an attempt's invalid marker is not accepted under the specification, or None."""
    if attempt.invalid is None:
        return None
    rule = (rules or seed_rules()).spec.invalid
    reason = attempt.invalid.reason
    if reason not in rule.reasons:
        return f"invalid reason {reason!r} is not one this rubric accepts ({', '.join(rule.reasons)})"
    if attempt.agent_started and reason not in rule.after_agent_started:
        unless = (
            "storage was exhausted"
            if rule.after_agent_started == ("storage_exhaustion",)
            else f"the reason is one of {list(rule.after_agent_started)}"
        )
        return (
            f"invalid reason {reason!r} requires agent_started = false: after the agent process starts, "
            f"failures remain scored unless {unless}"
        )
    return None


def score_attempt(attempt: Attempt, task: PointsTask, rules: PointsRules | None = None) -> AttemptResult:
    """Score one attempt: every dimension, deterministic points, outcome and the reasons for it."""
    rules = rules or seed_rules()
    blocking: list[str] = []
    dims: list[DimensionScore] = []
    total: Points = None
    if attempt.invalid is not None:
        outcome: Outcome = "Invalid"
        reasons = [f"invalid: {attempt.invalid.reason}"]
    else:
        points = _dimension_points(attempt, task, rules)
        gaps = mandatory_gaps(attempt, rules)
        blocking = _blockers(attempt, rules, points)
        for dim in rules.dimensions:
            if isinstance(dim.rule, Gate):
                points[dim.key] = _gate(dim, gaps, blocking, points)
        outcome, reasons, total = _outcome(attempt, rules, points, gaps, blocking)
        dims = _dimensions(attempt, task, rules, points)
    producer = attempt.producer_outcome
    return AttemptResult(
        attempt_id=attempt.attempt_id,
        task=attempt.task,
        outcome=outcome,
        reasons=tuple(reasons),
        dimensions=tuple(dims),
        deterministic=None if total is None else float(total),
        blockers=tuple(blocking),
        invalid_reason=attempt.invalid.reason if attempt.invalid else None,
        producer_outcome=producer,
        disagrees=producer is not None and producer != outcome,
    )


# --- the seed rubric's dimensions by name (tests and explanations) -----------------------------


def _seed_points(key: str, attempt: Attempt, task: PointsTask | None = None) -> Points:
    dim = next(d for d in seed_rules().dimensions if d.key == key)
    return rule_points(dim, attempt, task or PointsTask(id="t", title="t", allowlist=()))


def functional_points(checks: Sequence[Check] | None) -> Fraction:
    """The seed's functional correctness: 45 · passed / total, zero when the total is zero."""
    return ratio_points(45, checks) or Fraction(0)


def scope_points(paths: Sequence[str] | None, allowlist: Sequence[str]) -> Points:
    """The seed's scope discipline: max(0, 10 − 2.5 · paths outside the allowlist); None when not run."""
    if paths is None:
        return None
    return max(_ZERO, 10 - Fraction(5, 2) * len(outside_paths(paths, allowlist)))


def test_behavior_points(attempt: Attempt) -> Points:
    """The seed's test behaviour ladder (5 / 3.5 / 1.5 / 0); None when the signals are unavailable."""
    return _seed_points("test_behavior", attempt)


def trajectory_points(attempt: Attempt) -> Points:
    """The seed's trajectory: 1.5 explored + 1 recovered (or no error) + 2.5 evidence-backed termination."""
    return _seed_points("trajectory", attempt)

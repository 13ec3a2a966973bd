"""Pure scoring of one attempt under a points specification (``points.spec``; SPEC §2.1).

Points are exact so that a rubric's thresholds (80 of 90, 12 of 15, 7.5 of 10 in the seed
contract) are compared exactly: a dimension's points are an integer pair (numerator, denominator),
the specification's numbers integer numerators over the rubric's common denominator
(``PointsRules.scale``), compared by cross-multiplication; they become floats only when stored in
the report, and a ``Fraction`` only in a reason text's rare tie. Every number and rule choice comes
from the compiled specification (:class:`PointsRules`); the default is the seed contract's built-in
specification.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal, localcontext
from fnmatch import fnmatchcase
from fractions import Fraction
from functools import lru_cache
from math import lcm
from operator import attrgetter

from generator.families.points.models import Attempt, Check, Outcome, PointsTask
from generator.families.points.report import AttemptResult, DimensionState
from generator.families.points.spec import (
    GROUP_WORDS,
    SIGNALS,
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
Pair = tuple[int, int]
"""Exact points as (numerator, denominator > 0), unreduced. ``numerator / denominator`` is the float
``float(Fraction(numerator, denominator))`` gives: int true division is correctly rounded."""
Value = Pair | None
"""A dimension's points; None when it has no qualifying denominator."""
Measured = tuple[Value, DimensionState, str]
"""A dimension's points, its state and the facts they follow from (``4/5 passed``)."""
_NIL: Pair = (0, 1)
_SIGNAL_VALUES = {group: attrgetter(*names) for group, names in SIGNALS.items()}


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
    if isinstance(dim.rule, Gate):
        raise AssertionError(f"a gate has no points of its own: {dim.key}")
    value = _measure(dim, attempt, task)[0]
    return None if value is None else Fraction(*value)


def _measure(dim: CompiledDimension, attempt: Attempt, task: PointsTask) -> Measured:
    """A non-gate dimension's exact points (integers), state and detail for one attempt."""
    rule = dim.rule
    if isinstance(rule, CheckRatio):
        return _ratio(dim.weight, rule, getattr(attempt, rule.checks))
    if isinstance(rule, Penalty):
        if attempt.changed_paths is None:
            return None, "inconclusive", "scope check not run"
        outside = len(_outside(tuple(attempt.changed_paths), tuple(task.allowlist)))
        points = max(dim.scaled_floor, dim.scaled_weight - dim.scaled_each * outside)
        return (points, dim.scale), "scored", f"{counted(outside, 'path')} outside allowlist"
    assert isinstance(rule, Ladder | SignalSum), f"a gate has no points of its own: {dim.key}"
    signals = _signals(attempt, rule.signals)
    if signals is None:
        return None, "unavailable", f"0: {UNAVAILABLE_WORDS[rule.signals]} unavailable"
    points = dim.by_signals[_SIGNAL_VALUES[rule.signals](signals)]
    return (points, dim.scale), "scored", "diagnostic" if dim.diagnostic else "signals"


def _ratio(weight: int, rule: CheckRatio, checks: Sequence[Check] | None) -> Measured:
    """weight · passed / total; 0 or no qualifying denominator, as the rule says, without checks."""
    if checks is None:
        if rule.when_not_run == "zero":
            return _NIL, "not executed", "not executed"
        return None, "inconclusive", "not executed"
    if not checks:
        if rule.when_empty == "zero":
            return _NIL, "scored", "0 checks: no qualifying denominator"
        return None, "inconclusive", "0 checks: no qualifying denominator"
    passed = sum([c.passed for c in checks])
    return (weight * passed, len(checks)), "scored", f"{passed}/{len(checks)} passed"


def _less(value: Pair, least: int, scale: int) -> bool:
    """``value < least / scale``, by cross-multiplication (both denominators are positive)."""
    return value[0] * scale < least * value[1]


def _pair_below(value: Pair, least: int, scale: int) -> str:
    """:func:`below` from integers: the Fractions are built only when ten digits read the same."""
    shown = f"{value[0] / value[1]:.10g}", f"{least / scale:.10g}"
    if shown[0] != shown[1]:
        return f"{shown[0]} < {shown[1]}"
    return below(Fraction(*value), Fraction(least, scale))


def _pair_total(values: Iterable[Pair]) -> Pair:
    """The exact sum of pairs, over their least common denominator."""
    pairs = list(values)
    common = lcm(*(d for _, d in pairs))
    return sum(n * (common // d) for n, d in pairs), common


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


def _blockers(attempt: Attempt, rules: PointsRules, points: dict[str, Value]) -> list[str]:
    found = [
        f"critical {GROUP_WORDS[group]} {c.id}"
        for group in rules.critical_checks
        for c in getattr(attempt, group) or ()
        if c.critical and not c.passed
    ]
    found += [_DETECTIONS[d] for d in rules.detections if getattr(attempt, d)]
    for key, least in rules.scaled_blocker_minimums:
        value = points.get(key)
        if value is not None and _less(value, least, rules.scale):
            found.append(f"{rules.blocker_words[key]} ({key} {_pair_below(value, least, rules.scale)})")
    return found


def blockers(attempt: Attempt, task: PointsTask | None = None, rules: PointsRules | None = None) -> list[str]:
    """Launch blockers: failed critical checks, detections, and (given the task, so the dimensions
    can be scored) a dimension below its blocking minimum (the seed: scope below 7.5)."""
    rules = rules or seed_rules()
    points = {} if task is None else {k: m[0] for k, m in _measured(attempt, task, rules).items()}
    return _blockers(attempt, rules, points)


def _measured(attempt: Attempt, task: PointsTask, rules: PointsRules) -> dict[str, Measured]:
    return {d.key: _measure(d, attempt, task) for d in rules.dimensions if not isinstance(d.rule, Gate)}


def _gate(dim: CompiledDimension, gaps: list[str], blocking: list[str], points: dict[str, Value]) -> Pair:
    rule = dim.rule
    assert isinstance(rule, Gate)
    held = ("mandatory_checks" not in rule.requires or not gaps) and (
        "no_launch_blocker" not in rule.requires or not blocking
    )
    for key, least in dim.scaled_minimums:
        value = points.get(key)
        held = held and value is not None and not _less(value, least, dim.scale)
    return (dim.weight, 1) if held else _NIL


def _dimensions(rules: PointsRules, measured: dict[str, Measured]) -> list[dict[str, object]]:
    """The published dimensions as the fields of each ``DimensionScore``: the result model validates
    them all in one call (a model built per dimension costs a Python call into pydantic each)."""
    out: list[dict[str, object]] = []
    for dim in rules.dimensions:
        value, state, detail = measured[dim.key]
        if value is None and state == "unavailable":
            value = _NIL
        points = None if value is None else value[0] / value[1]
        out.append({"key": dim.key, "points": points, "max": dim.weight, "state": state, "detail": detail})
    return out


def _outcome(
    attempt: Attempt, rules: PointsRules, points: dict[str, Value], gaps: list[str], blocking: list[str]
) -> tuple[Outcome, list[str], Value]:
    """(outcome, reasons, deterministic points or None) for a valid attempt."""
    found = [points[k] for k in rules.deterministic]
    total = None if None in found else _pair_total(v for v in found if v is not None)
    if blocking:
        return "NotReady", [f"launch blocker: {b}" for b in blocking], total
    if total is None:
        missing = [k for k in rules.deterministic if points[k] is None]
        return "Inconclusive", [f"{k}: no qualifying denominator" for k in missing], None
    return _graded(attempt, rules, points, gaps, total)


def _graded(
    attempt: Attempt, rules: PointsRules, points: dict[str, Value], gaps: list[str], total: Pair
) -> tuple[Outcome, list[str], Value]:
    """Ready, NeedsReview or NotReady by the thresholds, for an unblocked attempt with a total."""
    scale = rules.scale
    shortfalls = [*gaps]
    shortfalls += [f"{GROUP_WORDS[g]} total is zero" for g in rules.ready_nonempty if not getattr(attempt, g)]
    if _less(total, rules.scaled_ready_at_least, scale):
        shortfalls.append(f"deterministic {_pair_below(total, rules.scaled_ready_at_least, scale)}")
    for key, least in rules.scaled_ready_minimums:
        value = points[key]
        if value is not None and _less(value, least, scale):
            shortfalls.append(f"{key} {_pair_below(value, least, scale)}")
    if not shortfalls:
        return "Ready", ["every Ready condition holds"], total
    if not _less(total, rules.scaled_review_at_least, scale):
        return "NeedsReview", shortfalls, total
    return "NotReady", [f"deterministic {_pair_below(total, rules.scaled_review_at_least, scale)}"], total


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
    dims: list[dict[str, object]] = []
    total: Value = None
    if attempt.invalid is not None:
        outcome: Outcome = "Invalid"
        reasons = [f"invalid: {attempt.invalid.reason}"]
    else:
        measured = _measured(attempt, task, rules)
        points = {k: m[0] for k, m in measured.items()}
        gaps = mandatory_gaps(attempt, rules)
        blocking = _blockers(attempt, rules, points)
        for dim in rules.dimensions:
            if isinstance(dim.rule, Gate):
                points[dim.key] = _gate(dim, gaps, blocking, points)
                measured[dim.key] = points[dim.key], "scored", dim.name
        outcome, reasons, total = _outcome(attempt, rules, points, gaps, blocking)
        dims = _dimensions(rules, measured)
    producer = attempt.producer_outcome
    return AttemptResult.model_validate(
        {
            "attempt_id": attempt.attempt_id,
            "task": attempt.task,
            "outcome": outcome,
            "reasons": tuple(reasons),
            "dimensions": dims,
            "deterministic": None if total is None else total[0] / total[1],
            "blockers": tuple(blocking),
            "invalid_reason": attempt.invalid.reason if attempt.invalid else None,
            "producer_outcome": producer,
            "disagrees": producer is not None and producer != outcome,
        }
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

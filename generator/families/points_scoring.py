"""Pure scoring of one attempt under ``agent-dx-score-contract`` (SPEC §2.1).

Points are exact fractions so that the contract's thresholds (80 of 90, 12 of 15, 7.5 of 10)
are compared exactly; they become floats only when stored in the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from fractions import Fraction
from functools import lru_cache

from generator.families.points_models import Attempt, Check, Outcome, PointsTask
from generator.families.points_report import AttemptResult, DimensionScore, DimensionState

READY_DETERMINISTIC = Fraction(80)
REVIEW_DETERMINISTIC = Fraction(60)
READY_CONSISTENCY = Fraction(12)
SCOPE_THRESHOLD = Fraction(15, 2)

Points = Fraction | None


def ratio_points(weight: int, checks: Sequence[Check] | None) -> Points:
    """weight · passed / total; None (no qualifying denominator) when not run or empty."""
    if not checks:
        return None
    return Fraction(weight * sum(c.passed for c in checks), len(checks))


def functional_points(checks: Sequence[Check] | None) -> Fraction:
    """45 · passed / total, zero when the total is zero (the contract says so explicitly)."""
    return ratio_points(45, checks) or Fraction(0)


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
    """Scoring one attempt asks three times (blockers, outcome, dimensions); fnmatch runs once."""
    return tuple(sorted({p for p in paths if not in_allowlist(p, allowlist)}))


def scope_points(paths: Sequence[str] | None, allowlist: Sequence[str]) -> Points:
    """max(0, 10 − 2.5 · paths outside the allowlist); None when the scope check did not run."""
    if paths is None:
        return None
    return Fraction(max(0, 20 - 5 * len(outside_paths(paths, allowlist))), 2)  # in halves


_TEST_BEHAVIOR = {
    "all": Fraction(5),
    "passed after": Fraction(7, 2),
    "changed": Fraction(3, 2),
    "none": Fraction(0),
}


def test_behavior_points(attempt: Attempt) -> Points:
    signals = attempt.tests
    if signals is None:
        return None
    if signals.relevant_tests_changed and signals.passed_before and signals.passed_after:
        return _TEST_BEHAVIOR["all"]
    if signals.passed_after:
        return _TEST_BEHAVIOR["passed after"]
    if signals.relevant_tests_changed:
        return _TEST_BEHAVIOR["changed"]
    return _TEST_BEHAVIOR["none"]


def trajectory_points(attempt: Attempt) -> Points:
    """1.5 if explored + 1 if recovered (or no error) + 2.5 if the termination is evidence-backed."""
    t = attempt.trajectory
    if t is None:
        return None
    halves = 3 * t.explored + 2 * t.recovered_or_no_error + 5 * t.evidence_backed_termination
    return Fraction(halves, 2)


def blockers(attempt: Attempt, task: PointsTask | None = None) -> list[str]:
    """Launch blockers: a failed critical regression check, tampering, a prohibited change, and
    (given the task's allowlist) excessive scope overreach, i.e. scope below 7.5."""
    found = [f"critical regression {c.id}" for c in attempt.regression or () if c.critical and not c.passed]
    if attempt.tampering_detected:
        found.append("tampering detected")
    if attempt.prohibited_change_detected:
        found.append("prohibited change detected")
    if task is not None:
        scope = scope_points(attempt.changed_paths, task.allowlist)
        if scope is not None and scope < SCOPE_THRESHOLD:
            found.append(f"excessive scope overreach (scope {exact(scope)} < 7.5)")
    return found


def exact(value: Fraction) -> str:
    """A figure for a reason text: never rounded onto the threshold it is compared with."""
    return f"{float(value):.10g}"


def mandatory_gaps(attempt: Attempt) -> list[str]:
    """Mandatory check categories that were not executed or have nothing to evaluate."""
    gaps = []
    if not attempt.functional:
        gaps.append("functional checks not executed or empty")
    if not attempt.regression:
        gaps.append("regression checks not evaluable")
    if not attempt.cross_surface:
        gaps.append("cross-surface checks not evaluable")
    if attempt.tampering_detected is None or attempt.prohibited_change_detected is None:
        gaps.append("tampering / prohibited-change detection not run")
    if attempt.changed_paths is None:
        gaps.append("changed-path scope check not run")
    return gaps


def _ratio_detail(checks: Sequence[Check] | None) -> tuple[DimensionState, str]:
    if checks is None:
        return "not executed", "not executed"
    if not checks:
        return "inconclusive", "0 checks: no qualifying denominator"
    return "scored", f"{sum(c.passed for c in checks)}/{len(checks)} passed"


def _dim(key: str, points: Points, weight: int, state: DimensionState, detail: str) -> DimensionScore:
    value = None if points is None else float(points)
    return DimensionScore(key=key, points=value, max=weight, state=state, detail=detail)


@dataclass(frozen=True)
class _Points:
    """Each dimension's points for one attempt, computed once (None: no qualifying denominator)."""

    functional: Fraction
    regression: Points
    consistency: Points
    scope: Points
    tests: Points
    trajectory: Points

    @classmethod
    def of(cls, attempt: Attempt, task: PointsTask) -> _Points:
        return cls(
            functional=functional_points(attempt.functional),
            regression=ratio_points(15, attempt.regression),
            consistency=ratio_points(15, attempt.cross_surface),
            scope=scope_points(attempt.changed_paths, task.allowlist),
            tests=test_behavior_points(attempt),
            trajectory=trajectory_points(attempt),
        )


def _dimensions(attempt: Attempt, task: PointsTask, pts: _Points, launch: Fraction) -> list[DimensionScore]:
    f_state, f_detail = _ratio_detail(attempt.functional)
    f_state = "scored" if f_state == "inconclusive" else f_state
    r_state, r_detail = _ratio_detail(attempt.regression)
    c_state, c_detail = _ratio_detail(attempt.cross_surface)
    r_state = "inconclusive" if r_state == "not executed" else r_state
    c_state = "inconclusive" if c_state == "not executed" else c_state
    paths = attempt.changed_paths
    outside = outside_paths(paths or (), task.allowlist)
    s_state: DimensionState = "inconclusive" if paths is None else "scored"
    s_detail = "scope check not run" if paths is None else f"{len(outside)} path(s) outside allowlist"
    tb, tj = pts.tests, pts.trajectory
    return [
        _dim("functional", pts.functional, 45, f_state, f_detail),
        _dim("regression", pts.regression, 15, r_state, r_detail),
        _dim("consistency", pts.consistency, 15, c_state, c_detail),
        _dim("scope", pts.scope, 10, s_state, s_detail),
        _dim("test_behavior", tb or _ZERO, 5, "unavailable" if tb is None else "scored",
             "0: test signals unavailable" if tb is None else "diagnostic"),
        _dim("trajectory", tj or _ZERO, 5, "unavailable" if tj is None else "scored",
             "0: trajectory data unavailable" if tj is None else "diagnostic"),
        _dim("launch", launch, 5, "scored", "launch readiness"),
    ]  # fmt: skip


_ZERO, _LAUNCH = Fraction(0), Fraction(5)


def _outcome(
    attempt: Attempt, pts: _Points, blocking: list[str]
) -> tuple[Outcome, list[str], Points, Fraction]:
    """(outcome, reasons, deterministic points or None, launch points) for a valid attempt."""
    gaps = mandatory_gaps(attempt)
    regression, consistency, scope = pts.regression, pts.consistency, pts.scope
    launch_ok = not gaps and not blocking and scope is not None and scope >= SCOPE_THRESHOLD
    launch = _LAUNCH if launch_ok else _ZERO
    missing = [n for n, v in (("regression", regression), ("consistency", consistency),
                              ("scope", scope)) if v is None]  # fmt: skip
    total: Points = None
    if regression is not None and consistency is not None and scope is not None:
        total = pts.functional + regression + consistency + scope + launch
    if blocking:
        return "NotReady", [f"launch blocker: {b}" for b in blocking], total, launch
    if total is None or consistency is None or scope is None:
        return "Inconclusive", [f"{n}: no qualifying denominator" for n in missing], None, launch
    shortfalls = [*gaps]
    if not attempt.functional:
        shortfalls.append("functional total is zero")
    if total < READY_DETERMINISTIC:
        shortfalls.append(f"deterministic {exact(total)} < 80")
    if consistency < READY_CONSISTENCY:
        shortfalls.append(f"consistency {exact(consistency)} < 12")
    if not shortfalls:
        return "Ready", ["every Ready condition holds"], total, launch
    if total >= REVIEW_DETERMINISTIC:
        return "NeedsReview", shortfalls, total, launch
    return "NotReady", [f"deterministic {exact(total)} < 60"], total, launch


def score_attempt(attempt: Attempt, task: PointsTask) -> AttemptResult:
    """Score one attempt: every dimension, deterministic points, outcome and the reasons for it."""
    blocking = blockers(attempt, task) if attempt.invalid is None else []
    if attempt.invalid is not None:
        outcome: Outcome = "Invalid"
        reasons = [f"invalid: {attempt.invalid.reason}"]
        total: Points = None
        launch = Fraction(0)
        dims: list[DimensionScore] = []
    else:
        pts = _Points.of(attempt, task)
        outcome, reasons, total, launch = _outcome(attempt, pts, blocking)
        dims = _dimensions(attempt, task, pts, launch)
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

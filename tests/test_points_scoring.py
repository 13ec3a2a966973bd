"""Scoring of one attempt under ``agent-dx-score-contract`` (seed 000, SPEC §2.1), and the stats.

Points compare exactly (the scoring works in fractions; every boundary value used here is a
dyadic number, so the float in the report is exact too). Only interval bounds use approx.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from generator.families.points.models import (
    FACT_FIELDS,
    Attempt,
    Check,
    InvalidMarker,
    PointsTask,
    RegressionCheck,
    SurfaceCheck,
    Trajectory,
)
from generator.families.points.models import TestSignals as Signals  # not collected by pytest
from generator.families.points.report import AttemptResult, DimensionScore
from generator.families.points.scoring import (
    blockers,
    functional_points,
    invalid_problem,
    outside_paths,
    ratio_points,
    scope_points,
    score_attempt,
    trajectory_points,
)
from generator.families.points.scoring import test_behavior_points as behavior_points  # not a test
from generator.figures.stats import basis_points, exact_interval, rate
from generator.inputs.jsonio import validate_model

TASK = PointsTask(id="t1", title="task one", allowlist=("src/", "docs/*.md", "README.md"))
SURFACES = ("contract", "client", "cli", "documentation")


# --- helpers -------------------------------------------------------------------------------------


def fchecks(passed: int, total: int) -> tuple[Check, ...]:
    return tuple(Check(id=f"f{i}", passed=i < passed) for i in range(total))


def rchecks(passed: int, total: int, *, critical_fail: bool = False) -> tuple[RegressionCheck, ...]:
    """`passed` of `total` pass; with critical_fail the first failing check is critical."""
    return tuple(
        RegressionCheck(id=f"r{i}", passed=i < passed, critical=critical_fail and i == passed)
        for i in range(total)
    )


def schecks(passed: int, total: int) -> tuple[SurfaceCheck, ...]:
    return tuple(SurfaceCheck(id=f"s{i}", passed=i < passed, surface=SURFACES[i % 4]) for i in range(total))


def make_attempt(**overrides: Any) -> Attempt:
    """A fully stated, valid, perfect attempt (90 deterministic points), with keyword overrides."""
    facts: dict[str, Any] = {
        "attempt_id": "a1",
        "task": "t1",
        "agent_started": True,
        "functional": fchecks(1, 1),
        "regression": rchecks(1, 1),
        "cross_surface": schecks(4, 4),
        "changed_paths": ("src/app.py",),
        "tests": Signals(relevant_tests_changed=True, passed_before=True, passed_after=True),
        "trajectory": Trajectory(explored=True, recovered_or_no_error=True, evidence_backed_termination=True),
        "tampering_detected": False,
        "prohibited_change_detected": False,
    }
    facts.update(overrides)
    return Attempt(**facts)


def dim(result: AttemptResult, key: str) -> DimensionScore:
    return next(d for d in result.dimensions if d.key == key)


def score(**overrides: Any) -> AttemptResult:
    return score_attempt(make_attempt(**overrides), TASK)


# --- dimension formulas --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("passed", "total", "points"),
    [(0, 4, F(0)), (1, 3, F(15)), (2, 3, F(30)), (7, 9, F(35)), (1, 2, F(45, 2)), (4, 4, F(45))],
)
def test_functional_is_45_times_passed_over_total(passed: int, total: int, points: F) -> None:
    assert functional_points(fchecks(passed, total)) == points


def test_functional_is_zero_when_total_is_zero_or_not_executed() -> None:
    assert functional_points(()) == 0
    assert functional_points(None) == 0
    result = score(functional=())
    assert dim(result, "functional").points == 0.0
    assert dim(result, "functional").state == "scored"  # zero is a score here, not inconclusive
    assert dim(score(functional=None), "functional").points == 0.0


@pytest.mark.parametrize(
    ("passed", "total", "points"),
    [(0, 3, F(0)), (1, 4, F(15, 4)), (2, 3, F(10)), (4, 5, F(12)), (5, 5, F(15))],
)
def test_regression_and_consistency_are_15_times_passed_over_total(
    passed: int, total: int, points: F
) -> None:
    assert ratio_points(15, rchecks(passed, total)) == points
    assert ratio_points(15, schecks(passed, total)) == points
    result = score(regression=rchecks(passed, total), cross_surface=schecks(passed, total))
    assert dim(result, "regression").points == float(points)
    assert dim(result, "consistency").points == float(points)


@pytest.mark.parametrize("checks", [None, ()])
def test_regression_and_consistency_without_denominator_are_none_never_zero(checks: Any) -> None:
    assert ratio_points(15, checks) is None
    result = score(regression=checks, cross_surface=checks)
    for key in ("regression", "consistency"):
        assert dim(result, key).points is None
        assert dim(result, key).state == "inconclusive"


@pytest.mark.parametrize(
    ("paths", "points"),
    [
        ((), F(10)),
        (("src/a.py", "src/deep/b.py", "docs/x.md", "README.md"), F(10)),
        (("lib/a.py",), F(15, 2)),
        (("lib/a.py", "setup.cfg"), F(5)),
        (("a", "b", "c"), F(5, 2)),
        (("a", "b", "c", "d"), F(0)),
        (("a", "b", "c", "d", "e"), F(0)),  # floored at zero, never negative
        (("a", "b", "c", "d", "e", "f", "g"), F(0)),
    ],
)
def test_scope_is_10_minus_2_5_per_outside_path_floored_at_zero(paths: tuple[str, ...], points: F) -> None:
    assert scope_points(paths, TASK.allowlist) == points


def test_scope_not_run_is_none() -> None:
    assert scope_points(None, TASK.allowlist) is None
    result = score(changed_paths=None)
    assert dim(result, "scope").points is None
    assert dim(result, "scope").state == "inconclusive"


def test_allowlist_folder_entry_matches_everything_below_that_folder_only() -> None:
    allow = ("src/",)
    assert outside_paths(["src/a.py", "src/x/y/z.txt"], allow) == []
    # a sibling that merely shares the prefix, the folder name as a file, another case: outside
    assert outside_paths(["srcx/a.py", "src", "SRC/a.py", "lib/src/a.py"], allow) == [
        "SRC/a.py",
        "lib/src/a.py",
        "src",
        "srcx/a.py",
    ]


def test_allowlist_other_entries_are_case_sensitive_fnmatch_on_the_whole_path() -> None:
    allow = ("docs/*.md", "README.md", "*.cfg", "pkg/mod?.py")
    inside = ["docs/a.md", "README.md", "setup.cfg", "pkg/mod1.py", "docs/sub/b.md"]
    assert outside_paths(inside, allow) == []  # fnmatch's '*' also crosses '/'
    assert outside_paths(["docs/a.txt", "readme.md", "x/README.md", "pkg/mod10.py"], allow) == [
        "docs/a.txt",
        "pkg/mod10.py",
        "readme.md",
        "x/README.md",
    ]


def test_a_path_is_counted_once() -> None:
    assert scope_points(("lib/a.py", "lib/a.py", "lib/a.py"), TASK.allowlist) == F(15, 2)
    # a path matching several allowlist entries is inside once, not counted at all
    assert scope_points(("src/x.md",), ("src/", "src/*.md")) == F(10)


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.py", "src/../../x", ""])
def test_changed_paths_must_be_relative_and_stay_in_the_repo(path: str) -> None:
    with pytest.raises(ValidationError):
        make_attempt(changed_paths=(path,))


# changed, passed before, passed after → points, in the contract's order of clauses
TEST_BEHAVIOR_TABLE = {
    (True, True, True): F(5),
    (True, True, False): F(3, 2),
    (True, False, True): F(7, 2),
    (True, False, False): F(3, 2),
    (False, True, True): F(7, 2),
    (False, True, False): F(0),
    (False, False, True): F(7, 2),
    (False, False, False): F(0),
}


@pytest.mark.parametrize(("signals", "points"), sorted(TEST_BEHAVIOR_TABLE.items()))
def test_test_behavior_is_5_then_3_5_then_1_5_then_0(signals: tuple[bool, ...], points: F) -> None:
    changed, before, after = signals
    tests = Signals(relevant_tests_changed=changed, passed_before=before, passed_after=after)
    assert behavior_points(make_attempt(tests=tests)) == points


def test_test_behavior_without_signals_is_unavailable() -> None:
    assert behavior_points(make_attempt(tests=None)) is None
    assert dim(score(tests=None), "test_behavior").state == "unavailable"


@pytest.mark.parametrize("signals", list(itertools.product([False, True], repeat=3)))
def test_trajectory_is_1_5_plus_1_plus_2_5_by_signal(signals: tuple[bool, bool, bool]) -> None:
    explored, recovered, evidence = signals
    t = Trajectory(explored=explored, recovered_or_no_error=recovered, evidence_backed_termination=evidence)
    expected = F(3, 2) * explored + F(1) * recovered + F(5, 2) * evidence
    assert trajectory_points(make_attempt(trajectory=t)) == expected
    assert dim(score(trajectory=t), "trajectory").points == float(expected)


def test_trajectory_missing_is_unavailable_not_scored() -> None:
    assert trajectory_points(make_attempt(trajectory=None)) is None
    d = dim(score(trajectory=None), "trajectory")
    assert d.state == "unavailable"
    assert d.points == 0.0  # "zero when trajectory data is unavailable", labelled unavailable


# --- outcome boundaries --------------------------------------------------------------------------


def test_perfect_attempt_is_ready_with_90() -> None:
    result = score()
    assert result.outcome == "Ready"
    assert result.deterministic == 90.0
    assert result.blockers == ()


@pytest.mark.parametrize(
    ("overrides", "outcome", "deterministic"),
    [
        # functional 35 + 15 + 15 + 10 + launch 5 = exactly 80
        ({"functional": fchecks(7, 9)}, "Ready", 80.0),
        # ... and regression 14.75 instead of 15: 79.75, just below 80
        ({"functional": fchecks(7, 9), "regression": rchecks(59, 60)}, "NeedsReview", 79.75),
        # functional 15 + 15 + 15 + 10 + 5 = exactly 60
        ({"functional": fchecks(1, 3)}, "NeedsReview", 60.0),
        ({"functional": fchecks(1, 3), "regression": rchecks(59, 60)}, "NotReady", 59.75),
        # consistency exactly 12 (4/5), deterministic 87
        ({"cross_surface": schecks(4, 5)}, "Ready", 87.0),
        # consistency 11.75 (47/60) with deterministic 86.75 ≥ 80: only the 12/15 rule fails
        ({"cross_surface": schecks(47, 60)}, "NeedsReview", 86.75),
        # scope exactly 7.5 (one path outside) keeps launch readiness: 87.5
        ({"changed_paths": ("src/a.py", "lib/b.py")}, "Ready", 87.5),
        # scope 5 (two outside): excessive scope overreach is a launch blocker, NotReady at 80 points
        ({"changed_paths": ("lib/a.py", "lib/b.py")}, "NotReady", 80.0),
    ],
)
def test_outcome_boundaries(overrides: dict[str, Any], outcome: str, deterministic: float) -> None:
    result = score(**overrides)
    assert result.outcome == outcome
    assert result.deterministic == deterministic


def test_functional_total_zero_is_never_ready() -> None:
    result = score(functional=())
    assert result.outcome != "Ready"
    assert result.outcome == "NotReady"  # at most 0 + 15 + 15 + 10 + 5 = 45 < 60
    assert dim(result, "functional").points == 0.0


def test_functional_not_executed_is_not_ready_rather_than_inconclusive() -> None:
    result = score(functional=None)
    assert result.outcome == "NotReady"
    assert dim(result, "launch").points == 0.0


@pytest.mark.parametrize(
    "overrides",
    [
        {"regression": ()},
        {"regression": None},
        {"cross_surface": ()},
        {"cross_surface": None},
        {"changed_paths": None},
    ],
    ids=["regression-0", "regression-null", "surface-0", "surface-null", "scope-not-run"],
)
def test_missing_qualifying_denominator_is_inconclusive(overrides: dict[str, Any]) -> None:
    result = score(**overrides)
    assert result.outcome == "Inconclusive"
    assert result.deterministic is None  # never converted to zero
    assert dim(result, "launch").points == 0.0


@pytest.mark.parametrize(
    "blocker",
    [
        {"regression": rchecks(1, 2, critical_fail=True)},
        {"tampering_detected": True},
        {"prohibited_change_detected": True},
    ],
    ids=["critical-regression", "tampering", "prohibited-change"],
)
@pytest.mark.parametrize(
    "inconclusive",
    [{}, {"cross_surface": ()}, {"changed_paths": None}],
    ids=["complete", "surface-0", "scope-not-run"],
)
def test_each_blocker_makes_not_ready_even_with_an_inconclusive_dimension(
    blocker: dict[str, Any], inconclusive: dict[str, Any]
) -> None:
    result = score(**blocker, **inconclusive)
    assert result.outcome == "NotReady"
    assert len(result.blockers) == 1
    assert dim(result, "launch").points == 0.0


def test_failed_critical_regression_blocks_even_when_other_checks_pass() -> None:
    result = score(regression=rchecks(9, 10, critical_fail=True), functional=fchecks(1, 1))
    assert result.outcome == "NotReady"
    assert blockers(make_attempt(regression=rchecks(9, 10, critical_fail=True))) != []


def test_blocked_attempt_still_reports_its_deterministic_points() -> None:
    # functional 45 + regression 7.5 + consistency 15 + scope 10 + launch 0
    result = score(regression=rchecks(1, 2, critical_fail=True))
    assert result.outcome == "NotReady"
    assert result.deterministic == 77.5


def test_failed_non_critical_regression_is_not_a_blocker() -> None:
    attempt = make_attempt(regression=rchecks(1, 2))
    assert blockers(attempt) == []
    result = score_attempt(attempt, TASK)
    # 45 + 7.5 + 15 + 10 + 5: mandatory checks were executed, so Ready stays reachable
    assert result.outcome == "Ready"
    assert result.deterministic == 82.5
    assert dim(result, "launch").points == 5.0


@pytest.mark.parametrize("field", ["tampering_detected", "prohibited_change_detected"])
def test_detection_not_run_is_no_blocker_but_launch_0_and_not_ready(field: str) -> None:
    result = score(**{field: None})
    assert result.blockers == ()
    assert dim(result, "launch").points == 0.0
    assert result.outcome == "NeedsReview"  # 85 of 90, but a mandatory check was not executed
    assert result.deterministic == 85.0


# --- invalid attempts and validation -------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "agent_started"),
    [
        ("pre_agent_evaluator_failure", False),
        ("host_infrastructure_failure", False),
        ("storage_exhaustion", False),
        ("storage_exhaustion", True),
    ],
)
def test_invalid_attempts_are_invalid_and_unscored(reason: str, agent_started: bool) -> None:
    attempt = Attempt(
        attempt_id="a1", task="t1", agent_started=agent_started, invalid=InvalidMarker(reason=reason)
    )
    result = score_attempt(attempt, TASK)
    assert result.outcome == "Invalid"
    assert result.invalid_reason == reason
    assert result.deterministic is None
    assert result.dimensions == ()
    assert result.blockers == ()


def test_invalid_marker_wins_over_any_stated_facts() -> None:
    result = score(
        agent_started=False,
        invalid=InvalidMarker(reason="host_infrastructure_failure"),
        tampering_detected=True,
    )
    assert result.outcome == "Invalid"
    assert result.blockers == ()


@pytest.mark.parametrize("reason", ["pre_agent_evaluator_failure", "host_infrastructure_failure"])
def test_pre_agent_or_host_failure_after_agent_started_is_rejected(reason: str) -> None:
    """The specification's invalid.after_agent_started (the seed: storage exhaustion only)."""
    late = Attempt(attempt_id="a1", task="t1", agent_started=True, invalid=InvalidMarker(reason=reason))
    assert invalid_problem(late) == (
        f"invalid reason {reason!r} requires agent_started = false: after the agent process starts, "
        "failures remain scored unless storage was exhausted"
    )
    storage = InvalidMarker(reason="storage_exhaustion")
    assert invalid_problem(Attempt(attempt_id="a1", task="t1", agent_started=True, invalid=storage)) is None


@pytest.mark.parametrize("missing", FACT_FIELDS)
def test_valid_attempt_missing_a_fact_key_is_rejected(missing: str) -> None:
    line = make_attempt().model_dump(mode="json")
    del line[missing]
    validated = validate_model(Attempt, line, "attempts.jsonl")
    assert validated.value is None
    assert any(missing in p.message for p in validated.problems)


def test_explicit_null_facts_are_accepted_as_not_executed() -> None:
    line = make_attempt().model_dump(mode="json")
    line.update(dict.fromkeys(FACT_FIELDS))
    assert Attempt.model_validate(line).functional is None


@pytest.mark.parametrize(
    ("overrides", "producer", "disagrees"),
    [
        ({}, "Ready", False),
        ({}, "NeedsReview", True),
        ({}, None, False),
        ({"tampering_detected": True}, "Ready", True),
        ({"regression": ()}, "Inconclusive", False),
        (
            {"agent_started": False, "invalid": InvalidMarker(reason="host_infrastructure_failure")},
            "NotReady",
            True,
        ),
    ],
)
def test_producer_outcome_disagreement_is_flagged(
    overrides: dict[str, Any], producer: str | None, disagrees: bool
) -> None:
    result = score(**overrides, producer_outcome=producer)
    assert result.producer_outcome == producer
    assert result.disagrees is disagrees


# --- launch readiness ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"changed_paths": ("src/a.py", "lib/b.py")},  # scope exactly 7.5
        {"regression": rchecks(1, 2)},  # a failed non-critical regression
        {"functional": fchecks(1, 3), "cross_surface": schecks(1, 4)},  # low scores, all executed
        {"tests": None, "trajectory": None},  # diagnostics play no part
    ],
)
def test_launch_readiness_is_5_when_every_condition_holds(overrides: dict[str, Any]) -> None:
    assert dim(score(**overrides), "launch").points == 5.0


@pytest.mark.parametrize(
    "overrides",
    [
        {"functional": None},
        {"regression": None},
        {"regression": ()},
        {"cross_surface": None},
        {"cross_surface": ()},
        {"tampering_detected": None},
        {"prohibited_change_detected": None},
        {"changed_paths": None},
        {"regression": rchecks(0, 1, critical_fail=True)},
        {"tampering_detected": True},
        {"prohibited_change_detected": True},
        {"changed_paths": ("lib/a.py", "lib/b.py")},  # scope 5 < 7.5
    ],
)
def test_launch_readiness_is_0_when_any_condition_fails(overrides: dict[str, Any]) -> None:
    assert dim(score(**overrides), "launch").points == 0.0


def test_launch_readiness_is_0_when_functional_has_no_checks() -> None:
    assert dim(score(functional=()), "launch").points == 0.0


# --- properties ----------------------------------------------------------------------------------

PATHS = ("src/a.py", "src/b/c.py", "docs/x.md", "README.md", "setup.cfg", "lib/y.py", "Makefile")
maybe_bool = st.none() | st.booleans()
signals = st.none() | st.builds(
    Signals, relevant_tests_changed=st.booleans(), passed_before=st.booleans(), passed_after=st.booleans()
)
trajectories = st.none() | st.builds(
    Trajectory,
    explored=st.booleans(),
    recovered_or_no_error=st.booleans(),
    evidence_backed_termination=st.booleans(),
)


@st.composite
def facts(draw: st.DrawFn) -> dict[str, Any]:
    """Deterministic facts only (no test signals, no trajectory)."""
    f = draw(st.none() | st.lists(st.booleans(), max_size=9))
    r = draw(st.none() | st.lists(st.tuples(st.booleans(), st.booleans()), max_size=6))
    s = draw(st.none() | st.lists(st.tuples(st.booleans(), st.sampled_from(SURFACES)), max_size=6))
    return {
        "functional": None if f is None else tuple(Check(id=f"f{i}", passed=p) for i, p in enumerate(f)),
        "regression": None
        if r is None
        else tuple(RegressionCheck(id=f"r{i}", passed=p, critical=c) for i, (p, c) in enumerate(r)),
        "cross_surface": None
        if s is None
        else tuple(SurfaceCheck(id=f"s{i}", passed=p, surface=x) for i, (p, x) in enumerate(s)),
        "changed_paths": draw(st.none() | st.lists(st.sampled_from(PATHS), max_size=6).map(tuple)),
        "tampering_detected": draw(maybe_bool),
        "prohibited_change_detected": draw(maybe_bool),
    }


def _decision(result: AttemptResult) -> tuple[Any, ...]:
    kept = tuple(d for d in result.dimensions if d.key not in ("test_behavior", "trajectory"))
    return result.outcome, result.deterministic, result.reasons, result.blockers, kept


@pytest.mark.slow  # hundreds of hypothesis examples
@settings(max_examples=300, deadline=None)
@given(facts(), signals, trajectories, signals, trajectories)
def test_test_behavior_and_trajectory_never_change_the_outcome(
    base: dict[str, Any], tests_a: Any, traj_a: Any, tests_b: Any, traj_b: Any
) -> None:
    a = score_attempt(make_attempt(**base, tests=tests_a, trajectory=traj_a), TASK)
    b = score_attempt(make_attempt(**base, tests=tests_b, trajectory=traj_b), TASK)
    assert _decision(a) == _decision(b)


@pytest.mark.slow  # hundreds of hypothesis examples
@settings(max_examples=500, deadline=None)
@given(facts(), signals, trajectories)
def test_outcome_follows_the_contract_definitions(base: dict[str, Any], tests: Any, traj: Any) -> None:
    attempt = make_attempt(**base, tests=tests, trajectory=traj)
    result = score_attempt(attempt, TASK)
    functional = functional_points(attempt.functional)
    regression = ratio_points(15, attempt.regression)
    consistency = ratio_points(15, attempt.cross_surface)
    scope = scope_points(attempt.changed_paths, TASK.allowlist)
    blocked = bool(blockers(attempt, TASK))
    launch = F(dim(result, "launch").points)  # type: ignore[arg-type]

    executed = (
        bool(attempt.functional)
        and bool(attempt.regression)
        and bool(attempt.cross_surface)
        and attempt.tampering_detected is not None
        and attempt.prohibited_change_detected is not None
    )
    launch_conditions = executed and not blocked and scope is not None and scope >= F(15, 2)
    assert launch == (5 if launch_conditions else 0)

    if blocked:
        assert result.outcome == "NotReady"
        return
    if regression is None or consistency is None or scope is None:
        assert result.outcome == "Inconclusive"
        assert result.deterministic is None
        return
    total = functional + regression + consistency + scope + launch
    assert 0 <= total <= 90
    assert result.deterministic == float(total)
    ready = launch == 5 and bool(attempt.functional) and total >= 80 and consistency >= 12
    if ready:
        assert result.outcome == "Ready"
    elif total >= 60:
        assert result.outcome == "NeedsReview"
    else:
        assert result.outcome == "NotReady"


# --- generator.figures.stats -----------------------------------------------------------------------------


def test_clopper_pearson_reference_values() -> None:
    ci = exact_interval(7, 14)
    assert ci is not None
    assert (ci.low, ci.high) == pytest.approx((0.23036054144806234, 0.7696394585519377), abs=1e-12)
    assert ci.n == 14
    assert ci.confidence == 0.95
    zero = exact_interval(0, 14)
    assert zero is not None
    assert zero.low == 0.0
    assert zero.high == pytest.approx(0.23163576165011651, abs=1e-12)
    full = exact_interval(14, 14)
    assert full is not None
    assert full.high == 1.0
    assert full.low == pytest.approx(1 - 0.23163576165011651, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 200).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_interval_brackets_the_observed_proportion(kn: tuple[int, int]) -> None:
    k, n = kn
    ci = exact_interval(k, n)
    assert ci is not None
    assert 0.0 <= ci.low <= k / n <= ci.high <= 1.0


@pytest.mark.parametrize(
    ("n", "d", "bp"), [(0, 1, 0), (0, 7, 0), (1, 1, 10000), (7, 7, 10000), (1, 3, 3333), (2, 3, 6666)]
)
def test_basis_points_edges(n: int, d: int, bp: int) -> None:
    assert basis_points(n, d) == bp


@given(st.integers(1, 10**6).flatmap(lambda d: st.tuples(st.integers(0, d), st.just(d))))
def test_basis_points_is_the_floor_of_10000_n_over_d(nd: tuple[int, int]) -> None:
    n, d = nd
    bp = basis_points(n, d)
    assert bp is not None
    assert F(bp, 10000) <= F(n, d) < F(bp + 1, 10000)


def test_zero_denominator_has_no_basis_points_and_no_interval() -> None:
    assert basis_points(0, 0) is None
    assert exact_interval(0, 0) is None
    r = rate(0, 0)
    assert (r.numerator, r.denominator, r.basis_points, r.interval) == (0, 0, None, None)
    r = rate(7, 14)
    assert r.basis_points == 5000
    assert r.interval is not None and r.interval.n == 14


# --- readings added after review -----------------------------------------------------------------


def test_excessive_scope_overreach_is_a_launch_blocker() -> None:
    result = score(changed_paths=("src/app.py", "lib/a.py", "lib/b.py", "lib/c.py", "lib/d.py"))
    assert result.outcome == "NotReady"
    assert any("excessive scope overreach" in b for b in result.blockers)
    assert result.deterministic == 75.0  # 45 + 15 + 15 + scope 0 + launch 0


def test_reason_never_rounds_onto_the_threshold() -> None:
    # 45·7/9 + 15·2999/3000 + 15 + 10 + 5 = 79.995
    result = score(functional=fchecks(7, 9), regression=rchecks(2999, 3000))
    assert result.outcome == "NeedsReview"
    assert "deterministic 79.995 < 80" in result.reasons


def test_changed_paths_are_normalised_before_the_allowlist() -> None:
    attempt = make_attempt(changed_paths=("./src/app.py", "src//app.py"))
    assert attempt.changed_paths == ("src/app.py", "src/app.py")
    assert dim(score_attempt(attempt, TASK), "scope").points == 10.0

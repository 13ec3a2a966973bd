"""The points engine's integer arithmetic against a plain Fraction oracle (issue 33, item 2).

The engine scores with integer numerators over the rubric's common denominator and compares by
cross-multiplication; the oracle below recomputes the seed-shaped rubric from the specification's
stated numbers with ``fractions.Fraction`` and the contract's words, nothing shared with the engine
but the input models. Random weights, penalties and thresholds; thresholds are often drawn equal to
the attempt's own points, so every "at least" is tried on its tie.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.families.points.models import Attempt, Check, PointsTask, RegressionCheck, SurfaceCheck
from generator.families.points.scoring import score_attempt
from generator.families.points.spec import BUILTIN_FILE, PointsSpec, compile_spec
from generator.inputs.jsonio import load_json_bytes

BUILTIN: dict[str, Any] = json.loads(BUILTIN_FILE.read_text())
TASK = PointsTask(id="t1", title="task one", allowlist=("src/",))
COUNTS = st.sampled_from([0, 1, 2, 4, 5])
"""Check counts whose ratios end (a whole number of hundredths), so a total can be a threshold."""


def hundredths(most: Fraction) -> st.SearchStrategy[Fraction]:
    return st.integers(0, int(most * 100)).map(lambda n: Fraction(n, 100))


def number(value: Fraction) -> float:
    """A stated number for the specification's JSON: its repr is the decimal of ``value`` exactly."""
    assert value.denominator in (1, 2, 4, 5, 10, 20, 25, 50, 100)
    return float(value)


@st.composite
def checks(draw: st.DrawFn, kind: type[Check]) -> tuple[Check, ...] | None:
    total = draw(st.none() | COUNTS)
    if total is None:
        return None
    passed = draw(st.lists(st.booleans(), min_size=total, max_size=total))
    extra: dict[str, Any] = {}
    if kind is RegressionCheck:
        extra = {"critical": draw(st.booleans())}
    if kind is SurfaceCheck:
        extra = {"surface": "cli"}
    return tuple(kind(id=f"c{i}", passed=p, **extra) for i, p in enumerate(passed))


@st.composite
def attempts(draw: st.DrawFn) -> Attempt:
    paths = draw(
        st.none() | st.lists(st.sampled_from(["src/a", "src/b", "x/a", "x/b", "x/c", "y"]), max_size=6)
    )
    return Attempt(
        attempt_id="a1",
        task="t1",
        agent_started=True,
        functional=draw(checks(Check)),
        regression=draw(checks(RegressionCheck)),
        cross_surface=draw(checks(SurfaceCheck)),
        changed_paths=None if paths is None else tuple(paths),
        tests=None,
        trajectory=None,
        tampering_detected=draw(st.none() | st.booleans()),
        prohibited_change_detected=draw(st.booleans()),
    )


# --- the oracle: the seed rubric's rules in Fractions, from the stated numbers ------------------


def ratio(weight: int, found: tuple[Check, ...] | None, empty: Fraction | None) -> Fraction | None:
    if not found:
        return empty
    return Fraction(weight * sum(c.passed for c in found), len(found))


def oracle_points(a: Attempt, w: dict[str, Fraction]) -> dict[str, Fraction | None]:
    outside = len({p for p in a.changed_paths or () if not p.startswith("src/")})
    scope = None if a.changed_paths is None else max(w["floor"], w["scope"] - w["each"] * outside)
    return {
        "functional": ratio(int(w["functional"]), a.functional, Fraction(0)),
        "regression": ratio(int(w["regression"]), a.regression, None),
        "consistency": ratio(int(w["consistency"]), a.cross_surface, None),
        "scope": scope,
    }


def oracle_blockers(a: Attempt, scope: Fraction | None, least: Fraction) -> list[str]:
    found = [f"critical regression {c.id}" for c in a.regression or () if c.critical and not c.passed]
    found += ["tampering detected"] if a.tampering_detected else []
    found += ["prohibited change detected"] if a.prohibited_change_detected else []
    found += ["excessive scope overreach"] if scope is not None and scope < least else []
    return found


def oracle(
    a: Attempt, w: dict[str, Fraction]
) -> tuple[str, Fraction | None, dict[str, Fraction | None], list[str]]:
    """(outcome, deterministic points, points by dimension, blockers without their figures)."""
    points = oracle_points(a, w)
    blocked = oracle_blockers(a, points["scope"], w["blocker_scope"])
    gaps = not a.functional or not a.regression or not a.cross_surface or a.changed_paths is None
    gaps = gaps or a.tampering_detected is None
    launch = not gaps and not blocked and points["scope"] is not None and points["scope"] >= w["gate_scope"]
    points["launch"] = w["launch"] if launch else Fraction(0)
    total = None if None in points.values() else sum(p for p in points.values() if p is not None)
    if blocked:
        return "NotReady", total, points, blocked
    if total is None:
        return "Inconclusive", None, points, blocked
    consistency = points["consistency"]
    assert consistency is not None
    short = gaps or not a.functional or total < w["ready"] or consistency < w["ready_consistency"]
    if not short:
        return "Ready", total, points, blocked
    return ("NeedsReview" if total >= w["review"] else "NotReady"), total, points, blocked


# --- the specification drawn around the attempt, ties included -----------------------------------


def near(draw: st.DrawFn, value: Fraction | None, most: Fraction, least: Fraction = Fraction(0)) -> Fraction:
    """A threshold in [least, most]: often exactly ``value`` (a tie), else any hundredth."""
    if value is not None and least <= value <= most and draw(st.booleans()):
        return value
    return least + draw(hundredths(most - least))


@st.composite
def cases(draw: st.DrawFn) -> tuple[Attempt, dict[str, Fraction]]:
    a = draw(attempts())
    w = {k: Fraction(draw(st.integers(1, 60))) for k in ("functional", "regression", "consistency")}
    w |= {"scope": Fraction(draw(st.integers(0, 20))), "launch": Fraction(draw(st.integers(0, 10)))}
    w["each"] = draw(hundredths(Fraction(5)))
    w["floor"] = draw(hundredths(w["scope"]))
    points = oracle_points(a, w)
    w["blocker_scope"] = near(draw, points["scope"], w["scope"])
    w["gate_scope"] = near(draw, points["scope"], w["scope"])
    w["ready_consistency"] = near(draw, points["consistency"], w["consistency"])
    total = sum(w[k] for k in ("functional", "regression", "consistency", "scope", "launch"))
    reached = None if None in points.values() else sum(p for p in points.values() if p is not None)
    endings = [reached, None if reached is None else reached + w["launch"]]  # the gate held or not
    w["ready"] = near(draw, draw(st.sampled_from(endings)), total)
    w["review"] = near(draw, draw(st.sampled_from(endings)), w["ready"])
    return a, w


def spec(w: dict[str, Fraction]) -> PointsSpec:
    data = copy.deepcopy(BUILTIN)
    dims = {d["key"]: d for d in data["dimensions"]}
    for key in ("functional", "regression", "consistency", "scope", "launch"):
        dims[key]["weight"] = int(w[key])
    dims["scope"]["rule"] |= {"each": number(w["each"]), "floor": number(w["floor"])}
    dims["launch"]["rule"]["minimums"] = {"scope": number(w["gate_scope"])}
    data["deterministic_total"] = sum(
        int(w[k]) for k in ("functional", "regression", "consistency", "scope", "launch")
    )
    data["blockers"]["minimums"] = {"scope": number(w["blocker_scope"])}
    data["outcomes"]["ready"] |= {
        "deterministic_at_least": number(w["ready"]),
        "minimums": {"consistency": number(w["ready_consistency"])},
    }
    data["outcomes"]["needs_review"]["deterministic_at_least"] = number(w["review"])
    return PointsSpec.model_validate(tuples(load_json_bytes(json.dumps(data).encode(), "scoring.json").value))


def tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: tuples(v) for k, v in value.items()}
    return value


@settings(max_examples=300, deadline=None)
@given(cases())
def test_integer_scoring_equals_the_fraction_oracle(case: tuple[Attempt, dict[str, Fraction]]) -> None:
    a, w = case
    result = score_attempt(a, TASK, compile_spec(spec(w)))
    outcome, total, points, blocked = oracle(a, w)
    assert result.outcome == outcome
    assert result.deterministic == (None if total is None else float(total))
    published = {d.key: d.points for d in result.dimensions}
    assert {k: published[k] for k in points} == {
        k: None if p is None else float(p) for k, p in points.items()
    }
    assert [b.split(" (")[0] for b in result.blockers] == blocked


def test_a_tie_at_every_threshold_holds() -> None:
    """At least is at least: each threshold equal to the attempt's own points passes (ties exactly)."""
    a = Attempt(
        attempt_id="a1",
        task="t1",
        agent_started=True,
        functional=(Check(id="f1", passed=True), Check(id="f2", passed=False)),
        regression=(RegressionCheck(id="r1", passed=True),),
        cross_surface=tuple(SurfaceCheck(id=f"s{i}", passed=i < 3, surface="cli") for i in range(4)),
        changed_paths=("x/a",),
        tests=None,
        trajectory=None,
        tampering_detected=False,
        prohibited_change_detected=False,
    )
    w = {k: Fraction(v) for k, v in {"functional": 45, "regression": 15, "consistency": 15}.items()}
    w |= {"scope": Fraction(10), "launch": Fraction(5), "each": Fraction(5, 2), "floor": Fraction(0)}
    w |= {
        "blocker_scope": Fraction(15, 2),
        "gate_scope": Fraction(15, 2),
        "ready_consistency": Fraction(45, 4),
    }
    w["ready"] = w["review"] = Fraction(245, 4)  # 22.5 + 15 + 11.25 + 7.5 + 5 (the gate holds)
    result = score_attempt(a, TASK, compile_spec(spec(w)))
    assert (result.outcome, result.deterministic, result.reasons) == (
        "Ready",
        61.25,
        ("every Ready condition holds",),
    )

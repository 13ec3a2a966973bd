"""The definitions family (SPEC §2.4, seed 004 / ADR-032, issue 5): meaning checked with exact values.

Pure functions first: chance floors, the exact tail and sign tests and the exact interval against the
reference values of the AgentEval store-v1 format (docs/formats.md) and against scipy / exact fractions on
a grid; rep collapse; the run-verdict truth table (2026-10-04 amendment); a row's measurement state;
the sanitised scenario file name; the stimulus hash; .NET-escaped JSON. Then the CLI on a copy of the
example benchmark (``runs/recsys-grounding`` alone): every refusal one by one. Finally the built corpus
(once per module, plus two edited variants): every figure is recomputed here, independently, from the
scenario files and compared with ``data/site.json``, the run data files and the pages.
``benchsite compare`` is covered elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from scipy.stats import beta, binomtest

from generator.families.definitions.aggregate import cell as collapsed_cell
from generator.families.definitions.aggregate import census, floor_tests, paired, values
from generator.families.definitions.models import Definition, Floor, Scenario
from generator.families.definitions.stats import (
    above_floor,
    collapse,
    derive_floor,
    minimum_attainable,
    sign_minimum,
    sign_test,
    tail_p,
)
from generator.families.definitions.store import row_result, sanitized_name, stimulus_hash, verdict
from generator.figures.stats import exact_interval
from tests.conftest import CORPUS, edit_json, reseal, run_cli
from tests.pages import parse

BENCH = "recsys-grounding"
DOT = "\u00b7"
RULES_TESTED = ("all", "majority", "any")
DISAGREEING_RUN = "2026-10-02_10-00-02_005808f0"
BASE_1 = "2026-10-01_10-00-01_fadc2bac"
CAND_2 = "2026-10-02_10-00-02_005808f0"
CAND_3 = "2026-10-02_10-00-03_2c9d98a3"


# --- helpers: models from plain data --------------------------------------------------------------


def floor(kind: str, bar: float | None = None, derivation: str = "declared", **params: int) -> Floor:
    return Floor.model_validate_json(
        json.dumps({"kind": kind, "params": params, "derivation": derivation, "bar": bar})
    )


def small_definition(cases: int, reps: int = 3, pass_at: float = 1.0, rule: str = "majority") -> Definition:
    """Checks ``chk``; arms ``ref`` (the reference) and ``alt``; cases c0, c1, …"""
    return Definition.model_validate_json(
        json.dumps(
            {
                "schema_version": 1,
                "key": "small",
                "version": "1",
                "cases": [{"id": f"c{i}"} for i in range(cases)],
                "checks": [
                    {"key": "chk", "floor": {"kind": "not-derivable", "derivation": "t", "bar": None}}
                ],
                "arms": [{"id": arm, "runs": [f"{arm}-{r}" for r in range(reps)]} for arm in ("ref", "alt")],
                "reference_arm": "ref",
                "pass_at": pass_at,
                "paired_collapse": rule,
            }
        )
    )


def scenario(
    label: str | None = "pass",
    passed: bool = True,
    measurement: str | None = None,
    value: float | None = None,
    output: str | None = None,
    score: float | None = None,
) -> Scenario:
    tree: dict[str, Any] = {"label": label, "passed": passed}
    if measurement is not None:
        tree["measurement"] = measurement
    if value is not None:
        tree["value"] = value
    text = json.dumps({"metric": {"key": "chk"}, "score": tree}) if output is None else output
    doc: dict[str, Any] = {"id": f"c0{DOT}chk", "input": "q", "output": text, "passed": passed}
    if score is not None:
        doc["score"] = score
    return Scenario.model_validate_json(json.dumps(doc))


def row(spec: str) -> Any:
    """A RowResult from a short spec: pass, fail, warn, na (inapplicable), nm (skipped), err (error)."""
    label, passed = {
        "pass": ("pass", True),
        "fail": ("fail", False),
        "warn": ("warn", True),
        "na": ("inapplicable", False),
        "nm": ("skipped", False),
        "err": ("error", False),
    }[spec]
    return row_result(scenario(label, passed), "c0", "chk", None)


def tail_exact(k: int, n: int, p: Fraction) -> Fraction:
    return sum((math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1)), Fraction(0))


def dotnet_json(value: Any) -> bytes:
    """JSON as the .NET encoder may write it: '+' as \\u002B and every non-ASCII character escaped."""
    text = json.dumps(value, ensure_ascii=True, indent=2)
    return text.replace("+", "\\u002B").encode("ascii")


# --- chance floors ----------------------------------------------------------------------------------


def test_hypergeometric_reference_and_complement() -> None:
    at_least, why = derive_floor(floor("hypergeometric-at-least-one", pool=99, favourable=10, draws=5))
    assert why is None and at_least == pytest.approx(0.41966138960557997, rel=1e-14, abs=0)
    avoids, why = derive_floor(floor("hypergeometric-avoids-all", pool=99, favourable=10, draws=5))
    assert why is None and avoids == pytest.approx(1 - 0.41966138960557997, rel=1e-14, abs=0)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(0, 45))))
def test_hypergeometric_matches_the_product_formula(case: tuple[int, int, int]) -> None:
    pool, fav, draws = case
    survive = Fraction(1)
    for i in range(min(draws, pool)):
        survive *= Fraction(pool - fav - i, pool - i)
    at_least, _ = derive_floor(floor("hypergeometric-at-least-one", pool=pool, favourable=fav, draws=draws))
    avoids, _ = derive_floor(floor("hypergeometric-avoids-all", pool=pool, favourable=fav, draws=draws))
    assert at_least == pytest.approx(float(1 - survive), abs=1e-12)
    assert avoids == pytest.approx(float(survive), abs=1e-12)


@pytest.mark.parametrize("m", [2, 3, 4, 7, 12])
def test_uniform_choice_is_one_over_m(m: int) -> None:
    assert derive_floor(floor("uniform-choice", alternatives=m)) == (1 / m, None)


def test_prior_rate_and_empirical_policy() -> None:
    assert derive_floor(floor("prior-rate", positives=3, total=20)) == (0.15, None)
    bar, why = derive_floor(floor("empirical-policy", successes=7, trials=14))
    assert why is None and bar == pytest.approx(0.7696394585519377, rel=1e-12)
    bar, _ = derive_floor(floor("empirical-policy", successes=0, trials=14))
    assert bar == pytest.approx(0.23163576165011651, rel=1e-12)


def test_not_derivable_has_no_bar_and_needs_a_reason() -> None:
    assert derive_floor(floor("not-derivable", derivation="a judged check")) == (None, None)
    with pytest.raises(ValidationError):
        floor("not-derivable", derivation="")


@pytest.mark.parametrize(
    "kind, params",
    [
        ("uniform-choice", {"alternatives": 1}),
        ("uniform-choice", {}),
        ("uniform-choice", {"alternatives": 4, "pool": 9}),
        ("prior-rate", {"positives": 3, "total": 0}),
        ("prior-rate", {"positives": 5, "total": 4}),
        ("empirical-policy", {"successes": 3, "trials": 0}),
        ("hypergeometric-at-least-one", {"pool": 5, "favourable": 6, "draws": 1}),
        ("hypergeometric-avoids-all", {"pool": 5, "favourable": 1}),
        ("not-derivable", {"pool": 5}),
    ],
)
def test_floor_parameters_that_derive_nothing_are_named(kind: str, params: dict[str, int]) -> None:
    bar, why = derive_floor(floor(kind, **params))
    assert bar is None and why


# --- exact tests and intervals -------------------------------------------------------------------


def test_tail_reference_values() -> None:
    assert tail_p(2, 12, 1 / 12) == pytest.approx(0.26400914142498605, rel=1e-12)
    assert tail_p(4, 12, 1 / 12) == pytest.approx(0.013830430605020861, rel=1e-12)
    assert tail_p(0, 12, 1 / 12) == 1.0


@pytest.mark.parametrize(
    "k, n, bar", [(0, 0, 0.5), (1, 0, 0.25), (3, 12, 0.0), (3, 12, -0.1), (3, 12, 1.0), (12, 12, 1.5)]
)
def test_tail_is_undefined_without_cases_or_with_a_degenerate_bar(k: int, n: int, bar: float) -> None:
    assert tail_p(k, n, bar) is None
    assert tail_p(k, n, None) is None


@pytest.mark.parametrize(
    "p", [Fraction(1, 20), Fraction(1, 12), Fraction(1, 4), Fraction(1, 2), Fraction(9, 10)]
)
@pytest.mark.parametrize("n", [1, 2, 5, 12, 20])
def test_tail_against_scipy_and_exact_fractions(n: int, p: Fraction) -> None:
    for k in range(n + 1):
        got = tail_p(k, n, float(p))
        assert got == pytest.approx(float(tail_exact(k, n, p)), rel=1e-9, abs=1e-300)
        assert got == pytest.approx(binomtest(k, n, float(p), alternative="greater").pvalue, rel=1e-9)


def test_minimum_attainable_p_is_bar_to_the_n() -> None:
    assert minimum_attainable(12, 1 / 12) == pytest.approx((1 / 12) ** 12, rel=1e-12)
    assert minimum_attainable(20, 0.25) == 0.25**20 == 9.094947017729282e-13
    assert minimum_attainable(0, 0.5) == 1.0  # no case: bar^0 = 1, underpowered by construction
    for n, bar in ((5, 0.0), (5, 1.0), (5, None)):
        assert minimum_attainable(n, bar) is None


@pytest.mark.parametrize(
    "p, min_p, expected",
    [
        (0.01, 0.001, True),
        (0.05, 0.05, True),
        (0.0500001, 0.001, False),
        (0.01, 0.06, False),  # underpowered by construction: never above floor
        (None, 0.001, False),
        (0.01, None, False),
    ],
)
def test_above_floor_is_a_direction_with_power(p: float | None, min_p: float | None, expected: bool) -> None:
    assert above_floor(p, min_p) is expected


def test_sign_test_reference_values() -> None:
    assert sign_test(9, 1) == 0.021484375
    assert sign_test(1, 9) == 0.021484375
    assert sign_test(8, 10) == pytest.approx(0.8145294189453125, rel=1e-12)
    assert sign_test(0, 0) == 1.0
    assert sign_minimum(0) == 1.0
    assert sign_minimum(1) == 1.0
    assert sign_minimum(10) == 2 / 1024


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 18, 25])
def test_sign_test_against_scipy_and_the_exact_formula(n: int) -> None:
    half = Fraction(1, 2)
    for wins in range(n + 1):
        exact = min(Fraction(1), 2 * tail_exact(max(wins, n - wins), n, half))
        assert sign_test(wins, n - wins) == pytest.approx(float(exact), rel=1e-12)
        assert sign_test(wins, n - wins) == pytest.approx(binomtest(wins, n, 0.5).pvalue, rel=1e-12)
    assert sign_minimum(n) == float(min(Fraction(1), 2 * half**n))


def test_clopper_pearson_reference_values() -> None:
    ci = exact_interval(7, 14)
    assert ci is not None and ci.n == 14 and ci.confidence == 0.95
    assert (ci.low, ci.high) == pytest.approx((0.23036054144806234, 0.7696394585519377), rel=1e-12)
    upper = exact_interval(0, 14)
    assert (
        upper is not None and upper.low == 0 and upper.high == pytest.approx(0.23163576165011651, rel=1e-12)
    )
    assert exact_interval(0, 0) is None


# --- rep collapse ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reps, rule, pass_at, expected",
    [
        ([1.0, 0.0, 0.5], "mean", 1.0, 0.5),
        ([1.0, 0.0, 0.0, 0.2], "mean", 1.0, 0.3),
        ([1.0, 0.0, 0.4], "median", 1.0, 0.4),
        ([1.0, 0.0], "median", 1.0, 0.5),
        ([1.0, 1.0, 1.0], "all", 1.0, 1.0),
        ([1.0, 1.0, 0.0], "all", 1.0, 0.0),
        ([0.7, 0.8], "all", 0.7, 1.0),
        ([0.69, 0.8], "all", 0.7, 0.0),
        ([1.0, 1.0, 0.0], "majority", 1.0, 1.0),
        ([1.0, 0.0, 0.0], "majority", 1.0, 0.0),
        ([1.0, 0.0], "majority", 1.0, 0.0),  # a split loses
        ([1.0, 1.0, 0.0, 0.0], "majority", 1.0, 0.0),  # a split loses
        ([1.0, 1.0, 1.0, 0.0], "majority", 1.0, 1.0),
        ([1.0], "majority", 1.0, 1.0),
        ([0.0, 0.0, 1.0], "any", 1.0, 1.0),
        ([0.0, 0.0, 0.9], "any", 1.0, 0.0),
        ([0.0, 0.0, 0.9], "any", 0.9, 1.0),
    ],
)
def test_collapse_rules(reps: list[float], rule: Any, pass_at: float, expected: float) -> None:
    assert collapse(reps, rule, pass_at) == pytest.approx(expected, abs=1e-15)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=1, max_size=7),
    st.sampled_from([0.5, 0.75, 1.0]),
)
def test_collapse_orders_all_majority_any(reps: list[float], pass_at: float) -> None:
    every, most, some = (collapse(reps, rule, pass_at) for rule in ("all", "majority", "any"))
    passing = sum(v >= pass_at for v in reps)
    assert (every, most, some) == (
        float(passing == len(reps)),
        float(2 * passing > len(reps)),
        float(passing > 0),
    )
    assert every <= most <= some
    assert collapse(reps, "mean", pass_at) == pytest.approx(statistics.fmean(reps))
    assert collapse(reps, "median", pass_at) == statistics.median(reps)


# --- a row's measurement state and the run verdict ------------------------------------------------


@pytest.mark.parametrize(
    "sc, state, outcome, value",
    [
        (scenario("pass", True, value=1.0), "measured", "pass", 1.0),
        (scenario("fail", False, value=0.0), "measured", "fail", 0.0),
        (scenario("pass", True, value=0.75), "measured", "pass", 0.75),  # value from score.value
        (scenario("warn", True, value=0.5), "measured", "warn", 0.5),
        (scenario("warn", False), "measured", "warn", 0.0),
        (scenario("inapplicable", False), "notApplicable", None, None),
        (scenario("skipped", False), "notMeasured", None, None),
        (scenario("error", False), "notMeasured", None, None),
        (scenario("pass", True, measurement="notMeasured"), "notMeasured", None, None),
        (scenario("fail", False, measurement="notApplicable"), "notApplicable", None, None),
        (scenario("pass", True, measurement="measured"), "measured", "pass", 1.0),
        (scenario("inapplicable", False, measurement="measured"), "notApplicable", None, None),
        (scenario("skipped", False, measurement="measured"), "notMeasured", None, None),
        (scenario(output="plain text, no tree", passed=True, score=0.25), "measured", "pass", 0.25),
        (scenario(output="plain text, no tree", passed=False), "measured", "fail", 0.0),
    ],
)
def test_row_state_from_the_output_tree(
    sc: Scenario, state: str, outcome: str | None, value: float | None
) -> None:
    result = row_result(sc, "c0", "chk", None)
    assert (result.state, result.outcome, result.value) == (state, outcome, value)


@pytest.mark.parametrize(
    "specs, expected",
    [
        ([], "PENDING"),
        (["pass"], "PASS"),
        (["pass", "pass"], "PASS"),
        (["pass", "na"], "PASS"),  # not applicable stays out of the verdict
        (["na", "na"], "PENDING"),
        (["nm"], "PENDING"),
        (["err", "na"], "PENDING"),
        (["pass", "nm"], "WARN"),  # amendment: not measured with ≥ 1 measured
        (["pass", "err"], "WARN"),
        (["pass", "nm", "na"], "WARN"),
        (["warn"], "WARN"),
        (["pass", "warn", "na"], "WARN"),
        (["fail"], "FAIL"),
        (["fail", "nm"], "FAIL"),
        (["fail", "na"], "FAIL"),
        (["pass", "warn", "nm", "na", "fail"], "FAIL"),  # FAIL wins
    ],
)
def test_verdict_truth_table(specs: list[str], expected: str) -> None:
    assert verdict([row(s) for s in specs]) == expected


def test_failures_outside_measurement_stay_out_of_the_verdict() -> None:
    not_measured_fail = row_result(scenario("fail", False, measurement="notMeasured"), "c0", "chk", None)
    not_applicable_fail = row_result(scenario("fail", False, measurement="notApplicable"), "c0", "chk", None)
    assert verdict([row("pass"), not_measured_fail]) == "WARN"
    assert verdict([row("pass"), not_applicable_fail]) == "PASS"


# --- file names, stimulus hashes, .NET-escaped JSON ------------------------------------------------


def suffix(original: str) -> str:
    return "__" + hashlib.sha256(original.encode("utf-8")).hexdigest()[:16]


@pytest.mark.parametrize("char", ["/", "\\", "<", ">", ":", '"', "|", "?", "*", "\x00"])
def test_sanitized_name_replaces_each_reserved_character(char: str) -> None:
    original = f"c01{char}x{DOT}finds-sku"
    assert sanitized_name(original) == f"c01-x{DOT}finds-sku{suffix(original)}.json"


@pytest.mark.parametrize(
    "original, stem",
    [
        (f"c01{DOT}finds-sku", f"c01{DOT}finds-sku"),  # unchanged: no suffix
        ("a-b_c (d) + e", "a-b_c (d) + e"),
        ("tab\tstays", "tab\tstays"),
        (f"c01{DOT}tone.", None),
        (" . lead", None),
        ("trail . ..", None),
        ("a/./b", None),
    ],
)
def test_sanitized_name_trims_and_suffixes_only_on_change(original: str, stem: str | None) -> None:
    if stem is not None:
        assert sanitized_name(original) == stem + ".json"
        return
    trimmed = original.replace("/", "-").strip(". ")
    assert trimmed != original
    assert sanitized_name(original) == trimmed + suffix(original) + ".json"
    assert re.fullmatch(r".*__[0-9a-f]{16}\.json", sanitized_name(original), re.S)


def test_stimulus_hash_normalises_line_ends() -> None:
    expected = "sha256:" + hashlib.sha256("Größe 44\nzweite\ndritte\n".encode()).hexdigest()
    assert stimulus_hash("Größe 44\r\nzweite\rdritte\r\n") == expected
    assert stimulus_hash("Größe 44\nzweite\ndritte\n") == expected
    assert stimulus_hash("a\r\rb") == "sha256:" + hashlib.sha256(b"a\n\nb").hexdigest()
    assert stimulus_hash("") is None


def test_dotnet_escaped_rows_are_parsed_never_pattern_matched() -> None:
    text = (
        '{"\\u0073core": {"v\\u0061lue": 0.5, "label": "w\\u0061rn", "passed": true}, '
        '"note": "\\u002B\\u00e9"}'
    )
    doc = dotnet_json(
        {"id": f"c01{DOT}chk", "name": "Größe + Passform", "input": "a + b", "output": text, "passed": True}
    )
    assert b"\\u002B" in doc and b"\\u00b7" in doc and b"\\u00f6" in doc and doc.isascii()
    sc = Scenario.model_validate_json(doc)
    assert sc.id == f"c01{DOT}chk" and sc.input == "a + b"
    result = row_result(sc, "c01", "chk", None)
    assert (result.state, result.outcome, result.value) == ("measured", "warn", 0.5)


# --- aggregates on a small definition --------------------------------------------------------------


def test_floor_tests_power_and_degenerate_bars() -> None:
    reps = {("chk", arm, f"c{i}"): [("measured", 1.0)] for arm in ("ref", "alt") for i in range(5)}
    del reps["chk", "ref", "c4"]  # ref measured 4 cases, alt 5
    for bar, ref_underpowered, alt_above in ((0.5, True, True), (1.0, False, False), (0.0, False, False)):
        tests = {(t.arm, t.rule): t for t in floor_tests(reps, small_definition(5), {"chk": bar})}
        assert set(tests) == {(a, r) for a in ("ref", "alt") for r in RULES_TESTED}
        ref, alt = tests["ref", "all"], tests["alt", "all"]
        assert (ref.successes, ref.cases, alt.successes, alt.cases) == (4, 4, 5, 5)
        assert ref.underpowered is ref_underpowered and not ref.above_floor
        assert alt.above_floor is alt_above
        if bar == 0.5:
            assert ref.p_value == ref.minimum_p == 0.0625
            assert alt.p_value == alt.minimum_p == 0.03125 and not alt.underpowered
        else:  # a floor at 1.0 or 0 has no test and is never "above floor"
            assert ref.p_value is None and alt.p_value is None


def test_pass_at_decides_which_reps_pass() -> None:
    reps = {("chk", "ref", f"c{i}"): [("measured", v)] * 2 for i, v in enumerate([0.5, 0.49, 0.9, 0.0])}
    found = floor_tests(reps, small_definition(4, pass_at=0.5), {"chk": 0.25})
    tests = {t.rule: t for t in found if t.arm == "ref"}
    assert {r: (t.successes, t.cases) for r, t in tests.items()} == {
        "all": (2, 4),
        "majority": (2, 4),
        "any": (2, 4),
    }
    assert tests["all"].p_value == pytest.approx(float(tail_exact(2, 4, Fraction(1, 4))), rel=1e-12)


def test_void_cell_has_no_test_no_interval_and_counts() -> None:
    reps = {("chk", "alt", f"c{i}"): [("notMeasured", None)] * 3 for i in range(4)}
    reps.update({("chk", "ref", f"c{i}"): [("measured", 1.0)] * 3 for i in range(3)})
    reps["chk", "alt", "c3"] = reps["chk", "ref", "c3"] = [("notApplicable", None)] * 3
    definition = small_definition(4)
    alt = [t for t in floor_tests(reps, definition, {"chk": 0.25}) if t.arm == "alt"]
    assert all(t.cases == 0 and t.p_value is None and t.interval is None and not t.above_floor for t in alt)
    cells = {c.arm: c for c in census(reps, definition)}
    # counted over collapsed cases, not cases × reps: c0–c2 not measured, c3 not applicable
    assert (cells["alt"].measured, cells["alt"].not_applicable, cells["alt"].not_measured) == (0, 1, 3)
    assert (cells["ref"].measured, cells["ref"].not_applicable, cells["ref"].not_measured) == (3, 1, 0)
    assert cells["alt"].void and not cells["ref"].void
    assert [(v.value, v.cases) for v in values(reps, definition) if v.arm == "alt"] == [(None, 0)] * 2
    (pair,) = paired(reps, definition)
    assert (pair.wins, pair.losses, pair.ties, pair.undecidable, pair.p_value) == (0, 0, 0, True, 1.0)
    assert (pair.excluded_not_measured, pair.excluded_not_applicable, pair.mean_delta) == (3, 1, None)


def test_a_pair_missing_because_one_side_is_not_applicable_is_counted_not_applicable() -> None:
    reps = {
        ("chk", "ref", "c0"): [("measured", 1.0)] * 3,
        ("chk", "alt", "c0"): [("notApplicable", None)] * 3,
    }
    (pair,) = paired(reps, small_definition(1))
    assert (pair.excluded_not_measured, pair.excluded_not_applicable) == (0, 1)


def test_a_cell_takes_the_worst_state_of_its_reps() -> None:
    """Seed 004 / PairedEvalComparer: not measured beats not applicable beats measured."""
    assert collapsed_cell(
        {("k", "a", "c"): [("measured", 1.0), ("notApplicable", None), ("notMeasured", None)]}, "k", "a", "c"
    ) == (
        "notMeasured",
        (),
    )
    assert collapsed_cell({("k", "a", "c"): [("measured", 1.0), ("notApplicable", None)]}, "k", "a", "c") == (
        "notApplicable",
        (),
    )
    assert collapsed_cell({("k", "a", "c"): [("measured", 1.0), ("measured", 0.5)]}, "k", "a", "c") == (
        "measured",
        (1.0, 0.5),
    )
    assert collapsed_cell({}, "k", "a", "c") is None


def test_a_partly_unmeasured_cell_leaves_the_floor_test_values_and_census() -> None:
    # c0: 3 passing reps; c1: 2 passing reps and one not measured → the case leaves; c2: one rep
    # not applicable → leaves; c3: 1 of 3 reps passes. Hand-worked with majority at pass_at 1:
    # measured cases c0 (1), c3 (0) → k/n = 1/2; mean of case means (1 + 1/3) / 2 = 2/3.
    reps = {
        ("chk", "alt", "c0"): [("measured", 1.0)] * 3,
        ("chk", "alt", "c1"): [("measured", 1.0), ("measured", 1.0), ("notMeasured", None)],
        ("chk", "alt", "c2"): [("measured", 1.0), ("notApplicable", None), ("measured", 1.0)],
        ("chk", "alt", "c3"): [("measured", 1.0), ("measured", 0.0), ("measured", 0.0)],
    }
    definition = small_definition(4)
    test = next(
        t for t in floor_tests(reps, definition, {"chk": 0.25}) if (t.arm, t.rule) == ("alt", "majority")
    )
    assert (test.successes, test.cases) == (1, 2)
    # P(X ≥ 1 | n = 2, p = 0.25) = 1 − 0.75² = 0.4375; minimum attainable 0.25² = 0.0625
    assert test.p_value == pytest.approx(0.4375) and test.minimum_p == pytest.approx(0.0625)
    mean = next(v for v in values(reps, definition) if (v.arm, v.rule) == ("alt", "mean"))
    assert (mean.value, mean.cases) == (pytest.approx(2 / 3), 2)
    alt = next(c for c in census(reps, definition) if c.arm == "alt")
    assert (alt.measured, alt.not_applicable, alt.not_measured, alt.void) == (2, 1, 1, False)


def test_not_applicable_on_one_side_and_not_measured_on_the_other_is_not_measured() -> None:
    reps = {
        ("chk", "ref", "c0"): [("notApplicable", None)] * 3,
        ("chk", "alt", "c0"): [("measured", 1.0), ("notMeasured", None), ("measured", 1.0)],
        ("chk", "ref", "c1"): [("notApplicable", None)] * 3,
        ("chk", "alt", "c1"): [("measured", 1.0)] * 3,
    }
    (pair,) = paired(reps, small_definition(2))
    # c0: n/a against a not-measured cell → not measured; c1: n/a against measured → not applicable
    assert (pair.excluded_not_measured, pair.excluded_not_applicable, pair.undecidable) == (1, 1, True)


def test_paired_counts_after_majority_collapse() -> None:
    reps = {
        ("chk", "ref", "c0"): [("measured", 1.0), ("measured", 1.0), ("measured", 0.0)],  # 1
        ("chk", "alt", "c0"): [("measured", 1.0), ("measured", 0.0), ("measured", 0.0)],  # 0: loss
        ("chk", "ref", "c1"): [("measured", 0.0), ("measured", 1.0)],  # split: 0
        # one rep not measured: the whole cell is not measured, the pair excluded (not a win)
        ("chk", "alt", "c1"): [("measured", 1.0), ("measured", 1.0), ("notMeasured", None)],
        ("chk", "ref", "c2"): [("measured", 1.0)] * 3,
        ("chk", "alt", "c2"): [("measured", 1.0)] * 3,  # tie
        ("chk", "ref", "c3"): [("measured", 1.0)] * 3,
        ("chk", "alt", "c3"): [("notMeasured", None)] * 3,  # excluded: not measured
    }
    (pair,) = paired(reps, small_definition(4))
    assert (pair.wins, pair.losses, pair.ties) == (0, 1, 1)
    assert (pair.excluded_not_measured, pair.excluded_not_applicable) == (2, 0)
    # 0 wins of 1 decided pair: two-sided p = 1, minimum attainable = min(1, 2 · 0.5¹) = 1
    assert pair.p_value == 1.0 and pair.minimum_p == 1.0 and not pair.undecidable
    # collapsed deltas: c0 0 − 1 = −1, c2 1 − 1 = 0 → −0.5; rep means: c0 1/3 − 2/3, c2 0 → −1/6
    assert pair.mean_delta == pytest.approx(-0.5)
    assert pair.rep_mean_delta == pytest.approx(-1 / 6)


# --- the example corpus: copies, edits, builds ---------------------------------------------------


def only_bench(tmp: Path) -> Path:
    root = tmp / "runs"
    shutil.copytree(CORPUS / BENCH, root / BENCH)
    return root


def run_folder(root: Path, run_id: str) -> Path:
    (folder,) = (root / BENCH).glob(f".agenteval/subjects/*/*/runs/{run_id}")
    return folder


def load(path: Path) -> Any:
    return json.loads(path.read_bytes().decode("utf-8"))


def edit_definition(root: Path, change: Callable[[dict[str, Any]], None]) -> None:
    edit_json(root / BENCH / "definition.json", change, dump=dotnet_json)
    reseal(root / BENCH)


def edit_run(root: Path, run_id: str, change: Callable[[Path], None]) -> None:
    folder = run_folder(root, run_id)
    change(folder)
    reseal(folder)


def row_doc(
    row_id: str, label: str, passed: bool, text: str = "Shopper asks + more", **score: Any
) -> dict[str, Any]:
    tree = {
        "metric": {"key": row_id.split(DOT)[-1]},
        "score": {"value": float(passed), "label": label, "passed": passed, "severity": "info", **score},
        "provenance": {"type": "code"},
    }
    return {
        "id": row_id,
        "name": row_id,
        "input": text,
        "output": json.dumps(tree),
        "passed": passed,
        "score": float(passed),
        "metrics": {},
        "assertions": [],
        "duration": "00:00:00.9000000",
        "estimatedCost": 0.0002,
        "stimulusHash": stimulus_hash(text),
        "comparability": {"evalKey": "recsys-grounding/x", "evalVersion": "1.2.0"},
    }


def add_row(root: Path, run_id: str, doc: dict[str, Any], name: str | None = None) -> None:
    def change(folder: Path) -> None:
        (folder / "scenarios" / (name or sanitized_name(doc["id"]))).write_bytes(dotnet_json(doc))

    edit_run(root, run_id, change)


def build(root: Path, out: Path) -> Path:
    result = run_cli("build", "--runs", root, "--out", out, "--site-version", "v1")
    assert result.exit_code == 0, result.output
    return out / "v1"


@dataclass(frozen=True)
class Built:
    root: Path
    site: Path

    @property
    def bench(self) -> dict[str, Any]:
        data = load(self.site / "data" / "site.json")
        found: dict[str, Any] = next(b for b in data["benchmarks"] if b["id"] == BENCH)
        return found

    def detail(self, run_id: str) -> dict[str, Any]:
        found: dict[str, Any] = load(self.site / "data" / "runs" / BENCH / f"{run_id}.json")
        return found

    def page(self, rel: str) -> str:
        return page_text(self.site / "b" / BENCH / rel)


@pytest.fixture(scope="module")
def corpus_site(tmp_path_factory: pytest.TempPathFactory) -> Built:
    tmp = tmp_path_factory.mktemp("definitions")
    root = only_bench(tmp)
    return Built(root, build(root, tmp / "site"))


# --- an independent reading of the scenario files -------------------------------------------------


@dataclass(frozen=True)
class Observed:
    run: str
    case: str
    check: str
    state: str
    outcome: str | None
    value: float | None


def observe(root: Path) -> tuple[dict[str, Any], dict[str, tuple[str, tuple[str, str]]], list[Observed]]:
    """(definition, run → (arm, (manifest verdict, summary verdict)), rows of known (case, check)),
    straight from the files."""
    definition = load(root / BENCH / "definition.json")
    arm_of = {run: arm["id"] for arm in definition["arms"] for run in arm["runs"]}
    cases = {c["id"] for c in definition["cases"]}
    checks = {c["key"] for c in definition["checks"]}
    runs, rows = {}, []
    for folder in sorted((root / BENCH).glob(".agenteval/subjects/*/*/runs/*")):
        producer = (
            load(folder / "manifest.json")["run"]["verdict"],
            load(folder / "summary.json")["verdict"],
        )
        runs[folder.name] = (arm_of[folder.name], producer)
        for file in sorted((folder / "scenarios").glob("*.json")):
            doc = load(file)
            case, check = doc["id"].split(DOT)
            if case not in cases or check not in checks:
                continue
            score = json.loads(doc["output"])["score"]
            label, passed = score.get("label"), doc["passed"]
            if score.get("measurement") in ("notApplicable", "notMeasured"):
                state = score["measurement"]
            else:
                state = {
                    "inapplicable": "notApplicable",
                    "skipped": "notMeasured",
                    "error": "notMeasured",
                }.get(label, "measured")
            outcome = value = None
            if state == "measured":
                outcome = "warn" if label == "warn" else "pass" if passed else "fail"
                value = float(score["value"])
            rows.append(Observed(folder.name, case, check, state, outcome, value))
    return definition, runs, rows


def expected_verdict(rows: list[Observed]) -> str:
    measured = [r for r in rows if r.state == "measured"]
    if any(r.outcome == "fail" for r in measured):
        return "FAIL"
    if not measured:
        return "PENDING"
    if any(r.outcome == "warn" for r in measured) or any(r.state == "notMeasured" for r in rows):
        return "WARN"
    return "PASS"


def cell_of(
    rows: list[Observed], runs: dict[str, Any], check: str, arm: str, case: str
) -> tuple[str, list[float]] | None:
    """The rule as seed 004 states it: a cell with any rep not measured is not measured, else with
    any rep not applicable it is not applicable, else measured with every rep's value."""
    mine = [r for r in rows if r.check == check and r.case == case and runs[r.run][0] == arm]
    if not mine:
        return None
    states = {r.state for r in mine}
    for worst in ("notMeasured", "notApplicable"):
        if worst in states:
            return worst, []
    return "measured", [r.value for r in mine if r.value is not None]


def per_case(rows: list[Observed], runs: dict[str, Any], check: str, arm: str, case: str) -> list[float]:
    """A measured cell's rep values; [] for any other cell."""
    cell = cell_of(rows, runs, check, arm, case)
    return cell[1] if cell else []


def my_collapse(vals: list[float], rule: str, pass_at: float) -> float:
    ok = [v >= pass_at for v in vals]
    return float({"all": all(ok), "majority": sum(ok) > len(ok) / 2, "any": any(ok)}[rule])


def cp_interval(k: int, n: int) -> tuple[float, float]:
    low = 0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))
    return low, high


def check_everything_recomputes(built: Built) -> None:
    """Verdicts, counts, floor tests, values, census and paired rows, all from the scenario files."""
    definition, runs, rows = observe(built.root)
    bench = built.bench
    section = bench["section"]
    # run verdicts and counts
    assert {r["id"] for r in section["runs"]} == set(runs)
    for summary in section["runs"]:
        mine = [r for r in rows if r.run == summary["id"]]
        arm, producer = runs[summary["id"]]
        assert (summary["arm"], summary["verdict"]) == (arm, expected_verdict(mine)), summary["id"]
        assert (summary["producer_verdict"], summary["summary_verdict"]) == producer
        assert summary["disagrees"] is any(v != summary["verdict"] for v in producer)
        states, outcomes = Counter(r.state for r in mine), Counter(r.outcome for r in mine)
        assert summary["counts"] == {
            "measured": states["measured"],
            "not_applicable": states["notApplicable"],
            "not_measured": states["notMeasured"],
            "passed": outcomes["pass"],
            "failed": outcomes["fail"],
            "warned": outcomes["warn"],
            "ignored_not_applicable": summary["counts"]["ignored_not_applicable"],
        }
        detail = built.detail(summary["id"])
        assert {k: v for k, v in detail.items() if k != "rows"} == summary
        assert {(r["case"], r["check"], r["state"], r["outcome"], r["value"]) for r in detail["rows"]} == {
            (r.case, r.check, r.state, r.outcome, r.value) for r in mine
        }
    # against floor, values, census
    bars = {f["check"]: f["bar"] for f in section["floors"]}
    tests = {(t["check"], t["arm"], t["rule"]): t for t in section["floor_tests"]}
    vals = {(v["check"], v["arm"], v["rule"]): v for v in section["values"]}
    cells = {(c["check"], c["arm"]): c for c in section["census"]}
    arms = [a["id"] for a in definition["arms"]]
    checks = [c["key"] for c in definition["checks"]]
    assert set(tests) == {(c, a, r) for c in checks for a in arms for r in RULES_TESTED}
    assert set(vals) == {(c, a, r) for c in checks for a in arms for r in ("mean", "median")}
    assert set(cells) == {(c, a) for c in checks for a in arms}
    for check in checks:
        for arm in arms:
            measured = [v for c in definition["cases"] if (v := per_case(rows, runs, check, arm, c["id"]))]
            n = len(measured)
            for rule in RULES_TESTED:
                test = tests[check, arm, rule]
                k = int(sum(my_collapse(v, rule, definition["pass_at"]) for v in measured))
                bar = bars[check]
                assert (test["successes"], test["cases"], test["bar"]) == (k, n, bar), (check, arm, rule)
                if bar is None or n == 0 or not 0 < bar < 1:
                    assert test["p_value"] is None and test["above_floor"] is False
                else:
                    p = float(binomtest(k, n, bar, alternative="greater").pvalue)
                    assert test["p_value"] == pytest.approx(p, rel=1e-9)
                    assert test["minimum_p"] == pytest.approx(bar**n, rel=1e-12)
                    assert test["underpowered"] is (bar**n > 0.05)
                    assert test["above_floor"] is (p <= 0.05 and bar**n <= 0.05)
                if n:
                    interval = test["interval"]
                    assert (interval["low"], interval["high"]) == pytest.approx(cp_interval(k, n), abs=1e-9)
                    assert interval["n"] == n
                else:
                    assert test["interval"] is None
            means = [statistics.fmean(v) for v in measured]
            medians = [statistics.median(v) for v in measured]
            for rule, got in (("mean", means), ("median", medians)):
                expected = statistics.fmean(got) if got else None
                assert vals[check, arm, rule]["value"] == pytest.approx(expected), (check, arm, rule)
                assert vals[check, arm, rule]["cases"] == n
            states = Counter(
                found[0]
                for c in definition["cases"]
                if (found := cell_of(rows, runs, check, arm, c["id"])) is not None
            )
            cell = cells[check, arm]
            assert (cell["measured"], cell["not_applicable"], cell["not_measured"]) == (
                states["measured"],
                states["notApplicable"],
                states["notMeasured"],
            )
            assert cell["void"] is (states["measured"] == 0 and states.total() > 0)
    # against reference
    reference, rule = definition["reference_arm"], definition["paired_collapse"]
    pairs = {(p["check"], p["challenger"]): p for p in section["paired"]}
    assert set(pairs) == {(c, a) for c in checks for a in arms if a != reference}
    for (check, challenger), pair in pairs.items():
        wins = losses = ties = nm = na = 0
        deltas, rep_deltas = [], []
        for case in (c["id"] for c in definition["cases"]):
            ref_cell = cell_of(rows, runs, check, reference, case)
            alt_cell = cell_of(rows, runs, check, challenger, case)
            assert ref_cell is not None and alt_cell is not None
            sides = {ref_cell[0], alt_cell[0]}
            if sides != {"measured"}:
                na, nm = (na, nm + 1) if "notMeasured" in sides else (na + 1, nm)
                continue
            ref, alt = ref_cell[1], alt_cell[1]
            r, a = (
                my_collapse(ref, rule, definition["pass_at"]),
                my_collapse(alt, rule, definition["pass_at"]),
            )
            wins, losses, ties = wins + (a > r), losses + (a < r), ties + (a == r)
            deltas.append(a - r)
            rep_deltas.append(statistics.fmean(alt) - statistics.fmean(ref))
        assert (pair["wins"], pair["losses"], pair["ties"]) == (wins, losses, ties), check
        assert (pair["excluded_not_measured"], pair["excluded_not_applicable"]) == (nm, na), check
        decided = wins + losses
        expected_p = 1.0 if decided == 0 else binomtest(wins, decided, 0.5).pvalue
        assert pair["p_value"] == pytest.approx(expected_p, rel=1e-12)
        assert pair["minimum_p"] == pytest.approx(min(1.0, 2 * 0.5**decided) if decided else 1.0)
        assert pair["undecidable"] is (decided == 0)
        assert pair["mean_delta"] == pytest.approx(statistics.fmean(deltas) if deltas else None)
        assert pair["rep_mean_delta"] == pytest.approx(statistics.fmean(rep_deltas) if rep_deltas else None)


def page_text(path: Path) -> str:
    return " ".join(" ".join(parse(path).text).split())


def markdown_text(path: Path) -> str:
    text = re.sub(r"\\([\\`*_\[\]<>|~])", r"\1", path.read_text(encoding="utf-8"))
    return " ".join(text.replace("&amp;", "&").split())


def squash(text: str) -> str:
    return " ".join(text.split())


# --- the example corpus as shipped ------------------------------------------------------------------


def test_corpus_files_use_dotnet_escapes_and_hash_their_inputs() -> None:
    files = sorted((CORPUS / BENCH).glob(".agenteval/subjects/*/*/runs/*/scenarios/*.json"))
    assert len(files) == 7 * 20 * 4  # seven runs (3 + 3 reps and one PENDING run) × 20 cases × 4 checks
    for file in files:
        raw = file.read_bytes()
        assert raw.isascii() and b"\\u002B" in raw and b"\\u00b7" in raw, file.name
        doc = load(file)
        assert file.name == sanitized_name(doc["id"])
        normal = doc["input"].replace("\r\n", "\n").replace("\r", "\n")
        assert doc["stimulusHash"] == "sha256:" + hashlib.sha256(normal.encode("utf-8")).hexdigest()
    manifests = sorted((CORPUS / BENCH).glob(".agenteval/subjects/*/*/runs/*/manifest.json"))
    assert all(b"\\u002B" in m.read_bytes() for m in manifests)
    assert load(manifests[0])["run"]["timestamp"].endswith("+00:00")


def test_corpus_recomputes_from_the_scenario_files(corpus_site: Built) -> None:
    check_everything_recomputes(corpus_site)


def test_corpus_covers_what_the_issue_asks_for(corpus_site: Built) -> None:
    section = corpus_site.bench["section"]
    assert len(section["definition"]["cases"]) >= 20
    kinds = {f["kind"] for f in section["floors"]}
    assert {"uniform-choice", "empirical-policy", "not-derivable"} <= kinds
    assert any(k.startswith("hypergeometric") for k in kinds)
    assert sum(c["not_applicable"] for c in section["census"]) > 0
    assert sum(c["not_measured"] for c in section["census"]) > 0
    assert Counter(r["arm"] for r in section["runs"]) == {
        "baseline": 3,
        "candidate": 3,
        "candidate-offline": 1,
    }
    # issue 13: a PENDING run, cells with partly unmeasured reps, effectiveBar 1.0 beside a 0.25
    # floor, and text axes in another case in the candidate's rows
    assert [r["verdict"] for r in section["runs"] if r["arm"] == "candidate-offline"] == ["PENDING"]
    _, runs, rows = observe(corpus_site.root)
    partly = {
        (r.check, runs[r.run][0], r.case)
        for r in rows
        if r.state != "measured"
        and any(
            o.state == "measured" and (o.check, runs[o.run][0], o.case) == (r.check, runs[r.run][0], r.case)
            for o in rows
        )
    }
    assert ("finds-sku", "candidate", "c04") in partly and ("policy-match", "candidate", "c12") in partly
    store = corpus_site.root / BENCH / ".agenteval/subjects/agents"
    base = load(
        sorted((store / "recsys-agent/runs").iterdir())[0] / "scenarios" / f"c01{DOT}cites-source.json"
    )
    cand = load(
        sorted((store / "recsys-agent-v2/runs").iterdir())[0] / "scenarios" / f"c01{DOT}cites-source.json"
    )
    assert (
        base["comparability"]["effectiveBar"] == 1.0 and base["comparability"]["chanceFloor"]["bar"] == 0.25
    )
    assert base["comparability"]["evalKey"] != cand["comparability"]["evalKey"]
    assert base["comparability"]["evalKey"].casefold() == cand["comparability"]["evalKey"].casefold()


def test_floors_are_derived_and_the_not_derivable_check_has_no_test(corpus_site: Built) -> None:
    section = corpus_site.bench["section"]
    floors = {f["check"]: f for f in section["floors"]}
    assert floors["cites-source"]["bar"] == 0.25
    assert floors["finds-sku"]["bar"] == pytest.approx(0.41966138960557997, rel=1e-12)
    assert floors["policy-match"]["bar"] == pytest.approx(cp_interval(3, 20)[1], rel=1e-12)
    assert (floors["tone-judged"]["bar"], floors["tone-judged"]["usable"]) == (None, False)
    tone = [t for t in section["floor_tests"] if t["check"] == "tone-judged"]
    assert tone and all(
        t["bar"] is None and t["p_value"] is None and t["minimum_p"] is None and not t["above_floor"]
        for t in tone
    )
    unavailable = dict(corpus_site.bench["disclosures"]["unavailable"])
    assert unavailable["checks without a usable floor (no test)"] == 1
    leaderboard = corpus_site.page("index.html")
    # no test: the not-derivable check, and every check of the arm that measured nothing (n = 0)
    untested = [t for t in section["floor_tests"] if t["p_value"] is None]
    assert len(untested) == len(tone) + 3 * 3
    assert leaderboard.count("no test") == len(untested)


def test_the_one_producer_disagreement_is_disclosed(corpus_site: Built) -> None:
    section = corpus_site.bench["section"]
    assert [r["id"] for r in section["runs"] if r["disagrees"]] == [DISAGREEING_RUN]
    run = next(r for r in section["runs"] if r["id"] == DISAGREEING_RUN)
    assert (run["producer_verdict"], run["summary_verdict"], run["verdict"]) == ("WARN", "WARN", "FAIL")
    (record,) = corpus_site.bench["disclosures"]["disagreements"]
    assert (record["run"], record["item"], record["recomputed"]) == (DISAGREEING_RUN, "run verdict", "FAIL")
    assert "WARN" in record["producer"]
    page = corpus_site.page(f"runs/{DISAGREEING_RUN}.html")
    assert "FAIL — the producer said WARN (manifest) / WARN (summary): disagreement disclosed" in page
    for other in (r["id"] for r in section["runs"] if r["id"] != DISAGREEING_RUN):
        assert "disagreement" not in corpus_site.page(f"runs/{other}.html")
    disclosures = corpus_site.page("disclosures.html")
    assert f"{DISAGREEING_RUN} run verdict WARN / WARN FAIL" in disclosures


def test_the_correction_is_rendered_where_it_applies(corpus_site: Built) -> None:
    (entry,) = load(CORPUS / BENCH / "corrections.json")["corrections"]
    parts = [entry[k] for k in ("id", "superseded", "corrected", "direction", "blast_radius", "prediction")]
    disclosures = corpus_site.page("disclosures.html")
    notes = markdown_text(corpus_site.site / "release-notes.md")
    for part in parts:
        assert squash(part) in disclosures, part
        assert squash(part) in notes, part
    assert f"{squash(entry['superseded'])} → {squash(entry['corrected'])}" in disclosures
    assert f"{squash(entry['superseded'])} → {squash(entry['corrected'])}" in notes
    assert [c["id"] for c in corpus_site.bench["section"]["corrections"]] == [entry["id"]]
    assert entry["id"] in corpus_site.page("index.html")  # the policy-match floor rows it affects


def test_every_page_of_the_benchmark_says_floors_are_not_applied(corpus_site: Built) -> None:
    note = squash(corpus_site.bench["section"]["floors_note"])
    # The note follows its label ("Floors are recorded, not applied:"), so it never says that again.
    assert note.startswith(
        "A run's verdict comes from its rows alone (floors are reported beside it, never applied"
    )
    assert corpus_site.bench["disclosures"]["floors_note"] == corpus_site.bench["section"]["floors_note"]
    pages = sorted((corpus_site.site / "b" / BENCH).rglob("*.html"))
    assert len(pages) == 3 + 7
    for path in pages:
        assert note in page_text(path), path.name
    assert note in markdown_text(corpus_site.site / "release-notes.md")


def test_census_is_shown_where_the_rates_are_on_the_leaderboard(corpus_site: Built) -> None:
    text = corpus_site.page("index.html")
    for cell in corpus_site.bench["section"]["census"]:
        counts = f"{cell['measured']} {cell['not_applicable']} {cell['not_measured']}"
        assert f"{cell['check']} {cell['arm']} {counts}" in text


def test_release_notes_show_the_census_beside_the_rates(corpus_site: Built) -> None:
    notes = (corpus_site.site / "release-notes.md").read_text(encoding="utf-8").replace("\\", "")
    assert "| k/n |" in notes
    for cell in corpus_site.bench["section"]["census"]:
        counts = r"\D+".join(str(cell[k]) for k in ("measured", "not_applicable", "not_measured"))
        assert re.search(rf"^\| {cell['check']} \| {cell['arm']} \|\D*{counts}\D", notes, re.M), cell


def test_any_collapse_is_flagged_as_best_of_n(corpus_site: Built) -> None:
    anys = [t for t in corpus_site.bench["section"]["floor_tests"] if t["rule"] == "any"]
    flagged_in_data = all(any("best" in str(v).lower() for v in t.values()) for t in anys)
    text = corpus_site.page("index.html").lower()
    notes = markdown_text(corpus_site.site / "release-notes.md").lower()
    assert flagged_in_data or ("best-of" in text and "best-of" in notes)


# --- edited corpora that still build --------------------------------------------------------------


@pytest.fixture(scope="module")
def void_site(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """Every cites-source row of the candidate arm made not measured."""
    tmp = tmp_path_factory.mktemp("void")
    root = only_bench(tmp)

    def not_measured(folder: Path) -> None:
        for file in sorted((folder / "scenarios").glob(f"*{DOT}cites-source.json")):
            doc = load(file)
            tree = json.loads(doc["output"])
            tree["score"].update(measurement="notMeasured", label="skipped", passed=False, value=0.0)
            doc.update(output=json.dumps(tree), passed=False, score=0.0)
            file.write_bytes(dotnet_json(doc))

    for run_id in load(root / BENCH / "definition.json")["arms"][1]["runs"]:
        edit_run(root, run_id, not_measured)
    return Built(root, build(root, tmp / "site"))


def test_void_cell(void_site: Built) -> None:
    check_everything_recomputes(void_site)
    section = void_site.bench["section"]
    cells = {(c["check"], c["arm"]): c for c in section["census"]}
    assert cells["cites-source", "candidate"] == {
        "check": "cites-source",
        "arm": "candidate",
        "measured": 0,
        "not_applicable": 0,
        "not_measured": 20,  # 20 collapsed cases (not 20 cases × 3 reps)
        "void": True,
    }
    offline = [(c, "candidate-offline") for c in ("cites-source", "finds-sku", "policy-match", "tone-judged")]
    assert sorted(k for k, c in cells.items() if c["void"]) == sorted(
        [("cites-source", "candidate"), *offline]
    )
    for test in section["floor_tests"]:
        if (test["check"], test["arm"]) == ("cites-source", "candidate"):
            assert (test["successes"], test["cases"], test["p_value"], test["interval"]) == (0, 0, None, None)
            assert test["above_floor"] is False
    (pair,) = [p for p in section["paired"] if (p["check"], p["challenger"]) == ("cites-source", "candidate")]
    assert (pair["wins"], pair["losses"], pair["ties"], pair["undecidable"]) == (0, 0, 0, True)
    assert (pair["excluded_not_measured"], pair["mean_delta"]) == (20, None)
    excluded = [label for label, _ in void_site.bench["disclosures"]["excluded_counts"]]
    assert "void census cells (observed, nothing measured): cites-source × candidate" in excluded
    assert len([k for k in excluded if "void" in k]) == 1 + len(offline)
    assert "void" in void_site.page("index.html")


ODD_ID = f'zz/q:"x"?{DOT}finds-sku'
CRLF_INPUT = "Größe 44 + weit\r\nZeile zwei\rZeile drei"
ESCAPED_TREE = (
    '{"metric": {"key": "cites-source", "name": "Cites \\u002B sources \\u00e9"}, '
    '"\\u0073core": {"v\\u0061lue": 0.5, "label": "w\\u0061rn", "passed": true, "severity": "info"}}'
)
MEASUREMENT_TREE = (
    '{"score": {"value": 1.0, "label": "p\\u0061ss", "passed": true, '
    '"me\\u0061surement": "not\\u0041pplicable"}}'
)


@pytest.fixture(scope="module")
def handmade_site(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """Rows written here in the .NET style: escaped keys and labels inside the output tree, a CRLF
    input with its normalised hash, and a not-applicable row for an unknown case whose id needs
    the sanitised file name."""
    tmp = tmp_path_factory.mktemp("handmade")
    root = only_bench(tmp)
    warn = row_doc(f"c02{DOT}cites-source", "warn", True, CRLF_INPUT)
    warn["output"] = ESCAPED_TREE
    na = row_doc(f"c03{DOT}finds-sku", "pass", True)
    na["output"] = MEASUREMENT_TREE

    def write(folder: Path) -> None:
        for doc in (warn, na):  # keep the facts every arm and rep share: comparable rows only are pooled
            original = json.loads(
                (folder / "scenarios" / sanitized_name(doc["id"])).read_text(encoding="utf-8")
            )
            doc.update({k: original[k] for k in ("comparability", "input", "stimulusHash")})
        for doc in (warn, na, row_doc(ODD_ID, "inapplicable", False)):
            (folder / "scenarios" / sanitized_name(doc["id"])).write_bytes(dotnet_json(doc))

    edit_run(root, BASE_1, write)
    return Built(root, build(root, tmp / "site"))


def test_handmade_escaped_rows_are_read(handmade_site: Built) -> None:
    folder = run_folder(handmade_site.root, BASE_1)
    odd = folder / "scenarios" / sanitized_name(ODD_ID)
    assert odd.name == f"zz-q--x--{DOT}finds-sku{suffix(ODD_ID)}.json" and odd.read_bytes().isascii()
    raw = (folder / "scenarios" / f"c02{DOT}cites-source.json").read_bytes()
    assert raw.isascii() and all(e in raw for e in (b"\\u002B", b"\\u00f6", b"\\\\u002B"))
    rows = {r["id"]: r for r in handmade_site.detail(BASE_1)["rows"]}
    assert len(rows) == 80 and ODD_ID not in rows
    summary = handmade_site.detail(BASE_1)
    assert summary["counts"]["ignored_not_applicable"] == 1  # the not-applicable row for no known case
    warn = rows[f"c02{DOT}cites-source"]
    assert (warn["state"], warn["outcome"], warn["value"]) == ("measured", "warn", 0.5)
    na = rows[f"c03{DOT}finds-sku"]
    assert (na["state"], na["outcome"], na["value"]) == ("notApplicable", None, None)
    check_everything_recomputes(handmade_site)


# --- refusals through the CLI ------------------------------------------------------------------------


def set_manifest(run_id: str, **run: Any) -> Callable[[Path], None]:
    """Set fields of the manifest's ``run``; None removes the member (.NET omits null members)."""

    def update(manifest: dict[str, Any]) -> None:
        for key, value in run.items():
            if value is None:
                manifest["run"].pop(key)
            else:
                manifest["run"][key] = value

    def change(root: Path) -> None:
        edit_run(root, run_id, lambda f: edit_json(f / "manifest.json", update, dump=dotnet_json))

    return change


def drop(run_id: str, rel: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        edit_run(root, run_id, lambda f: (f / rel).unlink())

    return change


def rename(run_id: str, rel: str, new: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        edit_run(root, run_id, lambda f: (f / rel).rename(f / new))

    return change


def new_row(run_id: str, doc: dict[str, Any], name: str | None = None) -> Callable[[Path], None]:
    return lambda root: add_row(root, run_id, doc, name)


def definition_edit(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    return lambda root: edit_definition(root, change)


def set_check(index: int, **fields: Any) -> Callable[[dict[str, Any]], None]:
    def change(d: dict[str, Any]) -> None:
        for key, value in fields.items():
            if key == "bar":
                d["checks"][index]["floor"]["bar"] = value
            else:
                d["checks"][index][key] = value

    return change


def doubled_check(d: dict[str, Any]) -> None:
    d["checks"].append(dict(d["checks"][0]))


def unbind_last_candidate_run(d: dict[str, Any]) -> None:
    d["arms"][1]["runs"] = d["arms"][1]["runs"][:2]


def stimulus(run_id: str, file: str, value: Callable[[dict[str, Any]], str]) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        def doc_change(doc: dict[str, Any]) -> None:
            doc["stimulusHash"] = value(doc)

        edit_run(root, run_id, lambda f: edit_json(f / "scenarios" / file, doc_change, dump=dotnet_json))

    return change


def crlf_hashed_raw(doc: dict[str, Any]) -> str:
    doc["input"] = "line one\r\nline two"
    return "sha256:" + hashlib.sha256(b"line one\r\nline two").hexdigest()


REFUSALS: list[tuple[str, Callable[[Path], None], int, str]] = [
    ("no summary.json", drop(CAND_3, "summary.json"), 3, "summary.json"),
    ("missing (case, check) row", drop(BASE_1, f"scenarios/c07{DOT}policy-match.json"), 4, "'c07'"),
    ("row for an unknown case", new_row(BASE_1, row_doc(f"c99{DOT}finds-sku", "pass", True)), 4, "c99"),
    ("row for an unknown check", new_row(BASE_1, row_doc(f"c01{DOT}no-such", "fail", False)), 4, "no-such"),
    (
        "unknown case, not measured",
        new_row(BASE_1, row_doc(f"c99{DOT}finds-sku", "skipped", False)),
        4,
        "c99",
    ),
    ("declared bar differs", definition_edit(set_check(0, bar=0.3)), 4, "disagrees"),
    ("derivable floor declared without bar", definition_edit(set_check(1, bar=None)), 4, "disagrees"),
    ("not-derivable floor declared with bar", definition_edit(set_check(3, bar=0.5)), 4, "disagrees"),
    ("composite check", definition_edit(set_check(2, kind="composite")), 4, "composite"),
    ("check admitted twice", definition_edit(doubled_check), 4, "duplicate check"),
    ("run bound to no arm", definition_edit(unbind_last_candidate_run), 4, "not bound to an arm"),
    (
        "reps with different parents",
        set_manifest(CAND_2, parentInvocationId="inv-other"),
        4,
        "parentInvocationId",
    ),
    ("reps with a missing parent", set_manifest(CAND_2, parentInvocationId=None), 4, "parentInvocationId"),
    (
        "file name not the sanitised id",
        rename(
            BASE_1, f"scenarios/c01{DOT}finds-sku.json", f"scenarios/c01{DOT}finds-sku__0123456789abcdef.json"
        ),
        4,
        "file name should be",
    ),
    (
        "odd id under an unsanitised name",
        new_row(BASE_1, row_doc(ODD_ID, "inapplicable", False), name=f"zz-q--x--{DOT}finds-sku.json"),
        4,
        "file name should be",
    ),
    (
        "stimulus hash of another input",
        stimulus(BASE_1, f"c05{DOT}cites-source.json", lambda d: "sha256:" + "0" * 64),
        4,
        "stimulusHash",
    ),
    (
        "stimulus hash of un-normalised CRLF",
        stimulus(BASE_1, f"c05{DOT}cites-source.json", crlf_hashed_raw),
        4,
        "stimulusHash",
    ),
]


@pytest.mark.parametrize(("what", "change", "code", "needle"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusal(tmp_path: Path, what: str, change: Callable[[Path], None], code: int, needle: str) -> None:
    root = only_bench(tmp_path)
    change(root)
    result = run_cli("build", "--runs", root, "--out", tmp_path / "site", "--site-version", "v1")
    assert result.exit_code == code, (what, result.output)
    assert "Traceback" not in result.output and needle in result.output, result.output
    assert not (tmp_path / "site" / "v1").exists()


def test_a_not_applicable_row_for_an_unknown_case_or_check_is_ignored(tmp_path: Path) -> None:
    root = only_bench(tmp_path)
    add_row(root, BASE_1, row_doc(f"c99{DOT}finds-sku", "inapplicable", False))
    add_row(root, BASE_1, row_doc(f"c01{DOT}no-such", "pass", True, measurement="notApplicable"))
    site = build(root, tmp_path / "site")
    built = Built(root, site)
    ids = {r["id"] for r in built.detail(BASE_1)["rows"]}
    assert len(ids) == 80 and f"c99{DOT}finds-sku" not in ids and f"c01{DOT}no-such" not in ids


def test_refusals_leave_an_existing_version_untouched(tmp_path: Path) -> None:
    root = only_bench(tmp_path)
    site = build(root, tmp_path / "site")
    before = {p: p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}
    drop(CAND_3, "summary.json")(root)
    result = run_cli("build", "--runs", root, "--out", tmp_path / "site", "--site-version", "v2")
    assert result.exit_code == 3 and not (tmp_path / "site" / "v2").exists()
    assert {p: p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()} == before


def test_a_summary_stats_mismatch_is_disclosed_under_its_own_label(tmp_path: Path) -> None:
    root = only_bench(tmp_path)

    def miscount(folder: Path) -> None:
        summary = load(folder / "summary.json")
        summary["stats"]["passed"] += 1
        (folder / "summary.json").write_bytes(dotnet_json(summary))

    edit_run(root, BASE_1, miscount)
    built = Built(root, build(root, tmp_path / "site"))
    items = {(d["run"], d["item"]) for d in built.bench["disclosures"]["disagreements"]}
    assert (BASE_1, "summary stats (total, passed, failed, warnings, skipped)") in items
    assert (BASE_1, "run verdict") not in items  # its verdict agrees: only the stats are disclosed


def test_a_finished_run_that_measured_nothing_is_published_pending(corpus_site: Built) -> None:
    (offline,) = [r for r in corpus_site.bench["section"]["runs"] if r["arm"] == "candidate-offline"]
    assert (offline["verdict"], offline["producer_verdict"], offline["summary_verdict"]) == ("PENDING",) * 3
    assert offline["counts"]["measured"] == 0 and offline["counts"]["not_measured"] == 80
    assert "census void: this run measured nothing" in page_text(
        corpus_site.site / "b" / BENCH / "runs" / f"{offline['id']}.html"
    )


def test_every_table_of_the_definitions_pages_reflows_as_cards(corpus_site: Built) -> None:
    """Issue 35: secondary tables reflow at 390 px as the leaderboard does: every table of a
    definitions leaderboard, methodology and run page is ``cards``, and each data cell
    is labelled with its column's heading (the per-check ranking and pairwise-detail tables are the
    shared ranking's)."""
    folder = corpus_site.site / "b" / BENCH
    for page in [
        folder / "index.html",
        folder / "methodology.html",
        *sorted((folder / "runs").glob("*.html")),
    ]:
        for table in parse(page).tables:
            if table.head[:3] == ["Higher", "Lower", "Difference"] or table.head[:2] == ["Rank", "Subject"]:
                continue  # templates/_ranking.html (per-check rankings, pairwise detail): not this family's
            assert table.cards, (page.name, table.head)
            for row in table.all_rows:
                cells = [c for c in row.cells if c.tag == "td"]
                assert all(c.label for c in cells), (page.name, table.head)


def test_the_definitions_page_says_each_thing_once(corpus_site: Built) -> None:
    """recsys-grounding: no doubled floors label, no '1 reps', no '(s)', a correction named once per
    table rather than on each of its rows."""
    text = " ".join("".join(parse(corpus_site.site / "b" / BENCH / "index.html").text).split())
    assert "not applied: Floors are recorded" not in text
    assert not re.search(r"\b1 reps\b", text) and "(s)" not in text
    assert text.count("(corrected: ") == 0
    assert text.count("corrected by corr-2026-10-12") == 1

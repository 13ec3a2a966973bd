"""The definitions family scores from a scoring specification (docs/definitions.md "Scoring specification").

The seed ADR-032 text is scored by the built-in specification, and the example site's figures are
those of the engine before specifications existed (compared below against the golden site with the
added ``scoring`` fields left out); a pinned scoring.json with other rules publishes under them; a
bad specification is refused with its place and nothing written; ``benchsite rubric`` explains and
checks both the ADR and a scoring.json; ``benchsite compare`` gates on the specification's axes.
"""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from generator.families.definitions.aggregate import cell
from generator.families.definitions.models import Scenario
from generator.families.definitions.report import RowResult
from generator.families.definitions.spec import (
    BUILTIN_FILE,
    SEED_ADR_SHA256,
    DefinitionsSpec,
    compile_spec,
    explain,
)
from generator.families.definitions.stats import above_floor
from generator.families.definitions.store import verdict
from tests.conftest import CORPUS, ROOT, SEEDS, reseal, run_cli

BUILTIN: dict[str, Any] = json.loads(BUILTIN_FILE.read_text())
BENCH = "recsys-grounding"
SEED_ADR = SEEDS / "004_3e2f1068dfea7cba.txt"
GOLDEN = ROOT / "tests" / "golden" / "site"
AMENDMENT = "Amended 2026-10-04 (#203 review)"


def spec_of(spec: dict[str, Any]) -> DefinitionsSpec:
    """A specification as benchsite reads it: from JSON text (arrays are the models' tuples)."""
    return DefinitionsSpec.model_validate_json(json.dumps(spec))


def original_verdict_spec() -> dict[str, Any]:
    """The ADR's verdict before the 2026-10-04 amendment (a not-measured row does not warn), and a
    stricter alpha of 0.01."""
    spec = copy.deepcopy(BUILTIN)
    spec["version"] = "original-verdict"
    spec["verdict"]["amended"] = None
    spec["verdict"]["steps"] = [s for s in spec["verdict"]["steps"] if s["when"] != "any_not_measured"]
    spec["floor_test"]["alpha"] = 0.01
    return spec


def row(state: str, outcome: str | None = None) -> RowResult:
    value = None if outcome is None else float(outcome == "pass")
    return RowResult(
        id="c0·chk",
        case="c0",
        check="chk",
        state=state,  # type: ignore[arg-type]
        outcome=outcome,  # type: ignore[arg-type]
        value=value,
        judge=None,
        self_judged=False,
    )


# --- the engine follows the specification --------------------------------------------------------


def test_the_seed_adr_is_recognised_by_its_digest() -> None:
    assert hashlib.sha256(SEED_ADR.read_bytes()).hexdigest() == SEED_ADR_SHA256
    assert (CORPUS / BENCH / "adr-032.txt").read_bytes() == SEED_ADR.read_bytes()


@pytest.mark.parametrize(
    ("rows", "amended", "original"),
    [
        ([("measured", "pass"), ("notMeasured", None)], "WARN", "PASS"),
        ([("measured", "pass"), ("notApplicable", None)], "PASS", "PASS"),
        ([("measured", "warn"), ("notMeasured", None)], "WARN", "WARN"),
        ([("measured", "fail"), ("notMeasured", None)], "FAIL", "FAIL"),
        ([("notMeasured", None), ("notApplicable", None)], "PENDING", "PENDING"),
    ],
)
def test_the_verdict_rule_before_and_after_the_amendment(
    rows: list[tuple[str, str | None]], amended: str, original: str
) -> None:
    """Hand-checked: only a run whose measured rows pass and that has a not-measured row differs."""
    results = [row(state, outcome) for state, outcome in rows]
    assert verdict(results) == amended
    assert verdict(results, compile_spec(spec_of(original_verdict_spec()))) == original


def test_the_cell_order_is_a_parameter() -> None:
    """Seed: one not-measured rep takes the case out. Measured first: the measured reps collapse."""
    reps = {("k", "a", "c"): [("measured", 1.0), ("notMeasured", None), ("measured", 0.0)]}
    assert cell(reps, "k", "a", "c") == ("notMeasured", ())
    spec = copy.deepcopy(BUILTIN)
    spec["cells"]["order"] = ["measured", "notMeasured", "notApplicable"]
    order = compile_spec(spec_of(spec)).order
    assert cell(reps, "k", "a", "c", order) == ("measured", (1.0, 0.0))


def test_alpha_is_a_parameter() -> None:
    """p = 0.0124 (9 of 17 against 0.25) is above floor at 0.05 and not at 0.01."""
    assert above_floor(0.0124, 1e-10) is True
    assert above_floor(0.0124, 1e-10, compile_spec(spec_of(original_verdict_spec())).alpha) is False


def test_the_rules_in_words_come_from_the_specification() -> None:
    seed = explain(spec_of(BUILTIN))
    assert seed[1].startswith("Run verdict (ADR-032 as amended 2026-10-04)")
    assert "WARN if any row was not measured" in seed[1]
    original = explain(spec_of(original_verdict_spec()))
    assert "as originally written" in original[1] and "not measured" not in original[1]
    assert "p ≤ 0.01" in original[5]


# --- bad specifications: each refused with its place --------------------------------------------


def refusal(spec: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        spec_of(spec)
    return str(caught.value)


def changed(path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    spec = copy.deepcopy(BUILTIN)
    target: Any = spec
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return spec


def test_an_unknown_rule_kind_is_refused() -> None:
    text = refusal(changed(("cells", "kind"), "average_surviving_reps"))
    assert "cells.kind" in text and "Input should be 'precedence'" in text
    text = refusal(changed(("verdict", "steps", 0, "when"), "python: rows.failed > 0"))
    assert "verdict.steps.0.when" in text


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("floor_test", "alpha"), 1.5, "floor_test.alpha"),
        (("floor_test", "alpha"), 0, "greater than 0"),
        (("floors", "empirical_confidence"), 1, "less than 1"),
        (("floors", "bar_tolerance"), 0.5, "less than or equal to 0.001"),
        (("defaults", "pass_at"), -0.1, "greater than or equal to 0"),
        (("verdict", "amended"), "4 October 2026", "String should match pattern"),
    ],
)
def test_values_out_of_range_are_refused(path: tuple[str, ...], value: Any, message: str) -> None:
    assert message in refusal(changed(path, value))


def test_duplicate_names_are_refused() -> None:
    spec = copy.deepcopy(BUILTIN)
    spec["floors"]["kinds"].append("uniform-choice")
    spec["compare"]["gating"].append("evalKey")
    spec["verdict"]["steps"][3]["when"] = "any_measured_warned"
    text = refusal(spec)
    assert "floors.kinds: duplicate name(s) ['uniform-choice']" in text
    assert "compare.gating: duplicate name(s) ['evalKey']" in text
    assert "verdict.steps[].when: duplicate name(s) ['any_measured_warned']" in text


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("floors", "kinds"), ["poisson-binomial"], "floors.kinds.0"),
        (("compare", "gating"), ["evalKey", "judge.temperature"], "compare.gating.1"),
        (("floor_test", "best_of_n"), ["median"], "floor_test.best_of_n.0"),
        (("floor_test", "rules"), ["all", "any"], "defaults.paired_collapse: 'majority' is not among"),
        (("floor_test", "best_of_n"), ["majority", "all"], "floor_test.best_of_n: 'all' is not among"),
        (("compare", "gating"), ["evalKey", "judge.modelId"], "need 'judge' (presence) gating too"),
    ],
)
def test_a_reference_to_something_the_family_does_not_have_is_refused(
    path: tuple[str, ...], value: Any, message: str
) -> None:
    spec = changed(path, value)
    if path == ("floor_test", "best_of_n") and value == ["majority", "all"]:
        spec["floor_test"]["rules"] = ["majority", "any"]
    if path == ("compare", "gating"):
        spec["compare"]["case_insensitive"] = ["evalKey"]
    assert message in refusal(spec)


def test_a_specification_for_another_family_is_refused() -> None:
    assert "Input should be 'definitions'" in refusal(changed(("family",), "points"))


# --- end to end: where the specification comes from ----------------------------------------------


def only_definitions(corpus: Path) -> Path:
    for other in corpus.iterdir():
        if other.is_dir() and other.name != BENCH:
            shutil.rmtree(other)
    return corpus / BENCH


def repin(bench: Path, adr: bytes | None = None, scoring: bytes | None = None) -> None:
    """Write the ADR text (and scoring.json), pin them in benchmark.json, reseal the benchmark."""
    decl = json.loads((bench / "benchmark.json").read_text())
    if adr is not None:
        (bench / "adr-032.txt").write_bytes(adr)
        decl["rubric"]["sha256"] = hashlib.sha256(adr).hexdigest()
    if scoring is not None:
        (bench / "scoring.json").write_bytes(scoring)
        decl["scoring"] = {"file": "scoring.json", "sha256": hashlib.sha256(scoring).hexdigest()}
    (bench / "benchmark.json").write_text(json.dumps(decl, indent=2))
    reseal(bench)


def unamended_adr() -> bytes:
    """The seed ADR without its 2026-10-04 amendment line: no longer the seed's text."""
    lines = SEED_ADR.read_bytes().decode().split("\n")
    return "\n".join(line for line in lines if not line.startswith(AMENDMENT)).encode()


def refused_build(corpus: Path, tmp_path: Path, code: int) -> str:
    out = tmp_path / "site"
    result = run_cli("build", "--runs", corpus, "--out", out, "-q")
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert not out.exists() or not any(out.iterdir())
    return result.output


def section_of(out: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((out / "v1" / "data" / "benchmarks" / f"{BENCH}.json").read_text())[
        "section"
    ]
    return found


def test_a_pinned_specification_publishes_under_its_own_rules(corpus: Path, tmp_path: Path) -> None:
    """The unamended ADR with the original verdict rule and alpha 0.01: the baseline's 'majority' test
    on cites-source (9 of 17 cases against the uniform-choice bar 0.25, p = 0.0124) is above the
    floor at 0.05 and not at 0.01; every other figure stays."""
    bench = only_definitions(corpus)
    scoring = json.dumps(original_verdict_spec(), indent=2).encode()
    repin(bench, unamended_adr(), scoring)
    out = tmp_path / "site"
    result = run_cli("build", "--runs", corpus, "--out", out, "--site-version", "v1", "-q")
    assert result.exit_code == 0, result.output
    section = section_of(out)
    info = section["scoring"]
    assert (info["source"], info["file"]) == ("file", "scoring.json")
    assert info["sha256"] == hashlib.sha256(scoring).hexdigest()
    assert info["parameters"] == []
    test = next(
        t
        for t in section["floor_tests"]
        if (t["check"], t["arm"], t["rule"]) == ("cites-source", "baseline", "majority")
    )
    assert (test["successes"], test["cases"], test["bar"]) == (9, 17, 0.25)
    assert test["p_value"] == pytest.approx(0.0124, abs=1e-4)
    assert test["above_floor"] is False  # above the floor under the built-in alpha of 0.05
    assert [r["verdict"] for r in section["runs"]] == ["FAIL"] * 6 + ["PENDING"]
    page = (out / "v1" / "b" / BENCH / "methodology.html").read_text()
    assert "the sealed scoring file scoring.json pinned in benchmark.json" in page
    assert "Run verdict (ADR-032 as originally written)" in page
    assert "p ≤ 0.01 and not underpowered" in page


def test_the_seed_adr_is_scored_by_the_built_in_specification(corpus: Path, tmp_path: Path) -> None:
    only_definitions(corpus)
    out = tmp_path / "site"
    assert run_cli("build", "--runs", corpus, "--out", out, "--site-version", "v1", "-q").exit_code == 0
    info = section_of(out)["scoring"]
    assert info["source"] == "built-in"
    assert info["sha256"] == hashlib.sha256(BUILTIN_FILE.read_bytes()).hexdigest()
    assert {p["interpretation"] for p in info["parameters"]} >= {
        "definitions-verdict",
        "definitions-collapse",
    }
    page = (out / "v1" / "b" / BENCH / "methodology.html").read_text()
    assert "built-in specification of the seed contract" in page
    assert "Run verdict (ADR-032 as amended 2026-10-04)" in page


def test_a_changed_adr_without_a_specification_is_refused(corpus: Path, tmp_path: Path) -> None:
    repin(only_definitions(corpus), unamended_adr())
    output = refused_build(corpus, tmp_path, 4)
    assert f"{BENCH}/adr-032.txt: no scoring specification" in output


def test_an_adr_that_disagrees_with_its_specification_names_both_places(corpus: Path, tmp_path: Path) -> None:
    """The seed ADR states the amendment and the compare axes; a pinned scoring.json without them is
    refused at the ADR's lines, naming the specification's fields."""
    spec = original_verdict_spec()
    spec["compare"]["gating"].remove("stimulus")
    repin(only_definitions(corpus), scoring=json.dumps(spec).encode())
    output = refused_build(corpus, tmp_path, 4)
    assert (
        "adr-032.txt: line 7: the ADR amends the run verdict on 2026-10-04; scoring.json states "
        "$.verdict.amended None"
    ) in output
    assert "line 7: the amendment makes a run with a not-measured row WARN; scoring.json has no" in output
    assert "line 249: compare gates on evalKey / evalVersion" in output and "($.compare.gating)" in output


def test_a_floor_kind_the_specification_does_not_admit_is_located(corpus: Path, tmp_path: Path) -> None:
    spec = original_verdict_spec()
    spec["floors"]["kinds"].remove("not-derivable")
    repin(only_definitions(corpus), unamended_adr(), json.dumps(spec).encode())
    output = refused_build(corpus, tmp_path, 4)
    assert (
        f"{BENCH}/definition.json: $.checks[3].floor.kind: floor kind 'not-derivable' is not one "
        "scoring.json admits"
    ) in output


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s["cells"].update(kind="eval"), "scoring.json: $.cells.kind"),
        (
            lambda s: s.update(family="points"),
            "scoring.json: $.family: a scoring specification for family 'points'",
        ),
        (lambda s: s["floor_test"].update(alpha=2), "scoring.json: $.floor_test.alpha"),
        (
            lambda s: s["floors"]["kinds"].append("uniform-choice"),
            "scoring.json: $: floors.kinds: duplicate name(s) ['uniform-choice']",
        ),
        (lambda s: s["compare"]["gating"].append("judge.temperature"), "scoring.json: $.compare.gating[7]"),
    ],
    ids=["unknown-kind", "wrong-family", "out-of-range", "duplicate-names", "no-such-axis"],
)
def test_a_bad_pinned_specification_is_located_and_nothing_is_written(
    corpus: Path, tmp_path: Path, change: Any, message: str
) -> None:
    spec = original_verdict_spec()
    change(spec)
    repin(only_definitions(corpus), unamended_adr(), json.dumps(spec).encode())
    assert message in refused_build(corpus, tmp_path, 4)


# --- nothing moved: the example site's figures ---------------------------------------------------


def without_definitions_scoring(value: Any) -> Any:
    """A report with the definitions section's added ``scoring`` left out."""
    if isinstance(value, dict):
        return {
            k: without_definitions_scoring(v)
            for k, v in value.items()
            if not (k == "scoring" and value.get("family") == "definitions")
        }
    if isinstance(value, list):
        return [without_definitions_scoring(v) for v in value]
    return value


def test_the_example_site_is_figure_for_figure_the_golden_one(tmp_path: Path) -> None:
    """data/site.json and the definitions benchmark's data equal the golden site's, the added
    ``scoring`` of the definitions section left out of both."""
    out = tmp_path / "site"
    result = run_cli("build", "--runs", CORPUS, "--out", out, "--no-cache", "-q")
    assert result.exit_code == 0, result.output
    versions = sorted(p.parent.parent.relative_to(GOLDEN) for p in GOLDEN.glob("*/data/site.json"))
    assert versions
    for version in versions:
        for rel in ("data/site.json", f"data/benchmarks/{BENCH}.json"):
            golden = json.loads((GOLDEN / version / rel).read_text())
            built = json.loads((out / version / rel).read_text())
            assert without_definitions_scoring(built) == without_definitions_scoring(golden), (
                f"{version}/{rel}"
            )
    built_section = section_of_version(out, versions[0])
    assert built_section["scoring"]["source"] == "built-in"


def section_of_version(out: Path, version: Path) -> dict[str, Any]:
    data = json.loads((out / version / "data" / "benchmarks" / f"{BENCH}.json").read_text())
    found: dict[str, Any] = data["section"]
    return found


# --- benchsite rubric explain | check --------------------------------------------------------------


def test_rubric_explain_prints_the_seed_adrs_rules_and_digest() -> None:
    result = run_cli("rubric", "explain", SEED_ADR)
    assert result.exit_code == 0, result.output
    assert SEED_ADR_SHA256 in result.output
    assert "built-in specification of the seed contract (adr-032.scoring.json)" in result.output
    assert "- Run verdict (ADR-032 as amended 2026-10-04)" in result.output
    assert "- Floors are recorded and reported, never applied to a verdict." in result.output


def test_rubric_explain_of_the_corpus_adr_and_of_a_changed_one(tmp_path: Path) -> None:
    assert run_cli("rubric", "explain", CORPUS / BENCH / "adr-032.txt").exit_code == 0
    path = tmp_path / "adr.txt"
    path.write_bytes(unamended_adr())
    result = run_cli("rubric", "explain", path)
    assert result.exit_code == 4 and "no scoring specification" in result.output
    path.write_text("Not an ADR at all\n")
    result = run_cli("rubric", "explain", path)
    assert result.exit_code == 4 and "is not ADR-032" in result.output


def test_rubric_check_lists_every_problem(tmp_path: Path) -> None:
    spec = copy.deepcopy(BUILTIN)
    spec["floors"]["kinds"].append("prior-rate")
    spec["floor_test"]["rules"] = ["all", "any"]
    spec["compare"]["case_insensitive"] = ["evalKey"]
    spec["compare"]["gating"] = ["evalVersion"]
    path = tmp_path / "scoring.json"
    path.write_text(json.dumps(spec))
    result = run_cli("rubric", "check", path)
    assert result.exit_code == 4, result.output
    for problem in (
        "floors.kinds: duplicate name(s) ['prior-rate']",
        "defaults.paired_collapse: 'majority' is not among floor_test.rules",
        "compare.case_insensitive: 'evalKey' is not a gating axis",
    ):
        assert problem in result.output
    path.write_text(json.dumps(original_verdict_spec()))
    ok = run_cli("rubric", "check", path)
    assert ok.exit_code == 0, ok.output
    assert "valid definitions rubric" in ok.output


# --- compare gates on the specification's axes ----------------------------------------------------

STORE = CORPUS / BENCH / ".agenteval" / "subjects" / "agents"
BASELINE = sorted((STORE / "recsys-agent" / "runs").iterdir())[0]
ROW = "c01\u00b7tone-judged"


def test_compare_gates_on_the_given_specifications_axes(tmp_path: Path) -> None:
    """A candidate whose evalVersion differs on one row: incomparable under the built-in rules,
    comparable under a specification that does not gate on evalVersion; gating on the usable floor
    makes the not-derivable judged check's 20 rows incomparable."""
    candidate = tmp_path / "candidate"
    shutil.copytree(BASELINE, candidate)
    (candidate / "SHA256SUMS").unlink()
    scenario = candidate / "scenarios" / f"{ROW}.json"
    data = json.loads(scenario.read_text(encoding="utf-8"))
    data["comparability"]["evalVersion"] = "9.9.9"
    scenario.write_text(json.dumps(data), encoding="utf-8")
    assert Scenario.model_validate(data).comparability is not None
    assert run_cli("compare", BASELINE, candidate).exit_code == 13
    spec = copy.deepcopy(BUILTIN)
    spec["compare"]["gating"].remove("evalVersion")
    spec["compare"]["case_insensitive"].remove("evalVersion")
    path = tmp_path / "scoring.json"
    path.write_text(json.dumps(spec))
    result = run_cli("compare", "--scoring", path, BASELINE, candidate)
    assert result.exit_code == 0, result.output
    assert "floors and self-judging are reported, not gating" in result.output
    spec["compare"]["gating"].append("usable_floor")
    path.write_text(json.dumps(spec))
    gated = run_cli("compare", "--scoring", path, "--json", BASELINE, candidate)
    assert gated.exit_code == 13, gated.output
    reasons = json.loads(gated.output)["reasons"]
    assert len(reasons) == 20 and all(
        r.endswith("no usable floor (gating under the scoring specification)") for r in reasons
    )


def test_compare_refuses_a_bad_specification(tmp_path: Path) -> None:
    path = tmp_path / "scoring.json"
    path.write_text(json.dumps(changed(("compare", "neither_side"), "sometimes")))
    result = run_cli("compare", "--scoring", path, BASELINE, BASELINE)
    assert result.exit_code == 4 and "$.compare.neither_side" in result.output

"""Rubrics as data: the points family scores from a scoring specification (docs/scoring.md).

The seed contract is scored by the built-in specification (the example site's figures are those of
the engine before specifications existed: tests/test_site.py and the corpus oracles hold them); a
successor contract or a team's own rubric carries its own specification, in the contract or in a
pinned scoring.json; every inconsistent specification is refused with its place, nothing written.
"""

from __future__ import annotations

import copy
import hashlib
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from generator.families.points.models import (
    Attempt,
    Check,
    PointsTask,
    RegressionCheck,
    SurfaceCheck,
    Trajectory,
)
from generator.families.points.models import TestSignals as Signals  # not collected by pytest
from generator.families.points.scoring import score_attempt
from generator.families.points.spec import (
    BUILTIN_FILE,
    PointsSpec,
    compile_spec,
    explain,
    seed_rules,
)
from generator.inputs.jsonio import load_json_bytes
from generator.inputs.seal import SEAL_NAME, write_seal
from tests.conftest import run_cli
from tests.pages import parse, squash

BUILTIN: dict[str, Any] = json.loads(BUILTIN_FILE.read_text())
TASK = PointsTask(id="t1", title="task one", allowlist=("src/",))


def spec_of(spec: dict[str, Any], *, text: str | None = None) -> PointsSpec:
    """A specification as benchsite reads it: from JSON text (arrays are the models' tuples), its
    numbers exact as written (``text``: the JSON itself, to write a number no float holds)."""
    data = (text if text is not None else json.dumps(spec)).encode()
    return PointsSpec.model_validate(tuples(load_json_bytes(data, "scoring.json").value))


def tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: tuples(v) for k, v in value.items()}
    return value


def successor_spec() -> dict[str, Any]:
    """The seed's specification with other weights and a stricter Ready threshold."""
    spec = copy.deepcopy(BUILTIN)
    spec["dimensions"][0]["weight"] = 40  # functional correctness
    spec["dimensions"][1]["weight"] = 20  # regression avoidance
    spec["outcomes"]["ready"]["deterministic_at_least"] = 85
    return spec


def attempt(**overrides: Any) -> Attempt:
    facts: dict[str, Any] = {
        "attempt_id": "a1",
        "task": "t1",
        "agent_started": True,
        "functional": tuple(Check(id=f"f{i}", passed=i < 3) for i in range(4)),  # 3/4
        "regression": tuple(RegressionCheck(id=f"r{i}", passed=True) for i in range(2)),  # 2/2
        "cross_surface": tuple(SurfaceCheck(id=f"s{i}", passed=True, surface="cli") for i in range(3)),
        "changed_paths": ("src/a.py",),
        "tests": Signals(relevant_tests_changed=True, passed_before=True, passed_after=True),
        "trajectory": None,
        "tampering_detected": False,
        "prohibited_change_detected": False,
    }
    return Attempt(**(facts | overrides))


# --- the engine follows the specification --------------------------------------------------------


def test_the_built_in_specification_scores_as_the_seed_contract_says() -> None:
    """45·3/4 + 15 + 15 + 10 + 5 = 78.75: below 80, so NeedsReview, with the seed's reason text."""
    result = score_attempt(attempt(), TASK)
    assert result.deterministic == 78.75
    assert result.outcome == "NeedsReview"
    assert result.reasons == ("deterministic 78.75 < 80",)
    assert [d.points for d in result.dimensions] == [33.75, 15, 15, 10, 5, 0, 5]
    assert result.dimensions[5].state == "unavailable"


def test_a_successor_specification_moves_weights_and_thresholds() -> None:
    """40·3/4 + 20 + 15 + 10 + 5 = 80: Ready under the seed's 80, not under the successor's 85."""
    rules = compile_spec(spec_of(successor_spec()))
    result = score_attempt(attempt(), TASK, rules)
    assert result.deterministic == 80
    assert result.outcome == "NeedsReview"
    assert result.reasons == ("deterministic 80 < 85",)
    assert [d.max for d in result.dimensions] == [40, 20, 15, 10, 5, 5, 5]
    perfect = attempt(functional=tuple(Check(id=f"f{i}", passed=True) for i in range(4)))
    assert score_attempt(perfect, TASK, rules).outcome == "Ready"  # 40 + 20 + 15 + 10 + 5 = 90


def test_decimal_numbers_in_a_specification_are_exact() -> None:
    """0.1 is one tenth: three paths outside at 0.1 each leave 9.7, not 9.700000000000001."""
    spec = copy.deepcopy(BUILTIN)
    spec["dimensions"][3]["rule"]["each"] = 0.1
    rules = compile_spec(spec_of(spec))
    result = score_attempt(attempt(changed_paths=("x", "y", "z")), TASK, rules)
    assert result.dimensions[3].points == float(Fraction(97, 10))


# 45·23/27 + 15 + 15 + 10 + 5 = 250/3 = 83.333…: a threshold that differs from it in the 20th
# significant digit, on either side
ABOVE, BELOW = "83.33333333333333334", "83.33333333333333333"


def threshold_text(threshold: str, *, indent: int | None = None) -> str:
    """The seed's specification as JSON text whose Ready threshold is the literal ``threshold``."""
    spec = copy.deepcopy(BUILTIN)
    spec["outcomes"]["ready"]["deterministic_at_least"] = "THRESHOLD"
    return json.dumps(spec, indent=indent).replace('"THRESHOLD"', threshold)


def threshold_spec(threshold: str) -> PointsSpec:
    return spec_of(BUILTIN, text=threshold_text(threshold))


def two_fifty_thirds() -> Attempt:
    return attempt(functional=tuple(Check(id=f"f{i}", passed=i < 23) for i in range(27)))


@pytest.mark.parametrize(("threshold", "outcome"), [(ABOVE, "NeedsReview"), (BELOW, "Ready")])
def test_a_threshold_is_the_exact_decimal_written_to_the_20th_digit(threshold: str, outcome: str) -> None:
    """Read through a binary float, both thresholds are 83.33333333333333 (below 250/3): Ready twice."""
    rules = compile_spec(threshold_spec(threshold))
    assert rules.ready_at_least == Fraction(threshold)
    result = score_attempt(two_fifty_thirds(), TASK, rules)
    assert result.outcome == outcome
    if outcome == "NeedsReview":  # the reason never reads as equal numbers
        assert result.reasons == (f"deterministic 83.333333333333333333 < {ABOVE}",)


def test_a_number_no_float_holds_is_published_and_explained_as_written() -> None:
    spec = threshold_spec(ABOVE)
    assert spec.model_dump(mode="json")["outcomes"]["ready"]["deterministic_at_least"] == ABOVE
    assert json.loads(json.dumps(spec_of(BUILTIN).model_dump(mode="json", exclude_unset=True))) == BUILTIN
    assert f"deterministic points at least {ABOVE}" in "\n".join(explain(spec))
    assert "deterministic points at least 80" in "\n".join(explain(spec_of(BUILTIN)))


@pytest.mark.parametrize(
    ("command", "threshold", "code", "said"),
    [
        ("check", '"80"', 4, "$.outcomes.ready.deterministic_at_least: must be a number"),
        ("check", "true", 4, "$.outcomes.ready.deterministic_at_least: must be a number"),
        ("explain", ABOVE, 0, f"deterministic points at least {ABOVE}"),
    ],
    ids=["text", "true", "explained-as-written"],
)
def test_rubric_reads_a_threshold_as_the_number_written(
    tmp_path: Path, command: str, threshold: str, code: int, said: str
) -> None:
    path = tmp_path / "scoring.json"
    path.write_text(threshold_text(threshold))
    result = run_cli("rubric", command, path)
    assert result.exit_code == code, result.output
    assert said in result.output


def test_a_team_rubric_of_four_dimensions_scores_by_its_own_rules() -> None:
    spec = team_spec()
    rules = compile_spec(spec_of(spec))
    result = score_attempt(attempt(trajectory=Trajectory(**dict.fromkeys(TRAJECTORY, True))), TASK, rules)
    # accuracy 50·3/4 + examples 30·2/2 + links 20·3/3 = 87.5; Ready at 85, review at 60
    assert result.deterministic == 87.5
    assert result.outcome == "Ready"
    assert [d.key for d in result.dimensions] == ["accuracy", "examples", "links", "process"]


TRAJECTORY = ("explored", "recovered_or_no_error", "evidence_backed_termination")


def team_spec() -> dict[str, Any]:
    ratio = {"kind": "check_ratio", "when_empty": "inconclusive", "when_not_run": "inconclusive"}
    return {
        "schema_version": 1,
        "family": "points",
        "rubric": "docs-quality",
        "dimensions": [
            {"key": "accuracy", "name": "accuracy", "weight": 50, "rule": ratio | {"checks": "functional"}},
            {
                "key": "examples",
                "name": "examples run",
                "weight": 30,
                "rule": ratio | {"checks": "regression"},
            },
            {
                "key": "links",
                "name": "links resolve",
                "weight": 20,
                "rule": ratio | {"checks": "cross_surface"},
            },
            {
                "key": "process",
                "name": "writing process",
                "weight": 5,
                "diagnostic": True,
                "rule": {"kind": "signal_sum", "signals": "trajectory", "points": {"explored": 5}},
            },
        ],
        "deterministic_total": 100,
        "blockers": {"critical_checks": ["regression"]},
        "mandatory_checks": ["functional checks"],
        "mandatory_means": "executed_and_evaluable",
        "outcomes": {"ready": {"deterministic_at_least": 85}, "needs_review": {"deterministic_at_least": 60}},
        "invalid": {"reasons": ["host_infrastructure_failure"], "after_agent_started": []},
        "unavailable_diagnostic": "zero_labelled_unavailable",
        "allowlist": "folder_slash_or_fnmatch",
    }


def test_the_rules_in_words_come_from_the_specification() -> None:
    seed = explain(seed_rules().spec)
    assert "functional correctness (45): 45 × passed functional checks / total functional checks" in seed[1]
    assert seed[9 - 1].startswith("Deterministic points = functional correctness + regression avoidance")
    assert "(of 90)" in seed[8]
    successor = explain(spec_of(successor_spec()))
    assert "functional correctness (40): 40 × passed" in successor[1]
    assert any(line.startswith("Ready:") and "at least 85" in line for line in successor)


# --- bad specifications: each refused with its place --------------------------------------------


def refusal(spec: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        spec_of(spec)
    return str(caught.value)


def test_an_unknown_rule_kind_is_refused() -> None:
    spec = copy.deepcopy(BUILTIN)
    spec["dimensions"][0]["rule"] = {"kind": "python", "code": "points = 45"}
    assert "dimensions.0.rule" in refusal(spec)
    assert "does not match any of the expected tags" in refusal(spec)


def test_weights_that_do_not_add_up_to_the_total_are_refused() -> None:
    spec = copy.deepcopy(BUILTIN)
    spec["dimensions"][0]["weight"] = 44
    assert "deterministic_total: 90, but the non-diagnostic weights add up to 89" in refusal(spec)


@pytest.mark.parametrize(
    ("place", "value", "message"),
    [
        (("outcomes", "ready", "deterministic_at_least"), 91, "is above the deterministic total"),
        (("outcomes", "needs_review", "deterministic_at_least"), 81, "is above the Ready threshold 80"),
        (("outcomes", "ready", "minimums"), {"consistency": 16}, "above the dimension's weight 15"),
        (("blockers", "minimums"), {"test_behavior": 1}, "no such non-diagnostic dimension"),
        (("outcomes", "ready", "deterministic_at_least"), -1, "greater than or equal to 0"),
    ],
)
def test_thresholds_out_of_range_are_refused(place: tuple[str, ...], value: Any, message: str) -> None:
    spec = copy.deepcopy(BUILTIN)
    target = spec
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    assert message in refusal(spec)


def test_a_check_group_the_family_does_not_have_is_refused() -> None:
    spec = copy.deepcopy(BUILTIN)
    spec["dimensions"][1]["rule"]["checks"] = "security"
    text = refusal(spec)
    assert "dimensions.1.rule.check_ratio.checks" in text
    assert "'functional', 'regression' or 'cross_surface'" in text


def test_a_signal_outside_its_group_is_refused() -> None:
    spec = copy.deepcopy(BUILTIN)
    spec["dimensions"][5]["rule"]["points"] = {"passed_after": 1}
    assert "signal 'passed_after' is not in the 'trajectory' group" in refusal(spec)


def test_a_specification_for_another_family_is_refused() -> None:
    spec = copy.deepcopy(BUILTIN) | {"family": "trials"}
    assert "family" in refusal(spec)
    assert "Input should be 'points'" in refusal(spec)


def test_duplicate_dimension_names_and_keys_are_refused() -> None:
    spec = copy.deepcopy(BUILTIN)
    spec["dimensions"][1]["name"] = "Functional Correctness"
    spec["dimensions"][2]["key"] = "functional"
    text = refusal(spec)
    assert "duplicate key(s) ['functional']" in text
    assert "duplicate name(s) ['functional correctness']" in text


# --- where a specification lives, end to end ------------------------------------------------------


def repin(bench: Path, rubric: dict[str, Any] | None = None, scoring: bytes | None = None) -> None:
    """Write the contract (and scoring.json), pin them in benchmark.json, reseal the benchmark."""
    decl = json.loads((bench / "benchmark.json").read_text())
    if rubric is not None:
        data = json.dumps(rubric, indent=2).encode()
        (bench / "rubric.json").write_bytes(data)
        decl["rubric"]["sha256"] = hashlib.sha256(data).hexdigest()
    if scoring is not None:
        (bench / "scoring.json").write_bytes(scoring)
        decl["scoring"] = {"file": "scoring.json", "sha256": hashlib.sha256(scoring).hexdigest()}
    (bench / "benchmark.json").write_text(json.dumps(decl, indent=2))
    (bench / SEAL_NAME).unlink()
    write_seal(bench)


def successor_contract(bench: Path, *, embed: bool) -> dict[str, Any]:
    contract = json.loads((bench / "rubric.json").read_text())
    contract["artifactVersion"] = "2026-12-01.1"
    contract["status"] = "frozen"
    contract["pointDimensions"][0]["weight"] = 40
    contract["pointDimensions"][1]["weight"] = 20
    if embed:
        contract["scoring"] = successor_spec()
    return contract


def only_points_bench(corpus: Path) -> Path:
    for other in ("vibe-delivery", "je-validation", "recsys-grounding", "quiz-inspect"):
        import shutil

        shutil.rmtree(corpus / other)
    return corpus / "agent-dx"


@pytest.mark.parametrize("embed", [True, False], ids=["in-the-contract", "pinned-scoring-json"])
def test_a_frozen_successor_publishes_under_its_own_rules(corpus: Path, tmp_path: Path, embed: bool) -> None:
    bench = only_points_bench(corpus)
    scoring = None if embed else json.dumps(successor_spec(), indent=2).encode()
    repin(bench, successor_contract(bench, embed=embed), scoring)
    out = tmp_path / "site"
    result = run_cli("build", "--runs", corpus, "--out", out, "--site-version", "v1", "-q")
    assert result.exit_code == 0, result.output
    report = json.loads((out / "v1" / "data" / "benchmarks" / "agent-dx.json").read_text())
    scoring_info = report["section"]["scoring"]
    assert scoring_info["source"] == ("contract" if embed else "file")
    assert scoring_info["specification"]["outcomes"]["ready"]["deterministic_at_least"] == 85
    page = (out / "v1" / "b" / "agent-dx" / "methodology.html").read_text()
    assert "functional correctness (40): 40 × passed functional checks" in page
    assert "deterministic points at least 85" in page
    assert "Mean deterministic (of 90)" in (out / "v1" / "b" / "agent-dx" / "index.html").read_text()


def test_the_seed_contract_is_scored_by_the_built_in_specification(corpus: Path, tmp_path: Path) -> None:
    only_points_bench(corpus)
    out = tmp_path / "site"
    assert run_cli("build", "--runs", corpus, "--out", out, "--site-version", "v1", "-q").exit_code == 0
    info = json.loads((out / "v1" / "data" / "benchmarks" / "agent-dx.json").read_text())["section"][
        "scoring"
    ]
    assert info["source"] == "built-in"
    assert info["sha256"] == hashlib.sha256(BUILTIN_FILE.read_bytes()).hexdigest()
    assert "built-in specification" in (out / "v1" / "b" / "agent-dx" / "methodology.html").read_text()


def refused_build(corpus: Path, tmp_path: Path, code: int) -> str:
    out = tmp_path / "site"
    result = run_cli("build", "--runs", corpus, "--out", out, "-q")
    assert result.exit_code == code, result.output
    assert not out.exists() or not any(out.iterdir())
    return result.output


def test_a_contract_that_disagrees_with_its_specification_names_both_places(
    corpus: Path, tmp_path: Path
) -> None:
    bench = only_points_bench(corpus)
    contract = successor_contract(bench, embed=True)
    contract["pointDimensions"][0]["weight"] = 45  # the specification says 40
    contract["pointDimensions"][1]["weight"] = 15
    repin(bench, contract)
    output = refused_build(corpus, tmp_path, 4)
    assert "agent-dx/rubric.json: $.pointDimensions: dimensions and weights" in output
    assert "rubric.json $.scoring ($.dimensions:" in output or "rubric.json ($.dimensions:" in output


def test_a_specification_of_another_rubric_is_refused(corpus: Path, tmp_path: Path) -> None:
    bench = only_points_bench(corpus)
    spec = successor_spec() | {"rubric": "someone-elses-rubric"}
    repin(bench, successor_contract(bench, embed=False), json.dumps(spec).encode())
    output = refused_build(corpus, tmp_path, 4)
    assert "rubric.json: $.artifactId: scoring.json is a specification of 'someone-elses-rubric'" in output


def test_a_scoring_file_that_does_not_match_its_pin_is_refused(corpus: Path, tmp_path: Path) -> None:
    bench = only_points_bench(corpus)
    repin(bench, successor_contract(bench, embed=False), json.dumps(successor_spec()).encode())
    (bench / "scoring.json").write_bytes(json.dumps(successor_spec(), indent=1).encode())
    (bench / SEAL_NAME).unlink()
    write_seal(bench)
    output = refused_build(corpus, tmp_path, 3)
    assert "agent-dx/scoring.json: does not match its pin in benchmark.json" in output


def test_a_specification_in_both_places_is_refused(corpus: Path, tmp_path: Path) -> None:
    bench = only_points_bench(corpus)
    repin(bench, successor_contract(bench, embed=True), json.dumps(successor_spec()).encode())
    output = refused_build(corpus, tmp_path, 4)
    assert "benchmark.json: $.scoring: the contract carries a scoring object" in output


def test_a_bad_specification_in_a_scoring_file_is_located(corpus: Path, tmp_path: Path) -> None:
    bench = only_points_bench(corpus)
    spec = successor_spec()
    spec["dimensions"][2]["rule"]["kind"] = "eval"
    repin(bench, successor_contract(bench, embed=False), json.dumps(spec).encode())
    output = refused_build(corpus, tmp_path, 4)
    assert "agent-dx/scoring.json: $.dimensions[2].rule" in output


# --- benchsite rubric explain | check --------------------------------------------------------------


def test_rubric_explain_prints_the_seeds_rules_and_digest() -> None:
    from tests.conftest import CORPUS

    path = CORPUS / "agent-dx" / "rubric.json"
    result = run_cli("rubric", "explain", path)
    assert result.exit_code == 0, result.output
    assert hashlib.sha256(path.read_bytes()).hexdigest() in result.output
    assert "built-in specification of the seed contract" in result.output
    assert "- scope discipline (10): 10 minus 2.5 for each distinct changed path" in result.output


def test_rubric_check_lists_every_problem(tmp_path: Path) -> None:
    spec = copy.deepcopy(BUILTIN)
    spec["dimensions"][0]["weight"] = 44
    spec["outcomes"]["needs_review"]["deterministic_at_least"] = 99
    path = tmp_path / "scoring.json"
    path.write_text(json.dumps(spec))
    result = run_cli("rubric", "check", path)
    assert result.exit_code == 4, result.output
    assert "add up to 89" in result.output
    assert "is above the Ready threshold 80" in result.output
    path.write_text(json.dumps(successor_spec()))
    ok = run_cli("rubric", "check", path)
    assert ok.exit_code == 0, ok.output
    assert "valid points rubric" in ok.output


def test_an_invalid_reason_the_specification_does_not_accept_is_located(corpus: Path, tmp_path: Path) -> None:
    """docs-quality accepts host failures and storage exhaustion only: a pre-agent evaluator failure is
    refused at its line, with the reasons the rubric accepts."""
    run = corpus / "docs-quality" / "run-subject-7c2e"
    lines = (run / "attempts.jsonl").read_text().splitlines()
    row = json.loads(lines[2])
    lines[2] = json.dumps(
        {
            "attempt_id": row["attempt_id"],
            "task": row["task"],
            "agent_started": False,
            "invalid": {"reason": "pre_agent_evaluator_failure"},
        }
    )
    (run / "attempts.jsonl").write_text("\n".join(lines) + "\n")
    (run / SEAL_NAME).unlink()
    write_seal(run)
    bench = corpus / "docs-quality"
    (bench / SEAL_NAME).unlink()
    write_seal(bench)
    output = refused_build(corpus, tmp_path, 4)
    assert (
        "docs-quality/run-subject-7c2e/attempts.jsonl: line 3 $.invalid.reason: invalid reason "
        "'pre_agent_evaluator_failure' is not one this rubric accepts (host_infrastructure_failure, "
        "storage_exhaustion)"
    ) in output


def test_the_example_corpus_publishes_a_successor_and_a_team_rubric(example_site: Path) -> None:
    pages = example_site / "v1" / "b"
    successor = (pages / "agent-dx-successor" / "methodology.html").read_text()
    assert (
        "the contract&#39;s own scoring object" in successor
        or "the contract's own scoring object" in successor
    )
    assert "functional correctness (40)" in successor
    team = (pages / "docs-quality" / "methodology.html").read_text()
    assert "the sealed scoring file scoring.json pinned in benchmark.json" in team
    assert "technical accuracy (50): 50 × passed functional checks" in team
    run_page = next((pages / "docs-quality" / "runs").glob("*.html")).read_text()
    for head in ("accuracy", "examples", "coverage", "focus"):
        assert f'<th scope="col" class="num">{head}</th>' in run_page
    assert "Deterministic (of 100)" in run_page
    site = json.loads((example_site / "v1" / "data" / "site.json").read_text())
    for bench in site["benchmarks"]:
        statement = bench["section"]["scoring"]["statement"]
        disclosures = squash(" ".join(parse(pages / bench["id"] / "disclosures.html").text))
        assert f"computed under {statement}." in disclosures, bench["id"]
        assert bench["section"]["scoring"]["sha256"] in statement


def test_rubric_explain_finds_the_scoring_file_its_benchmark_pins(corpus: Path) -> None:
    """docs-quality's contract has no scoring object: the pinned scoring.json beside it explains it,
    and a scoring.json that no longer matches its pin is refused (exit 3)."""
    contract = corpus / "docs-quality" / "rubric.json"
    result = run_cli("rubric", "explain", contract)
    assert result.exit_code == 0, result.output
    assert "scoring.json pinned in benchmark.json" in result.output
    assert "- change focus (10): 10 minus 5 for each distinct changed path" in result.output
    (corpus / "docs-quality" / "scoring.json").write_text("{}")
    refused = run_cli("rubric", "explain", contract)
    assert refused.exit_code == 3, refused.output
    assert "scoring.json: does not match its pin in" in refused.output


def test_a_published_exact_threshold_is_scored_by_and_read_back(corpus: Path, tmp_path: Path) -> None:
    """End to end: the run scoring 250/3 is not Ready under 83.33333333333333334; site.json states the
    threshold as its exact text, and a later build reads that report back (the versions it compares)."""
    from generator.publish.past import read_report

    bench = only_points_bench(corpus)
    repin(bench, scoring=threshold_text(ABOVE, indent=2).encode())
    out = tmp_path / "site"
    result = run_cli("build", "--runs", corpus, "--out", out, "--site-version", "v1", "-q")
    assert result.exit_code == 0, result.output
    report = json.loads((out / "v1" / "data" / "benchmarks" / "agent-dx.json").read_text())
    assert (
        report["section"]["scoring"]["specification"]["outcomes"]["ready"]["deterministic_at_least"] == ABOVE
    )
    assert (
        f"deterministic points at least {ABOVE}"
        in (out / "v1" / "b" / "agent-dx" / "methodology.html").read_text()
    )
    again = read_report(out / "v1")
    assert again is not None
    assert again.model_dump(mode="json") == json.loads((out / "v1" / "data" / "site.json").read_text())


def test_an_exponent_is_exact_and_a_million_places_are_refused(tmp_path: Path) -> None:
    """``8.333333333333333334e1`` is the threshold above 250/3; ``1e-999999`` (nine characters) would be
    published as a million digits, so a number holds at most 40 decimal places."""
    rules = compile_spec(threshold_spec("8.333333333333333334e1"))
    assert score_attempt(two_fifty_thirds(), TASK, rules).outcome == "NeedsReview"
    spec = copy.deepcopy(BUILTIN)
    spec["dimensions"][3]["rule"]["each"] = "X"
    path = tmp_path / "scoring.json"
    path.write_text(json.dumps(spec).replace('"X"', "1e-999999"))
    result = run_cli("rubric", "check", path)
    assert result.exit_code == 4, result.output
    assert "has 999999 decimal places: a number here has at most 40" in result.output

"""Rubrics as data, components family: JE validation scoring from a scoring specification.

The seed contract is scored by the built-in specification and the example site's figures are those
of the engine before specifications existed (pinned below, and the golden site); a successor
contract with other weights, pass bar and judge aggregate publishes under its own specification, in
the contract or in a pinned scoring.json, with figures worked by hand; every inconsistent
specification is refused with its place, nothing written.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from generator.canon import canonical_json
from generator.families.components.spec import BUILTIN_FILE, ComponentsSpec, explain
from generator.inputs.seal import write_seal
from tests.conftest import CORPUS, ROOT, run_cli

BUILTIN: dict[str, Any] = json.loads(BUILTIN_FILE.read_text())
BENCH = "je-successor"
JUDGES = tuple(f"sha256:{str(n) * 64}" for n in range(1, 4))


def spec_of(spec: dict[str, Any]) -> ComponentsSpec:
    """A specification as benchsite reads it: from JSON text."""
    return ComponentsSpec.model_validate_json(json.dumps(spec))


def successor_spec() -> dict[str, Any]:
    """The seed's specification with fixed weights .4/.4/.2, process .6/.2/.2, a pass bar of 8 and
    the judges' mean instead of their median."""
    spec = copy.deepcopy(BUILTIN)
    spec["rubric"] = "je-validation-scoring-2"
    spec["process"]["weights"] = {"coverage": 0.6, "precision": 0.2, "efficiency": 0.2}
    spec["pass_bar"]["total_at_least"] = 8
    spec["rationale"]["judges"]["aggregate"] = "mean"
    spec["combine"] = {
        "kind": "fixed_weights",
        "weights": {"outcome": 0.4, "process": 0.4, "rationale": 0.2},
        "total": 1,
    }
    return spec


def successor_contract(scoring: dict[str, Any] | None) -> dict[str, Any]:
    """The seed contract revised: its pass bar, combine rule and judge protocol say the successor's."""
    contract = json.loads((CORPUS / "je-validation" / "rubric.json").read_text())
    contract["combine"] = "score = 0.4*outcome + 0.4*process + 0.2*rationale, the same for every task."
    contract["judge_rubric"]["pass_bar"] = ">=8/12 total AND no criterion at 0."
    contract["judge_protocol"][2] = "3 judges, mean, on L4 tasks."
    if scoring is not None:
        contract["scoring"] = scoring
    return contract


def episode() -> dict[str, Any]:
    """One L2 episode: F1 1/2 (one hit, one false positive, one miss), coverage 1/2, precision 1/4,
    efficiency 1/2; identification judged 3, 3, 1 by three judges, the others 2 by one."""
    judgments = [
        {"call_id": f"c{n}", "judge": JUDGES[n], "criterion": "identification", "score": s}
        for n, s in enumerate((3, 3, 1))
    ]
    judgments += [
        {"call_id": f"c-{c}", "judge": JUDGES[0], "criterion": c, "score": 2}
        for c in ("evidence_grounding", "reasoning_validity", "disposition")
    ]
    return {
        "episode_id": "e1",
        "task": "T1",
        "seed": 1,
        "findings": [
            {"location": "row 10", "issue_type": "misposting", "evidence_ids": ["a"]},
            {"location": "row 99", "issue_type": "cutoff", "evidence_ids": ["a"]},
        ],
        "opened_documents": ["a", "c", "d", "e"],
        "calls": [{"name": "open_ledger"}, {"name": "open_ledger"}],
        "judgments": judgments,
        "hard_fails": [],
    }


def write_json(path: Path, value: Any) -> bytes:
    data = json.dumps(value, indent=2).encode()
    path.write_bytes(data)
    return data


def make_corpus(
    root: Path,
    contract: dict[str, Any],
    scoring: dict[str, Any] | None = None,
    task_weights: dict[str, float] | None = None,
) -> Path:
    """A sealed inputs root holding one components benchmark with one model run of one episode."""
    bench = root / BENCH
    run = bench / "run-m1"
    run.mkdir(parents=True)
    write_json(run / "run.json", {"schema_version": 1, "subject": "m1", "kind": "model"})
    (run / "episodes.jsonl").write_text(json.dumps(episode()) + "\n")
    write_seal(run)
    rubric = write_json(bench / "rubric.json", contract)
    task: dict[str, Any] = {
        "id": "T1",
        "family": "accruals",
        "level": "L2",
        "seeded_defects": [
            {"id": "d0", "location": "row 10", "issue_type": "misposting"},
            {"id": "d1", "location": "row 20", "issue_type": "cutoff", "figure": "100.00"},
        ],
        "key_evidence": ["a", "b"],
        "required_calls": ["open_ledger"],
    }
    if task_weights is not None:
        task["weights"] = task_weights
    decl: dict[str, Any] = {
        "schema_version": 1,
        "family": "components",
        "title": "JE validation, successor rubric",
        "rubric": {"file": "rubric.json", "sha256": hashlib.sha256(rubric).hexdigest()},
        "anti_gaming": {"flag_everything_max_outcome": 0.35, "no_evidence_max_outcome_l2_plus": 0.25},
        "tasks": [task],
    }
    if scoring is not None:
        data = write_json(bench / "scoring.json", scoring)
        decl["scoring"] = {"file": "scoring.json", "sha256": hashlib.sha256(data).hexdigest()}
    write_json(bench / "benchmark.json", decl)
    write_seal(bench)
    return root


def build(root: Path, out: Path) -> Any:
    return run_cli("build", "--runs", root, "--out", out, "--site-version", "v1", "--no-cache", "-q")


def refused(root: Path, tmp_path: Path) -> str:
    """A build that stops with invalid content (exit 4) and writes nothing."""
    out = tmp_path / "site"
    result = build(root, out)
    assert result.exit_code == 4, result.output
    assert not out.exists() or not any(out.iterdir())
    return str(result.output)


# --- nothing moved: the seed contract under the built-in specification ----------------------------

BEFORE = "27915289c77b1a40a47ebcad17c55f27b034c1636c08754a0335e7f34fff27cc"
"""sha256 of data/benchmarks/je-validation.json in the golden site before specifications existed,
with one wording change since: a count of judges says "3 judges", no longer "3 judge(s)"."""
RUNS_BEFORE = "971461fbcb420430ee7ef92bfa3c642bb1f0690f7fa1ff5ec58872d7f1de5efe"
"""sha256 over the names and bytes of data/runs/je-validation/*.json in that golden site (with the
same wording change in an unscored rationale's note)."""


def without_specification(entry: dict[str, Any]) -> dict[str, Any]:
    """A components report entry without what the specification added: section.scoring and the
    contract's (absent) scoring object; and without the headline's basis and caveats, added later
    (worded from figures the entry already held)."""
    entry = copy.deepcopy(entry)
    assert entry["section"].pop("scoring")["source"] == "built-in"
    assert entry["section"]["contract"].pop("scoring") is None
    entry["headline"].pop("basis", None)
    entry["headline"].pop("caveats", None)
    return entry


def test_the_example_site_is_figure_for_figure_what_it_was(tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = run_cli("build", "--runs", CORPUS, "--out", out, "--no-cache", "-q")
    assert result.exit_code == 0, result.output
    golden = ROOT / "tests" / "golden" / "site"
    versions = sorted(p.parent.parent.name for p in out.glob("*/data/site.json"))
    assert versions == ["2026.11-blind", "sha-b8df8bd9b2c8"]
    for version in versions:
        data = out / version / "data"
        entry = json.loads((data / "benchmarks" / "je-validation.json").read_text())
        assert hashlib.sha256(canonical_json(without_specification(entry)).encode()).hexdigest() == BEFORE
        digest = hashlib.sha256()
        for path in sorted((data / "runs" / "je-validation").glob("*.json")):
            digest.update(path.name.encode() + path.read_bytes())
        assert digest.hexdigest() == RUNS_BEFORE
        built = json.loads((data / "site.json").read_text())
        want = json.loads((golden / version / "data" / "site.json").read_text())
        for site in (built, want):
            site["benchmarks"] = [
                without_specification(b) if b["id"] == "je-validation" and "scoring" in b["section"] else b
                for b in site["benchmarks"]
            ]
        assert built == want


def test_the_built_in_specification_states_the_seeds_rules() -> None:
    lines = explain(spec_of(BUILTIN))
    assert "Process = 0.5·evidence coverage + 0.3·evidence precision + 0.2·efficiency" in lines[3]
    assert lines[6] == (
        "Pass bar: the 4 global criteria total at least 9, and no criterion (focus included) at or below 0."
    )
    assert any("On L4 every criterion needs at least 3 judges" in line for line in lines)


# --- a successor publishes under its own rules ----------------------------------------------------


@pytest.mark.parametrize("embed", [True, False], ids=["in-the-contract", "pinned-scoring-json"])
def test_a_successor_publishes_under_its_own_rules(tmp_path: Path, embed: bool) -> None:
    """By hand: outcome = F1 2·1/(2·1+1+1) = 1/2 (accuracy 1/1, no matched figure); process =
    .6·1/2 + .2·1/4 + .2·1/2 = .45 (the seed's .5/.3/.2 would give .425); identification is the mean
    of 3, 3, 1 = 7/3 (the median would be 3), so the total is 7/3 + 6 = 25/3 ≥ 8: the pass bar holds
    (it would not at 9); rationale = 25/3 / 12 = 25/36; score = .4·.5 + .4·.45 + .2·25/36 = 0.51888…"""
    spec = successor_spec()
    contract = successor_contract(spec if embed else None)
    root = make_corpus(tmp_path / "runs", contract, None if embed else spec)
    out = tmp_path / "site"
    result = build(root, out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "v1" / "data" / "benchmarks" / f"{BENCH}.json").read_text())
    section = report["section"]
    assert section["scoring"]["source"] == ("contract" if embed else "file")
    assert section["scoring"]["specification"]["pass_bar"]["total_at_least"] == 8
    assert section["tasks"][0]["weights"] == {"outcome": 0.4, "process": 0.4, "rationale": 0.2}
    (run,) = json.loads((out / "v1" / "data" / "runs" / BENCH / "run-m1.json").read_text())["episodes"]
    assert run["components"] == pytest.approx(
        {"outcome": 0.5, "process": 0.45, "rationale": 25 / 36, "score": 0.2 + 0.18 + 0.2 * 25 / 36}
    )
    assert run["criteria"][0] == {"criterion": "identification", "score": pytest.approx(7 / 3), "judges": 3}
    assert run["pass_bar"] is True
    assert section["leaderboard"][0]["spreads"]["score"]["mean"] == pytest.approx(0.518888888888)
    page = (out / "v1" / "b" / BENCH / "methodology.html").read_text()
    assert "Pass bar: the 4 global criteria total at least 8" in page
    assert "outcome 0.4, process 0.4, rationale 0.2" in page
    assert "combined by their mean" in page


def test_a_differing_contract_without_a_specification_is_invalid(tmp_path: Path) -> None:
    output = refused(make_corpus(tmp_path / "runs", successor_contract(None)), tmp_path)
    assert f"{BENCH}/rubric.json: no scoring specification" in output


def test_a_contract_that_disagrees_with_its_specification_names_both_places(tmp_path: Path) -> None:
    spec = successor_spec()
    spec["pass_bar"]["total_at_least"] = 9  # the contract says >=8/12
    spec["rationale"]["judges"]["aggregate"] = "median"  # the contract says mean
    output = refused(make_corpus(tmp_path / "runs", successor_contract(None), spec), tmp_path)
    assert (
        f"{BENCH}/rubric.json: $.judge_rubric.pass_bar: the pass bar states '>=8/12', but scoring.json "
        "says at least 9 of 12 ($.pass_bar.total_at_least)"
    ) in output
    assert f"{BENCH}/rubric.json: $.judge_protocol[2]: the judge protocol states '3 judges, mean" in output


def test_task_weights_that_differ_from_fixed_weights_name_both_places(tmp_path: Path) -> None:
    weights = {"outcome": 0.6, "process": 0.2, "rationale": 0.2}
    root = make_corpus(tmp_path / "runs", successor_contract(successor_spec()), task_weights=weights)
    output = refused(root, tmp_path)
    assert (
        f"{BENCH}/benchmark.json: $.tasks[0].weights: weights outcome 0.6, process 0.2, rationale 0.2 "
        "differ from rubric.json ($.combine.weights: weights outcome 0.4, process 0.4, rationale 0.2)"
    ) in output


def test_under_task_weights_every_task_states_its_weights(tmp_path: Path) -> None:
    """The seed contract (built-in specification: task_weights) with a task that states no weights."""
    seed = json.loads((CORPUS / "je-validation" / "rubric.json").read_text())
    output = refused(make_corpus(tmp_path / "runs", seed), tmp_path)
    assert (
        f"{BENCH}/benchmark.json: $.tasks[0].weights: no weights, and the built-in specification takes "
        "each task's own (combine kind 'task_weights')"
    ) in output


def test_a_declared_minimum_of_seeds_must_be_the_specifications(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "runs", successor_contract(successor_spec()))
    decl_path = root / BENCH / "benchmark.json"
    decl = json.loads(decl_path.read_text())
    decl["minimum_seeds"] = 3
    write_json(decl_path, decl)
    (root / BENCH / "SHA256SUMS").unlink()
    write_seal(root / BENCH)
    output = refused(root, tmp_path)
    assert "benchmark.json: $.minimum_seeds: 3 differs from rubric.json ($.seeds.minimum: 5)" in output


# --- bad specifications: each refused with its place ----------------------------------------------


def edited(path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    spec = successor_spec()
    target: Any = spec
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return spec


BAD = {
    "unknown-rule-kind": (("outcome", "kind"), "eval", "$.outcome: Input tag 'eval' found using 'kind'"),
    "process-weights-off-total": (
        ("process", "weights"),
        {"coverage": 0.5, "precision": 0.3, "efficiency": 0.3},
        "process.weights: add up to 1.1, not 1 (a sum within 1e-9 of it is accepted): write weights that "
        "add up to 1 (for example 0.2 for the last one) (process.total)",
    ),
    "combine-weights-off-total": (
        ("combine", "weights"),
        {"outcome": 0.5, "process": 0.4, "rationale": 0.2},
        "combine.weights: add up to 1.1, not 1 (a sum within 1e-9 of it is accepted): write weights that "
        "add up to 1 (for example 0.1 for the last one) (combine.total)",
    ),
    "pass-bar-above-the-maximum": (
        ("pass_bar", "total_at_least"),
        13,
        "pass_bar.total_at_least: 13 is above the most the criteria can total (12)",
    ),
    "floor-above-the-scale": (
        ("pass_bar", "each_above"),
        3,
        "pass_bar.each_above: 3 leaves no score on the 0–3 scale above it",
    ),
    "no-seeds": (("seeds", "minimum"), 0, "$.seeds.minimum: Input should be greater than or equal to 1"),
    "duplicate-criteria": (
        ("rationale", "criteria"),
        ["identification", "identification", "disposition"],
        "rationale.criteria: duplicate name(s) ['identification']",
    ),
    "duplicate-factors": (
        ("outcome", "factors"),
        ["f1", "f1"],
        "outcome.factors: duplicate name(s) ['f1']",
    ),
    "unknown-metric": (
        ("outcome", "factors"),
        ["f1", "recall_at_k"],
        "outcome.factors: 'recall_at_k' is not one of the outcome metrics (f1, issue_type_accuracy, "
        "exactness)",
    ),
    "unknown-component": (
        ("combine", "weights"),
        {"outcome": 0.4, "process": 0.4, "speed": 0.2},
        "$.combine.fixed_weights.weights.speed: unknown field",
    ),
    "unknown-criterion": (("rationale", "criteria"), ["identification", "tone"], "$.rationale.criteria[1]"),
    "wrong-family": (("family",), "points", "$.family: a scoring specification for family 'points'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_specification_is_refused_with_its_place(tmp_path: Path, case: str) -> None:
    path, value, message = BAD[case]
    root = make_corpus(tmp_path / "runs", successor_contract(None), edited(path, value))
    output = refused(root, tmp_path)
    assert f"{BENCH}/scoring.json: " in output
    assert message in output


def test_a_specification_validated_on_its_own_lists_every_problem() -> None:
    spec = edited(("pass_bar", "total_at_least"), 13)
    spec["rationale"]["criteria"] = ["identification", "identification"]
    spec["rationale"]["citation_audit"] = {"zero_criterion": "evidence_grounding"}
    with pytest.raises(ValidationError) as caught:
        spec_of(spec)
    text = str(caught.value)
    assert "rationale.criteria: duplicate name(s) ['identification']" in text
    assert "'evidence_grounding' is not among rationale.criteria" in text
    assert "is above the most the criteria can total (6)" in text


# --- benchsite rubric explain | check --------------------------------------------------------------


def test_rubric_explain_prints_the_seeds_rules_and_digest() -> None:
    path = CORPUS / "je-validation" / "rubric.json"
    result = run_cli("rubric", "explain", path)
    assert result.exit_code == 0, result.output
    assert f"components rubric, sha256 {hashlib.sha256(path.read_bytes()).hexdigest()}" in result.output
    assert "built-in specification of the seed contract (je-validation-scoring.scoring.json)" in result.output
    assert "- Pass bar: the 4 global criteria total at least 9, and no criterion" in result.output
    assert "- Process = 0.5·evidence coverage + 0.3·evidence precision + 0.2·efficiency" in result.output


def test_rubric_check_lists_every_problem(tmp_path: Path) -> None:
    spec = edited(("process", "weights"), {"coverage": 0.5, "precision": 0.3, "efficiency": 0.3})
    spec["pass_bar"]["total_at_least"] = 13
    spec["outcome"]["factors"] = ["f1", "f1"]
    path = tmp_path / "scoring.json"
    write_json(path, spec)
    result = run_cli("rubric", "check", path)
    assert result.exit_code == 4, result.output
    assert "outcome.factors: duplicate name(s) ['f1']" in result.output
    assert "process.weights: add up to 1.1" in result.output
    assert "pass_bar.total_at_least: 13 is above the most" in result.output
    write_json(path, successor_spec())
    ok = run_cli("rubric", "check", path)
    assert ok.exit_code == 0, ok.output
    assert "valid components rubric" in ok.output


# --- the other rule kinds and choices, one episode each -------------------------------------------


def score_under(spec: dict[str, Any], focused: bool = False) -> Any:
    """The test episode scored under a specification (compiled as a build compiles it)."""
    from generator.families.components.family import episode_result
    from generator.families.components.models import Episode, Task
    from generator.families.components.spec import compile_spec

    task = Task.model_validate_json(
        json.dumps(
            {
                "id": "T1",
                "family": "accruals",
                "level": "L2",
                "weights": {"outcome": 0.5, "process": 0.3, "rationale": 0.2},
                "seeded_defects": [
                    {"id": "d0", "location": "row 10", "issue_type": "duplicate"},
                    {"id": "d1", "location": "row 20", "issue_type": "cutoff"},
                ],
                "key_evidence": ["a", "b"],
                "required_calls": ["open_ledger"],
            }
        )
    )
    facts = episode() | {"hard_fails": []}
    if focused:
        facts["judgments"] = [
            *facts["judgments"],
            {**facts["judgments"][3], "call_id": "f", "criterion": "task_focus"},
        ]
    rules = compile_spec(spec_of(spec))
    return episode_result(Episode.model_validate_json(json.dumps(facts)), task, "m1", "model", focused, rules)


def test_matching_by_location_and_issue_type() -> None:
    """The finding at row 10 says 'misposting' where the defect is a 'duplicate': by location it is a
    hit of the wrong type (F1 1/2 × accuracy 0 = 0); by location and issue type it is a false
    positive, so no pair and F1 = 0 either, but with two false positives and two misses."""
    by_location = score_under(BUILTIN)
    assert (by_location.true_positives, by_location.issue_type_accuracy) == (1, 0.0)
    spec = copy.deepcopy(BUILTIN)
    spec["matching"]["kind"] = "location_and_issue_type"
    strict = score_under(spec)
    assert (strict.true_positives, strict.false_positives, strict.false_negatives) == (0, 2, 2)
    assert strict.issue_type_accuracy is None and strict.f1 == 0.0


def test_an_outcome_as_a_weighted_sum_and_a_process_as_a_product() -> None:
    """outcome = (.8·F1 1/2 + .2·accuracy 0) / 1 = .4; process = coverage 1/2 × efficiency 1/2 = 1/4."""
    spec = copy.deepcopy(BUILTIN)
    spec["outcome"] = {"kind": "weighted_sum", "weights": {"f1": 0.8, "issue_type_accuracy": 0.2}, "total": 1}
    spec["process"] = {"kind": "product", "factors": ["coverage", "efficiency"], "zero_when": ["hard_fail"]}
    result = score_under(spec)
    assert result.components.outcome == pytest.approx(0.4)
    assert result.components.process == pytest.approx(0.25)


def test_a_focus_outside_the_value_and_a_pass_bar_over_every_criterion() -> None:
    """Medians 3, 2, 2, 2 and a focus of 2: in the value the rationale is 11/15; outside it, 9/12.
    A pass bar of 11 over every criterion holds; over the global four (9) it would not."""
    assert score_under(BUILTIN, focused=True).components.rationale == pytest.approx(11 / 15)
    spec = copy.deepcopy(BUILTIN)
    spec["rationale"]["focus"] = {"in_value": False}
    spec["pass_bar"] |= {"total_at_least": 11, "total_over": "all"}
    result = score_under(spec, focused=True)
    assert result.components.rationale == pytest.approx(9 / 12)
    assert result.pass_bar is True
    spec["pass_bar"]["total_over"] = "global"
    assert score_under(spec, focused=True).pass_bar is False


def test_the_documented_full_example_is_the_built_in_specification() -> None:
    text = (ROOT / "docs" / "components.md").read_text()
    example = text.split("### Full example")[1].split("```json")[1].split("```")[0]
    assert json.loads(example) == BUILTIN


# --- issue 31: the numbers a components specification states are the decimals written -----------


@pytest.mark.parametrize(
    ("command", "old", "new", "code", "said"),
    [
        (
            "explain",
            '"total_at_least": 9',
            '"total_at_least": 8.99999999999999999999',
            0,
            "at least 8.99999999999999999999",
        ),
        (
            "explain",
            '"coverage": 0.5',
            '"coverage": 0.50000000000000000001',
            0,
            "0.50000000000000000001·evidence coverage",
        ),
        (
            "check",
            '"coverage": 0.5',
            '"coverage": 0.50000001',
            4,
            "process.weights: add up to 1.00000001, not 1 (a sum within 1e-9 of it is accepted): write "
            "weights that add up to 1 (for example 0.19999999 for the last one) (process.total)",
        ),
    ],
    ids=["explained-as-written", "a-sum-off-in-the-20th-digit-as-written", "a-sum-off-by-1e-9-and-more"],
)
def test_rubric_states_a_components_number_as_written(
    tmp_path: Path, command: str, old: str, new: str, code: int, said: str
) -> None:
    """Through a float, 8.99999999999999999999 read "9" and the weights "add up to 1, but … is 1"."""
    text = BUILTIN_FILE.read_text()
    assert old in text
    path = tmp_path / "scoring.json"
    path.write_text(text.replace(old, new))
    result = run_cli("rubric", command, path)
    assert result.exit_code == code, result.output
    assert said in result.output


def test_a_tasks_component_weights_add_up_to_one_within_1e_9() -> None:
    """Equal thirds written as JSON numbers add up to 0.9999999999999999: accepted, as written."""
    from decimal import Decimal

    from generator.families.components.models import Weights

    third = Decimal("0.3333333333333333")
    assert Weights(outcome=third, process=third, rationale=third).rationale == third
    assert Weights(outcome=Decimal("0.5"), process=Decimal("0.3"), rationale=Decimal("0.2000000001"))
    off = r"add up to 1\.000000002, not 1 .*for example 0\.2 for the last"
    with pytest.raises(ValidationError, match=off):
        Weights(outcome=Decimal("0.5"), process=Decimal("0.3"), rationale=Decimal("0.200000002"))
    under = r"add up to 0\.9999999976666666, not 1 .*for example 0\.3333333333333334 for the last"
    with pytest.raises(ValidationError, match=under):
        Weights(outcome=third, process=third, rationale=Decimal("0.333333331"))

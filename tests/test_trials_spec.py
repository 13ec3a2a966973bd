"""Rubrics as data for the trials family: seed 001 is scored by the built-in specification and the
example site does not move; a frozen successor with other rules publishes under its own
specification (in the contract or a pinned scoring.json), with figures worked out by hand; a
contract with other rules and no specification, and every bad specification, is refused with its
place and nothing written (docs/trials.md, "Scoring specification").
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

from generator.families.trials.models import PlannedTrial, TrialResult
from generator.families.trials.scoring import metrics, score_trial
from generator.families.trials.spec import BUILTIN_FILE, TrialsSpec, compile_spec, explain, seed_rules
from tests.conftest import CORPUS, ROOT, edit_json, json_bytes, reseal, run_cli
from tests.pages import source
from tests.test_golden import GOLDEN

BENCH = "vibe-delivery"
BUILTIN: dict[str, Any] = json.loads(BUILTIN_FILE.read_text())
HASH = "sha256:" + "cd" * 32


def spec_of(spec: dict[str, Any]) -> TrialsSpec:
    """A specification as benchsite reads it: from JSON text (arrays are the models' tuples)."""
    return TrialsSpec.model_validate_json(json.dumps(spec))


def refusal(spec: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        spec_of(spec)
    return str(caught.value)


# --- the successor: other rules, worked out by hand ------------------------------------------------


def successor_spec() -> dict[str, Any]:
    """autonomous-delivery-v2: boot no longer decides success, a skipped required check is accepted,
    one counted intervention is tolerated, two publishes are free; basis points rounded half up,
    percentiles by the higher rank, other failure-code fallbacks."""
    spec = copy.deepcopy(BUILTIN)
    spec["rubric"] = "autonomous-delivery-v2"
    spec["primary"]["all_of"] = [
        {"kind": "terminal", "accept": ["completed"]},
        {"kind": "observed", "of": "build", "accept": ["pass"]},
        {"kind": "required_checks", "accept": ["pass", "skipped"]},
        {"kind": "counted_interventions", "at_most": 1},
    ]
    spec["interventions"]["free"][3]["free"] = 2  # publish
    spec["rates"]["basis_points"] = "half_up"
    spec["percentile_method"] = "higher"
    spec["failure_codes"] |= {
        "missing_result": "no_result",
        "uncoded_terminal": ["timeout"],
        "uncoded_otherwise": "uncoded",
    }
    return spec


def successor_contract(*, embed: bool) -> dict[str, Any]:
    contract: dict[str, Any] = json.loads((CORPUS / BENCH / "rubric.json").read_text())
    contract["rubric_id"] = "autonomous-delivery-v2"
    contract["primary_metric"]["numerator"] = (
        "trials with completed terminal, build pass, every required functional check pass or skipped, "
        "and at most one counted human intervention"
    )
    contract["dimensions"]["human_intervention"]["zero"] = (
        "only the allowlisted setup, initial submit, native permission and up to two publish actions occurred"
    )
    if embed:
        contract["scoring"] = successor_spec()
    return contract


def result(trial_id: str, **facts: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "trial_id": trial_id,
        "terminal": "completed",
        "build": "pass",
        "boot": "pass",
        "checks": [{"id": "loads", "state": "pass"}, {"id": "saves", "state": "pass"}],
        "interventions": [],
        "cost": {"state": "unavailable", "reason": "no usage export"},
        "elapsed_ms": 0,
        "failure_code": None,
        "evaluator": HASH,
    }
    return value | facts


def cost(usd_micros: int) -> dict[str, Any]:
    return {"state": "measured", "usd_micros": usd_micros, "evidence": {"kind": "invoice", "reference": "i"}}


def kinds(*names: str) -> list[dict[str, str]]:
    return [{"kind": name} for name in names]


RESULTS = [
    # P-A
    result(
        "t1",
        boot="fail",
        checks=[{"id": "loads", "state": "pass"}, {"id": "saves", "state": "skipped"}],
        interventions=kinds("setup", "initial_submit", "publish", "publish"),
        elapsed_ms=100,
        cost=cost(10),
    ),
    result(
        "t2", interventions=kinds("setup", "initial_submit", "initial_submit"), elapsed_ms=300, cost=cost(30)
    ),
    result("t3", terminal="error", elapsed_ms=200),
    result(
        "t4",
        build="fail",
        boot="not_observable",
        checks=[{"id": "loads", "state": "pass"}],
        interventions=kinds("edit", "retry"),
        failure_code="build_error",
        elapsed_ms=400,
        cost=cost(40),
    ),
    # P-B (t7 has no result)
    result("t5", elapsed_ms=50, cost=cost(5)),
    result(
        "t6", terminal="timeout", build="not_observable", boot="not_observable", checks=[], elapsed_ms=900
    ),
]
PROVIDERS = {"t1": "P-A", "t2": "P-A", "t3": "P-A", "t4": "P-A", "t5": "P-B", "t6": "P-B", "t7": "P-B"}


def small_benchmark(root: Path, contract: dict[str, Any], scoring: dict[str, Any] | None = None) -> Path:
    """A trials benchmark of seven planned trials, one run of six results, sealed and pinned."""
    bench = root / "tiny"
    (bench / "run-1").mkdir(parents=True)
    plan = {
        "schema_version": 1,
        "trials": [
            {"trial_id": t, "prompt_id": "app", "prompt_corpus_version": "v1", "provider": p}
            for t, p in PROVIDERS.items()
        ],
    }
    (bench / "trial-plan.json").write_bytes(json_bytes(plan))
    (bench / "rubric.json").write_bytes(json_bytes(contract))
    declaration: dict[str, Any] = {
        "schema_version": 1,
        "family": "trials",
        "title": "Tiny trials",
        "rubric": {"file": "rubric.json", "sha256": sha256(bench / "rubric.json")},
        "plan": "trial-plan.json",
        "prompt_corpora": [
            {"version": "v1", "prompts": [{"id": "app", "required_checks": ["loads", "saves"]}]}
        ],
    }
    if scoring is not None:
        (bench / "scoring.json").write_bytes(json_bytes(scoring))
        declaration["scoring"] = {"file": "scoring.json", "sha256": sha256(bench / "scoring.json")}
    (bench / "benchmark.json").write_bytes(json_bytes(declaration))
    run = {"schema_version": 1, "plan_sha256": sha256(bench / "trial-plan.json")}
    (bench / "run-1" / "run.json").write_bytes(json_bytes(run))
    lines = "".join(json.dumps(r, sort_keys=True) + "\n" for r in RESULTS)
    (bench / "run-1" / "results.jsonl").write_text(lines)
    for folder in (bench / "run-1", bench):
        (folder / "SHA256SUMS").touch()
        reseal(folder)
    return bench


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(runs: Path, out: Path) -> dict[str, Any]:
    built = run_cli("build", "--runs", runs, "--out", out, "--site-version", "v1", "-q")
    assert built.exit_code == 0, built.output
    report: dict[str, Any] = json.loads((out / "v1" / "data" / "benchmarks" / "tiny.json").read_text())
    return report


def ndb(rate: dict[str, Any]) -> tuple[int, int, int | None]:
    return rate["numerator"], rate["denominator"], rate["basis_points"]


@pytest.mark.parametrize("embed", [True, False], ids=["in-the-contract", "pinned-scoring-json"])
def test_a_frozen_successor_publishes_under_its_own_rules(tmp_path: Path, embed: bool) -> None:
    """Successes under v2: t1 (boot not asked, 'saves' skipped accepted, two publishes free), t2 (one
    counted intervention tolerated), t5 — 3 of 7, 4285.7 → 4286 half up (floor: 4285). P-A 2/4, P-B
    1/3. Elapsed {50, 100, 200, 300, 400, 900}: the higher rank of the median is position ⌈2.5⌉ = 3
    → 300 (nearest rank: 200). Measured costs {5, 10, 30, 40}: position ⌈1.5⌉ = 2 → 30 (nearest
    rank: 10)."""
    runs = tmp_path / "runs"
    small_benchmark(runs, successor_contract(embed=embed), None if embed else successor_spec())
    report = build(runs, tmp_path / "site")
    scoring = report["section"]["scoring"]
    assert scoring["source"] == ("contract" if embed else "file")
    assert scoring["parameters"] == []
    scores = report["section"]["scores"]
    overall = scores["overall"]
    assert ndb(overall["success"]) == (3, 7, 4286)
    assert ndb(overall["build_pass"]) == (4, 7, 5714)  # t1 t2 t3 t5
    assert ndb(overall["boot_pass"]) == (3, 7, 4286)  # t2 t3 t5
    assert ndb(overall["all_functional_checks_pass"]) == (3, 7, 4286)  # the rate still asks 'pass': t2 t3 t5
    assert ndb(overall["zero_intervention"]) == (4, 7, 5714)  # t1 (publishes free) t3 t5 t6
    assert (overall["median_elapsed_ms"], overall["p95_elapsed_ms"]) == (300, 900)  # p95: ⌈4.75⌉ = 5
    assert overall["median_measured_cost_usd_micros"] == 30
    codes = {c["code"]: c["count"] for c in overall["failure_codes"]}
    assert codes == {"uncoded": 1, "build_error": 1, "timeout": 1, "no_result": 1}
    board = [(row["provider"], ndb(row["metrics"]["success"])) for row in scores["leaderboard"]]
    assert board == [("P-A", (2, 4, 5000)), ("P-B", (1, 3, 3333))]
    detail = json.loads((tmp_path / "site" / "v1" / "data" / "runs" / "tiny" / "run-1.json").read_text())
    t4 = next(t for t in detail["trials"] if t["trial_id"] == "t4")
    assert t4["reasons"] == [
        "build fail",
        "a required functional check did not pass",
        "2 counted interventions (at most 1): edit, retry",
    ]
    page = source(tmp_path / "site" / "v1" / "b" / "tiny" / "methodology.html")
    assert "the first 2 publish free" in page
    assert "rounded to the nearest integer, halves up" in page
    assert "rates.basis_points: half_up" in page  # the interpretations state their parameters


def test_the_same_trials_under_the_seed_rules_score_otherwise() -> None:
    """Seed 001 on the same results: t1 fails (boot, skipped check, second publish), t2 fails (a second
    initial submit counts); only t5 succeeds, 1 of 7 = 1428 (floor); medians by nearest rank."""
    plan = [
        PlannedTrial(trial_id=t, prompt_id="app", prompt_corpus_version="v1", provider=p)
        for t, p in PROVIDERS.items()
    ]
    found = {r["trial_id"]: TrialResult.model_validate_json(json.dumps(r)) for r in RESULTS}

    def scored_under(rules: Any) -> Any:
        return metrics(
            [score_trial(t, found.get(t.trial_id), "run-1", ("loads", "saves"), rules)[1] for t in plan],
            rules,
        )

    seed = scored_under(seed_rules())
    assert (seed.success.numerator, seed.success.basis_points) == (1, 1428)
    assert (seed.median_elapsed_ms, seed.median_measured_cost_usd_micros) == (200, 10)
    codes = {c.code: c.count for c in seed.failure_codes}
    assert codes == {
        "(no failure code recorded)": 2,  # t1 and t2: failed, completed, no code
        "error": 1,
        "build_error": 1,
        "timeout": 1,
        "missing_result": 1,
    }
    successor = scored_under(compile_spec(spec_of(successor_spec())))
    assert (successor.success.numerator, successor.success.basis_points) == (3, 4286)


# --- refused: no specification, disagreement, and what the specification forbids ----------------------


def refused_build(runs: Path, out: Path, code: int = 4) -> str:
    result = run_cli("build", "--runs", runs, "--out", out, "-q")
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert not out.exists() or not any(out.iterdir())
    return result.output


def test_a_contract_with_other_rules_and_no_specification_is_invalid_naming_the_contract(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs"
    small_benchmark(runs, successor_contract(embed=False))
    output = refused_build(runs, tmp_path / "site")
    assert (
        "tiny/rubric.json: no scoring specification: this contract's rules are not the seed contract's"
        in output
    )


def test_the_seed_rules_under_another_rubric_id_are_still_the_built_in_specification(tmp_path: Path) -> None:
    """A contract restating seed 001's rules under its own id is scored by the seed's specification."""
    contract = json.loads((CORPUS / BENCH / "rubric.json").read_text()) | {"rubric_id": "our-delivery"}
    runs = tmp_path / "runs"
    small_benchmark(runs, contract)
    scoring = build(runs, tmp_path / "site")["section"]["scoring"]
    assert scoring["source"] == "built-in"
    assert scoring["sha256"] == sha256(BUILTIN_FILE)


@pytest.mark.parametrize(
    ("change", "place", "message"),
    [
        (
            lambda s: s.update(rubric="someone-elses-rubric"),
            "$.rubric_id",
            "scoring.json is a specification of 'someone-elses-rubric', not of this contract",
        ),
        (
            lambda s: s.update(secondary=[s["secondary"][1], s["secondary"][0], *s["secondary"][2:]]),
            "$.secondary_metrics",
            "differ from scoring.json ($.secondary names: ['boot_pass_rate', 'build_pass_rate',",
        ),
        (
            lambda s: s["blind"].update(reveal="never"),
            "$.blind_scoring.provider_identity_revealed_after_score_is_frozen",
            "true, but scoring.json says $.blind.reveal: 'never'",
        ),
    ],
    ids=["rubric", "secondary-order", "reveal"],
)
def test_a_contract_that_disagrees_with_its_specification_names_both_places(
    tmp_path: Path, change: Any, place: str, message: str
) -> None:
    spec = successor_spec()
    change(spec)
    runs = tmp_path / "runs"
    small_benchmark(runs, successor_contract(embed=False), spec)
    output = refused_build(runs, tmp_path / "site")
    assert f"tiny/rubric.json: {place}: " in output
    assert message in output


def test_a_reveal_under_a_specification_that_never_reveals_is_refused(corpus: Path, tmp_path: Path) -> None:
    spec = copy.deepcopy(BUILTIN) | {"rubric": "delivery-never-revealed"}
    spec["blind"]["reveal"] = "never"

    def never(contract: dict[str, Any]) -> None:
        contract["rubric_id"] = "delivery-never-revealed"
        contract["blind_scoring"]["provider_identity_revealed_after_score_is_frozen"] = False
        contract["scoring"] = spec

    bench = corpus / BENCH
    edit_json(bench / "rubric.json", never)
    edit_json(bench / "benchmark.json", lambda d: d["rubric"].update(sha256=sha256(bench / "rubric.json")))
    reseal(bench)
    for other in ("agent-dx", "agent-dx-successor", "docs-quality", "je-validation", "recsys-grounding"):
        shutil.rmtree(corpus / other)
    output = refused_build(corpus, tmp_path / "site")
    assert (
        "vibe-delivery/reveal/reveal.json: this rubric's scoring specification never reveals identities "
        "(blind.reveal: never)"
    ) in output


def test_cost_evidence_the_specification_does_not_accept_is_located(tmp_path: Path) -> None:
    spec = successor_spec()
    spec["cost"]["evidence"] = ["provider_usage"]
    runs = tmp_path / "runs"
    small_benchmark(runs, successor_contract(embed=False), spec)
    output = refused_build(runs, tmp_path / "site")
    assert (
        "tiny/run-1/results.jsonl: line 1 $.cost.evidence.kind: cost evidence 'invoice' is not one this "
        "rubric accepts (provider_usage)"
    ) in output


def test_a_bad_specification_in_a_scoring_file_is_located_and_nothing_is_written(tmp_path: Path) -> None:
    spec = successor_spec()
    spec["primary"]["all_of"][2]["kind"] = "eval"
    runs = tmp_path / "runs"
    small_benchmark(runs, successor_contract(embed=False), spec)
    output = refused_build(runs, tmp_path / "site")
    assert "tiny/scoring.json: $.primary.all_of[2]: Input tag 'eval' found using 'kind'" in output


def test_a_specification_for_another_family_is_refused_as_such(tmp_path: Path) -> None:
    points = json.loads(
        (ROOT / "generator/families/points/builtin/agent-dx-score-contract.scoring.json").read_text()
    )
    runs = tmp_path / "runs"
    small_benchmark(runs, successor_contract(embed=False), points)
    output = refused_build(runs, tmp_path / "site")
    assert (
        "tiny/scoring.json: $.family: a scoring specification for family 'points', but this benchmark is "
        "scored by the trials family"
    ) in output


# --- bad specifications: each refused with its place ----------------------------------------------


def changed(edit: Any) -> dict[str, Any]:
    spec = copy.deepcopy(BUILTIN)
    edit(spec)
    return spec


def test_an_unknown_rule_kind_is_refused() -> None:
    text = refusal(changed(lambda s: s["primary"]["all_of"].__setitem__(0, {"kind": "python", "code": "1"})))
    assert "primary.all_of.0" in text
    assert "does not match any of the expected tags: 'terminal', 'observed', 'required_checks'" in text
    rate = refusal(changed(lambda s: s["secondary"][0].update(kind="ratio")))
    assert "secondary.0" in rate and "expected tags: 'rate', 'percentile', 'failure_code_counts'" in rate


@pytest.mark.parametrize(
    ("edit", "place", "message"),
    [
        (
            lambda s: s["primary"]["all_of"][4].update(at_most=-1),
            "primary.all_of.4.counted_interventions.at_most",
            "greater than or equal to 0",
        ),
        (
            lambda s: s["interventions"]["free"][2].update(free=0),
            "interventions.free.2.free",
            "greater than or equal to 1",
        ),
        (
            lambda s: s["secondary"][5].update(percentile=101),
            "secondary.5.percentile.percentile",
            "less than or equal to 100",
        ),
        (
            lambda s: s["secondary"][5].update(percentile=90),
            "",
            "secondary[5]: p95_elapsed_ms is the 95th percentile of elapsed_ms",
        ),
        (lambda s: s["rates"]["interval"].update(confidence=1.5), "rates.interval.confidence", "less than 1"),
        (
            lambda s: s["rates"].update(basis_points="ceiling"),
            "rates.basis_points",
            "'floor', 'half_up' or 'half_even'",
        ),
        (
            lambda s: s.update(percentile_method="linear"),
            "percentile_method",
            "'nearest_rank', 'lower' or 'higher'",
        ),
    ],
    ids=["at-most", "free-count", "percentile", "percentile-name", "confidence", "rounding", "method"],
)
def test_thresholds_and_rounding_out_of_range_are_refused(edit: Any, place: str, message: str) -> None:
    text = refusal(changed(edit))
    assert place in text
    assert message in text


def test_duplicate_names_are_refused() -> None:
    def duplicates(spec: dict[str, Any]) -> None:
        spec["secondary"][1] = spec["secondary"][0]
        spec["interventions"]["free"].append({"intervention": "setup", "free": 1})
        spec["failure_codes"]["uncoded_otherwise"] = "missing_result"
        spec["primary"]["all_of"].append({"kind": "observed", "of": "build", "accept": ["pass", "pass"]})

    text = refusal(changed(duplicates))
    assert "secondary: duplicate name(s) ['build_pass_rate']" in text
    assert "secondary: ['boot_pass_rate'] not defined" in text
    assert "interventions.free: duplicate intervention(s) ['setup']" in text
    assert "failure_codes: missing_result and uncoded_otherwise are both 'missing_result'" in text
    assert "primary.all_of[5]: a second observed build condition" in text
    assert "primary.all_of[5].accept: a state is listed twice" in text


def test_a_specification_for_the_wrong_family_is_refused() -> None:
    text = refusal(changed(lambda s: s.update(family="points")))
    assert "family" in text and "Input should be 'trials'" in text


@pytest.mark.parametrize(
    ("edit", "place", "message"),
    [
        (
            lambda s: s["primary"]["all_of"][1].update(of="deploy"),
            "primary.all_of.1.observed.of",
            "'build' or 'boot'",
        ),
        (
            lambda s: s["secondary"][5].update(name="p99_elapsed_ms"),
            "secondary.5.percentile.name",
            "'p95_elapsed_ms'",
        ),
        (
            lambda s: s["secondary"][4].update(of="tokens"),
            "secondary.4.percentile.of",
            "'elapsed_ms' or 'measured_cost_usd_micros'",
        ),
        (
            lambda s: s["secondary"][0]["counts"].update(accept=["green"]),
            "secondary.0.rate.counts.observed.accept.0",
            "'pass', 'fail' or 'not_observable'",
        ),
        (
            lambda s: s["cost"].update(evidence=["receipt"]),
            "cost.evidence.0",
            "'provider_usage', 'invoice' or 'versioned_allocation'",
        ),
    ],
    ids=["observed-field", "secondary-name", "percentile-of", "observed-state", "evidence-kind"],
)
def test_a_reference_to_something_the_family_does_not_have_is_refused(
    edit: Any, place: str, message: str
) -> None:
    text = refusal(changed(edit))
    assert place in text
    assert message in text


def test_the_rules_in_words_come_from_the_specification() -> None:
    seed = explain(seed_rules().spec)
    assert seed[1] == (
        "autonomous_success_rate: a trial is an autonomous success when all of these hold: the terminal "
        "state is completed; build is pass; boot is pass; every required functional check of the prompt "
        "is pass; no intervention counts."
    )
    assert "floor(10000 · numerator / denominator)" in " ".join(seed)
    successor = explain(spec_of(successor_spec()))
    assert "skipped; at most 1 interventions count." in successor[1]
    assert any("the higher rank" in line for line in successor)


# --- benchsite rubric explain | check --------------------------------------------------------------


def test_rubric_explain_prints_the_seeds_rules_and_digest() -> None:
    path = CORPUS / BENCH / "rubric.json"
    result = run_cli("rubric", "explain", path)
    assert result.exit_code == 0, result.output
    assert f"trials rubric, sha256 {sha256(path)}" in result.output
    assert (
        "built-in specification of the seed contract (autonomous-delivery-v1.scoring.json)" in result.output
    )
    assert (
        "- Interventions: setup, native_permission free any number of times; the first initial_submit"
        in result.output
    )


def test_rubric_check_lists_every_problem_of_a_bad_specification(tmp_path: Path) -> None:
    def bad(spec: dict[str, Any]) -> None:
        spec["secondary"][6] = spec["secondary"][4]
        spec["failure_codes"]["uncoded_otherwise"] = "timeout"

    path = tmp_path / "scoring.json"
    path.write_text(json.dumps(changed(bad)))
    result = run_cli("rubric", "check", path)
    assert result.exit_code == 4, result.output
    assert "duplicate name(s) ['median_elapsed_ms']" in result.output
    assert "['median_measured_cost_usd_micros'] not defined" in result.output
    assert (
        "failure_codes.uncoded_otherwise: 'timeout' is also a terminal state in uncoded_terminal"
        in result.output
    )
    path.write_text(json.dumps(successor_spec()))
    ok = run_cli("rubric", "check", path)
    assert ok.exit_code == 0, ok.output
    assert "valid trials rubric" in ok.output


# --- proof that nothing moved ---------------------------------------------------------------------


def without_trials_specification(site: dict[str, Any]) -> dict[str, Any]:
    """site.json without what this change adds to a trials section: its scoring and its contract's."""
    for bench in site["benchmarks"]:
        if bench["family"] == "trials":
            bench["section"].pop("scoring", None)
            bench["section"]["contract"].pop("scoring", None)
    return site


@pytest.mark.slow
def test_the_built_in_specification_reproduces_the_example_site_figure_for_figure(tmp_path: Path) -> None:
    """Every version of the example site: site.json equals the golden one but for the added
    specification fields, and the frozen scores file (cited by the reveal) is the same bytes."""
    out = tmp_path / "site"
    result = run_cli("build", "--runs", CORPUS, "--out", out, "--no-cache", "-q")
    assert result.exit_code == 0, result.output
    versions = sorted(p.parent.parent.name for p in GOLDEN.glob("*/data/site.json"))
    assert len(versions) == 2
    for version in versions:
        built = json.loads((out / version / "data" / "site.json").read_text())
        golden = json.loads((GOLDEN / version / "data" / "site.json").read_text())
        assert without_trials_specification(built) == without_trials_specification(golden)
        scores = f"{version}/data/scores/{BENCH}.json"
        assert (out / scores).read_bytes() == (GOLDEN / scores).read_bytes()


def test_the_documented_full_example_is_the_built_in_specification() -> None:
    text = (ROOT / "docs" / "trials.md").read_text(encoding="utf-8")
    example = text.split("### Full example: seed 001's built-in specification", 1)[1]
    block = example.split("```json\n", 1)[1].split("```", 1)[0]
    assert json.loads(block) == BUILTIN

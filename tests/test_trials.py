"""The trials family (SPEC §2.2, seed 001, issue 3): meaning checked with exact expected values.

Pure scoring first (the success truth table, interventions, basis points, nearest-rank figures,
cost and missing results), then the CLI on a copy of the example corpus (refusals, missing
results, the denominator), then blind protection and the reveal rules on a site built once per
module, and finally that every surface shows the same integers.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import re
import shutil
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from generator.families.trials.models import PlannedTrial, TrialResult
from generator.families.trials.report import TrialRow
from generator.families.trials.scoring import (
    TrialFigure,
    counted_interventions,
    metrics,
    nearest_rank,
    score_trial,
    success_reasons,
    trial_row,
)
from generator.render.pages import md_cell
from tests.conftest import (
    CORPUS,
    corpus_of,
    edit_json,
    reader_percent,
    reader_range,
    reseal,
    run_cli,
    snapshot,
)

BENCH = "vibe-delivery"
BLIND = "2026.11-blind"  # the version reveal/reveal.json cites
REVEALED = "2026.12"
PLANNED_TRIALS = 44
HASH = "sha256:" + "ab" * 32
REQUIRED = ("loads", "persists")
MISSING_RESULT = "missing_result"
NO_CODE = "(no failure code recorded)"
FREE = ["setup", "initial_submit", "native_permission", "publish"]
RATES = ("success", "build_pass", "boot_pass", "all_functional_checks_pass", "zero_intervention")


# --- helpers ------------------------------------------------------------------------------------


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A writable copy of the corpus's trials benchmark alone: each case breaks or edits it, and a
    build of it costs a fraction of the whole corpus's."""
    return corpus_of(tmp_path / "runs", BENCH)


def make_result(trial_id: str = "t001", **changes: Any) -> TrialResult:
    """A successful trial, changed as asked; validated from JSON text like a results.jsonl line."""
    value: dict[str, Any] = {
        "trial_id": trial_id,
        "terminal": "completed",
        "build": "pass",
        "boot": "pass",
        "checks": [{"id": "loads", "state": "pass"}, {"id": "persists", "state": "pass"}],
        "interventions": [{"kind": "setup"}, {"kind": "initial_submit"}],
        "cost": {
            "state": "measured",
            "usd_micros": 1000,
            "evidence": {"kind": "invoice", "reference": "i-1"},
        },
        "elapsed_ms": 1000,
        "failure_code": None,
        "evaluator": HASH,
    }
    value.update(changes)
    return TrialResult.model_validate_json(json.dumps(value))


def planned(trial_id: str = "t001") -> PlannedTrial:
    return PlannedTrial(trial_id=trial_id, prompt_id="todo-app", prompt_corpus_version="v1", provider="P-X")


def scored(number: int, missing: bool = False, **changes: Any) -> tuple[TrialRow, TrialFigure]:
    """Planned trial ``number``, scored from a result made with ``changes``, or without a result:
    its report row and the figures its metrics are computed from."""
    trial_id = f"t{number:03d}"
    result = None if missing else make_result(trial_id, **changes)
    return score_trial(planned(trial_id), result, None if result is None else "run-1", REQUIRED)


def row(number: int, missing: bool = False, **changes: Any) -> TrialRow:
    return scored(number, missing, **changes)[0]


def fig(number: int, missing: bool = False, **changes: Any) -> TrialFigure:
    return scored(number, missing, **changes)[1]


def kinds(*names: str) -> list[dict[str, str]]:
    return [{"kind": name} for name in names]


def measured(usd_micros: int) -> dict[str, Any]:
    return {
        "state": "measured",
        "usd_micros": usd_micros,
        "evidence": {"kind": "provider_usage", "reference": "u"},
    }


UNAVAILABLE = {"state": "unavailable", "reason": "provider exposes no usage"}


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def edit_results(run: Path, change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
    """Rewrite run/results.jsonl (same spelling as the corpus) and re-seal the run."""
    lines = change(read_lines(run / "results.jsonl"))
    (run / "results.jsonl").write_text("".join(json.dumps(v, sort_keys=True) + "\n" for v in lines))
    reseal(run)


def edit_sealed(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Edit a JSON file of a sealed folder and seal the folder again."""
    edit_json(path, change)
    reseal(path.parent)


def build(runs: Path, out: Path, version: str) -> Result:
    result = run_cli("build", "--runs", runs, "--out", out, "--site-version", version)
    assert "Traceback" not in result.output
    return result


def drop_reveal(runs: Path, keep: Path | None = None) -> None:
    """Take the reveal folder out of the inputs (moved to ``keep`` when given)."""
    reveal = runs / BENCH / "reveal"
    if keep is None:
        shutil.rmtree(reveal)
    else:
        shutil.move(reveal, keep)


def site_section(out: Path, version: str) -> dict[str, Any]:
    site = json.loads((out / version / "data" / "site.json").read_bytes())
    found: list[dict[str, Any]] = [b for b in site["benchmarks"] if b["id"] == BENCH]
    assert len(found) == 1
    return found[0]


def plan_trials() -> list[dict[str, Any]]:
    trials: list[dict[str, Any]] = json.loads((CORPUS / BENCH / "trial-plan.json").read_bytes())["trials"]
    return trials


def corpus_results() -> dict[str, dict[str, Any]]:
    results = {}
    for path in sorted((CORPUS / BENCH).glob("run-*/results.jsonl")):
        for value in read_lines(path):
            results[value["trial_id"]] = value
    return results


def reveal_names() -> dict[str, str]:
    names: dict[str, str] = json.loads((CORPUS / BENCH / "reveal" / "reveal.json").read_bytes())["providers"]
    return names


def ndb(rate: dict[str, Any]) -> tuple[int, int, int | None]:
    """A published rate as its integers: numerator, denominator, basis points."""
    return rate["numerator"], rate["denominator"], rate["basis_points"]


def hand_rank(values: list[int], percentile: int) -> int:
    """Nearest rank written out independently: the ⌈p·N/100⌉-th smallest, in integers."""
    return sorted(values)[(percentile * len(values) + 99) // 100 - 1]


# --- the autonomous-success truth table ---------------------------------------------------------

CHECKS: dict[str, tuple[list[dict[str, str]], bool, int]] = {
    # name: (checks, every required check passes, required checks passed)
    "all-pass": ([{"id": "loads", "state": "pass"}, {"id": "persists", "state": "pass"}], True, 2),
    "one-fail": ([{"id": "loads", "state": "pass"}, {"id": "persists", "state": "fail"}], False, 1),
    "one-skipped": ([{"id": "loads", "state": "pass"}, {"id": "persists", "state": "skipped"}], False, 1),
    "one-not-evaluable": (
        [{"id": "loads", "state": "pass"}, {"id": "persists", "state": "not_evaluable"}],
        False,
        1,
    ),
    "one-absent": ([{"id": "loads", "state": "pass"}], False, 1),
    "unrequired-fails": (
        [
            {"id": "loads", "state": "pass"},
            {"id": "persists", "state": "pass"},
            {"id": "extra", "state": "fail"},
        ],
        True,
        2,
    ),
}
INTERVENTIONS: dict[str, tuple[list[dict[str, str]], list[str]]] = {
    "none": ([], []),
    "allowlisted": (kinds(*FREE), []),
    "counted": (kinds("setup", "initial_submit", "followup"), ["followup"]),
}
OBSERVED = ("pass", "fail", "not_observable")


@pytest.mark.parametrize(
    ("terminal", "build_state", "boot", "checks", "interventions"),
    list(itertools.product(("completed", "error", "timeout"), OBSERVED, OBSERVED, CHECKS, INTERVENTIONS)),
)
def test_autonomous_success_truth_table(
    terminal: str, build_state: str, boot: str, checks: str, interventions: str
) -> None:
    check_list, checks_pass, passed = CHECKS[checks]
    intervention_list, counted = INTERVENTIONS[interventions]
    result = make_result(
        terminal=terminal, build=build_state, boot=boot, checks=check_list, interventions=intervention_list
    )
    expected = []
    if terminal != "completed":
        expected.append(f"terminal {terminal}")
    if build_state != "pass":
        expected.append(f"build {build_state}")
    if boot != "pass":
        expected.append(f"boot {boot}")
    if not checks_pass:
        expected.append("a required functional check did not pass")
    if counted:
        noun = "counted intervention" if len(counted) == 1 else "counted interventions"
        expected.append(f"{len(counted)} {noun}: {', '.join(counted)}")
    assert success_reasons(result, REQUIRED) == expected

    scored = trial_row(planned(), result, "run-1", REQUIRED)
    success = (
        terminal == "completed" and build_state == "pass" and boot == "pass" and checks_pass and not counted
    )
    assert scored.success is success
    assert scored.reasons == tuple(expected)
    assert (scored.required_passed, scored.required_total) == (passed, 2)
    assert scored.counted_interventions == tuple(counted)
    # a failed trial without a code is counted under its terminal state when that says why
    assert scored.failure_code == (None if success else terminal if terminal != "completed" else NO_CODE)


@pytest.mark.parametrize("field", ["build", "boot"])
def test_not_observable_never_satisfies_success(field: str) -> None:
    scored = row(1, **{field: "not_observable"})
    assert scored.success is False
    assert scored.reasons == (f"{field} not_observable",)
    assert row(2).success is True  # everything else held: the observable state alone decided


def test_a_failed_result_keeps_its_own_failure_code_and_a_success_has_none() -> None:
    assert row(1, terminal="timeout", failure_code="timeout").failure_code == "timeout"
    assert row(2, build="fail", failure_code=None).failure_code == "(no failure code recorded)"
    assert row(3, failure_code="leftover").failure_code is None


# --- interventions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("interventions", "counted"),
    [
        ([], []),
        (FREE, []),
        (["publish"], []),
        (["setup"], []),
        (["initial_submit"], []),
        (["native_permission"], []),
        (["publish", "publish"], ["publish"]),
        (["publish", "setup", "publish", "publish"], ["publish", "publish"]),
        (["setup", "setup"], []),  # setup is free any number of times (seed 001 ruling)
        (["setup", "setup", "setup", "native_permission", "native_permission"], []),
        (["initial_submit", "initial_submit"], ["initial_submit"]),  # a second submit is a follow-up
        (
            ["initial_submit", "setup", "initial_submit", "initial_submit"],
            ["initial_submit", "initial_submit"],
        ),
        (["native_permission", "native_permission"], []),
        ([*FREE, *FREE], ["initial_submit", "publish"]),
        (["followup"], ["followup"]),
        (["edit"], ["edit"]),
        (["retry"], ["retry"]),
        (["regeneration"], ["regeneration"]),
        (["debugging"], ["debugging"]),
        (["model_change"], ["model_change"]),
        (["deploy_repair"], ["deploy_repair"]),
        (["vendor_concierge_call"], ["vendor_concierge_call"]),
        (["Publish"], ["Publish"]),  # an unknown spelling is an unknown kind: it counts
        ([*FREE, "edit", "retry"], ["edit", "retry"]),
    ],
    ids=lambda value: "-".join(value) or "none",
)
def test_allowlisted_actions_are_free_as_ruled_and_everything_else_counts(
    interventions: list[str], counted: list[str]
) -> None:
    result = make_result(interventions=kinds(*interventions))
    assert counted_interventions(result) == counted
    trial, figure = score_trial(planned(), result, "run-1", REQUIRED)
    assert trial.success is (not counted)
    assert trial.counted_interventions == tuple(counted)
    summary = metrics([figure])
    assert summary.zero_intervention.numerator == (0 if counted else 1)


# --- basis points at the edges, through metrics() -----------------------------------------------


@pytest.mark.parametrize(
    ("successes", "planned_trials", "basis_points"),
    [(0, 5, 0), (5, 5, 10000), (1, 3, 3333), (2, 3, 6666), (1, 7, 1428), (6, 7, 8571), (13, 44, 2954)],
)
def test_basis_points_are_the_floor_of_10000_n_over_d(
    successes: int, planned_trials: int, basis_points: int
) -> None:
    figures = [fig(i) if i < successes else fig(i, build="fail") for i in range(planned_trials)]
    rate = metrics(figures).success
    assert (rate.numerator, rate.denominator, rate.basis_points) == (successes, planned_trials, basis_points)
    assert rate.interval is not None
    assert rate.interval.n == planned_trials
    assert rate.interval.low <= successes / planned_trials <= rate.interval.high


def test_exact_interval_at_the_edges_is_clopper_pearson() -> None:
    none_of_five = metrics([fig(i, boot="fail") for i in range(5)]).success
    all_of_five = metrics([fig(i) for i in range(5)]).success
    assert none_of_five.interval is not None and all_of_five.interval is not None
    # Closed forms at the edges: [0, 1 − (α/2)^(1/n)] and [(α/2)^(1/n), 1].
    assert none_of_five.interval.low == 0.0
    assert none_of_five.interval.high == pytest.approx(1 - 0.025 ** (1 / 5))
    assert all_of_five.interval.low == pytest.approx(0.025 ** (1 / 5))
    assert all_of_five.interval.high == 1.0


def test_an_empty_denominator_has_no_basis_points_interval_or_figures() -> None:
    summary = metrics([])
    assert summary.planned == 0
    for name in RATES:
        rate = getattr(summary, name)
        assert (rate.numerator, rate.denominator, rate.basis_points, rate.interval) == (0, 0, None, None)
    assert (summary.median_elapsed_ms, summary.p95_elapsed_ms, summary.median_measured_cost_usd_micros) == (
        None,
        None,
        None,
    )
    assert (summary.elapsed_n, summary.cost_measured, summary.cost_unavailable) == (0, 0, 0)
    assert summary.failure_codes == ()


# --- nearest-rank percentiles -------------------------------------------------------------------

# 20 distinct values, shuffled; sorted they are 1000, 1037, …, 1703 (step 37).
TWENTY = [
    1370,
    1148,
    1703,
    1000,
    1555,
    1222,
    1666,
    1037,
    1444,
    1259,
    1592,
    1111,
    1333,
    1407,
    1074,
    1629,
    1185,
    1296,
    1518,
    1481,
]


@pytest.mark.parametrize(
    ("values", "median", "p95"),
    [
        ([4242], 4242, 4242),  # N = 1: rank ⌈0.5⌉ = 1 and ⌈0.95⌉ = 1
        ([900, 300], 300, 900),  # N = 2: rank ⌈1⌉ = 1 (the lower value) and ⌈1.9⌉ = 2
        ([50, 10, 40, 20, 30], 30, 50),  # N = 5: rank ⌈2.5⌉ = 3 and ⌈4.75⌉ = 5 (rounding 2.5 would give 2)
        (TWENTY, 1333, 1666),  # N = 20: rank 10 and rank 19 (not the interpolated 1351.5 / 1684.5)
    ],
    ids=["N=1", "N=2", "N=5", "N=20"],
)
def test_nearest_rank_median_and_p95(values: list[int], median: int, p95: int) -> None:
    assert nearest_rank(values, 50) == median
    assert nearest_rank(values, 95) == p95
    summary = metrics([fig(i, elapsed_ms=v, cost=measured(v)) for i, v in enumerate(values)])
    assert (summary.median_elapsed_ms, summary.p95_elapsed_ms) == (median, p95)
    assert summary.median_measured_cost_usd_micros == median
    assert summary.elapsed_n == summary.cost_measured == len(values)
    assert {summary.median_elapsed_ms, summary.p95_elapsed_ms} <= set(values)


def test_nearest_rank_of_nothing_is_none_not_zero() -> None:
    assert nearest_rank([], 50) is None
    assert nearest_rank([], 95) is None


def test_every_corpus_figure_is_an_observed_value(built: Path) -> None:
    plan = {t["trial_id"]: t["provider"] for t in plan_trials()}
    results = corpus_results()
    elapsed: dict[str, list[int]] = defaultdict(list)
    costs: dict[str, list[int]] = defaultdict(list)
    for trial_id, value in results.items():
        for group in (plan[trial_id], "overall"):
            elapsed[group].append(value["elapsed_ms"])
            if value["cost"]["state"] == "measured":
                costs[group].append(value["cost"]["usd_micros"])
    scores = site_section(built, REVEALED)["section"]["scores"]
    groups = {r["provider"]: r["metrics"] for r in scores["leaderboard"]} | {"overall": scores["overall"]}
    assert set(groups) == {"P-A", "P-B", "P-C", "P-D", "overall"}
    for group, figures in groups.items():
        assert figures["median_elapsed_ms"] in elapsed[group]
        assert figures["p95_elapsed_ms"] in elapsed[group]
        assert figures["median_measured_cost_usd_micros"] in costs[group]
        assert figures["median_elapsed_ms"] == hand_rank(elapsed[group], 50)
        assert figures["p95_elapsed_ms"] == hand_rank(elapsed[group], 95)
        assert figures["median_measured_cost_usd_micros"] == hand_rank(costs[group], 50)
        assert figures["elapsed_n"] == len(elapsed[group])
        assert figures["cost_measured"] == len(costs[group])
        assert figures["cost_unavailable"] == figures["planned"] - len(costs[group])
    overall = scores["overall"]
    assert (overall["median_elapsed_ms"], overall["p95_elapsed_ms"]) == (312710, 580224)
    # 15 unavailable costs + 2 missing results; the 2 missing results have no elapsed time.
    assert [overall["cost_measured"], overall["cost_unavailable"], overall["elapsed_unavailable"]] == [
        27,
        17,
        2,
    ]


# --- cost and missing results -------------------------------------------------------------------


def test_unavailable_cost_is_excluded_from_the_median_and_counted_never_zero() -> None:
    trials = [
        scored(1, cost=measured(500)),
        scored(2, cost=measured(100)),
        scored(3, cost=measured(300)),
        scored(4, cost=UNAVAILABLE),
        scored(5, cost=UNAVAILABLE),
        scored(6, missing=True),
    ]
    rows = [trial for trial, _ in trials]
    unavailable = rows[3]
    assert unavailable.cost_usd_micros is None
    assert unavailable.cost_note == "unavailable: provider exposes no usage"
    assert rows[0].cost_note == "measured (provider_usage: u)"
    summary = metrics([figure for _, figure in trials])
    # Measured {100, 300, 500}: rank ⌈1.5⌉ = 2 → 300. Zeros for the three others would give 0.
    assert summary.median_measured_cost_usd_micros == 300
    assert (summary.cost_measured, summary.cost_unavailable) == (3, 3)
    assert summary.success.denominator == 6


def test_a_measured_zero_is_measured_and_all_unavailable_has_no_median() -> None:
    zero = metrics([fig(1, cost=measured(0)), fig(2, cost=UNAVAILABLE)])
    assert (zero.median_measured_cost_usd_micros, zero.cost_measured, zero.cost_unavailable) == (0, 1, 1)
    nothing = metrics([fig(1, cost=UNAVAILABLE), fig(2, cost=UNAVAILABLE), fig(3, missing=True)])
    assert nothing.median_measured_cost_usd_micros is None
    assert (nothing.cost_measured, nothing.cost_unavailable) == (0, 3)


def test_a_missing_result_is_a_failure_with_its_own_code_and_no_elapsed_time() -> None:
    missing = row(9, missing=True)
    assert missing.success is False
    assert missing.failure_code == MISSING_RESULT
    assert [missing.run, missing.elapsed_ms, missing.cost_usd_micros, missing.evaluator] == [None] * 4
    assert (missing.required_passed, missing.required_total) == (0, 2)
    figures = [
        fig(1, elapsed_ms=10),
        fig(2, elapsed_ms=20),
        fig(3, terminal="timeout", elapsed_ms=900, failure_code="timeout"),
        fig(9, missing=True),
    ]
    summary = metrics(figures)
    assert summary.planned == 4
    for name in RATES:
        assert getattr(summary, name).denominator == 4
    assert summary.success.numerator == 2
    assert summary.build_pass.numerator == 3  # a missing result is not a build pass
    assert summary.zero_intervention.numerator == 3  # nor zero-intervention: its interventions are unknown
    assert summary.all_functional_checks_pass.numerator == 3
    # The timeout keeps its elapsed time; the missing result is excluded and counted.
    assert (summary.elapsed_n, summary.elapsed_unavailable) == (3, 1)
    assert (summary.median_elapsed_ms, summary.p95_elapsed_ms) == (20, 900)
    assert [(f.code, f.count) for f in summary.failure_codes] == [("missing_result", 1), ("timeout", 1)]


# --- the CLI on a copy of the corpus ------------------------------------------------------------


def test_a_result_for_an_unplanned_trial_is_refused(corpus: Path, tmp_path: Path) -> None:
    run = corpus / BENCH / "run-p-a"
    lines = read_lines(run / "results.jsonl")
    edit_results(run, lambda values: [*values, {**values[0], "trial_id": "t99"}])
    result = build(corpus, tmp_path / "site", "v1")
    assert result.exit_code == 3, result.output
    where = f"run-p-a/results.jsonl: line {len(lines) + 1} $.trial_id"
    assert f"{where}: trial 't99' is not in the frozen plan" in result.output
    assert "input refused (exit 3)" in result.output
    assert not (tmp_path / "site").exists()


def test_a_run_citing_another_plan_digest_is_refused(corpus: Path, tmp_path: Path) -> None:
    edit_sealed(corpus / BENCH / "run-p-c" / "run.json", lambda v: v.update(plan_sha256="0" * 64))
    result = build(corpus, tmp_path / "site", "v1")
    assert result.exit_code == 3, result.output
    assert "run-p-c/run.json: $.plan_sha256: cites trial plan 0000000000000000…" in result.output
    assert "run-p-a" not in result.output  # the other runs cite the frozen plan
    assert not (tmp_path / "site").exists()


def test_a_plan_changed_after_execution_is_refused_for_every_run(corpus: Path, tmp_path: Path) -> None:
    def add_trial(plan: dict[str, Any]) -> None:
        plan["trials"].append({**plan["trials"][0], "trial_id": "t45"})

    edit_sealed(corpus / BENCH / "trial-plan.json", add_trial)
    result = build(corpus, tmp_path / "site", "v1")
    assert result.exit_code == 3, result.output
    for run in ("run-p-a", "run-p-b", "run-p-c", "run-p-d"):
        assert f"{run}/run.json: $.plan_sha256" in result.output


def test_a_cleartext_evaluator_is_invalid_content_naming_the_json_path(corpus: Path, tmp_path: Path) -> None:
    def identify(values: list[dict[str, Any]]) -> list[dict[str, Any]]:
        values[0]["evaluator"] = "alice@example.com"
        values[1]["evaluator"] = "SHA256:" + "AB" * 32  # not lowercase, not the prefix
        values[2]["evaluator"] = "ab" * 32  # a hash without its 'sha256:' prefix
        return values

    edit_results(corpus / BENCH / "run-p-b", identify)
    result = build(corpus, tmp_path / "site", "v1")
    assert result.exit_code == 4, result.output
    reason = "evaluator identifier must be a one-way hash"
    for line in (1, 2, 3):
        assert f"run-p-b/results.jsonl: line {line} $.evaluator: {reason}" in result.output
    assert "invalid content (exit 4)" in result.output
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("where", ["same-run", "other-run"])
def test_a_duplicate_result_for_one_trial_is_invalid_content(
    corpus: Path, tmp_path: Path, where: str
) -> None:
    drop_reveal(corpus)
    source = read_lines(corpus / BENCH / "run-p-a" / "results.jsonl")[0]
    target = "run-p-a" if where == "same-run" else "run-p-d"
    edit_results(corpus / BENCH / target, lambda values: [*values, source])
    result = build(corpus, tmp_path / "site", "v1")
    assert result.exit_code == 4, result.output
    trial = source["trial_id"]
    expected = (
        f"duplicate result for trial {trial!r}"
        if where == "same-run"
        else f"trial {trial!r} also has a result in run 'run-p-a'"
    )
    assert expected in result.output
    assert not (tmp_path / "site").exists()


def test_a_removed_result_line_is_a_missing_result_in_the_denominator(corpus: Path, tmp_path: Path) -> None:
    drop_reveal(corpus)  # the scores change, so the reveal (rightly) no longer applies
    run = corpus / BENCH / "run-p-a"
    assert read_lines(run / "results.jsonl")[2]["trial_id"] == "t09"  # a success of P-A
    edit_results(run, lambda values: [v for v in values if v["trial_id"] != "t09"])
    out = tmp_path / "site"
    result = build(corpus, out, "v1")
    assert result.exit_code == 0, result.output
    scores = site_section(out, "v1")["section"]["scores"]
    missing = {m["trial_id"]: m for m in scores["missing"]}
    assert sorted(missing) == ["t09", "t32", "t39"]
    assert missing["t09"]["failure_code"] == "missing_result"
    assert [missing["t09"]["success"], missing["t09"]["elapsed_ms"], missing["t09"]["run"]] == [
        False,
        None,
        None,
    ]
    overall = scores["overall"]
    assert overall["planned"] == PLANNED_TRIALS
    assert ndb(overall["success"]) == (13, 44, 2954)
    assert {"code": "missing_result", "count": 3} in overall["failure_codes"]
    assert (overall["elapsed_n"], overall["elapsed_unavailable"]) == (41, 3)
    (p_a,) = [r["metrics"] for r in scores["leaderboard"] if r["provider"] == "P-A"]
    assert ndb(p_a["success"]) == (7, 11, 6363)
    assert {"code": "missing_result", "count": 1} in p_a["failure_codes"]
    page = (out / "v1" / "b" / BENCH / "index.html").read_text(encoding="utf-8")
    assert "Planned trials without a result (3)" in page
    assert 'id="trial-t09"' in page


def test_the_denominator_is_every_planned_trial(built: Path) -> None:
    plan = plan_trials()
    assert len(plan) == PLANNED_TRIALS
    assert len(corpus_results()) == PLANNED_TRIALS - 2  # two planned trials have no result
    per_provider = Counter(t["provider"] for t in plan)
    for version in (BLIND, REVEALED):
        scores = site_section(built, version)["section"]["scores"]
        assert scores["overall"]["planned"] == PLANNED_TRIALS
        for name in RATES:
            assert scores["overall"][name]["denominator"] == PLANNED_TRIALS
            assert scores["overall"][name]["interval"]["n"] == PLANNED_TRIALS
        for entry in scores["leaderboard"]:
            figures = entry["metrics"]
            assert figures["planned"] == per_provider[entry["provider"]] == 11
            for name in RATES:
                assert figures[name]["denominator"] == 11
        assert sum(e["metrics"]["planned"] for e in scores["leaderboard"]) == PLANNED_TRIALS


def test_corpus_success_counts_match_an_independent_reading_of_the_rule(built: Path) -> None:
    benchmark = json.loads((CORPUS / BENCH / "benchmark.json").read_bytes())
    required = {
        (c["version"], p["id"]): p["required_checks"]
        for c in benchmark["prompt_corpora"]
        for p in c["prompts"]
    }
    results = corpus_results()
    successes: Counter[str] = Counter()
    for trial in plan_trials():
        value = results.get(trial["trial_id"])
        if value is None:
            continue
        states = {c["id"]: c["state"] for c in value["checks"]}
        kinds_seen = [i["kind"] for i in value["interventions"]]
        if (
            value["terminal"] == "completed"
            and value["build"] == value["boot"] == "pass"
            and all(
                states.get(c) == "pass"
                for c in required[(trial["prompt_corpus_version"], trial["prompt_id"])]
            )
            and set(kinds_seen) <= set(FREE)
            and kinds_seen.count("initial_submit") <= 1
            and kinds_seen.count("publish") <= 1
        ):
            successes[trial["provider"]] += 1
    scores = site_section(built, REVEALED)["section"]["scores"]
    published = {e["provider"]: e["metrics"]["success"]["numerator"] for e in scores["leaderboard"]}
    assert published == {"P-A": 8, "P-B": 1, "P-C": 1, "P-D": 4} == {p: successes[p] for p in published}
    assert ndb(scores["overall"]["success"]) == (14, 44, 3181)


# --- blind protection and the reveal ------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus's trials benchmark built once: the reveal publishes the blind version it cites first.
    (tests/test_blind_scan.py scans the whole example site for the withheld names.)"""
    root = tmp_path_factory.mktemp("trials")
    runs = corpus_of(root / "runs", BENCH)
    out = root / "site"
    result = build(runs, out, REVEALED)
    assert result.exit_code == 0, result.output
    assert f"published the blind version a reveal applies to: {out / BLIND}" in result.output
    assert json.loads((out / "versions.json").read_bytes())["versions"] == [BLIND, REVEALED]
    return out


def name_forms(name: str) -> set[bytes]:
    """A provider name as it could be spelled in a file: plain, JSON-escaped, HTML-escaped, lowercased."""
    forms = {name, json.dumps(name)[1:-1], json.dumps(name, ensure_ascii=False)[1:-1], html.escape(name)}
    forms.add(name.split()[0])  # the distinctive first word alone (Northwind, Contoso, …)
    return {form.lower().encode("utf-8") for form in forms}


def test_the_blind_version_holds_no_provider_name_in_any_byte_or_file_name(built: Path) -> None:
    names = reveal_names()
    assert sorted(names) == ["P-A", "P-B", "P-C", "P-D"] and len(set(names.values())) == 4
    blind = built / BLIND
    files = sorted(p for p in blind.rglob("*") if p.is_file())
    relative = {p.relative_to(blind).as_posix() for p in files}
    assert {
        "data/site.json",
        f"data/scores/{BENCH}.json",
        "release-notes.md",
        f"b/{BENCH}/index.html",
    } <= relative
    found = []
    for path in [blind, *sorted(blind.rglob("*"))]:
        name_bytes = path.relative_to(built).as_posix().lower().encode("utf-8")
        data = path.read_bytes().lower() if path.is_file() else b""
        for provider in names.values():
            for form in name_forms(provider):
                if form in name_bytes or form in data:
                    found.append((path.relative_to(built).as_posix(), provider, form))
    assert found == []
    section = site_section(built, BLIND)
    assert section["section"]["reveal"] is None
    assert section["disclosures"]["blind"]["identities_revealed"] is False


def test_the_revealed_version_shows_the_names(built: Path) -> None:
    version = built / REVEALED
    leaderboard = (version / "b" / BENCH / "index.html").read_text(encoding="utf-8")
    notes = (version / "release-notes.md").read_text(encoding="utf-8")
    section = site_section(built, REVEALED)["section"]
    revealed = {n["provider"]: n["name"] for n in section["reveal"]["names"]}
    assert revealed == reveal_names()
    for label, name in reveal_names().items():
        row_html = re.search(rf'<tr id="provider-{label}">(.*?)</tr>', leaderboard, re.S)
        assert row_html is not None and f'<span class="revealed">({name})</span>' in row_html.group(1)
        assert re.search(rf"^\| [0-9–]+ \| {label} \({name}\) \|", notes, re.M), name
    runs_html = "".join(
        p.read_text(encoding="utf-8") for p in (version / "b" / BENCH / "runs").glob("*.html")
    )
    assert all(name in runs_html for name in reveal_names().values())


def test_the_frozen_scores_file_is_byte_identical_in_both_versions_and_is_the_cited_digest(
    built: Path,
) -> None:
    reveal = json.loads((CORPUS / BENCH / "reveal" / "reveal.json").read_bytes())
    assert reveal["scores_version"] == BLIND
    blind = (built / BLIND / "data" / "scores" / f"{BENCH}.json").read_bytes()
    revealed = (built / REVEALED / "data" / "scores" / f"{BENCH}.json").read_bytes()
    assert blind == revealed
    assert hashlib.sha256(blind).hexdigest() == reveal["scores_sha256"]
    for version in (BLIND, REVEALED):
        assert site_section(built, version)["section"]["scores_sha256"] == reveal["scores_sha256"]


def test_disclosures_say_who_was_scored_blind_and_when_identities_were_revealed(built: Path) -> None:
    reveal = json.loads((CORPUS / BENCH / "reveal" / "reveal.json").read_bytes())
    evaluators = sorted({v["evaluator"] for v in corpus_results().values()})
    assert len(evaluators) == 2
    revealed = (built / REVEALED / "b" / BENCH / "disclosures.html").read_text(encoding="utf-8")
    assert BLIND in revealed
    assert reveal["scores_sha256"] in revealed
    assert all(e in revealed for e in evaluators)
    assert "Identities revealed: yes" in revealed
    blind = (built / BLIND / "b" / BENCH / "disclosures.html").read_text(encoding="utf-8")
    assert "Identities are not revealed." in blind
    assert "Identities revealed: no." in blind
    assert all(e in blind for e in evaluators)
    record = site_section(built, REVEALED)["disclosures"]["blind"]
    assert record["evaluator_hashes"] == evaluators
    assert (record["subjects_blind"], record["identities_revealed"]) == (True, True)
    blind_record = site_section(built, BLIND)["disclosures"]["blind"]
    assert (blind_record["identities_revealed"], blind_record["scores_frozen_in"]) == (False, None)
    trials_by_evaluator = Counter(v["evaluator"] for v in corpus_results().values())
    published = site_section(built, REVEALED)["section"]["scores"]["evaluators"]
    assert {e["evaluator"]: e["trials"] for e in published} == dict(trials_by_evaluator)


def test_a_reveal_citing_another_scores_digest_is_refused_and_nothing_is_written(
    corpus: Path, tmp_path: Path
) -> None:
    held = tmp_path / "held-reveal"
    drop_reveal(corpus, keep=held)
    out = tmp_path / "site"
    assert build(corpus, out, BLIND).exit_code == 0
    before = snapshot(out)
    shutil.move(held, corpus / BENCH / "reveal")
    digest = json.loads((corpus / BENCH / "reveal" / "reveal.json").read_bytes())["scores_sha256"]
    changed = ("0" if digest[0] != "0" else "1") + digest[1:]
    edit_sealed(corpus / BENCH / "reveal" / "reveal.json", lambda v: v.update(scores_sha256=changed))
    result = build(corpus, out, REVEALED)
    assert result.exit_code == 4, result.output
    assert "reveal/reveal.json: $.scores_sha256: cites frozen scores" in result.output
    assert snapshot(out) == before


def test_a_reveal_after_a_result_changed_is_refused(corpus: Path, tmp_path: Path) -> None:
    def slower(values: list[dict[str, Any]]) -> list[dict[str, Any]]:
        values[0]["elapsed_ms"] += 1
        return values

    edit_results(corpus / BENCH / "run-p-b", slower)
    result = build(corpus, tmp_path / "site", REVEALED)
    assert result.exit_code == 4, result.output
    assert "reveal/reveal.json: $.scores_sha256" in result.output
    assert "a reveal applies only to unchanged frozen scores" in result.output
    assert not (tmp_path / "site").exists()


def test_a_reveal_against_a_published_blind_version_with_other_scores_is_refused(
    corpus: Path, tmp_path: Path
) -> None:
    """The blind version was published from other results; the reveal matches only today's."""
    held = tmp_path / "held-reveal"
    drop_reveal(corpus, keep=held)
    original = tmp_path / "run-p-b"
    shutil.copytree(corpus / BENCH / "run-p-b", original)
    edit_results(corpus / BENCH / "run-p-b", lambda values: values[:-1])
    out = tmp_path / "site"
    assert build(corpus, out, BLIND).exit_code == 0
    before = snapshot(out)
    shutil.rmtree(corpus / BENCH / "run-p-b")
    shutil.copytree(original, corpus / BENCH / "run-p-b")
    shutil.move(held, corpus / BENCH / "reveal")
    result = build(corpus, out, REVEALED)
    assert result.exit_code == 4, result.output
    assert "cites frozen scores" in result.output and repr(BLIND) in result.output
    assert snapshot(out) == before
    assert not (out / REVEALED).exists()


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda p: p.pop("P-D"), id="omits-a-label"),
        pytest.param(lambda p: p.update({"P-E": "Unknown Labs"}), id="names-an-unknown-label"),
        pytest.param(lambda p: p.update({"P-Z": p.pop("P-D")}), id="renames-a-label"),
    ],
)
def test_a_reveal_must_name_exactly_the_plans_labels(
    corpus: Path, tmp_path: Path, change: Callable[[dict[str, str]], object]
) -> None:
    edit_sealed(corpus / BENCH / "reveal" / "reveal.json", lambda v: change(v["providers"]))
    result = build(corpus, tmp_path / "site", REVEALED)
    assert result.exit_code == 4, result.output
    assert "reveal/reveal.json: $.providers: must reveal exactly the plan's blind labels" in result.output
    assert not (tmp_path / "site").exists()


def test_a_published_blind_version_is_verified_not_rewritten(
    corpus: Path, tmp_path: Path, built: Path
) -> None:
    held = tmp_path / "held-reveal"
    drop_reveal(corpus, keep=held)
    out = tmp_path / "site"
    assert build(corpus, out, BLIND).exit_code == 0
    before = snapshot(out / BLIND)
    # The blind version a reveal build publishes on its own is exactly the one published without it.
    assert before == snapshot(built / BLIND)
    stats = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in [out / BLIND, *(out / BLIND).rglob("*")]}
    shutil.move(held, corpus / BENCH / "reveal")
    result = build(corpus, out, REVEALED)
    assert result.exit_code == 0, result.output
    assert "published the blind version" not in result.output
    assert snapshot(out / BLIND) == before
    assert {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in stats} == stats
    assert snapshot(out / REVEALED) == snapshot(built / REVEALED)
    assert json.loads((out / "versions.json").read_bytes())["versions"] == [BLIND, REVEALED]
    again = build(corpus, out, REVEALED)  # rebuilding the revealed version is a verified no-op
    assert again.exit_code == 0 and "unchanged" in again.output, again.output
    assert snapshot(out / BLIND) == before


# --- every surface shows the integers -----------------------------------------------------------


@pytest.mark.parametrize("version", [BLIND, REVEALED])
def test_every_surface_shows_the_integers_of_site_json(built: Path, version: str) -> None:
    bench = site_section(built, version)
    scores = bench["section"]["scores"]
    leaderboard = (built / version / "b" / BENCH / "index.html").read_text(encoding="utf-8")
    notes = (built / version / "release-notes.md").read_text(encoding="utf-8")
    per_bench = json.loads((built / version / "data" / "benchmarks" / f"{BENCH}.json").read_bytes())
    frozen = json.loads((built / version / "data" / "scores" / f"{BENCH}.json").read_bytes())
    assert frozen == scores
    assert per_bench["section"]["scores"] == scores
    assert len(scores["leaderboard"]) == 4
    for entry in scores["leaderboard"]:
        label, figures = entry["provider"], entry["metrics"]
        found = re.search(rf'<tr id="provider-{label}">(.*?)</tr>', leaderboard, re.S)
        note = re.search(rf"^\| [0-9–]+ \| {label}[ |].*\) \| .*% \|$", notes, re.M)
        assert found is not None and note is not None, label
        cells, line = found.group(1), note.group(0)
        items = " ".join(notes.split())
        success = figures["success"]
        n, d, bp = success["numerator"], success["denominator"], success["basis_points"]
        shown = reader_percent(n, d)  # the precision rule, the same on every surface
        assert (
            f'title="{n}/{d}; published: {bp} bp">{shown}</span> <span class="muted">({n}/{d})</span>'
            in cells
        )
        low, high = success["interval"]["low"], success["interval"]["high"]
        assert f"| {shown} ({n}/{d}) | {reader_range(low, high, d)} |" in line
        assert f">{reader_range(low, high, d)}</span>" in cells
        for name in RATES[1:]:
            rate = figures[name]
            k, m = rate["numerator"], rate["denominator"]
            published = f"{rate['basis_points']} bp (floor of 10000·n/d)"
            assert f'title="{k}/{m} = {published}">{reader_percent(k, m)}</span>' in cells
            assert f"{reader_percent(k, m)} ({k}/{m})" in items
        interval = f"[{success['interval']['low']}, {success['interval']['high']}]"  # exact, in the title
        assert f'title="{interval}"' in cells
        cost = figures["median_measured_cost_usd_micros"]
        assert f'title="{cost} USD micros"' in cells
        assert f"(measured {figures['cost_measured']}, unavailable {figures['cost_unavailable']})" in items
        elapsed = f"{figures['median_elapsed_ms']} ms / {figures['p95_elapsed_ms']} ms"
        assert f'title="{elapsed}"' in cells
    expected = {"P-A": (8, 7272), "P-B": (1, 909), "P-C": (1, 909), "P-D": (4, 3636)}
    assert {
        e["provider"]: (e["metrics"]["success"]["numerator"], e["metrics"]["success"]["basis_points"])
        for e in scores["leaderboard"]
    } == expected
    assert [e["provider"] for e in scores["leaderboard"]] == ["P-A", "P-D", "P-B", "P-C"]


# --- the Markdown report carries the secondary metrics and the blind record too --------------


@pytest.mark.parametrize("version", [BLIND, REVEALED])
def test_release_notes_show_the_failure_code_counts(built: Path, version: str) -> None:
    lines = set((built / version / "release-notes.md").read_text(encoding="utf-8").splitlines())
    scores = site_section(built, version)["section"]["scores"]
    assert {"code": "missing_result", "count": 2} in scores["overall"]["failure_codes"]
    for entry in scores["leaderboard"]:
        assert entry["metrics"]["failure_codes"]
        for failure in entry["metrics"]["failure_codes"]:
            assert f"| {entry['provider']} | {md_cell(failure['code'])} | {failure['count']} |" in lines


@pytest.mark.parametrize("version", [BLIND, REVEALED])
def test_release_notes_carry_the_evaluator_hashes(built: Path, version: str) -> None:
    notes = (built / version / "release-notes.md").read_text(encoding="utf-8")
    evaluators = sorted({v["evaluator"] for v in corpus_results().values()})
    assert all(e in notes for e in evaluators)

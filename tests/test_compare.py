"""``benchsite compare``: rows pair by id; every incomparability rule refuses with exit 13."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.inputs.seal import SEAL_NAME
from tests.conftest import CORPUS, run_cli

STORE = CORPUS / "recsys-grounding" / ".agenteval" / "subjects" / "agents"
BASELINE = sorted((STORE / "recsys-agent" / "runs").iterdir())[0]
CANDIDATE = sorted((STORE / "recsys-agent-v2" / "runs").iterdir())[0]
ROW = "c01\u00b7tone-judged"  # a judged row: every axis is recorded
FILE = f"scenarios/{ROW}.json"


def copy(run: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(run, target)
    (target / SEAL_NAME).unlink()  # compare reads unsealed runs too, and says so
    return target


def edit(run: Path, change: Callable[[dict[str, Any]], None], rel: str = FILE) -> None:
    data = json.loads((run / rel).read_text(encoding="utf-8"))
    change(data)
    (run / rel).write_text(json.dumps(data), encoding="utf-8")


def test_two_runs_of_one_definition_are_comparable() -> None:
    result = run_cli("compare", BASELINE, CANDIDATE)
    assert result.exit_code == 0, result.output
    assert "comparable: 80 row(s) paired" in result.output
    assert "floors and self-judging are reported, not gating" in result.output


def test_json_output_lists_recovered_and_regressed_rows() -> None:
    result = run_cli("compare", "--json", BASELINE, CANDIDATE)
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["comparable"] is True and len(data["rows"]) == 80
    for row in data["rows"]:
        assert (
            row["recovered"] == (row["baseline"] == 0.0 and row["candidate"] == 1.0)
            or row["recovered"] is False
        )
    assert set(data["recovered"]) == {r["id"] for r in data["rows"] if r["recovered"]}
    assert len(data["without_usable_floor"]) == 20  # the not-derivable judged check, 20 cases


def judge(data: dict[str, Any]) -> dict[str, Any]:
    j: dict[str, Any] = data["comparability"]["judge"]
    return j


RULES: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "evalKey": (lambda d: d["comparability"].update(evalKey="other/key"), "evalKey differs"),
    "evalVersion": (lambda d: d["comparability"].update(evalVersion="2.0.0"), "evalVersion differs"),
    "effectiveBar": (
        lambda d: d["comparability"].update(effectiveBar=0.5),
        "effectiveBar differs (1.0 ≠ 0.5)",
    ),
    "effectiveBar-one-side": (
        lambda d: d["comparability"].pop("effectiveBar"),
        "effectiveBar recorded on one side only",
    ),
    "evalKey-blank": (lambda d: d["comparability"].update(evalKey="  "), "evalKey recorded on one side only"),
    "judge-model-blank": (lambda d: judge(d).update(modelId=""), "judge.modelId recorded on one side only"),
    "judge-presence": (lambda d: d["comparability"].pop("judge"), "judge differs"),
    "judge-model": (lambda d: judge(d).update(modelId="judge-small-1"), "judge.modelId differs"),
    "judge-rubric": (
        lambda d: judge(d).update(rubricDigest="sha256:" + "cd" * 32),
        "judge.rubricDigest differs",
    ),
    "stimulus": (lambda d: d.update(stimulusHash="sha256:" + "0" * 64), "stimulus differs"),
    "stimulus-one-side": (lambda d: d.pop("stimulusHash"), "stimulus recorded on one side only"),
    "no-facts": (lambda d: d.pop("comparability"), "no comparability facts on the candidate side"),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_each_axis_makes_the_pair_incomparable(rule: str, tmp_path: Path) -> None:
    change, reason = RULES[rule]
    candidate = copy(BASELINE, tmp_path, "candidate")
    edit(candidate, change)
    result = run_cli("compare", BASELINE, candidate)
    assert result.exit_code == 13, result.output
    assert f"{ROW}: {reason}" in result.output
    assert "INCOMPARABLE" in result.output and "Traceback" not in result.output


def test_text_axes_compare_case_insensitively(tmp_path: Path) -> None:
    candidate = copy(BASELINE, tmp_path, "candidate")
    edit(candidate, lambda d: d["comparability"].update(evalVersion="1.2.0".upper()))
    edit(candidate, lambda d: judge(d).update(rubricDigest=judge(d)["rubricDigest"].upper()))
    assert run_cli("compare", BASELINE, candidate).exit_code == 0


def test_a_row_on_one_side_only_is_incomparable(tmp_path: Path) -> None:
    candidate = copy(BASELINE, tmp_path, "candidate")
    (candidate / FILE).unlink()
    result = run_cli("compare", BASELINE, candidate)
    assert result.exit_code == 13
    assert f"{ROW}: only in the baseline" in result.output


def test_no_shared_row_is_incomparable(tmp_path: Path) -> None:
    candidate = copy(BASELINE, tmp_path, "candidate")
    shutil.rmtree(candidate / "scenarios")
    (candidate / "scenarios").mkdir()
    result = run_cli("compare", BASELINE, candidate)
    assert result.exit_code == 13 and "no shared row" in result.output


def test_an_axis_recorded_on_neither_side_blocks_only_under_strict(tmp_path: Path) -> None:
    baseline, candidate = copy(BASELINE, tmp_path, "baseline"), copy(BASELINE, tmp_path, "candidate")
    for run in (baseline, candidate):
        edit(run, lambda d: d.pop("stimulusHash"))
    assert run_cli("compare", baseline, candidate).exit_code == 0
    strict = run_cli("compare", "--strict", baseline, candidate)
    assert strict.exit_code == 13
    assert f"{ROW}: stimulus recorded on neither side (--strict)" in strict.output


def test_unusable_paths_exit_2(tmp_path: Path) -> None:
    result = run_cli("compare", tmp_path / "nope", CANDIDATE)
    assert result.exit_code == 2 and "not a store-v1 run folder" in result.output
    assert run_cli("compare", BASELINE).exit_code == 2


def test_a_tampered_sealed_run_is_refused(tmp_path: Path) -> None:
    candidate = tmp_path / "candidate"
    shutil.copytree(CANDIDATE, candidate)
    edit(candidate, lambda d: d.update(passed=not d["passed"]))
    result = run_cli("compare", BASELINE, candidate)
    assert result.exit_code == 3 and "hash mismatch" in result.output


def test_incomparable_json_still_lists_every_reason(tmp_path: Path) -> None:
    candidate = copy(BASELINE, tmp_path, "candidate")
    edit(candidate, RULES["evalKey"][0])
    result = run_cli("compare", "--json", BASELINE, candidate)
    assert result.exit_code == 13
    data = json.loads(result.output)
    assert (
        data["comparable"] is False
        and f"{ROW}: evalKey differs (recsys-grounding/tone-judged ≠ other/key)" in data["reasons"]
    )


def test_an_unfrozen_run_is_refused(tmp_path: Path) -> None:
    candidate = copy(CANDIDATE, tmp_path, "candidate")
    (candidate / "summary.json").unlink()
    result = run_cli("compare", BASELINE, candidate)
    assert result.exit_code == 3 and "an incomplete (unfrozen) run: no summary.json" in result.output


@pytest.mark.parametrize("value", ["NaN", "7.0", '"0.5"'])
def test_an_unusable_score_value_is_invalid_content(tmp_path: Path, value: str) -> None:
    candidate = copy(CANDIDATE, tmp_path, "candidate")

    def set_value(d: dict[str, Any]) -> None:
        tree = json.loads(d["output"])
        d["output"] = json.dumps(tree).replace(
            '"value": ' + json.dumps(tree["score"]["value"]), '"value": ' + value
        )

    edit(candidate, set_value)
    result = run_cli("compare", BASELINE, candidate)
    assert result.exit_code == 4, result.output
    assert "Traceback" not in result.output and "$.output" in result.output


def test_deltas_use_every_rows_score_and_passed_and_say_when_a_side_was_not_measured(tmp_path: Path) -> None:
    """As agenteval compare does: a row not measured on one side still has its score and passed
    compared; the row says which side was not measured."""
    baseline, candidate = copy(BASELINE, tmp_path, "baseline"), copy(BASELINE, tmp_path, "candidate")
    row = "c02\u00b7cites-source"

    def measured_pass(d: dict[str, Any]) -> None:
        tree = json.loads(d["output"])
        tree["score"].update(value=1.0, label="pass", passed=True)
        tree["score"].pop("measurement", None)
        d.update(output=json.dumps(tree), passed=True, score=1.0)

    def skipped(d: dict[str, Any]) -> None:
        tree = json.loads(d["output"])
        tree["score"].update(value=0.25, label="skipped", passed=False, measurement="notMeasured")
        d.update(output=json.dumps(tree), passed=False, score=0.25)

    edit(baseline, measured_pass, f"scenarios/{row}.json")
    edit(candidate, measured_pass, f"scenarios/{row}.json")
    edit(candidate, skipped, f"scenarios/{row}.json")
    result = run_cli("compare", "--json", baseline, candidate)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    (mine,) = [r for r in data["rows"] if r["id"] == row]
    assert (mine["baseline"], mine["candidate"], mine["delta"]) == (1.0, 0.25, -0.75)
    assert (mine["baseline_passed"], mine["candidate_passed"], mine["regressed"]) == (True, False, True)
    assert (mine["baseline_state"], mine["candidate_state"]) == ("measured", "notMeasured")
    already = {r["id"] for r in data["rows"] if r["baseline_state"] == "notMeasured"}  # both sides
    assert set(data["not_measured"]) == {row} | already and row in data["regressed"]
    # every other row is identical on both sides: the mean delta is −0.75 over 80 rows
    assert data["mean_delta"] == pytest.approx(-0.75 / 80)
    text = run_cli("compare", baseline, candidate).output
    assert "rows not measured on a side (their score and passed still compared" in text and row in text


def test_an_incomparable_json_carries_reasons_and_no_deltas(tmp_path: Path) -> None:
    candidate = copy(BASELINE, tmp_path, "candidate")
    edit(candidate, RULES["evalKey"][0])
    data = json.loads(run_cli("compare", "--json", BASELINE, candidate).output)
    assert data["comparable"] is False and data["reasons"]
    assert (data["rows"], data["recovered"], data["regressed"], data["mean_delta"]) == ([], [], [], None)


def test_a_pending_run_is_compared_not_refused() -> None:
    offline = next((STORE / "recsys-agent-v3" / "runs").iterdir())
    result = run_cli("compare", "--json", BASELINE, offline)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert len(data["not_measured"]) == 80 and all(
        r["candidate_state"] == "notMeasured" for r in data["rows"]
    )


def test_judge_axes_compare_case_insensitively() -> None:
    """The example candidate spells evalKey, judge.modelId and judge.rubricDigest in another case."""
    facts = json.loads((CANDIDATE / FILE).read_text(encoding="utf-8"))["comparability"]
    assert facts["judge"]["modelId"] == "Judge-Large-2" and facts["evalKey"].startswith("RecSys-")
    assert run_cli("compare", BASELINE, CANDIDATE).exit_code == 0

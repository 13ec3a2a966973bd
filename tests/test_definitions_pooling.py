"""The build never pools rows that `benchsite compare` would call incomparable."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from generator.inputs.seal import SEAL_NAME, write_seal
from tests.conftest import CORPUS, run_cli

BENCH = "recsys-grounding"


def only_definitions(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    root.mkdir()
    shutil.copytree(CORPUS / BENCH, root / BENCH)
    return root


def edit_row(root: Path, change: Any, row: str = "c01\u00b7cites-source.json") -> None:
    run = sorted(
        (root / BENCH / ".agenteval" / "subjects" / "agents" / "recsys-agent-v2" / "runs").iterdir()
    )[0]
    path = run / "scenarios" / row
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    (run / SEAL_NAME).unlink()
    write_seal(run)


def build(root: Path, tmp_path: Path) -> tuple[int, str]:
    result = run_cli("build", "--runs", root, "--out", tmp_path / "site")
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_a_row_of_another_eval_version_is_not_pooled(tmp_path: Path) -> None:
    root = only_definitions(tmp_path)
    edit_row(root, lambda d: d["comparability"].update(evalVersion="9.9.9"))
    code, output = build(root, tmp_path)
    assert code == 4 and "incomparable rows are never pooled" in output


def test_a_row_without_comparability_facts_is_not_pooled(tmp_path: Path) -> None:
    root = only_definitions(tmp_path)
    edit_row(root, lambda d: d.pop("comparability"))
    code, output = build(root, tmp_path)
    assert code == 4 and "no comparability facts" in output


def test_a_chance_floor_bar_other_than_the_definitions_floor_is_refused(tmp_path: Path) -> None:
    root = only_definitions(tmp_path)
    edit_row(root, lambda d: d["comparability"]["chanceFloor"].update(bar=0.3))
    code, output = build(root, tmp_path)
    assert code == 4 and "$.comparability.chanceFloor.bar" in output
    assert "0.3 is not the bar of the definition's floor for check 'cites-source' (0.25)" in output


def test_the_effective_bar_is_the_evals_pass_bar_not_the_floor(tmp_path: Path) -> None:
    """BenchmarkRunner writes effectiveBar = the score threshold (1.0) beside a 0.25 floor: it builds."""
    root = only_definitions(tmp_path)
    row = root / BENCH / ".agenteval/subjects/agents/recsys-agent/runs"
    first = sorted(row.iterdir())[0] / "scenarios" / "c01\u00b7cites-source.json"
    facts = json.loads(first.read_text(encoding="utf-8"))["comparability"]
    assert (facts["effectiveBar"], facts["chanceFloor"]["bar"]) == (1.0, 0.25)
    code, output = build(root, tmp_path)
    assert code == 0, output


def test_an_effective_bar_that_differs_across_pooled_rows_is_refused(tmp_path: Path) -> None:
    root = only_definitions(tmp_path)
    edit_row(root, lambda d: d["comparability"].update(effectiveBar=0.9))
    code, output = build(root, tmp_path)
    assert code == 4 and "incomparable rows are never pooled" in output


@pytest.mark.parametrize(
    ("axis", "change"),
    [
        ("evalKey", lambda d: d["comparability"].update(evalKey="RECSYS-GROUNDING/CITES-SOURCE")),
        ("evalVersion", lambda d: d["comparability"].update(evalVersion="1.2.0".upper())),
    ],
)
def test_text_axes_pool_case_insensitively(tmp_path: Path, axis: str, change: Any) -> None:
    root = only_definitions(tmp_path)
    edit_row(root, change)
    code, output = build(root, tmp_path)
    assert code == 0, (axis, output)


def test_a_blank_text_axis_is_not_recorded_and_does_not_pool_with_a_recorded_one(tmp_path: Path) -> None:
    root = only_definitions(tmp_path)
    edit_row(root, lambda d: d["comparability"].update(evalVersion="   "))
    code, output = build(root, tmp_path)
    assert code == 4 and "incomparable rows are never pooled" in output


def test_judge_axes_pool_case_insensitively(tmp_path: Path) -> None:
    def shout(d: dict[str, Any]) -> None:
        judge = d["comparability"]["judge"]
        judge.update(modelId=judge["modelId"].upper(), rubricDigest=judge["rubricDigest"].upper())

    root = only_definitions(tmp_path)
    edit_row(root, shout, row="c01\u00b7tone-judged.json")
    code, output = build(root, tmp_path)
    assert code == 0, output


def test_another_stimulus_for_the_same_case_is_refused(tmp_path: Path) -> None:
    root = only_definitions(tmp_path)

    def other_input(d: dict[str, Any]) -> None:
        import hashlib

        d["input"] = "a different question"
        d["stimulusHash"] = "sha256:" + hashlib.sha256(b"a different question").hexdigest()

    edit_row(root, other_input)
    code, output = build(root, tmp_path)
    assert code == 4 and "arms and reps must answer the same stimulus" in output


def test_a_correction_naming_nothing_is_refused(tmp_path: Path) -> None:
    root = only_definitions(tmp_path)
    ledger = root / BENCH / "corrections.json"
    data = json.loads(ledger.read_text(encoding="utf-8"))
    data["corrections"][0]["affects"] = ["check:no-such-check"]
    ledger.write_text(json.dumps(data), encoding="utf-8")
    (root / BENCH / SEAL_NAME).unlink()
    write_seal(root / BENCH)
    code, output = build(root, tmp_path)
    assert code == 4 and "'check:no-such-check' names nothing" in output

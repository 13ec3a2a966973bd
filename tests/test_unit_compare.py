"""Unit tests of ``generator.families.definitions.compare``: two store-v1 runs paired row by row by the
compare rules, or refused as incomparable with every reason, on runs built in memory (and tiny
folders)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from generator.errors import ProblemReport
from generator.families.definitions.compare import (
    StoreRun,
    UnusablePath,
    compare,
    load_rules,
    read_store_run,
    summary_text,
)
from generator.families.definitions.models import Scenario

FACTS: dict[str, Any] = {
    "evalKey": "Grounding",
    "evalVersion": "1",
    "effectiveBar": 1.0,
    "chanceFloor": {"kind": "binary", "state": "derived", "bar": 0.5},
}


def row(row_id: str, passed: bool, score: float | None, **facts: Any) -> Scenario:
    comparability = None if facts.get("none") else {**FACTS, **facts}
    return Scenario.model_validate(
        {"id": row_id, "passed": passed, "score": score, "stimulusHash": "s", "comparability": comparability}
    )


def run(name: str, *rows: Scenario, sealed: bool = True) -> StoreRun:
    return StoreRun(Path(name), sealed, None, {r.id: r for r in rows})


def test_comparable_runs_pair_every_shared_row() -> None:
    base = run("a", row("r1", False, 0.0), row("r2", True, 1.0), row("r3", True, 0.5))
    cand = run("b", row("r1", True, 1.0), row("r2", False, 0.0), row("r3", True, 0.75), sealed=False)
    result = compare(base, cand)
    assert result.comparable and result.reasons == ()
    assert [(d.id, d.delta) for d in result.rows] == [("r1", 1.0), ("r2", -1.0), ("r3", 0.25)]
    assert result.mean_delta == pytest.approx(0.25 / 3)
    assert (result.recovered, result.regressed) == (("r1",), ("r2",))
    assert result.sealed == (True, False) and result.without_usable_floor == ()
    text = summary_text(result)
    assert "candidate b (unsealed)" in text
    assert "comparable: 3 row(s) paired; mean delta +0.0833" in text
    assert "recovered (1): r1" in text and "regressed (1): r2" in text


def test_a_row_without_a_score_pairs_but_adds_no_delta() -> None:
    result = compare(run("a", row("r1", True, None)), run("b", row("r1", True, 1.0)))
    assert result.comparable and result.rows[0].delta is None and result.mean_delta is None
    assert "mean delta —" in summary_text(result)


def test_every_reason_is_listed_and_no_delta_is_given() -> None:
    base = run("a", row("r1", True, 1.0), row("r2", True, 1.0, evalVersion="1"), row("only-a", True, 1.0))
    cand = run(
        "b", row("r1", True, 1.0, none=True), row("r2", True, 1.0, evalVersion="2"), row("only-b", True, 1.0)
    )
    result = compare(base, cand)
    assert not result.comparable and result.rows == () and result.mean_delta is None
    assert result.reasons == (
        "only-a: only in the baseline",
        "only-b: only in the candidate",
        "r1: no comparability facts on the candidate side",
        "r2: evalVersion differs (1 ≠ 2)",
    )
    assert summary_text(result).splitlines()[2:] == ["INCOMPARABLE:", *(f"  {r}" for r in result.reasons)]


def test_text_axes_fold_case_and_a_blank_axis_is_recorded_on_one_side_only() -> None:
    same = compare(run("a", row("r1", True, 1.0)), run("b", row("r1", True, 1.0, evalKey="GROUNDING")))
    assert same.comparable
    blank = compare(run("a", row("r1", True, 1.0)), run("b", row("r1", True, 1.0, evalKey="  ")))
    assert blank.reasons == ("r1: evalKey recorded on one side only",)
    assert compare(run("a"), run("b")).reasons == ("no shared row",)


def test_the_strict_flag_blocks_an_axis_recorded_on_neither_side() -> None:
    base, cand = (
        run("a", row("r1", True, 1.0, effectiveBar=None)),
        run("b", row("r1", True, 1.0, effectiveBar=None)),
    )
    assert compare(base, cand).comparable
    assert compare(base, cand, strict=True).reasons == (
        "r1: effectiveBar recorded on neither side (--strict)",
    )


def test_a_specification_gating_on_the_floor_refuses_a_row_without_a_usable_one() -> None:
    rules = load_rules(None)
    gating = dataclasses.replace(rules, gating=rules.gating | {"usable_floor"})
    no_floor = {"chanceFloor": {"kind": "binary", "state": "notDerivable"}}
    base, cand = run("a", row("r1", True, 1.0, **no_floor)), run("b", row("r1", True, 1.0, **no_floor))
    assert compare(base, cand, rules=rules).without_usable_floor == ("r1",)
    text = summary_text(compare(base, cand, rules=rules), rules)
    assert text.endswith(
        "rows without a usable floor: 1\nrows judged by their own subject's model: 0\n"
        "floors and self-judging are reported, not gating"
    )
    assert summary_text(compare(base, cand, rules=rules), gating).endswith(
        "self-judging is reported, not gating"
    )
    refused = compare(base, cand, rules=gating)
    assert refused.reasons == ("r1: no usable floor (gating under the scoring specification)",)


def test_load_rules_reads_a_definitions_specification_and_refuses_others(tmp_path: Path) -> None:
    assert "evalKey" in load_rules(None).gating
    other = tmp_path / "scoring.json"
    other.write_text('{"family": "points"}')
    with pytest.raises(ProblemReport) as refused:
        load_rules(other)
    assert [p.where for p in refused.value.problems] == ["$.family"]
    with pytest.raises(ProblemReport) as missing:
        load_rules(tmp_path / "missing.json")
    assert [p.refused for p in missing.value.problems] == [True]


def test_a_folder_without_a_manifest_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(UnusablePath, match=r"no manifest\.json"):
        read_store_run(tmp_path)

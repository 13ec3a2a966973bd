"""Unit tests of ``generator.families.definitions.pooling``: which rows of a check may be pooled
across arms and reps (a row's own comparability facts, then each row against the first of its check
and of its case)."""

from __future__ import annotations

import dataclasses
from typing import Any

from generator.families.definitions.models import Scenario
from generator.families.definitions.pooling import (
    SIGNATURE_AXES,
    PooledRow,
    Signature,
    pooling_facts,
    pooling_problems,
)
from generator.families.definitions.spec import seed_rules

RULES = seed_rules()


def scenario(comparability: dict[str, Any] | None, stimulus: str | None = "s1") -> Scenario:
    raw: dict[str, Any] = {"id": "row-1", "passed": True, "stimulusHash": stimulus}
    if comparability is not None:
        raw["comparability"] = comparability
    return Scenario.model_validate(raw)


FACTS: dict[str, Any] = {
    "evalKey": "  Grounding ",
    "evalVersion": "V1",
    "effectiveBar": 1.0,
    "chanceFloor": {"kind": "binary", "state": "derived", "bar": 0.5},
    "judge": {"modelId": "Judge-A", "rubricDigest": ""},
}


def test_a_rows_signature_folds_case_and_drops_blank_axes() -> None:
    facts = pooling_facts(scenario(FACTS), "scenarios/a.json", "case-1", "chk", 0.5, "f.json", RULES)
    assert facts.problems == ()
    row = facts.value
    assert row is not None
    assert len(row.signature) == len(SIGNATURE_AXES) == 6
    # evalKey keeps its spaces (only a blank value is unrecorded); the rubric digest "" is not recorded
    assert row.signature == ("  grounding ", "v1", 1.0, True, "judge-a", None)
    assert (row.file, row.id, row.case, row.check, row.stimulus) == (
        "scenarios/a.json",
        "row-1",
        "case-1",
        "chk",
        "s1",
    )


def test_a_row_without_comparability_facts_is_not_pooled() -> None:
    facts = pooling_facts(scenario(None), "scenarios/a.json", "c", "chk", 0.5, "f.json", RULES)
    assert facts.value is None
    assert [(p.file, p.where) for p in facts.problems] == [("f.json", "$.comparability")]


def test_a_recorded_floor_bar_must_be_the_definitions_within_tolerance() -> None:
    near = 0.5 + RULES.bar_tolerance / 2
    assert pooling_facts(scenario(FACTS), "r", "c", "chk", near, "f.json", RULES).problems == ()
    for bar in (0.75, None):
        facts = pooling_facts(scenario(FACTS), "r", "c", "chk", bar, "f.json", RULES)
        assert facts.value is not None  # still pooled: the floor problem is reported beside it
        assert [p.where for p in facts.problems] == ["$.comparability.chanceFloor.bar"]


def test_without_a_judge_the_judge_axes_are_none_and_unfolded_axes_keep_case() -> None:
    facts = {"evalKey": "K", "evalVersion": "V"}
    unfolded = dataclasses.replace(RULES, folded=frozenset())
    row = pooling_facts(scenario(facts), "r", "c", "chk", None, "f.json", unfolded).value
    assert row is not None and row.signature == ("K", "V", None, False, None, None)


def pooled(row_id: str, signature: Signature, stimulus: str | None = "s1", case: str = "c") -> PooledRow:
    return PooledRow(
        file=f"scenarios/{row_id}.json",
        id=row_id,
        case=case,
        check="chk",
        signature=signature,
        stimulus=stimulus,
    )


SIG: Signature = ("k", "v1", 1.0, False, None, None)


def test_rows_are_checked_against_the_first_row_of_their_check_and_case() -> None:
    signatures: dict[str, tuple[Signature, str]] = {}
    stimuli: dict[tuple[str, str], tuple[str | None, str]] = {}
    rows = (
        pooled("a", SIG),
        pooled("b", SIG),
        pooled("c", ("k", "v2", 1.0, False, None, None)),
        pooled("d", SIG, stimulus="s2"),
        pooled("e", SIG, stimulus="s2", case="other"),  # another case: its own first stimulus
    )
    problems = pooling_problems(signatures, stimuli, rows, "run-1", RULES)
    assert [(p.file, p.where) for p in problems] == [
        ("run-1/scenarios/c.json", "$.comparability"),
        ("run-1/scenarios/d.json", "$.stimulusHash"),
    ]
    assert "'a'" in problems[0].message and "'a'" in problems[1].message
    assert signatures == {"chk": (SIG, "a")}  # the first rows are remembered for the next run
    assert stimuli == {("c", "chk"): ("s1", "a"), ("other", "chk"): ("s2", "e")}
    later = pooling_problems(
        signatures, stimuli, (pooled("f", ("k", "v2", 1.0, False, None, None)),), "run-2", RULES
    )
    assert [p.file for p in later] == ["run-2/scenarios/f.json"]


def test_only_the_axes_the_specification_gates_on_count() -> None:
    lenient = dataclasses.replace(RULES, gating=frozenset({"evalKey"}))
    rows = (pooled("a", SIG), pooled("b", ("k", "v2", 0.5, True, "j", None), stimulus="s2"))
    assert pooling_problems({}, {}, rows, "run", lenient) == []
    rows = (pooled("a", SIG), pooled("b", ("K", "v1", 1.0, False, None, None)))
    assert [p.where for p in pooling_problems({}, {}, rows, "run", lenient)] == ["$.comparability"]

"""Unit tests of ``generator.families.points.source``: whether the built-in specification scores a
points contract, and where a contract and a specification disagree."""

from __future__ import annotations

import copy
import json
from typing import Any

from generator.families.points.models import PointsContract
from generator.families.points.source import SEED_ARTIFACT, agreement_problems, states_seed_rules
from generator.families.points.spec import BUILTIN_FILE, PointsSpec
from tests.conftest import SEEDS

SEED: dict[str, Any] = json.loads((SEEDS / "000_4822e52dd1681ead.txt").read_text())
SPEC: dict[str, Any] = json.loads(BUILTIN_FILE.read_text())


def contract(change: dict[str, Any] | None = None) -> PointsContract:
    raw = copy.deepcopy(SEED)
    raw.update(change or {})
    return PointsContract.model_validate_json(json.dumps(raw))


def spec(change: dict[str, Any] | None = None) -> PointsSpec:
    raw = copy.deepcopy(SPEC)
    raw.update(change or {})
    return PointsSpec.model_validate_json(json.dumps(raw))


def test_the_seed_states_the_seed_rules_and_a_successor_with_other_status_still_does() -> None:
    assert SEED["artifactId"] == SEED_ARTIFACT
    assert states_seed_rules(contract())
    assert states_seed_rules(contract({"status": "current", "artifactVersion": "2027-01-01.1"}))


def test_another_artifact_or_other_rules_are_not_the_seed() -> None:
    assert not states_seed_rules(contract({"artifactId": "my-own-rubric"}))
    dims = copy.deepcopy(SEED["pointDimensions"])
    dims[0]["weight"] = dims[0]["weight"] + 1
    assert not states_seed_rules(contract({"pointDimensions": dims}))


def test_the_seed_agrees_with_its_builtin_specification() -> None:
    assert agreement_problems(spec(), contract(), "rubric.json", "the built-in spec") == []


def test_each_disagreement_names_the_contract_field_and_the_specification() -> None:
    dims = [dict(d) for d in SPEC["dimensions"]]
    dims[0]["weight"] = dims[0]["weight"] + 1
    checks = list(SPEC["mandatory_checks"])[1:]
    total = SPEC["deterministic_total"] + 1
    other = spec(
        {
            "rubric": "someone-else",
            "dimensions": dims,
            "deterministic_total": total,
            "mandatory_checks": checks,
        }
    )
    problems = agreement_problems(other, contract(), "rubric.json", "scoring.json")
    assert [(p.file, p.where) for p in problems] == [
        ("rubric.json", "$.artifactId"),
        ("rubric.json", "$.pointDimensions"),
        ("rubric.json", "$.mandatoryChecks"),
    ]
    assert all("scoring.json" in p.message for p in problems)
    assert "'someone-else'" in problems[0].message

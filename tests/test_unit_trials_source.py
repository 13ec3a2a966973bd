"""Unit tests of ``generator.families.trials.source``: whether the built-in specification scores a
trials contract, and where a contract and a specification disagree."""

from __future__ import annotations

import copy
import json
from typing import Any

from generator.families.trials.models import TrialsContract
from generator.families.trials.source import REVEALS, SEED_RUBRIC, agreement_problems, states_seed_rules
from generator.families.trials.spec import BUILTIN_FILE, TrialsSpec
from tests.conftest import SEEDS

SEED: dict[str, Any] = json.loads((SEEDS / "001_a89dc2f910ac40b2.txt").read_text())
SPEC: dict[str, Any] = json.loads(BUILTIN_FILE.read_text())
REVEALED = "$.blind_scoring.provider_identity_revealed_after_score_is_frozen"


def contract(change: dict[str, Any] | None = None) -> TrialsContract:
    raw = copy.deepcopy(SEED)
    raw.update(change or {})
    return TrialsContract.model_validate_json(json.dumps(raw))


def spec(change: dict[str, Any] | None = None) -> TrialsSpec:
    raw = copy.deepcopy(SPEC)
    raw.update(change or {})
    return TrialsSpec.model_validate_json(json.dumps(raw))


def test_seed_rules_are_recognised_under_any_rubric_id_but_not_with_other_metrics() -> None:
    assert SEED["rubric_id"] == SEED_RUBRIC
    assert states_seed_rules(contract())
    assert states_seed_rules(contract({"rubric_id": "autonomous-delivery-v2"}))
    assert not states_seed_rules(contract({"secondary_metrics": SEED["secondary_metrics"][:-1]}))


def test_the_seed_and_a_renamed_restatement_agree_with_the_builtin_specification() -> None:
    assert agreement_problems(spec(), contract(), "rubric.json", "built-in") == []
    renamed = contract({"rubric_id": "autonomous-delivery-v2"})  # the seed's rules, restated
    assert agreement_problems(spec(), renamed, "rubric.json", "built-in") == []


def test_a_renamed_contract_with_other_rules_is_not_the_specifications_rubric() -> None:
    other = contract(
        {"rubric_id": "autonomous-delivery-v2", "secondary_metrics": SEED["secondary_metrics"][:-1]}
    )
    places = [p.where for p in agreement_problems(spec(), other, "rubric.json", "built-in")]
    assert places == ["$.rubric_id", "$.secondary_metrics"]


def test_the_reveal_rule_must_agree_with_the_contracts_blind_scoring() -> None:
    assert REVEALS == {True: "after_scores_frozen", False: "never"}
    never = spec({"blind": {**SPEC["blind"], "reveal": "never"}})
    problems = agreement_problems(never, contract(), "rubric.json", "scoring.json")
    assert [(p.file, p.where) for p in problems] == [("rubric.json", REVEALED)]
    assert problems[0].message == "true, but scoring.json says $.blind.reveal: 'never'"
    blind = {**SEED["blind_scoring"], "provider_identity_revealed_after_score_is_frozen": False}
    hidden = contract({"blind_scoring": blind})
    assert [p.where for p in agreement_problems(never, hidden, "rubric.json", "scoring.json")] == []

"""Unit tests of ``generator.families.components.source``: whether the built-in specification scores
a components contract, where a contract's sentences or ``benchmark.json`` disagree with a
specification, and the weights each task is scored by."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from typing import Any

from generator.families.components.models import ComponentsContract, ComponentsDeclaration
from generator.families.components.source import agreement_problems, states_seed_rules, weighted_tasks
from generator.families.components.spec import BUILTIN_FILE, ComponentsSpec, compile_spec
from tests.conftest import CORPUS, SEEDS

SEED: dict[str, Any] = json.loads((SEEDS / "003_8d1dd585b5526139.txt").read_text())
SPEC: dict[str, Any] = json.loads(BUILTIN_FILE.read_text())
DECLARATION: dict[str, Any] = json.loads((CORPUS / "je-validation" / "benchmark.json").read_text())


def contract(rubric: dict[str, str] | None = None, protocol: list[str] | None = None) -> ComponentsContract:
    raw = copy.deepcopy(SEED)
    raw["judge_rubric"].update(rubric or {})
    if protocol is not None:
        raw["judge_protocol"] = protocol
    return ComponentsContract.model_validate_json(json.dumps(raw))


def spec(change: dict[str, Any] | None = None) -> ComponentsSpec:
    raw = copy.deepcopy(SPEC)
    raw.update(change or {})
    return ComponentsSpec.model_validate_json(json.dumps(raw))


def declaration(change: dict[str, Any] | None = None) -> ComponentsDeclaration:
    raw = copy.deepcopy(DECLARATION)
    raw.update(change or {})
    return ComponentsDeclaration.model_validate_json(json.dumps(raw))


def test_the_seed_states_the_seed_rules_and_a_changed_sentence_does_not() -> None:
    assert states_seed_rules(contract())
    assert not states_seed_rules(contract({"pass_bar": ">=10/12 total"}))


def test_the_seed_agrees_with_the_builtin_specification() -> None:
    assert agreement_problems(spec(), contract(), "rubric.json", "built-in") == []


def test_the_pass_bar_scale_and_judge_protocol_sentences_are_checked_where_they_state_a_figure() -> None:
    changed = contract(
        {"pass_bar": ">= 10 / 12 total", "scale": "each criterion 0-4"},
        ["Criteria scored in separate calls.", "5 judges, mean, on L3, L4 tasks."],
    )
    problems = agreement_problems(spec(), changed, "rubric.json", "scoring.json")
    assert [p.where for p in problems] == [
        "$.judge_rubric.pass_bar",
        "$.judge_rubric.scale",
        "$.judge_protocol[1]",
    ]
    assert "at least 9 of 12" in problems[0].message
    assert "0–3" in problems[1].message
    assert "3 judges, median, on L4" in problems[2].message


def test_sentences_without_a_figure_are_left_to_the_reader() -> None:
    vague = contract({"pass_bar": "most criteria met", "scale": "coarse"}, ["judges agree, roughly"])
    assert agreement_problems(spec(), vague, "rubric.json", "built-in") == []


def test_a_criterion_counted_in_the_total_raises_the_maximum_the_pass_bar_is_read_against() -> None:
    over_all = spec({"pass_bar": {**SPEC["pass_bar"], "total_over": "all"}})  # 3 × (4 + 1) = 15
    problems = agreement_problems(over_all, contract(), "rubric.json", "built-in")
    assert [p.where for p in problems] == ["$.judge_rubric.pass_bar"]
    assert "of 15" in problems[0].message


def test_the_corpus_declaration_agrees_and_keeps_each_tasks_own_weights() -> None:
    weighted = weighted_tasks(declaration(), "benchmark.json", compile_spec(spec()), "built-in")
    assert weighted.problems == ()
    tasks = weighted.value
    assert tasks is not None
    assert list(tasks) == [t["id"] for t in DECLARATION["tasks"]]
    first = tasks["JE-01"].weights
    assert first is not None and (first.outcome, first.process, first.rationale) == (
        Decimal("0.6"),
        Decimal("0.2"),
        Decimal("0.2"),
    )


def test_minimum_seeds_and_missing_task_weights_are_named() -> None:
    raw_tasks = copy.deepcopy(DECLARATION["tasks"])
    del raw_tasks[1]["weights"]
    rules = compile_spec(spec({"seeds": {**SPEC["seeds"], "minimum": 7}}))
    weighted = weighted_tasks(declaration({"tasks": raw_tasks}), "benchmark.json", rules, "built-in")
    assert [(p.file, p.where) for p in weighted.problems] == [
        ("benchmark.json", "$.minimum_seeds"),
        ("benchmark.json", "$.tasks[1].weights"),
    ]


def test_fixed_weights_replace_a_tasks_missing_weights_and_refuse_other_ones() -> None:
    fixed = {
        "kind": "fixed_weights",
        "weights": {"outcome": 0.5, "process": 0.3, "rationale": 0.2},
        "total": 1,
    }
    raw_tasks = copy.deepcopy(DECLARATION["tasks"])
    del raw_tasks[1]["weights"]
    raw_tasks[2]["weights"] = {"outcome": 0.5, "process": 0.3, "rationale": 0.2}
    rules = compile_spec(spec({"combine": fixed}))
    weighted = weighted_tasks(declaration({"tasks": raw_tasks}), "benchmark.json", rules, "built-in")
    tasks, problems = weighted.value, weighted.problems
    assert tasks is not None
    others = [i for i, t in enumerate(raw_tasks) if "weights" in t and t["weights"] != fixed["weights"]]
    assert 0 in others and 1 not in others and 2 not in others  # JE-01 states 0.6 / 0.2 / 0.2
    assert [p.where for p in problems] == [f"$.tasks[{i}].weights" for i in others]
    for task in tasks.values():
        assert task.weights is not None
        assert (task.weights.outcome, task.weights.process, task.weights.rationale) == (
            Decimal("0.5"),
            Decimal("0.3"),
            Decimal("0.2"),
        )

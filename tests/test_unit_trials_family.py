"""Unit tests of ``generator.families.trials.family``: the family's hooks (recognising a contract,
choosing its built-in specification, preparing the plan, scoring one run and folding runs in) and
the readings of a contract scored by its own specification. The benchmark is the example corpus's
``vibe-delivery``, read in place (nothing is written)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from generator.families.trials.family import (
    INTERPRETATIONS,
    PARAMETERS,
    TrialsFamily,
    TrialsPart,
    TrialsState,
    spec_interpretations,
)
from generator.families.trials.models import TrialsContract
from generator.families.trials.spec import BUILTIN_FILE, TrialsSpec
from generator.inputs.discover import FolderReads, discover
from generator.score.run import Prepared, prepare, read_benchmark
from generator.score.workers import verified_run
from tests.conftest import CORPUS, SEEDS

FAMILY = TrialsFamily()
SEED: dict[str, Any] = json.loads((SEEDS / "001_a89dc2f910ac40b2.txt").read_text())
SPEC: dict[str, Any] = json.loads(BUILTIN_FILE.read_text())


@pytest.fixture(scope="module")
def prepared() -> Prepared:
    layouts = discover(CORPUS).value
    assert layouts is not None
    layout = next(layout for layout in layouts if layout.id == "vibe-delivery")
    declared = read_benchmark("runs/vibe-delivery", layout, FolderReads()).value
    assert declared is not None
    result = prepare("runs/vibe-delivery", layout, declared, None)
    assert result.problems == () and result.value is not None
    return result.value


def test_a_contract_is_recognised_by_its_primary_metric() -> None:
    assert FAMILY.recognises(SEED)
    assert not FAMILY.recognises({"rubric_id": "x"})
    assert not FAMILY.recognises(None) and not FAMILY.recognises([SEED])


def test_only_a_contract_stating_the_seeds_rules_gets_the_builtin_specification() -> None:
    seed = TrialsContract.model_validate_json(json.dumps(SEED))
    assert FAMILY.builtin_spec(seed) == BUILTIN_FILE
    assert FAMILY.contract_spec(seed) is None  # the seed carries no scoring object
    other = copy.deepcopy(SEED)
    other["secondary_metrics"] = other["secondary_metrics"][:-1]
    assert FAMILY.builtin_spec(TrialsContract.model_validate_json(json.dumps(other))) is None


def test_the_builtin_specification_readings_cover_every_seed_interpretation() -> None:
    readings = spec_interpretations(TrialsSpec.model_validate_json(BUILTIN_FILE.read_bytes()))
    assert [r.id for r in readings] == [i.id for i in INTERPRETATIONS] == [p[0] for p in PARAMETERS]
    assert readings[-1].reading == INTERPRETATIONS[-1].reading  # reveals after the scores are frozen
    assert readings[0].text == f"rates.basis_points: {SPEC['rates']['basis_points']}"


def test_a_specification_that_never_reveals_says_so() -> None:
    never = copy.deepcopy(SPEC)
    never["blind"]["reveal"] = "never"
    readings = spec_interpretations(TrialsSpec.model_validate_json(json.dumps(never)))
    assert (readings[-1].text, readings[-1].reading) == (
        "blind.reveal: never",
        "A reveal is refused: identities stay blind in every version.",
    )


def test_preparing_indexes_the_plan_and_its_required_checks(prepared: Prepared) -> None:
    plan = prepared.state.plan
    assert len(plan.trials) == 44 and len(plan.sha256) == 64
    trial = plan.trials["t01"]
    assert plan.required_for(trial) == plan.required[(trial.prompt_corpus_version, trial.prompt_id)]
    assert plan.required_for(trial)  # the corpus requires at least one check of every prompt


def test_a_trial_scored_in_two_runs_is_refused_when_folded(prepared: Prepared) -> None:
    bench, state = prepared.bench, prepared.state
    rel, run_id = prepared.jobs[0]
    run = verified_run(bench.folder.path / rel).value
    assert run is not None
    scoring = FAMILY.score_run(bench, state, run_id, run)
    scored = scoring.value
    assert scoring.problems == () and scored is not None
    part = scored.part
    assert isinstance(part, TrialsPart) and part.trial_ids[:2] == ("t01", "t05")
    fresh = TrialsState(state.rules, state.source, state.plan, None)  # nothing folded in yet
    assert FAMILY.fold(bench, fresh, run_id, part) == []
    assert len(fresh.figures) == len(part.trial_ids)
    again = FAMILY.fold(bench, fresh, "run-x", part)
    assert len(again) == len(part.trial_ids)
    assert again[0].message == f"trial 't01' also has a result in run {run_id!r}"
    assert again[0].file == "runs/vibe-delivery/run-x/results.jsonl"
    assert len(fresh.figures) == len(part.trial_ids)  # a refused run adds no figure

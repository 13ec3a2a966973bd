"""How a trials contract relates to its scoring specification: whether the built-in specification
scores it (a contract stating seed 001's rules), and where its structured fields disagree with a
specification. Where a specification comes from is ``generator.families.specs``.
"""

from __future__ import annotations

from generator.errors import Problem
from generator.families.trials.models import SEED_RULES_SHA256, TrialsContract
from generator.families.trials.spec import TrialsSpec

SEED_RUBRIC = "autonomous-delivery-v1"
REVEALS = {True: "after_scores_frozen", False: "never"}
"""A contract's ``provider_identity_revealed_after_score_is_frozen`` as ``blind.reveal`` says it."""


def states_seed_rules(contract: TrialsContract) -> bool:
    """Whether the built-in specification scores this contract: it states seed 001's rules (its
    ``primary_metric``, ``dimensions``, ``secondary_metrics`` and ``blind_scoring``), under any rubric id."""
    return contract.rules_sha256 == SEED_RULES_SHA256


def agreement_problems(
    spec: TrialsSpec, contract: TrialsContract, contract_file: str, place: str
) -> list[Problem]:
    """Where a contract's structured fields and its specification disagree: each names both places."""
    problems = []
    seed_restated = spec.rubric == SEED_RUBRIC and states_seed_rules(contract)
    if spec.rubric != contract.rubric_id and not seed_restated:
        message = f"{place} is a specification of {spec.rubric!r}, not of this contract"
        problems.append(Problem(contract_file, "$.rubric_id", message))
    stated = list(contract.secondary_metrics)
    specified = [metric.name for metric in spec.secondary]
    if stated != specified:
        message = f"secondary metrics {stated} differ from {place} ($.secondary names: {specified})"
        problems.append(Problem(contract_file, "$.secondary_metrics", message))
    revealed = contract.blind_scoring.provider_identity_revealed_after_score_is_frozen
    if REVEALS[revealed] != spec.blind.reveal:
        message = f"{str(revealed).lower()}, but {place} says $.blind.reveal: {spec.blind.reveal!r}"
        where = "$.blind_scoring.provider_identity_revealed_after_score_is_frozen"
        problems.append(Problem(contract_file, where, message))
    return problems

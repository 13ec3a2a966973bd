"""How a points contract relates to its scoring specification: whether the built-in specification
scores it (the seed's artifact with the seed's rules), and where its structured fields disagree
with a specification. Where a specification comes from is ``generator.families.specs``.
"""

from __future__ import annotations

from generator.errors import Problem
from generator.families.points.models import SEED_RULES_SHA256, PointsContract
from generator.families.points.spec import PointsSpec

SEED_ARTIFACT = "agent-dx-score-contract"


def states_seed_rules(contract: PointsContract) -> bool:
    """Whether the built-in specification scores this contract: the seed's artifact with its rules."""
    return contract.artifactId == SEED_ARTIFACT and contract.rules_sha256 == SEED_RULES_SHA256


def agreement_problems(
    spec: PointsSpec, contract: PointsContract, contract_file: str, place: str
) -> list[Problem]:
    """Where a contract's structured fields and its specification disagree: each names both places."""
    problems = []
    if spec.rubric != contract.artifactId:
        message = f"{place} is a specification of {spec.rubric!r}, not of this contract"
        problems.append(Problem(contract_file, "$.artifactId", message))
    stated = [(d.name, d.weight) for d in contract.pointDimensions]
    specified = [(d.name, d.weight) for d in spec.dimensions]
    if stated != specified:
        message = f"dimensions and weights {stated} differ from {place} ($.dimensions: {specified})"
        problems.append(Problem(contract_file, "$.pointDimensions", message))
    if list(contract.mandatoryChecks) != list(spec.mandatory_checks):
        message = (
            f"mandatory checks {list(contract.mandatoryChecks)} differ from {place} "
            f"($.mandatory_checks: {list(spec.mandatory_checks)})"
        )
        problems.append(Problem(contract_file, "$.mandatoryChecks", message))
    return problems

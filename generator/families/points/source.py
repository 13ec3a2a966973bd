"""Which scoring specification a points benchmark is scored by, and whether its contract agrees.

In order: the contract's own ``scoring`` object; a sealed ``scoring.json`` pinned in
``benchmark.json`` (both at once is refused: one rubric, one specification); the built-in
specification when the contract states exactly the seed contract's rules. A contract with other
rules and no specification is invalid content: benchsite never guesses how a rubric scores.
"""

from __future__ import annotations

import hashlib

from generator.errors import Problem
from generator.families.base import BenchmarkContext
from generator.families.points.models import SEED_RULES_SHA256, PointsContract, PointsDeclaration
from generator.families.points.spec import (
    BUILTIN_FILE,
    PointsRules,
    PointsSpec,
    SpecSource,
    builtin_spec,
    compile_spec,
)
from generator.jsonio import load_json_bytes, validate_model

SEED_ARTIFACT = "agent-dx-score-contract"


def resolve(bench: BenchmarkContext) -> tuple[PointsRules | None, SpecSource | None, list[Problem]]:
    """The benchmark's compiled specification and where it came from, or the problems."""
    decl: PointsDeclaration = bench.declaration
    contract: PointsContract = bench.contract
    contract_file = f"{bench.label}/{decl.rubric.file}"
    spec, source, problems = _find(bench, decl, contract, contract_file)
    if spec is None or source is None:
        return None, None, problems
    place = "the built-in specification" if source.kind == "built-in" else f"{source.file}"
    problems += agreement_problems(spec, contract, contract_file, place)
    return (None if problems else compile_spec(spec)), source, problems


def _find(
    bench: BenchmarkContext, decl: PointsDeclaration, contract: PointsContract, contract_file: str
) -> tuple[PointsSpec | None, SpecSource | None, list[Problem]]:
    if contract.scoring is not None and decl.scoring is not None:
        message = (
            f"the contract carries a scoring object and benchmark.json pins {decl.scoring.file!r}: "
            "give one specification"
        )
        return None, None, [Problem(f"{bench.label}/benchmark.json", "$.scoring", message)]
    if contract.scoring is not None:
        return contract.scoring, SpecSource("contract", decl.rubric.file, bench.rubric_sha256), []
    if decl.scoring is not None:
        return read_pinned(bench, decl.scoring.file, decl.scoring.sha256)
    if states_seed_rules(contract):
        spec, digest = builtin_spec()
        return spec, SpecSource("built-in", BUILTIN_FILE.name, digest), []
    message = (
        "no scoring specification: this contract's rules are not the seed contract's, so benchsite "
        "cannot know how it scores; add a 'scoring' object to the contract or a sealed scoring.json "
        "pinned in benchmark.json ($.scoring), as docs/scoring.md describes"
    )
    return None, None, [Problem(contract_file, "", message)]


def states_seed_rules(contract: PointsContract) -> bool:
    """Whether the built-in specification scores this contract: the seed's artifact with its rules."""
    return contract.artifactId == SEED_ARTIFACT and contract.rules_sha256 == SEED_RULES_SHA256


def read_pinned(
    bench: BenchmarkContext, name: str, pinned: str
) -> tuple[PointsSpec | None, SpecSource | None, list[Problem]]:
    """A sealed scoring.json, checked against its pin and validated."""
    file = f"{bench.label}/{name}"
    data = bench.folder.files.get(name)
    if data is None:
        message = "the scoring specification pinned in benchmark.json is not in the sealed folder"
        return None, None, [Problem(file, "", message, refused=True)]
    digest = hashlib.sha256(data).hexdigest()
    if digest != pinned:
        message = f"does not match its pin in benchmark.json: pinned {pinned[:16]}…, found {digest[:16]}…"
        return None, None, [Problem(file, "", message, refused=True)]
    spec, problems = read_spec(data, file)
    return spec, (SpecSource("file", name, digest) if spec else None), problems


def read_spec(data: bytes, file: str) -> tuple[PointsSpec | None, list[Problem]]:
    raw, problems = load_json_bytes(data, file)
    if raw is None:
        return None, problems
    return validate_model(PointsSpec, raw, file)


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

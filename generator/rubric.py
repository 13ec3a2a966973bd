"""``benchsite rubric explain|check``: a contract's or a scoring specification's rules, in words.

A file holding a ``family`` field is a scoring specification (``scoring.json``); any other is a
rubric contract, whose family is told by its shape. A points contract is explained by its own
``scoring`` object, else, when it states the seed contract's rules, by the built-in specification.
Specifications for the trials, components and definitions families are not data yet: their
contracts are checked, and their rules are those docs/<family>.md describes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.errors import Problem
from generator.families.points.models import PointsContract
from generator.families.points.source import agreement_problems, read_spec, states_seed_rules
from generator.families.points.spec import BUILTIN_FILE, PointsSpec, builtin_spec, explain
from generator.files import ReadFailure, read_regular
from generator.jsonio import load_json_bytes, validate_model

CONTRACT_FAMILIES = {
    "pointDimensions": "points",
    "primary_metric": "trials",
    "components": "components",
}


@dataclass(frozen=True)
class Explained:
    """What ``rubric explain`` prints: the file's digest, where its rules come from, the rules."""

    file: str
    sha256: str
    family: str
    source: str
    rules: tuple[str, ...]


def read(path: Path) -> tuple[Explained | None, list[Problem]]:
    """Read and validate a contract or specification; its rules in words, or every problem."""
    file = str(path)
    try:
        data = read_regular(path)
    except ReadFailure as exc:
        return None, [Problem(file, "", str(exc), refused=exc.refused)]
    except OSError as exc:
        return None, [Problem(file, "", exc.strerror or str(exc))]
    digest = hashlib.sha256(data).hexdigest()
    raw, problems = load_json_bytes(data, file)
    if raw is None:
        return None, problems
    if not isinstance(raw, dict):
        return None, [
            Problem(file, "$", "expected a JSON object: a rubric contract or a scoring specification")
        ]
    if isinstance(raw.get("rubric"), dict):
        message = (
            "a benchmark declaration (benchmark.json): give the rubric file it pins, or its scoring.json"
        )
        return None, [Problem(file, "$.rubric", message)]
    if "family" in raw:
        return _specification(raw, file, digest)
    family = next((f for key, f in CONTRACT_FAMILIES.items() if key in raw), None)
    if family == "points":
        return _points_contract(raw, file, digest)
    if family is None:
        message = "neither a scoring specification (no 'family') nor a rubric contract benchsite knows"
        return None, [Problem(file, "$", message)]
    return _other_contract(raw, file, digest, family)


def _specification(raw: dict[str, Any], file: str, digest: str) -> tuple[Explained | None, list[Problem]]:
    if raw.get("family") != "points":
        message = (
            f"a scoring specification for family {raw.get('family')!r}: only points specifications "
            "are data so far (trials, components and definitions score by their documented rules)"
        )
        return None, [Problem(file, "$.family", message)]
    spec, problems = validate_model(PointsSpec, raw, file)
    if spec is None:
        return None, problems
    return Explained(file, digest, "points", f"the specification {file}", explain(spec)), []


def _points_contract(raw: dict[str, Any], file: str, digest: str) -> tuple[Explained | None, list[Problem]]:
    contract, problems = validate_model(PointsContract, raw, file)
    if contract is None:
        return None, problems
    pinned, source, problems = _pinned_beside(Path(file))
    if problems:
        return None, problems
    if contract.scoring is not None:
        spec, source = contract.scoring, "the contract's own scoring object"
    elif pinned is not None:
        spec = pinned
    elif states_seed_rules(contract):
        spec = builtin_spec()[0]
        source = f"benchsite's built-in specification of the seed contract ({BUILTIN_FILE.name})"
    else:
        message = (
            "no scoring specification: the contract carries no 'scoring' object and its rules are not "
            "the seed contract's (a sealed scoring.json pinned in benchmark.json is checked at build)"
        )
        return None, [Problem(file, "", message)]
    place = f"{file} $.scoring" if contract.scoring is not None else source
    problems = agreement_problems(spec, contract, file, place)
    if problems:
        return None, problems
    return Explained(file, digest, "points", source, explain(spec)), []


def _pinned_beside(path: Path) -> tuple[PointsSpec | None, str, list[Problem]]:
    """The scoring.json that the benchmark.json beside a contract pins for it, checked against its pin."""
    declaration = path.with_name("benchmark.json")
    try:
        decl = json.loads(read_regular(declaration))
    except (OSError, ReadFailure, ValueError):
        return None, "", []  # no readable declaration beside it: the contract is read on its own
    pin = decl.get("scoring") if isinstance(decl, dict) else None
    rubric = decl.get("rubric") if isinstance(decl, dict) else None
    if not isinstance(pin, dict) or not isinstance(rubric, dict) or rubric.get("file") != path.name:
        return None, "", []
    spec_path = path.with_name(str(pin.get("file")))
    try:
        data = read_regular(spec_path)
    except (OSError, ReadFailure) as exc:
        return None, "", [Problem(str(spec_path), "", f"pinned in {declaration} but unreadable: {exc}")]
    if hashlib.sha256(data).hexdigest() != pin.get("sha256"):
        return (
            None,
            "",
            [Problem(str(spec_path), "", f"does not match its pin in {declaration}", refused=True)],
        )
    spec, problems = read_spec(data, str(spec_path))
    return spec, f"the specification {spec_path} pinned in {declaration.name}", problems


def _other_contract(
    raw: dict[str, Any], file: str, digest: str, family: str
) -> tuple[Explained | None, list[Problem]]:
    from generator.families.registry import FAMILIES

    contract, problems = validate_model(FAMILIES[family].contract_model, raw, file)
    if contract is None:
        return None, problems
    rules = (
        f"Scored by benchsite's {family} engine as docs/{family}.md describes (not yet a specification).",
    )
    return Explained(file, digest, family, f"the {family} family's documented rules", rules), []

"""``benchsite rubric explain|check``: a contract's or a scoring specification's rules, in words.

A file holding a ``family`` field is a scoring specification (``scoring.json``) of that family; any
other is a rubric contract, whose family is the one that recognises its shape
(``Family.recognises``). A contract is explained by the specification that would score it, found
as a build finds it (``generator.families.specs``): its own ``scoring`` object, a ``scoring.json``
that the ``benchmark.json`` beside it pins, or the built-in specification of a seed contract.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.errors import Problem
from generator.families.base import AnyFamily
from generator.families.registry import FAMILIES
from generator.families.specs import read_builtin, read_spec
from generator.files import ReadFailure, read_regular
from generator.jsonio import load_json_bytes


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
    raw, problems = _json_or_text(data, file)
    if problems:
        return None, problems
    if isinstance(raw, dict) and isinstance(raw.get("rubric"), dict):
        message = (
            "a benchmark declaration (benchmark.json): give the rubric file it pins, or its scoring.json"
        )
        return None, [Problem(file, "$.rubric", message)]
    if isinstance(raw, dict) and "family" in raw:
        return _specification(raw.get("family"), data, file, digest)
    family = next((f for f in FAMILIES.values() if f.recognises(raw)), None)
    if family is None:
        message = "neither a scoring specification (no 'family') nor a rubric contract benchsite knows"
        return None, [Problem(file, "$" if raw is not None else "", message)]
    return _contract(family, data, file, digest)


def _json_or_text(data: bytes, file: str) -> tuple[object, list[Problem]]:
    """The parsed JSON, or None for a file that is not JSON at all (a text contract, such as an ADR)."""
    stripped = data.lstrip()
    if not stripped.startswith((b"{", b"[")):
        return None, []
    raw, problems = load_json_bytes(data, file)
    if raw is not None and not isinstance(raw, dict):
        return None, [
            Problem(file, "$", "expected a JSON object: a rubric contract or a scoring specification")
        ]
    return raw, problems


def _specification(name: Any, data: bytes, file: str, digest: str) -> tuple[Explained | None, list[Problem]]:
    family = FAMILIES.get(name) if isinstance(name, str) else None
    if family is None:
        message = f"a scoring specification for family {name!r}: benchsite knows {', '.join(FAMILIES)}"
        return None, [Problem(file, "$.family", message)]
    spec, problems = read_spec(family, data, file)
    if spec is None:
        return None, problems
    return Explained(file, digest, family.name, f"the specification {file}", family.explain(spec)), []


def _contract(
    family: AnyFamily, data: bytes, file: str, digest: str
) -> tuple[Explained | None, list[Problem]]:
    contract, problems = family.read_contract(data, file)
    if contract is None:
        return None, problems
    if family.spec_model is None:
        source = f"the {family.name} family's documented rules"
        return Explained(file, digest, family.name, source, family.explain(contract)), []
    pinned, source, problems = _pinned_beside(family, Path(file))
    if problems:
        return None, problems
    own = family.contract_spec(contract)
    builtin = family.builtin_spec(contract)
    if own is not None:
        spec, source = own, "the contract's own scoring object"
    elif pinned is not None:
        spec = pinned
    elif builtin is not None:
        spec = read_builtin(builtin, family.spec_model)[0]
        source = f"benchsite's built-in specification of the seed contract ({builtin.name})"
    else:
        message = (
            "no scoring specification: the contract carries no 'scoring' object and its rules are not "
            "the seed contract's (a sealed scoring.json pinned in benchmark.json is checked at build)"
        )
        return None, [Problem(file, "", message)]
    place = f"{file} $.scoring" if own is not None else source
    problems = family.agreement(spec, contract, file, place)
    if problems:
        return None, problems
    return Explained(file, digest, family.name, source, family.explain(spec)), []


def _pinned_beside(family: AnyFamily, path: Path) -> tuple[Any, str, list[Problem]]:
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
    spec, problems = read_spec(family, data, str(spec_path))
    return spec, f"the specification {spec_path} pinned in {declaration.name}", problems

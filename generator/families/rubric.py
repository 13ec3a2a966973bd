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

from generator.errors import Problem, Result
from generator.families.base import AnyFamily
from generator.families.registry import FAMILIES
from generator.families.specs import read_builtin, read_spec
from generator.inputs.files import ReadFailure, read_regular
from generator.inputs.jsonio import load_json_bytes


@dataclass(frozen=True)
class Explained:
    """What ``rubric explain`` prints: the file's digest, where its rules come from, the rules."""

    file: str
    sha256: str
    family: str
    source: str
    rules: tuple[str, ...]


@dataclass(frozen=True)
class _Pinned:
    """The scoring.json that the benchmark.json beside a contract pins for it, and how to name it."""

    spec: Any
    source: str


def read(path: Path) -> Result[Explained]:
    """Read and validate a contract or specification; its rules in words, or every problem."""
    file = str(path)
    try:
        data = read_regular(path)
    except ReadFailure as exc:
        return _unexplained(Problem(file, "", str(exc), refused=exc.refused))
    except OSError as exc:
        return _unexplained(Problem(file, "", exc.strerror or str(exc)))
    digest = hashlib.sha256(data).hexdigest()
    parsed = _json_or_text(data, file)
    if parsed.problems:
        return Result(None, parsed.problems)
    raw = parsed.value
    if isinstance(raw, dict) and isinstance(raw.get("rubric"), dict):
        message = (
            "a benchmark declaration (benchmark.json): give the rubric file it pins, or its scoring.json"
        )
        return _unexplained(Problem(file, "$.rubric", message))
    if isinstance(raw, dict) and "family" in raw:
        return _specification(raw.get("family"), data, file, digest)
    family = next((f for f in FAMILIES.values() if f.recognises(raw)), None)
    if family is None:
        message = "neither a scoring specification (no 'family') nor a rubric contract benchsite knows"
        return _unexplained(Problem(file, "$" if raw is not None else "", message))
    return _contract(family, data, file, digest)


def _unexplained(problem: Problem) -> Result[Any]:
    """Nothing explained, for one reason."""
    return Result(None, (problem,))


def _json_or_text(data: bytes, file: str) -> Result[object]:
    """The parsed JSON, or None for a file that is not JSON at all (a text contract, such as an ADR)."""
    stripped = data.lstrip()
    if not stripped.startswith((b"{", b"[")):
        return Result(None)
    loaded = load_json_bytes(data, file)
    if loaded.value is not None and not isinstance(loaded.value, dict):
        return _unexplained(
            Problem(file, "$", "expected a JSON object: a rubric contract or a scoring specification")
        )
    return loaded


def _specification(name: Any, data: bytes, file: str, digest: str) -> Result[Explained]:
    family = FAMILIES.get(name) if isinstance(name, str) else None
    if family is None:
        message = f"a scoring specification for family {name!r}: benchsite knows {', '.join(FAMILIES)}"
        return _unexplained(Problem(file, "$.family", message))
    spec = read_spec(family, data, file)
    if spec.value is None:
        return Result(None, spec.problems)
    return Result(
        Explained(file, digest, family.name, f"the specification {file}", family.explain(spec.value))
    )


def _contract(family: AnyFamily, data: bytes, file: str, digest: str) -> Result[Explained]:
    read = family.read_contract(data, file)
    contract = read.value
    if contract is None:
        return Result(None, read.problems)
    if family.spec_model is None:
        source = f"the {family.name} family's documented rules"
        return Result(Explained(file, digest, family.name, source, family.explain(contract)))
    beside = _pinned_beside(family, Path(file))
    if beside.problems:
        return Result(None, beside.problems)
    pinned = beside.value
    own = family.contract_spec(contract)
    builtin = family.builtin_spec(contract)
    if own is not None:
        spec, source = own, "the contract's own scoring object"
    elif pinned is not None:
        spec, source = pinned.spec, pinned.source
    elif builtin is not None:
        spec = read_builtin(builtin, family.spec_model)[0]
        source = f"benchsite's built-in specification of the seed contract ({builtin.name})"
    else:
        message = (
            "no scoring specification: the contract carries no 'scoring' object and its rules are not "
            "the seed contract's (a sealed scoring.json pinned in benchmark.json is checked at build)"
        )
        return _unexplained(Problem(file, "", message))
    place = f"{file} $.scoring" if own is not None else source
    problems = family.agreement(spec, contract, file, place)
    if problems:
        return Result(None, tuple(problems))
    return Result(Explained(file, digest, family.name, source, family.explain(spec)))


def _pinned_beside(family: AnyFamily, path: Path) -> Result[_Pinned]:
    """The scoring.json that the benchmark.json beside a contract pins for it, checked against its
    pin; None when no readable declaration beside it pins one (the contract is read on its own)."""
    declaration = path.with_name("benchmark.json")
    try:
        decl = json.loads(read_regular(declaration))
    except (OSError, ReadFailure, ValueError):
        return Result(None)
    pin = decl.get("scoring") if isinstance(decl, dict) else None
    rubric = decl.get("rubric") if isinstance(decl, dict) else None
    if not isinstance(pin, dict) or not isinstance(rubric, dict) or rubric.get("file") != path.name:
        return Result(None)
    spec_path = path.with_name(str(pin.get("file")))
    try:
        data = read_regular(spec_path)
    except (OSError, ReadFailure) as exc:
        return _unexplained(Problem(str(spec_path), "", f"pinned in {declaration} but unreadable: {exc}"))
    if hashlib.sha256(data).hexdigest() != pin.get("sha256"):
        return _unexplained(
            Problem(str(spec_path), "", f"does not match its pin in {declaration}", refused=True)
        )
    spec = read_spec(family, data, str(spec_path))
    if spec.value is None:
        return Result(None, spec.problems)
    return Result(_Pinned(spec.value, f"the specification {spec_path} pinned in {declaration.name}"))

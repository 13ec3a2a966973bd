"""Scoring specifications, for every family: where a benchmark's specification comes from.

A family's engine is parameterised by a typed specification (its ``Family.spec_model``). For one
benchmark it is, in order: the contract's own ``scoring`` object (``Family.contract_spec``); a
sealed ``scoring.json`` pinned in ``benchmark.json`` (``Family.spec_pin``), both at once being
refused; the built-in specification the family ships for a seed contract whose rules it states
(``Family.builtin_spec``). A contract with other rules and no specification is invalid content:
benchsite never guesses how a rubric scores. The contract's structured fields must then agree with
the specification (``Family.agreement``), each conflict naming both places.

Nothing here knows a family: the family answers each question through its hooks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, Field

from generator.errors import Problem, Problems, Result
from generator.families.input_base import spec_bounds
from generator.figures.model import Model
from generator.inputs.jsonio import load_json_bytes, validate_model

if TYPE_CHECKING:
    from generator.families.base import AnyFamily, BenchmarkContext

SpecKind = Literal["built-in", "contract", "file"]


@dataclass(frozen=True)
class SpecSource:
    """Where the specification a benchmark is scored by came from, for its disclosures."""

    kind: SpecKind
    file: str
    sha256: str

    def statement(self) -> str:
        if self.kind == "built-in":
            return (
                "benchsite's built-in specification of the seed contract's rules (the contract carries "
                f"none; {self.file}, sha256 {self.sha256})"
            )
        if self.kind == "contract":
            return f"the contract's own scoring object ({self.file}, sha256 {self.sha256})"
        return f"the sealed scoring file {self.file} pinned in benchmark.json (sha256 {self.sha256})"

    def disclosed(
        self,
        model: type[Scoring],
        spec: BaseModel,
        rules: tuple[str, ...],
        parameters: Sequence[tuple[str, str]],
    ) -> Scoring:
        """The section's scoring disclosure (``model``, a family's ``ScoringBase``): where the
        specification came from, its rules in words, and the seed's interpretations that became
        ``parameters`` as (interpretation, parameter) pairs, stated only under the built-in one."""
        stated = parameters if self.kind == "built-in" else ()
        fields: dict[str, Any] = {
            "source": self.kind,
            "file": self.file,
            "sha256": self.sha256,
            "statement": self.statement(),
            "rules": rules,
            "specification": spec,
            "parameters": tuple(Parameter(interpretation=i, parameter=p) for i, p in stated),
        }
        return model(**fields)

    @property
    def place(self) -> str:
        """How a message names the specification (``agreement`` problems name both places)."""
        return "the built-in specification" if self.kind == "built-in" else self.file


@dataclass(frozen=True)
class Resolved:
    """A benchmark's specification (the family's model, not yet compiled) and where it came from."""

    spec: Any
    source: SpecSource


class Parameter(Model):
    """A reading benchsite once chose in code that is now a parameter of the specification."""

    interpretation: str = Field(description="The interpretation's id on the methodology page.")
    parameter: str = Field(description="Where the specification states it.")


class ScoringBase(Model):
    """The specification a benchmark was scored by, where it came from, and its rules in words.

    Each family's section holds a subclass that adds ``specification`` (its own typed model)."""

    source: SpecKind = Field(
        description="built-in: benchsite's specification of the seed contract; contract: its 'scoring' "
        "object; file: a sealed scoring.json pinned in benchmark.json."
    )
    file: str
    sha256: str
    statement: str = Field(description="Where the specification came from, in one sentence.")
    rules: tuple[str, ...] = Field(description="Every rule in plain words, generated from the specification.")
    parameters: tuple[Parameter, ...] = Field(
        description="Interpretations (built-in specification) that became specification parameters."
    )


Scoring = TypeVar("Scoring", bound=ScoringBase)
"""A family's own ``ScoringBase`` (with its ``specification``)."""


@cache
def read_builtin(path: Path, model: type[BaseModel]) -> tuple[Any, str]:
    """A built-in specification shipped with benchsite and the sha256 of its file (read once, as a
    specification file is: its numbers exact as written)."""
    data = path.read_bytes()
    spec = load_json_bytes(data, path.name)
    validated = validate_model(model, spec.value, path.name)
    if validated.value is None:  # a package bug, caught by the tests of every built-in
        raise ValueError(f"the built-in specification {path.name} is invalid: {validated.problems}")
    return validated.value, hashlib.sha256(data).hexdigest()


def read_spec(family: AnyFamily, data: bytes, file: str) -> Result[Any]:
    """A specification's bytes parsed and validated by the family's model; a spec of another family
    is named as such rather than reported field by field."""
    loaded = load_json_bytes(data, file)
    raw = loaded.value
    if raw is None:
        return loaded
    if family.spec_model is None:
        message = f"the {family.name} family's rules are not data: docs/{family.name}.md states them"
        return Result(None, (Problem(file, "$.family", message),))
    bounds = spec_bounds(raw)
    if bounds is not None:
        return Result(None, (Problem(file, *bounds),))
    if isinstance(raw, dict) and raw.get("family") != family.name:
        message = (
            f"a scoring specification for family {raw.get('family')!r}, but this benchmark is scored "
            f"by the {family.name} family"
        )
        return Result(None, (Problem(file, "$.family", message),))
    return validate_model(family.spec_model, raw, file)


def resolve(family: AnyFamily, bench: BenchmarkContext[Any, Any]) -> Result[Resolved]:
    """The benchmark's specification and where it came from, with its agreement with the contract
    checked; or the problems."""
    contract_file = f"{bench.label}/{bench.rubric_file}"
    problems = Problems()
    found = problems.take(_find(family, bench, contract_file))
    if found is None:
        return problems.result(None)
    problems.extend(family.agreement(found.spec, bench.contract, contract_file, found.source.place))
    return problems.result(None if problems else found)


def _find(family: AnyFamily, bench: BenchmarkContext[Any, Any], contract_file: str) -> Result[Resolved]:
    own = family.contract_spec(bench.contract)
    pin = family.spec_pin(bench.declaration)
    if own is not None and pin is not None:
        message = (
            f"the contract carries a scoring object and benchmark.json pins {pin.file!r}: "
            "give one specification"
        )
        return Result(None, (Problem(f"{bench.label}/benchmark.json", "$.scoring", message),))
    if own is not None:
        return Result(Resolved(own, SpecSource("contract", bench.rubric_file, bench.rubric_sha256)))
    if pin is not None:
        return read_pinned(family, bench, pin.file, pin.sha256)
    builtin = family.builtin_spec(bench.contract)
    if builtin is not None and family.spec_model is not None:
        spec, digest = read_builtin(builtin, family.spec_model)
        return Result(Resolved(spec, SpecSource("built-in", builtin.name, digest)))
    message = (
        "no scoring specification: this contract's rules are not the seed contract's, so benchsite "
        "cannot know how it scores; add a scoring specification (a 'scoring' object in the contract, "
        "or a sealed scoring.json pinned in benchmark.json as $.scoring), as docs/scoring.md describes"
    )
    return Result(None, (Problem(contract_file, "", message),))


def read_pinned(
    family: AnyFamily, bench: BenchmarkContext[Any, Any], name: str, pinned: str
) -> Result[Resolved]:
    """A sealed scoring.json, checked against its pin and validated."""
    file = f"{bench.label}/{name}"
    data = bench.folder.files.get(name)
    if data is None:
        message = "the scoring specification pinned in benchmark.json is not in the sealed folder"
        return Result(None, (Problem(file, "", message, refused=True),))
    digest = hashlib.sha256(data).hexdigest()
    if digest != pinned:
        message = f"does not match its pin in benchmark.json: pinned {pinned[:16]}…, found {digest[:16]}…"
        return Result(None, (Problem(file, "", message, refused=True),))
    spec = read_spec(family, data, file)
    if spec.value is None:
        return Result(None, spec.problems)
    return Result(Resolved(spec.value, SpecSource("file", name, digest)), spec.problems)

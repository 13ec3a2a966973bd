"""Input bases every family's models share: strict frozen models, id and digest patterns, the
rubric pin and the id-uniqueness rule."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

SHA256_HEX = r"^[0-9a-f]{64}$"
SAFE_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
EVALUATOR_HASH = r"^sha256:[0-9a-f]{64}$"
"""An evaluator or judge identified only by a hash (blind scoring: ``sha256:`` and 64 hex digits)."""


class Strict(BaseModel):
    """Input models: frozen, no unknown fields, and no type coercion ("yes" is not true)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False, strict=True)


def _exact_int(value: Any) -> Any:
    """A literal integer must be a JSON integer: not true, not 1.0 (pydantic compares by ==)."""
    if type(value) is not int:
        raise ValueError(f"must be the integer 1, not {value!r}")
    return value


SchemaVersion1 = Annotated[Literal[1], BeforeValidator(_exact_int)]


class RubricPin(Strict):
    file: str = Field(description="Rubric contract file in the benchmark folder.")
    sha256: str = Field(pattern=SHA256_HEX, description="sha256 of the rubric file's bytes.")


class SpecPin(Strict):
    file: str = Field(description="A scoring specification file (scoring.json) in the benchmark folder.")
    sha256: str = Field(pattern=SHA256_HEX, description="sha256 of the specification file's bytes.")


def unique_ids(ids: Iterable[str], what: str) -> None:
    """Refuse an id given twice, ignoring letter case (ids name files and anchors)."""
    seen: set[str] = set()
    for name in ids:
        if name.casefold() in seen:
            raise ValueError(f"duplicate {what} id {name!r}")
        seen.add(name.casefold())

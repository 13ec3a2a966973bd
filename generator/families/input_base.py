"""Input bases every family's models share: strict frozen models, id and digest patterns, the
rubric pin and the id-uniqueness rule."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from generator.inputs.fastrows import RowDecoder
from generator.inputs.readable import hidden_character

SHA256_HEX = r"^[0-9a-f]{64}$"
SAFE_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
EVALUATOR_HASH = r"^sha256:[0-9a-f]{64}$"
"""An evaluator or judge identified only by a hash (blind scoring: ``sha256:`` and 64 hex digits)."""


class Strict(BaseModel):
    """Input models: frozen, no unknown fields, and no type coercion ("yes" is not true)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False, strict=True)

    fast_row: ClassVar[RowDecoder | None] = None
    """A row model's compiled fast path (``generator/inputs/fastrows.py``), if it has one."""


SPEC_ENTRIES = 100
"""The most entries a specification's list or object holds (ladder steps, ``requires`` entries,
minimums, weights, allowances…): 100."""
SPEC_TEXT = 200
"""The longest text a specification holds (a dimension's name, a label, a rubric id, a key): 200
characters."""
SPEC_VALUES = 5_000
"""The most values a whole specification holds, counting every list, object, text and number once
(the built-in ones hold 65 to 123): its rules in words, methodology page and report grow with it."""
SPEC_NUMBER = 50
"""The longest number literal a specification holds: 50 characters (a threshold exact to its
20th significant digit takes 21)."""


def spec_bounds(value: Any) -> tuple[str, str] | None:
    """Where and why a specification as parsed (before validation) exceeds the limits above, naming
    the limit; None when it does not. Read before any field is validated, so a specification of
    800,000 ``requires`` entries is refused in one pass over it, not compiled and written out. (Not a
    model validator: one that runs before the fields would make pydantic read a published report's
    arrays as lists, which its strict tuples refuse.)"""
    stack: list[tuple[str, Any]] = [("$", value)]
    count = 0
    while stack:
        place, item = stack.pop()
        count += 1
        if count > SPEC_VALUES:
            return (
                "$",
                f"the specification holds more than {SPEC_VALUES} values (lists, objects, texts, numbers)",
            )
        reason = _over(item)
        if reason is not None:
            return place, reason
        if isinstance(item, list | tuple):
            stack.extend((f"{place}[{index}]", child) for index, child in enumerate(item))
        elif isinstance(item, dict):
            stack.extend((f"{place}.{key}", child) for key, child in item.items())
    return None


def _over(item: Any) -> str | None:
    """Why one value of a specification exceeds a limit (its own size, not its children's)."""
    if isinstance(item, list | tuple) and len(item) > SPEC_ENTRIES:
        return f"{len(item)} entries: a specification's list holds at most {SPEC_ENTRIES}"
    if isinstance(item, dict):
        if len(item) > SPEC_ENTRIES:
            return f"{len(item)} members: a specification's object holds at most {SPEC_ENTRIES}"
        longest = max((len(key) for key in item if isinstance(key, str)), default=0)
        if longest > SPEC_TEXT:
            return f"a key of {longest} characters: a key holds at most {SPEC_TEXT}"
    if isinstance(item, str) and len(item) > SPEC_TEXT:
        return f"{len(item)} characters: a specification's text holds at most {SPEC_TEXT}"
    text = getattr(item, "text", None)  # a jsonio.Written number: its literal
    if isinstance(text, str) and len(text) > SPEC_NUMBER:
        return f"a number of {len(text)} characters: at most {SPEC_NUMBER}"
    if type(item) is int and len(str(abs(item))) > SPEC_NUMBER:  # at most 4,300 digits: jsonio
        return f"a number of {len(str(abs(item)))} digits: at most {SPEC_NUMBER}"
    return None


def _shown(value: str) -> str:
    reason = hidden_character(value)
    if reason is not None:
        raise ValueError(reason)
    return value


Shown = Annotated[str, AfterValidator(_shown)]
"""Text a page shows as a name, label or title: no format character a reader cannot see (a bidi
control would reorder the page around it; a zero-width space would make two names read the same)."""


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

"""The compiled fast path of a JSON Lines row: a typed msgspec decode and one count for duplicate keys.

A family whose row model declares a ``fast_row`` (a :data:`RowDecoder`) has each row decoded by it
first; the decoder either accepts the row, returning an object with every attribute of the model and
the same values, or returns None, and the row takes the strict path of :mod:`generator.inputs.jsonio`
(parse, then pydantic), which accepts it or says where and why it is refused, in the same words as
before. So the fast path decides nothing a reader sees: it may only accept what the strict path
accepts (``tests/test_fast_decode.py`` decodes rows near every boundary both ways and compares).
"""

from __future__ import annotations

from typing import Protocol, TypeVar

import jiter
import msgspec

T = TypeVar("T")


class RowDecoder(Protocol):
    """One row's text to the decoded row, or None: not accepted here (the strict path decides)."""

    def __call__(self, line: str, /) -> object | None: ...


def typed(decoder: msgspec.json.Decoder[T], line: str) -> T | None:
    """The row decoded by a typed decoder (unknown fields, wrong types, nulls where none may be, NaN
    and every syntax error refused), or None. msgspec keeps the last of a key given twice: see
    :func:`no_duplicate_keys`."""
    try:
        return decoder.decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None


def no_duplicate_keys(line: str, members: int, string_colons: int = 0) -> bool:
    """Whether no object of the row has a key twice, given how many members the typed decode kept.

    Every member of a JSON object has exactly one colon outside strings, so the row's colons are at
    least its members, duplicates included; a decode that refuses unknown fields keeps each distinct
    member once. Colons equal to the members kept therefore leaves no room for a duplicate (nor for a
    colon inside a string): one count over the text. Otherwise (a colon in a string, say) the strict
    parser that refuses duplicate keys decides, as it did for every row before.

    ``string_colons`` are colons the decoded strings hold for certain (a judge's ``sha256:``): raw
    colons in a row with no ``\\u`` escape (an escaped colon is no raw one), so only such a row
    counts them."""
    certain = string_colons == 0 or "\\u" not in line
    if certain and line.count(":") == members + string_colons:
        return True
    try:
        jiter.from_json(line.encode(), allow_inf_nan=False, catch_duplicate_keys=True, cache_mode="none")
    except ValueError:
        return False
    return True

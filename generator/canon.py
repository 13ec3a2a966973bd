"""The JSON spellings benchsite writes, with the standard library only (a no-op rebuild compares
records in them without importing the models), and the compiled encoder (msgspec, imported when
first used) that writes the published rows in the same compact spelling."""

from __future__ import annotations

import json
import math
import re
from functools import cache
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import msgspec


def canonical_json(value: Any) -> str:
    """The one JSON spelling benchsite writes: sorted keys, two-space indent, final newline.

    Exactly ``json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)``
    and a newline, written by :func:`_put` in half the time (with an indent, ``json`` encodes in
    Python, one generator a level); a value it does not write (a key that is not text, a type that
    is not JSON's own, a float that is not finite, very deep nesting) is left to ``json.dumps``, which
    writes it or refuses it as always."""
    out: list[str] = []
    try:
        _put(value, 0, out)
    except _Unusual:
        return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    out.append("\n")
    return "".join(out)


class _Unusual(Exception):
    """A value :func:`_put` leaves to ``json.dumps``."""


_DEEPEST = 64
_INDENTS = ["\n" + "  " * level for level in range(_DEEPEST + 1)]
"""A new line and the indent of each level."""


def _put(value: Any, level: int, out: list[str]) -> None:
    """``value``, nested ``level`` deep, appended to ``out`` as ``canonical_json`` spells it (the
    exact types JSON decodes to, and tuples as lists, as ``json`` writes them)."""
    kind = type(value)
    if kind is str:
        out.append(encode_basestring(value))
    elif kind is dict or kind is list or kind is tuple:
        if not value:
            out.append("{}" if kind is dict else "[]")
            return
        if level >= _DEEPEST:
            raise _Unusual
        separator = ("{" if kind is dict else "[") + _INDENTS[level + 1]
        following = "," + _INDENTS[level + 1]
        if kind is dict:
            if any(type(key) is not str for key in value):
                raise _Unusual
            for key in sorted(value):
                out += (separator, encode_basestring(key), ": ")
                _put(value[key], level + 1, out)
                separator = following
        else:
            for item in value:
                out.append(separator)
                _put(item, level + 1, out)
                separator = following
        out += (_INDENTS[level], "}" if kind is dict else "]")
    elif kind is int:
        out.append(int.__repr__(value))
    elif kind is float and math.isfinite(value):
        out.append(float.__repr__(value))
    elif value is None or kind is bool:
        out.append("null" if value is None else "true" if value else "false")
    else:
        raise _Unusual


def compact_json(value: Any) -> str:
    """Canonical too (sorted keys, no NaN), without indentation, for large files: one line and a newline."""
    return (
        json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n"
    )


def compact_json_bytes(value: Any) -> bytes:
    """Exactly ``compact_json(value).encode("utf-8")`` for the values a model's JSON dump holds
    (dicts with text keys, lists, text, ints, finite floats, booleans, None), in a fifth of the time:
    msgspec writes them, sorted by key, in C. Where msgspec would spell a value otherwise, or refuse
    it, the standard library writes (or refuses) it as ``compact_json`` always did: a key that is not
    text, a lone surrogate, and a float ``repr`` spells with an exponent (msgspec writes ``1e16`` and
    ``0.00001`` where Python writes ``1e+16`` and ``1e-05``; the two agree on every other float, as
    ``tests/test_canon_bytes.py`` checks over generated values). The one value both write but
    differently that no output check can see is a float that is not finite (msgspec writes ``null``,
    ``json`` refuses): a caller passes only values of models that refuse NaN and infinity
    (``allow_inf_nan=False``), as every row model does."""
    try:
        data = _row_encoder().encode(value)
    except (TypeError, ValueError, OverflowError):
        return compact_json(value).encode("utf-8")
    if b"0.0000" in data or _EXPONENT.search(data):
        return compact_json(value).encode("utf-8")
    return data + b"\n"


_EXPONENT = re.compile(rb"e[-+]?[0-9]+(?:[,\]}]|$)")
"""The end of a number as msgspec writes a float ``repr`` spells with an exponent (``1e16``, ``1e-7``;
the others it writes ``0.0000…``, found by ``in``): an ``e``, digits, and what ends a value. The
pattern begins with a literal, which the regular expression engine finds at the speed of a search.
Text that happens to look like one (``"e5,"``) only costs the standard library's pass, never a wrong
byte."""


@cache
def _row_encoder() -> msgspec.json.Encoder:
    """msgspec's JSON encoder with sorted keys, made once (imported here: a no-op rebuild that writes
    no rows never loads it)."""
    import msgspec

    return msgspec.json.Encoder(order="sorted")

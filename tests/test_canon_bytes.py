"""``canon.compact_json_bytes`` (msgspec) writes exactly the bytes of ``canon.compact_json`` (the
standard library), which stays the reference: the published rows, their digests and the run cache's
copies are these bytes, so every generated value is compared byte for byte."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from generator.canon import compact_json, compact_json_bytes

SPECIAL_TEXT = st.sampled_from(
    ['"', "\\", "\x00", "\x1f", "\x7f", "\u2028", "\u2029", "\ufeff", "\U0001f600", "é", "/", "<"]
)
TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]) | SPECIAL_TEXT, max_size=12)
"""Any text UTF-8 can hold (surrogates are refused alike, below), with JSON's hard characters."""

FLOATS = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [0.0, -0.0, 1e16, -1e16, 1e15, 9999999999999998.0, 1e-4, 9.99e-5, 1e-5, 1e-7, 5e-324, 1.5e300, 2.5e-10]
)
"""Finite floats, with those around the exponent thresholds of ``repr`` and msgspec."""

INTS = st.integers() | st.sampled_from([2**63 - 1, 2**63, 2**64, -(2**63), -(2**63) - 1, 10**40, -(10**40)])

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | INTS | FLOATS | TEXT,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(TEXT, children, max_size=5),
    max_leaves=40,
)

EXAMPLES = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@EXAMPLES
@given(JSON_VALUES)
@example({"b": 1e16, "a": [5e-324, -0.0, 1e-05, 2**64], "é": {"\U0001f600": 1, "\uffff": 2}})
@example({"\ue000": 1, "\U00010000": 2, "z": 3, "Z": 4, "": 5})
def test_the_compiled_encoder_writes_the_bytes_of_compact_json(value: Any) -> None:
    assert compact_json_bytes(value) == compact_json(value).encode("utf-8")


@EXAMPLES
@given(st.lists(FLOATS, min_size=1, max_size=8))
def test_every_finite_float_is_spelled_as_repr_spells_it(numbers: list[float]) -> None:
    assert compact_json_bytes(numbers) == ("[" + ",".join(map(repr, numbers)) + "]\n").encode()


@pytest.mark.parametrize(
    "value",
    [
        {"x": "a:1e5,0.00001"},  # text that looks like an exponent: the standard library's pass
        ["\x00\x01\x08\x09\x0a\x0c\x0d\x1b\x1f"],  # control characters: short escapes and \u00XX
        {"n": sys.maxsize * 10**30},  # an integer beyond 64 bits
        [(1, 2), ("a",)],  # tuples are lists, as json writes them
    ],
)
def test_values_near_the_edges_are_spelled_alike(value: Any) -> None:
    assert compact_json_bytes(value) == compact_json(value).encode("utf-8")
    assert json.loads(compact_json_bytes(value)) == json.loads(compact_json(value))


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ({1: "a"}, None),  # a key that is not text: json writes it as text, msgspec refuses
        ({"x": math.nan}, ValueError),
        ({"x": [math.inf]}, ValueError),
        ({"x": "\ud800"}, UnicodeEncodeError),
    ],
)
def test_what_msgspec_would_spell_otherwise_is_left_to_the_standard_library(
    value: Any, error: type[Exception] | None
) -> None:
    """Where msgspec refuses a value, ``json`` writes or refuses it exactly as before; NaN and infinity
    that reach msgspec are not refused (it writes ``null``): the rows' models refuse them first."""
    if error is None:
        assert compact_json_bytes(value) == compact_json(value).encode("utf-8") == b'{"1":"a"}\n'
    elif error is ValueError:
        with pytest.raises(ValueError):
            compact_json(value)
    else:
        with pytest.raises(error):
            compact_json_bytes(value)

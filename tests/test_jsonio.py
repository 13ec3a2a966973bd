"""Strict JSON reading (generator.inputs.jsonio): each parse finds its own duplicate keys, and nothing is
carried from one parse to the next."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.errors import Result
from generator.inputs import jsonio
from generator.inputs.jsonio import parse_json


def test_a_duplicate_key_is_found_at_its_place() -> None:
    parsed = parse_json('{"a": {"b": 1, "b": 2}}', "f.json")
    assert parsed.value is None
    assert [(p.where, p.message) for p in parsed.problems] == [
        ("$.a.b", "duplicate key: every key may appear once")
    ]


def test_a_clean_parse_after_one_with_duplicates_finds_none() -> None:
    parse_json('{"a": 1, "a": 2}', "f.json")
    assert parse_json('{"a": [{"b": 1}, {"c": 2}]}', "g.json") == Result({"a": [{"b": 1}, {"c": 2}]})


def test_a_parse_with_duplicates_inside_a_row_names_the_row() -> None:
    parse_json('{"x": 1}', "f.json")
    parsed = parse_json('{"k": 1, "k": 1}', "f.jsonl", where="line 4")
    assert [p.where for p in parsed.problems] == ["line 4 $.k"]


# A row is parsed by jiter when its file cannot hold an overflowing number (jsonio._parse_row), and
# by parse_json otherwise or when jiter refuses it: either way the result must be parse_json's.

EDGE_ROWS = [
    '{"a": 1, "a": 2}',
    '[{"x": {"b": 1, "b": 2}}]',
    '{"\\u00e9": 1, "é": 2}',
    '{"a": NaN}',
    '{"a": -Infinity}',
    '{"a": 1e400}',
    '{"a": 1.5E+308}',
    '{"a": 1.8e308}',
    '{"a": 0.0001e312}',
    '{"a": 12345678e302}',
    '{"a": 1' + "0" * 250 + "e60}",
    '{"a": ' + "9" * 400 + ".0}",
    '{"a": ' + "1" * 5000 + "}",
    '{"a": 1e-400, "b": -0.0, "c": 1.7976931348623157e308}',
    '{"a": "1e999 in a string"}',
    '{"a": "\\ud800"}',
    '{"a": "\\udc00x"}',
    '{"a": "\\ud83d\\ude00"}',
    '{"a": "\x01"}',
    '{"a": "\\x"}',
    '{"a": 1,}',
    '{"a": 01}',
    '{"a": .5}',
    '{"a": +1}',
    "{} x",
    "[" * 300 + "]" * 300,
    "[" * 3000 + "]" * 3000,
    "null",
    '"text"',
    '{"a": "\\u0000", "b": "\u2028", "c": "\x7f"}',
]


def _rows_both_ways(text: str) -> tuple[list[tuple[int, Result[Any]]], list[tuple[int, Result[Any]]]]:
    data = text.encode("utf-8")
    fast = [(line.number, line.parsed) for line in jsonio._jsonl_lines(data, "r.jsonl")]
    careful = [
        (number, parse_json(line, "r.jsonl", where=f"line {number}"))
        for number, line in enumerate(text.split("\n"), start=1)
        if line.strip()
    ]
    return fast, careful


@pytest.mark.parametrize("row", EDGE_ROWS, ids=range(len(EDGE_ROWS)))
def test_a_row_yields_what_the_careful_parse_yields(row: str) -> None:
    fast, careful = _rows_both_ways(f'{{"ok": 1}}\n{row}\n')
    assert fast == careful


def test_a_file_without_overflow_shapes_is_parsed_by_jiter_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    clean = b'{"a": 1.5e99, "b": 1e-999, "c": "' + b"7" * 199 + b'"}\n{"d": [1, 2.5]}\n'
    assert jsonio._cannot_overflow(clean)
    for risky in (b"1e400", b"2E+308", b"0.5e0309", b"1" * 200):
        assert not jsonio._cannot_overflow(b'{"a": ' + risky + b"}")
    careful: list[str] = []
    monkeypatch.setattr(jsonio, "parse_json", lambda line, *args: careful.append(line))
    lines = list(jsonio._jsonl_lines(clean, "r.jsonl"))
    assert [line.parsed.value for line in lines] == [{"a": 1.5e99, "b": 0.0, "c": "7" * 199}, {"d": [1, 2.5]}]
    assert careful == []


JSON_PIECES = st.sampled_from(
    [
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        '"a"',
        '"b"',
        '"\\u00e9"',
        '"é"',
        "1",
        "-0",
        "1.5",
        "1e400",
        "1E308",
        "2e-9",
        "true",
        "nul",
        "null",
        "NaN",
        '"\\ud800"',
        '"\\n"',
        "\t",
        "01",
        '"x\x02"',
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(JSON_PIECES, max_size=14),
    st.lists(st.sampled_from(['{"a": 1}', "[]", '{"k": {"k": 2, "k": 3}}']), max_size=3),
)
def test_any_rows_yield_what_the_careful_parse_yields(pieces: list[str], others: list[str]) -> None:
    fast, careful = _rows_both_ways("\n".join([*others, "".join(pieces)]))
    assert fast == careful

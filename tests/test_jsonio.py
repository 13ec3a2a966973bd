"""Strict JSON reading (generator.jsonio): each parse finds its own duplicate keys, and nothing is
carried from one parse to the next."""

from __future__ import annotations

from generator.errors import Result
from generator.jsonio import parse_json


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

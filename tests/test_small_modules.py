"""Focused unit tests of the small modules no other test imports directly: the number formats, the
JSON spellings, the badge drawing, the spool sweep and the family registry."""

from __future__ import annotations

import enum
import functools
import json
import math
import os
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.canon import canonical_json, compact_json
from generator.families.registry import FAMILIES
from generator.figures.numbers import fmt_band, fmt_bp, fmt_number, fmt_p
from generator.inputs.portable import open_folder, try_lock
from generator.render.badges import BADGE_COLOURS, badge
from generator.score.spool import SPOOL_PREFIX, sweep_stale


@pytest.mark.parametrize(
    ("value", "digits", "shown"),
    [
        (0.8125, 3, "0.813"),  # half up from the decimal spelling, as the rubrics print it
        (2.675, 2, "2.68"),  # the float is 2.67499…; its shortest spelling rounds up
        (0.125, 2, "0.13"),  # never to even
        (-0.125, 2, "-0.13"),
        (1.0, 2, "1.00"),
        (7, 2, "7"),  # an integer is printed as it is
        (None, 2, "—"),
    ],
)
def test_fmt_number_rounds_half_up_from_the_shortest_spelling(
    value: float | int | None, digits: int, shown: str
) -> None:
    assert fmt_number(value, digits) == shown


def test_fmt_p_bp_and_band() -> None:
    assert fmt_p(0.000012345) == "1.23e-05"  # a tiny p never reads as 0
    assert fmt_p(0.5) == "0.5"
    assert fmt_p(None) == "—"
    assert fmt_bp(1234) == "1234 bp (12.34%)"
    assert fmt_bp(5) == "5 bp (0.05%)"
    assert fmt_bp(10000) == "10000 bp (100.00%)"
    assert fmt_bp(None) == "—"
    assert fmt_band(1, 1) == "1"
    assert fmt_band(2, 4) == "2–4"
    assert fmt_band(None, 3) == fmt_band(2, None) == "not ranked"


def test_canonical_json_sorts_indents_keeps_text_and_ends_with_a_newline() -> None:
    value = {"b": [1, 2], "a": "é", "c": {"z": None, "y": True}}
    text = canonical_json(value)
    assert (
        text
        == '{\n  "a": "é",\n  "b": [\n    1,\n    2\n  ],\n  "c": {\n    "y": true,\n    "z": null\n  }\n}\n'
    )
    assert compact_json(value) == '{"a":"é","b":[1,2],"c":{"y":true,"z":null}}\n'
    assert json.loads(text) == json.loads(compact_json(value)) == value


@pytest.mark.parametrize("spell", [canonical_json, compact_json])
@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
def test_canonical_json_refuses_numbers_json_cannot_spell(spell: object, number: float) -> None:
    with pytest.raises(ValueError):
        spell({"x": number})  # type: ignore[operator]


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(
        alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"])
        | st.sampled_from('"\\\x00\x1f\x7f\u2028')
    ),
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(st.text(max_size=3), children, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=500, deadline=None)
@given(JSON_VALUES)
def test_canonical_json_is_exactly_what_json_dumps_writes(value: object) -> None:
    expected = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    assert canonical_json(value) == expected


class _Level(enum.IntEnum):
    HIGH = 2


@pytest.mark.parametrize(
    "value",
    [
        {1: "a", 2: "b"},
        {"k": _Level.HIGH},
        {"k": [1, 2.5, {"n": None}]},
        functools.reduce(lambda v, _: [v], range(80), 1),
    ],
    ids=["int keys", "an IntEnum", "plain", "80 levels deep"],
)
def test_canonical_json_leaves_what_it_does_not_write_to_json(value: object) -> None:
    assert canonical_json(value) == json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def test_a_badge_is_an_escaped_svg_in_its_states_colour() -> None:
    svg = badge("<b>&", "1–2", "ranked")
    root = ET.fromstring(svg)  # well-formed XML: the label is escaped
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    assert root.get("aria-label") == "<b>&: 1–2"
    assert root.findtext(f"{ns}title") == "<b>&: 1–2"
    assert [t.text for t in root.iter(f"{ns}text")] == ["<b>&", "1–2"]
    fills = [r.get("fill") for r in root.iter(f"{ns}rect")]
    assert fills == ["#555", BADGE_COLOURS["ranked"]]
    assert int(root.get("width") or 0) == 12 + 7 * 4 + 12 + 7 * 3  # grows with each part's text
    assert badge("x", "1", "leads") != badge("x", "1", "not ranked")
    assert badge("x", "1", "leads") == badge("x", "1", "leads")  # the same bytes for the same figures


def test_sweep_removes_only_the_spools_no_build_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale, held, other = (
        tmp_path / f"{SPOOL_PREFIX}stale",
        tmp_path / f"{SPOOL_PREFIX}held",
        tmp_path / "mine",
    )
    for folder in (stale, held, other):
        folder.mkdir()
        (folder / "rows.jsonl").write_text("{}\n")
    (tmp_path / f"{SPOOL_PREFIX}file").write_text("not a folder\n")
    lock = open_folder(held)
    assert lock is not None
    try:
        assert try_lock(lock)  # as a running build holds its spool
        sweep_stale()
        assert not stale.exists()
        assert (held / "rows.jsonl").is_file()
        assert (other / "rows.jsonl").is_file()  # not a spool: never touched
        assert (tmp_path / f"{SPOOL_PREFIX}file").is_file()
    finally:
        os.close(lock)
    sweep_stale()  # its build is gone: the lock went with it
    assert not held.exists()


def test_every_family_is_registered_under_its_own_name() -> None:
    assert sorted(FAMILIES) == ["components", "definitions", "points", "trials"]
    assert all(family.name == name for name, family in FAMILIES.items())
    assert len({type(family) for family in FAMILIES.values()}) == len(FAMILIES)

"""Names compared as a reader sees them (issue 31, class 7): two dimension names that read the same
are duplicates, and a name, label or title may hold no character a reader cannot see (a bidi
control reorders the page around it; a zero-width space makes two columns read "accuracy")."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from generator.families.points.spec import BUILTIN_FILE
from generator.inputs.readable import hidden_character, reading_key
from tests.conftest import corpus_of, edit_json, reseal, run_cli

BUILTIN: dict[str, Any] = json.loads(BUILTIN_FILE.read_text())


def check(tmp_path: Path, spec: dict[str, Any]) -> str:
    path = tmp_path / "scoring.json"
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    result = run_cli("rubric", "check", path)
    assert result.exit_code == 4, result.output
    assert "Traceback" not in result.output
    return result.output


@pytest.mark.parametrize(
    "twin",
    ["functional\u200b correctness", "ＦＵＮＣＴＩＯＮＡＬ correctness", "functional  correctness", "ﬁ"],
    ids=["zero-width-space", "fullwidth", "doubled-space", "ligature"],
)
def test_two_names_that_read_the_same_are_duplicates(tmp_path: Path, twin: str) -> None:
    spec = copy.deepcopy(BUILTIN)
    if twin == "ﬁ":  # the ligature reads as "fi": two dimensions named "ﬁx" and "fix"
        spec["dimensions"][0]["name"], twin = "fix", "ﬁx"
    spec["dimensions"][1]["name"] = twin
    if "\u200b" in twin:
        assert "U+200B ZERO WIDTH SPACE" in check(tmp_path, spec)  # refused as hidden, before that
    else:
        assert "duplicate name(s)" in check(tmp_path, spec)


@pytest.mark.parametrize(
    ("field", "char"),
    [("name", "\u202e"), ("label", "\u2067"), ("name", "\u200d"), ("label", "\u00ad")],
    ids=["rlo-name", "rli-label", "zwj-name", "soft-hyphen-label"],
)
def test_a_name_or_label_with_a_character_no_reader_sees_is_refused(
    tmp_path: Path, field: str, char: str
) -> None:
    spec = copy.deepcopy(BUILTIN)
    spec["dimensions"][0][field] = f"accu{char}racy"
    output = check(tmp_path, spec)
    assert f"$.dimensions[0].{field}: holds U+{ord(char):04X}" in output
    assert "at character 5" in output


def test_a_benchmark_title_with_a_bidi_override_is_refused_naming_the_file(tmp_path: Path) -> None:
    root = corpus_of(tmp_path / "runs", "agent-dx")
    edit_json(root / "agent-dx" / "benchmark.json", lambda d: d.update(title="Results \u202egnp.exe"))
    reseal(root / "agent-dx")
    result = run_cli("build", "--runs", root, "--out", tmp_path / "site", "--site-version", "v1")
    assert result.exit_code == 4, result.output
    assert (
        "agent-dx/benchmark.json: $.title: holds U+202E RIGHT-TO-LEFT OVERRIDE at character 9"
        in result.output
    )
    assert not (tmp_path / "site" / "v1").exists()


def test_reading_key_and_hidden_character() -> None:
    assert reading_key("Accu\u200bracy") == reading_key("ａｃｃｕｒａｃｙ") == "accuracy"
    assert hidden_character("plain name — with dashes, é and 日本") is None
    reason = hidden_character("a\u2066b")
    assert reason is not None and "reorders the text around it" in reason


@pytest.mark.parametrize("char", ["\u3164", "\uffa0", "\u115f", "\u034f", "\ufe0f", "\u180b"])
def test_a_default_ignorable_is_hidden_too(char: str) -> None:
    """Not a format character (Cf), yet drawn as nothing: a Hangul filler, a variation selector, the
    combining grapheme joiner (Unicode's Default_Ignorable_Code_Point)."""
    assert reading_key(f"accu{char}racy") == "accuracy"
    reason = hidden_character(f"accu{char}racy")
    assert reason is not None and "at character 5" in reason


@pytest.mark.parametrize("char", ["\u3164", "\uffa0", "\u115f", "\u034f", "\ufe0f"])
def test_the_blind_scan_reads_past_a_default_ignorable(char: str) -> None:
    from generator.publish.blind_scan import find_revealed

    page = f"<p>Nor{char}thwind built it</p>".encode()
    assert find_revealed([("b/x/index.html", lambda: page)], ["Northwind Builder"]) == (
        "b/x/index.html",
        "northwind",
    )


def test_a_task_check_or_case_title_is_shown_text_too() -> None:
    from pydantic import ValidationError

    from generator.families.definitions.models import Case, Check
    from generator.families.points.models import PointsTask

    for model, fields in ((PointsTask, {"id": "t1", "allowlist": ()}), (Check, {}), (Case, {})):
        with pytest.raises(ValidationError, match="holds U\\+202E RIGHT-TO-LEFT OVERRIDE"):
            model.model_validate({**fields, "title": "Results \u202egnp.exe"})

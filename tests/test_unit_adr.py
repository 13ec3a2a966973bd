"""Unit tests of ``generator.families.definitions.adr``: the few rule statements read from ADR-032's
prose, and where they must agree with a definitions specification."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from generator.families.definitions.adr import AdrText, agreement_problems, read_adr
from generator.families.definitions.spec import BUILTIN_FILE, DefinitionsSpec
from tests.conftest import SEEDS

SPEC: dict[str, Any] = json.loads(BUILTIN_FILE.read_text())
TINY = b"""ADR-032: Benchmarks are definitions

Status: Accepted (2026-09-07).
Decision in one line: a benchmark is a definition.
Amended 2026-09-20: the run verdict is stricter.
Amended 2026-10-04: the run verdict is now WARN when any row is NotMeasured.
Amended 2026-11-01: the glossary moved.
compare pairs on case, gates on evalKey / evalVersion / judge, and warns when no usable floor was recorded.
"""


def adr(data: bytes = TINY) -> AdrText:
    read = read_adr(data, "adr.txt")
    assert read.problems == () and read.value is not None
    return read.value


def spec(change: dict[str, Any] | None = None) -> DefinitionsSpec:
    raw = copy.deepcopy(SPEC)
    raw.update(change or {})
    return DefinitionsSpec.model_validate_json(json.dumps(raw))


def test_the_rule_statements_are_read_from_their_lines() -> None:
    text = adr()
    assert (text.id, text.title) == ("ADR-032", "ADR-032: Benchmarks are definitions")
    assert text.status == "Status: Accepted (2026-09-07)."
    assert text.decision == "Decision in one line: a benchmark is a definition."
    assert text.sha256 == hashlib.sha256(TINY).hexdigest()
    # the latest amendment that mentions the verdict, not the latest amendment
    assert (text.verdict_amended, text.verdict_amended_line) == ("2026-10-04", 6)
    assert text.amendment_warns_not_measured
    assert (text.compare_gates, text.compare_gates_line) == (("evalKey", "evalVersion", "judge"), 8)
    assert text.floor_warns_line == 8


def test_an_adr_without_the_statements_reads_as_none_of_them() -> None:
    text = adr(b"ADR-032 plain\nStatus: Draft\n")
    assert (text.status, text.decision) == ("Status: Draft", "")
    assert text.verdict_amended is None and not text.amendment_warns_not_measured
    assert text.compare_gates is None and text.floor_warns_line is None


def test_only_adr_032_in_utf8_is_read() -> None:
    for data in (b"ADR-031: another\n", b"", b"  \n", b"notes about ADR-032\n"):
        refused = read_adr(data, "adr.txt")
        assert refused.value is None
        assert [(p.file, p.where) for p in refused.problems] == [("adr.txt", "line 1")]
    refused = read_adr(b"ADR-032 \xff\n", "adr.txt")
    assert refused.value is None and [p.message for p in refused.problems] == ["is not UTF-8 text"]


def test_the_seed_adr_agrees_with_the_builtin_specification() -> None:
    seed = adr((SEEDS / "004_3e2f1068dfea7cba.txt").read_bytes())
    assert seed.verdict_amended == SPEC["verdict"]["amended"]
    assert agreement_problems(spec(), seed, "adr.txt", "built-in") == []


def test_each_disagreement_is_placed_on_the_adr_line_that_states_it() -> None:
    problems = agreement_problems(spec({"rubric": "ADR-033"}), adr(), "adr.txt", "scoring.json")
    by_where = {p.where: p.message for p in problems}
    assert "line 1" in by_where and "'ADR-033'" in by_where["line 1"]
    assert "gates on evalKey / evalVersion / judge" in by_where["line 8"]  # the specification: seven axes
    assert [p.where for p in problems] == ["line 1", "line 8"]
    gating = ["evalKey", "evalVersion", "judge", "usable_floor"]
    compare = {**SPEC["compare"], "gating": gating, "case_insensitive": ["evalKey", "evalVersion"]}
    problems = agreement_problems(spec({"compare": compare}), adr(), "adr.txt", "scoring.json")
    assert [p.where for p in problems] == ["line 8"]  # the axes agree; usable_floor is gated, not warned
    assert "only warns when no usable floor" in problems[0].message


def test_a_verdict_without_the_not_measured_warning_disagrees_with_the_amendment() -> None:
    verdict = copy.deepcopy(SPEC["verdict"])
    verdict["steps"] = [s for s in verdict["steps"] if s["when"] != "any_not_measured"]
    verdict["amended"] = "2026-10-04"
    problems = agreement_problems(spec({"verdict": verdict}), adr(), "adr.txt", "scoring.json")
    assert [p.where for p in problems if "not-measured" in p.message] == ["line 6"]
    unamended = {**verdict, "amended": None}
    messages = [p.message for p in agreement_problems(spec({"verdict": unamended}), adr(), "adr.txt", "s")]
    assert any("amends the run verdict on 2026-10-04" in m for m in messages)

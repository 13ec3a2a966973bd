"""A specification's size is bounded by its meaning (issue 31, class 5): every list and object, text,
number literal and the whole specification have documented limits (docs/scoring.md, "Limits"),
each refused with exit 4 and the limit named, before any rule is compiled, explained or written;
the largest specification the limits allow builds within a small multiple of its inputs."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from generator.families.input_base import SPEC_ENTRIES, SPEC_NUMBER, SPEC_TEXT, SPEC_VALUES, spec_bounds
from generator.families.points.spec import BUILTIN_FILE
from tests.conftest import CORPUS, corpus_of, reseal, run_cli

BENCH = "docs-quality"  # a team rubric whose specification is a sealed scoring.json


def bench_with(tmp_path: Path, change: Any, contract_change: Any = None) -> Path:
    """``runs/docs-quality`` alone, its scoring.json (and contract) changed, pinned and resealed;
    ``change`` returns the new scoring.json text."""
    root = corpus_of(tmp_path / "runs", BENCH)
    bench = root / BENCH
    spec = json.loads((bench / "scoring.json").read_text())
    data = change(spec).encode()
    (bench / "scoring.json").write_bytes(data)
    decl = json.loads((bench / "benchmark.json").read_text())
    decl["scoring"]["sha256"] = hashlib.sha256(data).hexdigest()
    if contract_change is not None:
        contract = json.loads((bench / "rubric.json").read_text())
        contract_change(contract)
        rubric = json.dumps(contract, indent=2).encode()
        (bench / "rubric.json").write_bytes(rubric)
        decl["rubric"]["sha256"] = hashlib.sha256(rubric).hexdigest()
    (bench / "benchmark.json").write_text(json.dumps(decl, indent=2))
    reseal(bench)
    return root


def refused(root: Path, tmp_path: Path) -> str:
    out = tmp_path / "site"
    result = run_cli("build", "--runs", root, "--out", out, "--site-version", "v1", "--no-cache")
    assert result.exit_code == 4, result.output
    assert "Traceback" not in result.output
    assert not out.exists() or not any(out.glob("v1"))
    return result.output


def gate_requiring(spec: dict[str, Any], count: int) -> str:
    spec["dimensions"][3]["rule"] = {"kind": "gate", "requires": ["mandatory_checks"] * count}
    return json.dumps(spec)


def test_800000_requires_entries_are_refused_naming_the_limit(tmp_path: Path) -> None:
    """The attack of the issue: a 15 MB scoring.json built into a 116 MB version at 817 MB peak."""
    root = bench_with(tmp_path, lambda spec: gate_requiring(spec, 800_000))
    output = refused(root, tmp_path)
    where = "docs-quality/scoring.json: $.dimensions[3].rule.requires: 800000 entries"
    assert f"{where}: a specification's list holds at most {SPEC_ENTRIES}" in output


def ladder_of(spec: dict[str, Any], steps: int) -> str:
    step = {"when": ["passed_after"], "points": 1}
    spec["dimensions"][3]["rule"] = {"kind": "ladder", "signals": "tests", "steps": [step] * steps}
    return json.dumps(spec)


def test_a_ladder_of_300000_steps_is_refused(tmp_path: Path) -> None:
    output = refused(bench_with(tmp_path, lambda spec: ladder_of(spec, 300_000)), tmp_path)
    assert "$.dimensions[3].rule.steps: 300000 entries: a specification's list holds at most 100" in output


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda spec: json.dumps(spec | {"rubric": "r" * (SPEC_TEXT + 1)}),
            f"$.rubric: {SPEC_TEXT + 1} characters: a specification's text holds at most {SPEC_TEXT}",
        ),
        (
            lambda spec: json.dumps(spec).replace('"each": 5', '"each": 0.' + "1" * SPEC_NUMBER),
            f"a number of {SPEC_NUMBER + 2} characters: at most {SPEC_NUMBER}",
        ),
        (
            lambda spec: json.dumps(spec).replace('"weight": 50', '"weight": ' + "5" * 5000),
            "an integer of 5000 digits: a number may hold at most 4300",
        ),
        (
            lambda spec: json.dumps(spec | {"x": [[0] * 99] * 60}),
            f"$: the specification holds more than {SPEC_VALUES} values",
        ),
    ],
    ids=["long-text", "long-decimal", "5000-digit-weight", "too-many-values"],
)
def test_each_limit_is_refused_in_our_words(tmp_path: Path, make: Any, message: str) -> None:
    output = refused(bench_with(tmp_path, make), tmp_path)
    assert message in output
    assert "set_int_max_str_digits" not in output  # Python's own advice is not ours to give


def test_the_limits_hold_inside_a_contract_too() -> None:
    """A contract's own ``scoring`` object is held to the same limits before the contract is read."""
    from generator.families.registry import FAMILIES

    contract = json.loads((CORPUS / "agent-dx" / "rubric.json").read_text())
    spec = json.loads(BUILTIN_FILE.read_text())
    spec["dimensions"][0]["rule"] = {"kind": "gate", "requires": ["mandatory_checks"] * 101}
    contract["scoring"] = spec
    found = FAMILIES["points"].read_contract(json.dumps(contract).encode(), "b/rubric.json")
    assert found.value is None
    assert [(p.where, p.message) for p in found.problems] == [
        ("$.scoring.dimensions[0].rule.requires", "101 entries: a specification's list holds at most 100")
    ]
    assert spec_bounds({"a": list(range(SPEC_ENTRIES))}) is None


def largest_spec(spec: dict[str, Any]) -> str:
    """docs-quality's four dimensions and 36 diagnostic ladders of 24 steps, names and labels at
    their longest: 40 dimensions (their limit) and 3,917 values of the 5,000 allowed."""
    signals = ["relevant_tests_changed", "passed_before", "passed_after"]
    for index in range(36):
        steps = [{"when": [signals[j % 3]], "points": 5 - j % 5} for j in range(24)]
        rule = {"kind": "ladder", "signals": "tests", "steps": steps, "otherwise": 0}
        dimension = {"key": f"diag_{index:02d}", "name": long_name(index), "weight": 5, "diagnostic": True}
        spec["dimensions"].append(dimension | {"label": f"diag {index:02d} " + "y" * 32, "rule": rule})
    return json.dumps(spec, indent=2)


def long_name(index: int) -> str:
    return f"diagnostic {index:02d} " + "x" * (SPEC_TEXT - 15)


def longest_contract(contract: dict[str, Any]) -> None:
    for index in range(36):
        contract["pointDimensions"].append(
            {"name": long_name(index), "weight": 5, "predicate": "a diagnostic ladder " + "z" * 150}
        )


MEASURE = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def build_measured(root: Path, out: Path) -> tuple[int, int, int]:
    """(input bytes, output bytes, peak RSS in KiB) of a build of ``root`` in a fresh process."""
    command = [sys.executable, "-m", "generator", "build", "--runs", str(root), "--out", str(out)]
    command += ["--site-version", "v1", "--no-cache", "--quiet"]
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *command], capture_output=True, text=True, check=True
    )
    size_in = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    size_out = sum(p.stat().st_size for p in (out / "v1").rglob("*") if p.is_file())
    return size_in, size_out, int(done.stdout.split()[-1])


@pytest.mark.slow
def test_the_largest_specification_allowed_builds_within_a_small_multiple_of_its_inputs(
    tmp_path: Path,
) -> None:
    """Measured here: inputs 82 KB → 218 KB, version 297 KB → 1.4 MB (3.6× → 6.6× its inputs), peak
    RSS 126 → 128 MB. Held to 10× the inputs, and peak memory within 64 MiB of the seed's build."""
    base = corpus_of(tmp_path / "base", BENCH)
    big = bench_with(tmp_path / "big", largest_spec, longest_contract)
    base_in, base_out, base_rss = build_measured(base, tmp_path / "site-base")
    big_in, big_out, big_rss = build_measured(big, tmp_path / "site-big")
    assert big_out <= 10 * big_in, (big_in, big_out)
    assert big_out - base_out <= 12 * (big_in - base_in), (base_in, base_out, big_in, big_out)
    assert big_rss <= base_rss + 64 * 1024, (base_rss, big_rss)

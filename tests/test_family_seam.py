"""Adding a family is its package, one registry line and its templates: proved with a fixture family.

A copy of ``generator/`` and ``templates/`` gets ``tests/fixture_family/tally`` as
``generator/families/tally``, its templates as ``templates/tally``, and one line in
``registry.REGISTERED``; nothing else changes. The copy then builds a site with the fifth family
in it, explains its rubric, prints its schemas, and passes mypy strict against the typed seam.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.inputs.seal import write_seal
from tests.conftest import ROOT, json_bytes
from tests.pages import namespace_problems, parse, report_parts, squash

FIXTURE = ROOT / "tests" / "fixture_family"
ENTRY = '    "generator.families.tally.family:TallyFamily",\n'


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generator with the tally family added the documented way, and nothing else changed."""
    tree = tmp_path_factory.mktemp("with-tally")
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "generator", tree / "generator", ignore=ignore)
    shutil.copytree(ROOT / "templates", tree / "templates", ignore=ignore)
    shutil.copytree(FIXTURE / "tally", tree / "generator" / "families" / "tally", ignore=ignore)
    shutil.copytree(FIXTURE / "templates" / "tally", tree / "templates" / "tally")
    registry = tree / "generator" / "families" / "registry.py"
    text = registry.read_text(encoding="utf-8")
    last = '    "generator.families.definitions.family:DefinitionsFamily",\n'
    assert last in text, "registry.REGISTERED no longer ends with the definitions family"
    registry.write_text(text.replace(last, last + ENTRY), encoding="utf-8")
    return tree


def tally_benchmark(root: Path, pass_mark: int = 60) -> Path:
    """A sealed tally benchmark with two runs: s-1 passes 3 of 4 items, s-2 passes 1 of 4."""
    bench = root / "tally-demo"
    for run, subject, passes in (("run-a", "s-1", (1, 1, 1, 0)), ("run-b", "s-2", (0, 1, 0, 0))):
        folder = bench / run
        folder.mkdir(parents=True)
        (folder / "run.json").write_bytes(json_bytes({"schema_version": 1, "subject": subject}))
        lines = [json.dumps({"item": f"i{n}", "passed": bool(p)}) for n, p in enumerate(passes, 1)]
        (folder / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        write_seal(folder)
    contract = json_bytes({"artifactId": "tally-demo", "status": "frozen", "pass_mark": pass_mark})
    (bench / "rubric.json").write_bytes(contract)
    declaration = {
        "schema_version": 1,
        "family": "tally",
        "title": "Tally demo",
        "rubric": {"file": "rubric.json", "sha256": hashlib.sha256(contract).hexdigest()},
        "scoring": {"file": "scoring.json", "sha256": ""},
    }
    spec = json_bytes({"family": "tally", "rubric": "tally-demo", "pass_mark": pass_mark})
    (bench / "scoring.json").write_bytes(spec)
    declaration["scoring"] = {"file": "scoring.json", "sha256": hashlib.sha256(spec).hexdigest()}
    (bench / "benchmark.json").write_bytes(json_bytes(declaration))
    write_seal(bench)
    return root


def benchsite(tree: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """The copied generator's command line, run from the copy (never the installed one)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [sys.executable, "-m", "generator", *map(str, args)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_fifth_family_publishes_with_its_package_a_registry_line_and_its_templates(
    source: Path, tmp_path: Path
) -> None:
    runs = tally_benchmark(tmp_path / "runs")
    done = benchsite(
        source, "build", "--runs", runs, "--out", tmp_path / "site", "--site-version", "v1", "-q"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    version = tmp_path / "site" / "v1"
    report = json.loads((version / "data" / "site.json").read_text(encoding="utf-8"))
    (bench,) = report["benchmarks"]
    assert bench["family"] == "tally"
    board = [
        (row["subject"], row["pass_rate"]["numerator"], row["pass_rate"]["denominator"])
        for row in bench["section"]["leaderboard"]
    ]
    assert board == [("s-1", 3, 4), ("s-2", 1, 4)]
    assert [run["run_passes"] for run in bench["section"]["runs"]] == [True, False]
    assert bench["section"]["scoring"]["source"] == "file"
    assert bench["headline"]["leaders"] == ["s-1"]
    methodology = squash(" ".join(parse(version / "b" / "tally-demo" / "methodology.html").text))
    assert "A run passes when at least 60% of its items pass." in methodology
    assert parse(version / "b" / "tally-demo" / "index.html").tables[0].rows == [
        (None, ["s-1", "3 of 4"]),
        (None, ["s-2", "1 of 4"]),
    ]
    assert (version / "b" / "tally-demo" / "runs" / "run-b.html").is_file()
    assert "s-1: 3 of 4 items passed" in (version / "release-notes.md").read_text(encoding="utf-8")
    assert "3 of 4" in squash(" ".join(parse(version / "report.html").text))
    parts = report_parts(version / "report.html")
    assert [p.id for p in parts] == ["tally-demo-section", "tally-demo-d-section"]
    assert [problem for part in parts for problem in namespace_problems(part)] == []
    assert "tally-demo-leaderboard" in parts[0].ids


def test_the_fifth_familys_own_changes_join_the_versions_index(source: Path, tmp_path: Path) -> None:
    """``section_changes`` and ``changes_model`` are all it takes: what moved in its section is
    published in versions.json (and its schema) beside every benchmark's changes."""
    out = tmp_path / "site"
    for version, pass_mark in (("v1", 60), ("v2", 75)):
        runs = tally_benchmark(tmp_path / version, pass_mark=pass_mark)
        done = benchsite(source, "build", "--runs", runs, "--out", out, "--site-version", version, "-q")
        assert done.returncode == 0, done.stdout + done.stderr
    first, second = json.loads((out / "versions.json").read_text(encoding="utf-8"))["changes"]
    assert first["benchmarks"] == []
    (bench,) = second["benchmarks"]
    assert (bench["benchmark"], bench["pass_mark"], bench["rubric_changed"]) == ("tally-demo", [60, 75], True)
    assert bench["judge_drift"] == []  # another family's field, at its default
    index = squash(" ".join(parse(out / "index.html").text))
    assert "Pass mark: 60% → 75%." in index  # shown by the family's own partial, tally/_changes.html
    assert "Pass mark: 60% → 75%" in (out / "v2" / "release-notes.md").read_text(encoding="utf-8")
    schema = json.loads(benchsite(source, "schema", "versions").stdout)
    assert "pass_mark" in schema["$defs"]["BenchmarkChanges"]["properties"]


def test_the_fifth_family_exports_to_mkdocs_from_the_same_templates(source: Path, tmp_path: Path) -> None:
    runs = tally_benchmark(tmp_path / "runs")
    out = tmp_path / "docs" / "bench"
    done = benchsite(source, "build", "--runs", runs, "--format", "mkdocs", "--out", out, "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    methodology = (out / "tally-demo" / "methodology.md").read_text(encoding="utf-8")
    assert "A run passes when at least 60% of its items pass." in methodology
    run = (out / "tally-demo" / "runs" / "run-a.md").read_text(encoding="utf-8")
    assert "3 of 4 items passed" in run and "| i4 | no |" in run


def test_the_fifth_family_reaches_the_rubric_and_schema_commands(source: Path, tmp_path: Path) -> None:
    runs = tally_benchmark(tmp_path / "runs", pass_mark=75)
    explained = benchsite(source, "rubric", "explain", runs / "tally-demo" / "rubric.json")
    assert explained.returncode == 0, explained.stdout + explained.stderr
    assert "A run passes when at least 75% of its items pass." in explained.stdout
    names = benchsite(source, "schema")
    assert {"tally-contract", "tally-scoring"} <= set(names.stdout.splitlines())


def test_a_fifth_family_contract_that_disagrees_with_its_specification_names_both_places(
    source: Path, tmp_path: Path
) -> None:
    runs = tally_benchmark(tmp_path / "runs")
    bench = runs / "tally-demo"
    spec = json_bytes({"family": "tally", "rubric": "tally-demo", "pass_mark": 90})
    (bench / "scoring.json").write_bytes(spec)
    declaration = json.loads((bench / "benchmark.json").read_text(encoding="utf-8"))
    declaration["scoring"]["sha256"] = hashlib.sha256(spec).hexdigest()
    (bench / "benchmark.json").write_bytes(json_bytes(declaration))
    (bench / "SHA256SUMS").unlink()
    write_seal(bench)
    done = benchsite(source, "build", "--runs", runs, "--out", tmp_path / "site", "-q")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "rubric.json" in done.stderr and "$.pass_mark" in done.stderr and "scoring.json" in done.stderr
    assert not (tmp_path / "site").exists() or not any((tmp_path / "site").iterdir())


@pytest.mark.slow
def test_the_fifth_family_type_checks_against_the_generic_seam(source: Path) -> None:
    shutil.copy(ROOT / "pyproject.toml", source / "pyproject.toml")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "generator/families/tally"],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr

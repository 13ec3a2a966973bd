"""Committed JSON Schemas cannot drift from the models, and the CLI prints the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from generator.schemas import SCHEMAS, schema_json
from tests.conftest import ROOT, run_cli

SCHEMA_DIR = ROOT / "schemas"


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schema_matches_the_model(name: str) -> None:
    committed = (SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8")
    assert committed == schema_json(name), f"schemas/{name}.schema.json drifted: regenerate it (README)"


def test_no_stray_committed_schema() -> None:
    assert {p.name for p in SCHEMA_DIR.glob("*.json")} == {f"{n}.schema.json" for n in SCHEMAS}


def test_schema_command_lists_and_prints() -> None:
    listed = run_cli("schema")
    assert listed.exit_code == 0
    assert listed.output.splitlines() == sorted(SCHEMAS)  # one name a line
    printed = run_cli("schema", "points-attempt")
    assert printed.exit_code == 0
    assert printed.output == schema_json("points-attempt")
    assert run_cli("schema", "nope").exit_code == 2


def test_example_corpus_validates_against_the_committed_schemas(tmp_path: Path) -> None:
    bench = ROOT / "runs" / "agent-dx"
    load = lambda n: json.loads((SCHEMA_DIR / f"{n}.schema.json").read_text())  # noqa: E731
    jsonschema.validate(json.loads((bench / "benchmark.json").read_text()), load("points-benchmark"))
    jsonschema.validate(json.loads((bench / "rubric.json").read_text()), load("points-contract"))
    for run in sorted(bench.glob("run-*")):
        jsonschema.validate(json.loads((run / "run.json").read_text()), load("points-run"))
        for line in (run / "attempts.jsonl").read_text().splitlines():
            jsonschema.validate(json.loads(line), load("points-attempt"))


def test_trials_corpus_validates_against_the_committed_schemas() -> None:
    bench = ROOT / "runs" / "vibe-delivery"
    load = lambda n: json.loads((SCHEMA_DIR / f"{n}.schema.json").read_text())  # noqa: E731
    jsonschema.validate(json.loads((bench / "benchmark.json").read_text()), load("trials-benchmark"))
    jsonschema.validate(json.loads((bench / "rubric.json").read_text()), load("trials-contract"))
    jsonschema.validate(json.loads((bench / "trial-plan.json").read_text()), load("trials-plan"))
    jsonschema.validate(json.loads((bench / "reveal" / "reveal.json").read_text()), load("trials-reveal"))
    for run in sorted(bench.glob("run-*")):
        jsonschema.validate(json.loads((run / "run.json").read_text()), load("trials-run"))
        for line in (run / "results.jsonl").read_text().splitlines():
            jsonschema.validate(json.loads(line), load("trials-result"))


def test_built_report_validates_against_the_report_schema(corpus: Path, tmp_path: Path) -> None:
    assert (
        run_cli("build", "--runs", corpus, "--out", tmp_path / "site", "--site-version", "v1").exit_code == 0
    )
    report = json.loads((tmp_path / "site" / "v1" / "data" / "site.json").read_text())
    jsonschema.validate(report, json.loads((SCHEMA_DIR / "report.schema.json").read_text()))


def test_the_command_line_lists_every_schema_one_per_line() -> None:
    from generator.schemas import SCHEMAS

    result = run_cli("schema")
    assert result.exit_code == 0
    assert result.output.splitlines() == sorted(SCHEMAS)


def test_an_unknown_schema_name_is_a_usage_error_listing_the_names() -> None:
    result = run_cli("schema", "points-nonesuch")
    assert result.exit_code == 2
    assert "'points-nonesuch' is not one of" in result.output
    assert "points-scoring" in result.output

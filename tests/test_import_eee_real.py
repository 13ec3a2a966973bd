"""``benchsite import eee`` on records EEE's tools really wrote (``tests/data/eee/real``, README there):
a 0.3.0 record with its instance file, and the output of EEE's own lm-eval converter of 0.2.2 as it is
(``evaluation_result_id: null`` on every line) and of 0.3.0. Each is imported and built, and its
published success count checked against a count made here from the instance lines with the standard
library; each record's own version's schema is checked with ``jsonschema`` directly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import ROOT, run_cli
from tests.pages import tables_of

REAL = ROOT / "tests" / "data" / "eee" / "real"
SCHEMAS = ROOT / "generator" / "importers" / "eee_schema"
PAIRS = {
    "0.3.0-demo": REAL / "0.3.0-demo" / "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40",
    "0.2.2-converter-winogrande": REAL
    / "0.2.2-converter-winogrande"
    / "f63d560a-bfd5-4681-831a-82c87723eebc",
}


def files_of(name: str) -> tuple[Path, Path]:
    stem = PAIRS[name]
    return stem.with_suffix(".json"), stem.parent / f"{stem.name}_samples.jsonl"


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def counted(aggregate: Path, samples: Path) -> tuple[int, int]:
    """(samples correct without error, samples the record declares), from the files themselves."""
    record = json.loads(aggregate.read_text(encoding="utf-8"))
    rows = lines(samples)
    (result,) = record["evaluation_results"]
    declared = result["score_details"].get("uncertainty", {}).get("num_samples", len(rows))
    correct = sum(1 for row in rows if row["evaluation"]["is_correct"] is True and row.get("error") is None)
    return correct, declared


def bench_of(name: str) -> str:
    return "eee-" + name.replace(".", "-")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every pair imported as its own benchmark, and one site built of them all."""
    root = tmp_path_factory.mktemp("eee-real")
    runs = root / "runs"
    for name in PAIRS:
        aggregate, samples = files_of(name)
        made = run_cli("import", "eee", aggregate, "--instances", samples, "--into", runs / bench_of(name))
        assert made.exit_code == 0, made.output
    done = run_cli("build", "--runs", runs, "--out", root / "site", "--site-version", "v1", "--quiet")
    assert done.exit_code == 0, done.output
    return root / "site" / "v1"


def built(site: Path, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The published leaderboard row and run of one imported pair."""
    bench = json.loads((site / "data" / "benchmarks" / f"{bench_of(name)}.json").read_text())
    (row,) = bench["section"]["scores"]["leaderboard"]
    (run_file,) = (site / "data" / "runs" / bench_of(name)).glob("*.json")
    return row, json.loads(run_file.read_text())


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_each_record_is_valid_under_its_own_version_s_schema(name: str) -> None:
    aggregate, samples = files_of(name)
    record = json.loads(aggregate.read_text(encoding="utf-8"))
    version = record["schema_version"]
    schema = json.loads((SCHEMAS / f"eval-{version}.schema.json").read_text(encoding="utf-8"))
    assert list(jsonschema.Draft7Validator(schema).iter_errors(record)) == []
    instance = json.loads(
        (SCHEMAS / f"instance_level_eval-{version}.schema.json").read_text(encoding="utf-8")
    )
    for row in lines(samples):
        assert row["schema_version"] == version
        present = {
            key: value for key, value in row.items() if value is not None or key != "evaluation_result_id"
        }
        assert list(jsonschema.Draft7Validator(instance).iter_errors(present)) == []


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_published_count_is_the_count_of_the_instance_lines(site: Path, name: str) -> None:
    row, _ = built(site, name)
    correct, declared = counted(*files_of(name))
    assert (row["metrics"]["success"]["numerator"], row["metrics"]["success"]["denominator"]) == (
        correct,
        declared,
    )


def test_the_converter_s_null_result_ids_are_read_as_absent_and_said(site: Path) -> None:
    _, samples = files_of("0.2.2-converter-winogrande")
    rows = lines(samples)
    assert all("evaluation_result_id" in row and row["evaluation_result_id"] is None for row in rows)
    _, run = built(site, "0.2.2-converter-winogrande")
    (note,) = [note for note in run["notes"] if "evaluation_result_id null" in note]
    assert note.startswith(f"{len(rows)} of the {len(rows)} instance records")


def test_a_0_3_0_record_is_held_to_0_3_0_s_own_schema(tmp_path: Path) -> None:
    """The converter's 0.2.2 aggregate relabelled 0.3.0 lacks what 0.3.0 requires of model_info."""
    aggregate, samples = files_of("0.2.2-converter-winogrande")
    relabelled = tmp_path / aggregate.name
    record = json.loads(aggregate.read_text(encoding="utf-8"))
    record["schema_version"] = "0.3.0"
    relabelled.write_text(json.dumps(record), encoding="utf-8")
    made = run_cli("import", "eee", relabelled, "--instances", samples, "--into", tmp_path / "runs")
    assert made.exit_code == 4, made.output
    assert (
        f"{relabelled}: $.model_info.additional_details: 'deployment_type' is a required property"
        in made.output
    )
    assert "Traceback" not in made.output
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_leaderboard_shows_the_model_by_its_own_name(site: Path, name: str) -> None:
    aggregate, _ = files_of(name)
    model = json.loads(aggregate.read_text(encoding="utf-8"))["model_info"]["id"]
    row, _ = built(site, name)
    page = site / "b" / bench_of(name) / "index.html"
    (board, *_) = tables_of(page, squashed=True)
    assert board[1][1] == f"{model} {row['provider']}"

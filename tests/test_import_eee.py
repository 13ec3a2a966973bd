"""importers.eee: Every Eval Ever records in, runs out, every figure checked against the files.

The oracle reads the fixtures here with the standard library and the vendored schemas through
``jsonschema`` directly, never through the reader's own helpers. Each refusal is built in a temporary
folder from a valid fixture and asserted by file, place, reason and exit code 4.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from generator.errors import EXIT_INVALID, ProblemReport
from generator.importers import eee
from generator.importers.model import Imported, ImportedRun
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data" / "eee"
SCHEMAS = ROOT / "generator" / "importers" / "eee_schema"
MODELS = DATA / "two-models"
A, A_ROWS = MODELS / "model-a.json", MODELS / "model-a_samples.jsonl"
B, B_ROWS = MODELS / "model-b.json", MODELS / "model-b_samples.jsonl"
AGGREGATE_ONLY = DATA / "aggregate-only.json"
REAL_0_2_0 = DATA / "real" / "98ea850e-7019-4728-a558-8b1819ec47c2.json"
REAL_0_2_0_INSPECT = DATA / "real" / "0.2.0-inspect" / "9563d156-9b7e-41b9-b50a-6430637937ed.json"
REAL_AGGREGATE_ONLY = DATA / "real" / "676f4465-ce78-411a-9f5a-c97b3d2eac4f.json"


def schema_errors(name: str, value: Any) -> list[str]:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    return [error.message for error in jsonschema.Draft7Validator(schema).iter_errors(value)]


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line, parse_float=Decimal) for line in path.read_text(encoding="utf-8").splitlines()]


def both() -> Imported:
    return eee.read_many([(A, [A_ROWS]), (B, [B_ROWS])])


def run_of(imported: Imported, subject: str) -> ImportedRun:
    (run,) = [run for run in imported.runs if run.subject == subject]
    return run


# --- the fixtures are what the schemas say -------------------------------------------------------


@pytest.mark.parametrize("aggregate", [A, B, AGGREGATE_ONLY, REAL_AGGREGATE_ONLY], ids=lambda p: p.name)
def test_every_aggregate_fixture_is_valid_under_the_vendored_schema(aggregate: Path) -> None:
    assert schema_errors("eval-0.2.2.schema.json", json.loads(aggregate.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize("sidecar", [A_ROWS, B_ROWS], ids=lambda p: p.name)
def test_every_instance_line_is_valid_under_the_vendored_schema(sidecar: Path) -> None:
    for record in lines_of(sidecar):
        assert schema_errors("instance_level_eval-0.2.2.schema.json", record) == []


def test_the_real_0_2_0_record_is_not_valid_under_0_2_2() -> None:
    errors = schema_errors("eval-0.2.2.schema.json", json.loads(REAL_0_2_0.read_text(encoding="utf-8")))
    assert errors == ["8.357 is not of type 'string'"]


def test_the_sidecars_checksums_and_row_counts_are_the_files() -> None:
    for aggregate, sidecar in ((A, A_ROWS), (B, B_ROWS)):
        declared = json.loads(aggregate.read_text(encoding="utf-8"))["detailed_evaluation_results"]
        digest = hashlib.new(declared["hash_algorithm"], sidecar.read_bytes()).hexdigest()
        assert (declared["checksum"], declared["total_rows"]) == (digest, len(lines_of(sidecar)))


# --- runs and observations, counted from the files ------------------------------------------------


def expected_observation(record: dict[str, Any]) -> dict[str, Any]:
    """What one JSONL line says, read here by hand."""
    latency = (record.get("performance") or {}).get("latency_ms")
    usage = record.get("token_usage")
    return {
        "sample_id": record["sample_id"],
        "terminal": "completed" if record["error"] is None else "error",
        "state": {True: "pass", False: "fail"}[record["evaluation"]["is_correct"]],
        "elapsed_ms": None
        if latency is None
        else int(Decimal(latency).quantize(Decimal(1), ROUND_HALF_EVEN)),
        "tokens": (None, None) if usage is None else (usage["input_tokens"], usage["output_tokens"]),
        "score": str(record["evaluation"]["score"]),
        "sample_hash": record["sample_hash"],
    }


@pytest.mark.parametrize(
    ("subject", "sidecar"), [("example-org/model-a", A_ROWS), ("example-org/model-b", B_ROWS)]
)
def test_every_observation_is_its_instance_record(subject: str, sidecar: Path) -> None:
    run = run_of(both(), subject)
    records = lines_of(sidecar)
    assert len(run.observations) == len(records)
    for observation, record in zip(run.observations, records, strict=True):
        want = expected_observation(record)
        assert observation.sample_id == want["sample_id"]
        assert observation.epoch == 1
        assert observation.terminal == want["terminal"]
        assert observation.failure_code == (None if want["terminal"] == "completed" else "error")
        assert observation.checks == (("is_correct", want["state"]),)
        assert observation.elapsed_ms == want["elapsed_ms"]
        assert (observation.tokens_in, observation.tokens_out) == want["tokens"]
        values = dict(observation.values)
        assert values["score"] == want["score"]
        assert values["sample_hash"] == want["sample_hash"]
        assert values["is_correct"] == json.dumps(record["evaluation"]["is_correct"])


@pytest.mark.parametrize(
    ("subject", "sidecar"), [("example-org/model-a", A_ROWS), ("example-org/model-b", B_ROWS)]
)
def test_the_counts_of_each_run_are_the_counts_of_its_file(subject: str, sidecar: Path) -> None:
    run = run_of(both(), subject)
    records = lines_of(sidecar)
    states = Counter(state for observation in run.observations for _, state in observation.checks)
    assert states["pass"] == sum(record["evaluation"]["is_correct"] is True for record in records)
    assert states["fail"] == sum(record["evaluation"]["is_correct"] is False for record in records)
    errored = sum(observation.terminal == "error" for observation in run.observations)
    assert errored == sum(record["error"] is not None for record in records)


def test_two_models_on_the_same_samples() -> None:
    imported = both()
    a, b = run_of(imported, "example-org/model-a"), run_of(imported, "example-org/model-b")
    declared = json.loads(A.read_text(encoding="utf-8"))["evaluation_results"][0]["source_data"]["sample_ids"]
    assert a.task == b.task == "arith"
    assert a.planned == b.planned == tuple((sample, 1) for sample in declared)
    hashes = [{o.sample_id: dict(o.values)["sample_hash"] for o in run.observations} for run in (a, b)]
    assert all(hashes[0][sample] == hashes[1][sample] for sample in hashes[1])
    observed_b = {observation.sample_id for observation in b.observations}
    assert [sample for sample, _ in b.planned if sample not in observed_b] == ["arith-005"]
    assert imported.producer == "every-eval-ever"
    assert imported.checks == ("is_correct",)
    assert "evaluation.is_correct" in imported.success


def test_latencies_round_half_to_even() -> None:
    imported = both()
    assert [o.elapsed_ms for o in run_of(imported, "example-org/model-a").observations] == [
        812,
        1500,
        640,
        30000,
        977,
    ]
    assert [o.elapsed_ms for o in run_of(imported, "example-org/model-b").observations] == [2, 4, None, 1204]


def test_the_aggregate_score_is_reported_as_written() -> None:
    imported = both()
    (a,) = run_of(imported, "example-org/model-a").reported
    (b,) = run_of(imported, "example-org/model-b").reported
    assert (a.name, a.check, a.value) == ("accuracy", "is_correct", "0.6")
    assert b.value == "0.500"
    assert "score_details.score" in a.basis and "inspect_ai 0.3.150" in a.basis


def test_a_run_keeps_its_files_byte_for_byte_and_its_record_facts() -> None:
    run = run_of(both(), "example-org/model-a")
    assert [(source.name, source.data) for source in run.sources] == [
        (A.name, A.read_bytes()),
        (A_ROWS.name, A_ROWS.read_bytes()),
    ]
    assert run.producer == "every-eval-ever 0.2.2"
    assert run.created == "1764892800.0"
    assert run.status == "success"
    assert any("'arith-hard'" in note for note in run.notes)


def rewrite(
    tmp_path: Path, edit_rows: Any = None, edit_record: Any = None, reseal: bool = True, model: Path = A
) -> tuple[Path, Path]:
    """A copy of a model's pair in ``tmp_path``, its records and aggregate edited, the sidecar resealed."""
    sidecar_of = {A: A_ROWS, B: B_ROWS}[model]
    records = [json.loads(line) for line in sidecar_of.read_text(encoding="utf-8").splitlines()]
    record = json.loads(model.read_text(encoding="utf-8"))
    records = edit_rows(records) if edit_rows else records
    data = "".join(json.dumps(row) + "\n" for row in records).encode()
    if reseal:
        declared = record["detailed_evaluation_results"]
        declared["checksum"] = hashlib.new(declared["hash_algorithm"], data).hexdigest()
        declared["total_rows"] = len(records)
    if edit_record:
        edit_record(record)
    aggregate, sidecar = tmp_path / "a.json", tmp_path / "a_samples.jsonl"
    aggregate.write_text(json.dumps(record, indent=2), encoding="utf-8")
    sidecar.write_bytes(data)
    return aggregate, sidecar


def test_a_sample_hashed_differently_in_another_run_is_noted(tmp_path: Path) -> None:
    def rehash(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows[1]["sample_hash"] = "0" * 64
        return rows

    aggregate, sidecar = rewrite(tmp_path, edit_rows=rehash, model=B)
    imported = eee.read_many([(A, [A_ROWS]), (aggregate, [sidecar])])
    for run in imported.runs:
        (note,) = [note for note in run.notes if "sample_hash" in note]
        assert "1 sample(s) of 'arith'" in note and "(arith-002)" in note
    assert not any("sample_hash" in note for run in both().runs for note in run.notes)


def test_a_result_declaring_only_its_count_plans_the_records(tmp_path: Path) -> None:
    aggregate, sidecar = rewrite(
        tmp_path, edit_record=lambda r: r["evaluation_results"][0]["source_data"].pop("sample_ids")
    )
    (run,) = eee.read(aggregate, [sidecar]).runs
    assert [sample for sample, _ in run.planned] == [record["sample_id"] for record in lines_of(sidecar)]


def test_a_result_declaring_nothing_plans_the_records_and_says_so(tmp_path: Path) -> None:
    def undeclare(record: dict[str, Any]) -> None:
        record["evaluation_results"][0]["source_data"].pop("sample_ids")
        record["evaluation_results"][0]["score_details"].pop("uncertainty")

    aggregate, sidecar = rewrite(tmp_path, edit_record=undeclare)
    (run,) = eee.read(aggregate, [sidecar]).runs
    assert len(run.planned) == 5
    assert any("cannot be seen as missing" in note for note in run.notes)


# --- refusals: each with its file, place and reason, exit 4 --------------------------------------


def refused(pairs: list[tuple[Path, list[Path]]]) -> list[tuple[str, str, str]]:
    with pytest.raises(ProblemReport) as caught:
        eee.read_many(pairs)
    assert caught.value.exit_code == EXIT_INVALID
    assert all(not problem.refused for problem in caught.value.problems)
    return [(problem.file, problem.where, problem.message) for problem in caught.value.problems]


def one(pairs: list[tuple[Path, list[Path]]], file: Path, where: str, *reason: str) -> None:
    ((got_file, got_where, message),) = refused(pairs)
    assert (got_file, got_where) == (str(file), where)
    assert all(part in message for part in reason), message


@pytest.mark.parametrize("aggregate", [AGGREGATE_ONLY, REAL_AGGREGATE_ONLY], ids=lambda p: p.name)
def test_an_aggregate_only_record_is_refused(aggregate: Path) -> None:
    where = "$.detailed_evaluation_results"
    one([(aggregate, [])], aggregate, where, "aggregate-only", "cannot be re-derived", "--instances")


def test_instances_for_an_aggregate_that_declares_none_are_refused(tmp_path: Path) -> None:
    aggregate, sidecar = rewrite(tmp_path, edit_record=lambda r: r.pop("detailed_evaluation_results"))
    where = "$.detailed_evaluation_results"
    one([(aggregate, [sidecar])], aggregate, where, "declares no instance-level data", "cannot be re-derived")


def test_a_record_with_instance_data_given_without_it_is_refused() -> None:
    where = "$.detailed_evaluation_results"
    one([(A, [])], A, where, "cannot be re-derived", "--instances model-a_samples.jsonl")


@pytest.mark.parametrize("record", [REAL_0_2_0, REAL_0_2_0_INSPECT], ids=lambda p: p.parent.name)
def test_a_record_of_a_version_eee_published_no_schema_of_is_refused_once(record: Path) -> None:
    reason = ("'0.2.0' has no JSON Schema EEE published", "reads 0.2.2, 0.3.0", "every-eval-ever 0.3.0")
    one([(record, [])], record, "$.schema_version", *reason)


def test_an_unknown_schema_version_is_refused_once(tmp_path: Path) -> None:
    aggregate, sidecar = rewrite(tmp_path, edit_record=lambda r: r.update(schema_version="0.4.0"))
    reason = ("'0.4.0' is not one benchsite reads", "0.2.2, 0.3.0", "every-eval-ever 0.3.0")
    one([(aggregate, [sidecar])], aggregate, "$.schema_version", *reason)


def test_an_instance_record_of_an_unknown_version_is_refused(tmp_path: Path) -> None:
    def older(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows[1]["schema_version"] = "0.2.1"
        return rows

    aggregate, sidecar = rewrite(tmp_path, edit_rows=older)
    one(
        [(aggregate, [sidecar])],
        sidecar,
        "line 2 $.schema_version",
        "'0.2.1' has no JSON Schema EEE published",
    )


def test_corrupt_json_and_jsonl_are_refused_with_their_place(tmp_path: Path) -> None:
    aggregate, sidecar = rewrite(tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "schema_version": "0.2.2",\n  oops\n}\n', encoding="utf-8")
    lines = sidecar.read_text(encoding="utf-8").splitlines(keepends=True)
    sidecar.write_text("".join([*lines[:2], '{"sample_id": \n', *lines[3:]]), encoding="utf-8")
    problems = refused([(broken, []), (aggregate, [sidecar])])
    assert problems == [
        (str(sidecar), "line 3 column 15", "not valid JSON: Expecting value"),
        (str(broken), "line 3 column 3", "not valid JSON: Expecting property name enclosed in double quotes"),
    ]


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        ('{"a": 1, "a": 2}\n', "line 1", "duplicate key 'a'"),
        ('{"a": NaN}\n', "line 1", "NaN is not a JSON number"),
        ("\n", "line 1", "is blank"),
        ("", "", "holds no instance records"),
    ],
    ids=["duplicate-key", "nan", "blank-line", "empty"],
)
def test_a_sidecar_json_cannot_hold_is_refused(tmp_path: Path, text: str, where: str, reason: str) -> None:
    aggregate, sidecar = rewrite(tmp_path)
    sidecar.write_text(text, encoding="utf-8")
    one([(aggregate, [sidecar])], sidecar, where, reason)


def test_bytes_that_are_not_utf8_and_missing_files_are_refused(tmp_path: Path) -> None:
    aggregate, sidecar = rewrite(tmp_path)
    sidecar.write_bytes(b'{"sample_id": "\xff"}\n')
    missing = tmp_path / "missing.json"
    problems = refused([(aggregate, [sidecar]), (missing, [])])
    assert problems[0] == (str(sidecar), "byte 15", "is not valid UTF-8")
    assert problems[1][:2] == (str(missing), "") and "cannot be read" in problems[1][2]


def test_every_schema_violation_is_collected_with_its_path(tmp_path: Path) -> None:
    def violate_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        del rows[1]["evaluation"]
        rows[1]["modality"] = "text"
        rows[3]["token_usage"]["input_tokens"] = -1
        return rows

    def violate_record(record: dict[str, Any]) -> None:
        record["evaluation_results"][0]["score_details"]["score"] = "0.6"

    aggregate, sidecar = rewrite(tmp_path, edit_rows=violate_rows, edit_record=violate_record)
    assert refused([(aggregate, [sidecar])]) == [
        (str(aggregate), "$.evaluation_results[0].score_details.score", "'0.6' is not of type 'number'"),
        (str(sidecar), "line 2 $", "'evaluation' is a required property"),
        (str(sidecar), "line 2 $", "Additional properties are not allowed ('modality' was unexpected)"),
        (str(sidecar), "line 4 $.token_usage.input_tokens", "-1 is less than the minimum of 0"),
    ]


@pytest.mark.parametrize(
    ("key", "value"), [("evaluation_id", "another/run/1"), ("model_id", "example-org/model-b")]
)
def test_a_record_of_another_evaluation_or_model_is_refused(tmp_path: Path, key: str, value: str) -> None:
    def other(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows[2][key] = value
        return rows

    aggregate, sidecar = rewrite(tmp_path, edit_rows=other)
    one([(aggregate, [sidecar])], sidecar, f"line 3 $.{key}", repr(value), "another evaluation run or model")


def test_a_duplicate_sample_is_refused(tmp_path: Path) -> None:
    aggregate, sidecar = rewrite(tmp_path, edit_rows=lambda rows: [*rows, rows[0]])
    one([(aggregate, [sidecar])], sidecar, "line 6 $.sample_id", "'arith-001' is recorded again", "line 1")


def test_a_sample_the_aggregate_does_not_declare_is_refused(tmp_path: Path) -> None:
    def rename(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows[4]["sample_id"] = "arith-999"
        return rows

    aggregate, sidecar = rewrite(tmp_path, edit_rows=rename)
    one([(aggregate, [sidecar])], sidecar, "line 5 $.sample_id", "'arith-999' is not among the sample_ids")


def test_a_count_the_records_do_not_match_is_refused(tmp_path: Path) -> None:
    def count_only(record: dict[str, Any]) -> None:
        record["evaluation_results"][0]["source_data"].pop("sample_ids")
        record["evaluation_results"][0]["score_details"]["uncertainty"]["num_samples"] = 6

    aggregate, sidecar = rewrite(tmp_path, edit_record=count_only)
    where = "$.evaluation_results[0].score_details.uncertainty.num_samples"
    one(
        [(aggregate, [sidecar])], aggregate, where, "declares 6 samples, but 5 instance records", "sample_ids"
    )


def test_a_sidecar_that_is_not_the_published_one_is_refused(tmp_path: Path) -> None:
    aggregate, sidecar = rewrite(tmp_path, edit_rows=lambda rows: rows[:4], reseal=False)
    problems = refused([(aggregate, [sidecar])])
    assert [(file, where) for file, where, _ in problems] == [
        (str(aggregate), "$.detailed_evaluation_results.checksum"),
        (str(aggregate), "$.detailed_evaluation_results.total_rows"),
    ]
    assert "does not match a_samples.jsonl" in problems[0][2]
    assert "declares 5 instance rows, but the instance file(s) hold 4 records" in problems[1][2]


def test_records_naming_no_result_of_the_aggregate_are_refused(tmp_path: Path) -> None:
    def unlink(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows[0]["evaluation_result_id"] = "nope"
        del rows[1]["evaluation_result_id"]
        rows[1]["evaluation_name"] = "arith - accuracy"
        return rows

    aggregate, sidecar = rewrite(tmp_path, edit_rows=unlink)
    problems = refused([(aggregate, [sidecar])])
    assert [(file, where) for file, where, _ in problems] == [
        (str(sidecar), "line 1 $.evaluation_result_id"),
        (str(sidecar), "line 2 $.evaluation_name"),
    ]
    assert "'nope' names no evaluation result" in problems[0][2]
    assert "'arith - accuracy' names no evaluation result" in problems[1][2]


def test_the_same_evaluation_and_model_twice_is_refused(tmp_path: Path) -> None:
    aggregate, sidecar = rewrite(tmp_path)
    pairs = [(A, [A_ROWS]), (aggregate, [sidecar])]
    one(
        pairs,
        aggregate,
        "$.evaluation_results",
        "'arith' of model 'example-org/model-a' is also in model-a.json",
    )


def test_two_files_of_one_run_with_one_name_are_refused(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    twin = tmp_path / "other" / A_ROWS.name
    twin.write_bytes(A_ROWS.read_bytes())
    problems = refused([(A, [A_ROWS, twin])])
    assert (str(twin), "", f"has the same file name as {A_ROWS}: a run keeps its files by name") in problems


def test_instance_records_of_another_version_than_their_aggregate_are_refused(tmp_path: Path) -> None:
    def newer(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows[2]["schema_version"] = "0.3.0"
        return rows

    aggregate, sidecar = rewrite(tmp_path, edit_rows=newer)
    one([(aggregate, [sidecar])], sidecar, "line 3 $.schema_version", "'0.3.0'", "are of one version")


def test_a_null_evaluation_result_id_reads_as_absent_and_the_run_says_so(tmp_path: Path) -> None:
    def nulled(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for row in rows[:3]:
            row["evaluation_result_id"] = None
        return rows

    aggregate, sidecar = rewrite(tmp_path, edit_rows=nulled)
    (run,) = eee.read(aggregate, [sidecar]).runs
    expected = [row["evaluation"]["is_correct"] for row in lines_of(sidecar)]
    assert [dict(o.checks)["is_correct"] == "pass" for o in run.observations] == expected
    (note,) = [note for note in run.notes if "evaluation_result_id null" in note]
    assert note.startswith(f"3 of the {len(expected)} instance records")
    assert run.blind_notes is not None and note in run.blind_notes

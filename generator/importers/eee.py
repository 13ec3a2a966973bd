"""Every Eval Ever (EEE) records read into an :class:`Imported`: ``benchsite import eee``.

An EEE aggregate record (``eval.schema.json``) names one model (``model_info.id``) and its
``evaluation_results``; its instance-level sidecar (``instance_level_eval.schema.json``, one JSON
object a line) holds one record per sample and result. Both are validated against the schemas
vendored in ``eee_schema/``, each record against the schemas of its own ``schema_version`` (0.2.2
and 0.3.0: the versions EEE published schemas of; SOURCE.md names where each comes from).

One run per evaluation result that instance records name: subject = ``model_info.id``, task =
``evaluation_name``. An instance record names its result by ``evaluation_result_id`` (the schema's
preferred key) or else by ``evaluation_name``; a null ``evaluation_result_id`` (EEE's own 0.2.2
lm-eval converter writes one on every line) reads as absent, and the run says so. The plan is the
result's ``source_data.sample_ids`` when declared; else its
``score_details.uncertainty.num_samples``, which the records must match exactly (a missing sample
could not be named); else the records present, and the run says so.
An aggregate without instance-level data cannot be re-derived and is refused.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path, PurePosixPath
from typing import Any

from generator.errors import Problem, ProblemReport, Problems, Result
from generator.importers import eee_schema
from generator.importers.eee_schema import Row
from generator.importers.model import CheckState, Imported, ImportedRun, Observation, Reported, SourceFile
from generator.inputs import numbers

CHECK = "is_correct"
"""The one check of every sample: the producer's own ``evaluation.is_correct``."""

SUCCESS = (
    "A sample passes the check is_correct when its EEE instance record's evaluation.is_correct is "
    "true and fails when it is false (a null or absent value would read as not evaluable; schema "
    "0.2.2 and 0.3.0 require a boolean). A record whose error is set ended in error (failure code 'error'), "
    "whatever its is_correct says. evaluation.score is kept as the sample's value and never decides. "
    "A sample the aggregate record declares (source_data.sample_ids) without an instance record is a "
    "missing result."
)

_NOT_DERIVABLE = "its scores cannot be re-derived from samples, so benchsite does not import it"


@dataclass(frozen=True)
class _Aggregate:
    """One aggregate record read and validated: its file, bytes and parsed value."""

    path: Path
    data: bytes
    record: dict[str, Any]

    @property
    def file(self) -> str:
        return str(self.path)


def read(aggregate: Path, instances: Sequence[Path]) -> Imported:
    """One aggregate record and its instance-level file(s), or a ``ProblemReport`` (exit 4)."""
    return read_many([(aggregate, instances)])


def read_many(pairs: Sequence[tuple[Path, Sequence[Path]]]) -> Imported:
    """Several (aggregate, instance files) pairs, every problem of every file collected, failing once."""
    problems = Problems()
    runs: list[ImportedRun] = []
    for aggregate, instances in pairs:
        found = problems.take(_read_pair(aggregate, instances))
        runs.extend(found or ())
    problems.extend(_repeated_runs(runs, [aggregate for aggregate, _ in pairs]))
    if problems:
        raise ProblemReport(problems)
    noted = tuple(_with_hash_note(run, _hash_conflicts(runs)) for run in runs)
    return Imported(producer="every-eval-ever", checks=(CHECK,), success=SUCCESS, runs=noted)


def _read_pair(path: Path, instances: Sequence[Path]) -> Result[tuple[ImportedRun, ...]]:
    problems = Problems()
    data = problems.take(eee_schema.read_bytes(path))
    record = None if data is None else problems.take(eee_schema.aggregate_record(data, str(path)))
    sidecars = problems.take(_read_sidecars(instances))
    problems.extend(_name_clashes(path, instances))
    if data is None or record is None or sidecars is None:
        return problems.result(None)
    aggregate = _Aggregate(path, data, record)
    declared = record.get("detailed_evaluation_results")
    if declared is None or not instances:
        problems.append(_aggregate_only(aggregate, declared, instances))
        return problems.result(None)
    files, rows = sidecars
    problems.extend(_sidecar_problems(aggregate, declared, files, len(rows)))
    problems.extend(_identity_problems(aggregate, rows))
    problems.extend(_latency_problems(rows))
    linked = problems.take(_link(aggregate, rows))
    if linked is None or problems:
        return problems.result(None)
    return _runs(aggregate, linked, (SourceFile(path.name, data), *files))


def _read_sidecars(instances: Sequence[Path]) -> Result[tuple[tuple[SourceFile, ...], tuple[Row, ...]]]:
    """Every instance file's bytes and records, read even when the aggregate is refused."""
    problems = Problems()
    files: list[SourceFile] = []
    rows: list[Row] = []
    for instance in instances:
        data = problems.take(eee_schema.read_bytes(instance))
        if data is not None:
            files.append(SourceFile(instance.name, data))
            read = problems.take(eee_schema.instance_rows(data, str(instance)))
            rows.extend(read or ())
    return problems.result(None if problems else (tuple(files), tuple(rows)))


def _name_clashes(path: Path, instances: Sequence[Path]) -> list[Problem]:
    """A run keeps its files by name, so no two files of one run may share one."""
    seen = {path.name: path}
    found: list[Problem] = []
    for instance in instances:
        if instance.name in seen:
            message = f"has the same file name as {seen[instance.name]}: a run keeps its files by name"
            found.append(Problem(str(instance), "", message))
        seen.setdefault(instance.name, instance)
    return found


def _aggregate_only(aggregate: _Aggregate, declared: Any, instances: Sequence[Path]) -> Problem:
    if declared is None and not instances:
        reason = (
            f"is an aggregate-only record (it has no detailed_evaluation_results): {_NOT_DERIVABLE}; "
            "a record is imported with its instance-level file, passed with --instances"
        )
    elif declared is None:
        reason = (
            "declares no instance-level data (no detailed_evaluation_results), so the instance file(s) "
            f"given cannot be tied to it: as an aggregate-only record, {_NOT_DERIVABLE}"
        )
    else:
        name = PurePosixPath(declared["file_path"]).name
        reason = (
            f"names its instance-level file {name}, but none was given; without it {_NOT_DERIVABLE}: "
            f"pass it with --instances {name}"
        )
    return Problem(aggregate.file, "$.detailed_evaluation_results", reason)


def _sidecar_problems(
    aggregate: _Aggregate, declared: dict[str, Any], sidecars: tuple[SourceFile, ...], count: int
) -> list[Problem]:
    """The sidecar the aggregate declares: its row count and checksum (EEE's own publication gate)."""
    found: list[Problem] = []
    where = "$.detailed_evaluation_results"
    total = declared.get("total_rows")
    if total is not None and total != count:
        message = f"declares {total} instance rows, but the instance file(s) hold {count} records"
        found.append(Problem(aggregate.file, f"{where}.total_rows", message))
    checksum = declared.get("checksum")
    if checksum is None:
        return found
    algorithm = declared.get("hash_algorithm")
    if algorithm is None:
        message = "gives a checksum but no hash_algorithm, so the instance file cannot be checked"
        found.append(Problem(aggregate.file, f"{where}.checksum", message))
    elif len(sidecars) != 1:
        message = f"gives the checksum of one instance file; pass that one file ({len(sidecars)} were given)"
        found.append(Problem(aggregate.file, f"{where}.checksum", message))
    elif (actual := hashlib.new(algorithm, sidecars[0].data).hexdigest()) != checksum.lower():
        message = (
            f"{algorithm} {checksum} does not match {sidecars[0].name} ({actual}): "
            "the instance file is not the one this record was published with"
        )
        found.append(Problem(aggregate.file, f"{where}.checksum", message))
    return found


def _identity_problems(aggregate: _Aggregate, rows: tuple[Row, ...]) -> list[Problem]:
    """Every instance record must be of the aggregate's evaluation run and model."""
    found: list[Problem] = []
    expected = {
        "evaluation_id": aggregate.record["evaluation_id"],
        "model_id": aggregate.record["model_info"]["id"],
    }
    version = aggregate.record["schema_version"]
    for row in rows:
        for key, value in expected.items():
            if row.record[key] != value:
                message = (
                    f"is {row.record[key]!r}, but the aggregate {aggregate.path.name} is {value!r}: "
                    "the record belongs to another evaluation run or model"
                )
                found.append(Problem(row.file, f"line {row.line} $.{key}", message))
        if row.version != version:
            message = (
                f"is {row.record['schema_version']!r}, but the aggregate {aggregate.path.name} is of "
                f"schema {version!r}: a record and its instance records are of one version"
            )
            found.append(Problem(row.file, f"line {row.line} $.schema_version", message))
    return found


def _latency_problems(rows: tuple[Row, ...]) -> list[Problem]:
    """A latency whose whole milliseconds the build could not read (``1e999999999``)."""
    found: list[Problem] = []
    for row in rows:
        latency = (row.record.get("performance") or {}).get("latency_ms")
        if latency is not None and numbers.whole(Decimal(latency)) is None:
            text = eee_schema.number_text(latency)[:40]
            message = f"{text} ms: a time may hold at most {numbers.MAX_DIGITS} digits"
            found.append(Problem(row.file, f"line {row.line} $.performance.latency_ms", message))
    return found


def _link(aggregate: _Aggregate, rows: tuple[Row, ...]) -> Result[dict[int, list[Row]]]:
    """Each instance record's evaluation result (index into ``evaluation_results``)."""
    problems = Problems()
    results: list[dict[str, Any]] = aggregate.record["evaluation_results"]
    by_id: dict[str, int] = {}
    by_name: dict[str, list[int]] = {}
    for index, result in enumerate(results):
        by_name.setdefault(result["evaluation_name"], []).append(index)
        if "evaluation_result_id" in result:
            if result["evaluation_result_id"] in by_id:
                where = f"$.evaluation_results[{index}].evaluation_result_id"
                problems.append(Problem(aggregate.file, where, "is not unique among the evaluation results"))
            by_id.setdefault(result["evaluation_result_id"], index)
    linked: dict[int, list[Row]] = {}
    for row in rows:
        target = problems.take(_result_of(row, results, by_id, by_name))
        if target is not None:
            linked.setdefault(target, []).append(row)
    return problems.result(linked)


def _result_of(
    row: Row, results: list[dict[str, Any]], by_id: dict[str, int], by_name: dict[str, list[int]]
) -> Result[int]:
    name = row.record["evaluation_name"]
    if "evaluation_result_id" in row.record:
        key = row.record["evaluation_result_id"]
        if key not in by_id:
            message = f"{key!r} names no evaluation result of the aggregate record"
            return Result(None, (Problem(row.file, f"line {row.line} $.evaluation_result_id", message),))
        if results[by_id[key]]["evaluation_name"] != name:
            named = results[by_id[key]]["evaluation_name"]
            message = f"is {name!r}, but its evaluation result {key!r} is named {named!r}"
            return Result(None, (Problem(row.file, f"line {row.line} $.evaluation_name", message),))
        return Result(by_id[key])
    candidates = by_name.get(name, [])
    if len(candidates) == 1:
        return Result(candidates[0])
    known = ", ".join(repr(result["evaluation_name"]) for result in results)
    if candidates:
        message = (
            f"{name!r} names {len(candidates)} evaluation results: give the record its evaluation_result_id"
        )
    else:
        message = f"{name!r} names no evaluation result of the aggregate record (it has {known})"
    return Result(None, (Problem(row.file, f"line {row.line} $.evaluation_name", message),))


def _runs(
    aggregate: _Aggregate, linked: dict[int, list[Row]], sources: tuple[SourceFile, ...]
) -> Result[tuple[ImportedRun, ...]]:
    problems = Problems()
    results: list[dict[str, Any]] = aggregate.record["evaluation_results"]
    unlinked = [results[index]["evaluation_name"] for index in range(len(results)) if index not in linked]
    notes, blind_notes = (_notes(aggregate.record, unlinked, blind) for blind in (False, True))
    runs: list[ImportedRun] = []
    for index in sorted(linked):
        plan = problems.take(_plan(aggregate, index, linked[index]))
        if plan is not None:
            planned, plan_notes = plan
            plan_notes = (*plan_notes, *_null_id_note(linked[index]))
            run = _run(aggregate, index, linked[index], planned, sources, (*notes, *plan_notes))
            runs.append(replace(run, blind_notes=(*blind_notes, *plan_notes)))
    return problems.result(tuple(runs))


def _plan(
    aggregate: _Aggregate, index: int, rows: list[Row]
) -> Result[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The sample ids the result declares it ran, in its order, and what the run must disclose."""
    problems = Problems(_duplicate_samples(rows))
    result = aggregate.record["evaluation_results"][index]
    where = f"$.evaluation_results[{index}]"
    recorded = tuple(row.record["sample_id"] for row in rows)
    declared_ids = result["source_data"].get("sample_ids")
    count = result["score_details"].get("uncertainty", {}).get("num_samples")
    if declared_ids is not None:
        problems.extend(_declared_problems(aggregate, where, declared_ids, rows))
        return problems.result((tuple(declared_ids), ()))
    if count is not None:
        if count != len(recorded):
            message = (
                f"declares {count} samples, but {len(recorded)} instance records name this result; "
                "a sample without a record cannot be named as a missing result: pass the complete "
                "instance file, or declare the samples in source_data.sample_ids"
            )
            problems.append(
                Problem(aggregate.file, f"{where}.score_details.uncertainty.num_samples", message)
            )
        return problems.result((recorded, ()))
    note = (
        f"The aggregate record declares neither source_data.sample_ids nor a sample count for "
        f"{result['evaluation_name']!r}: the plan is the {len(recorded)} instance records present, so a "
        "sample left out of the instance file cannot be seen as missing."
    )
    return problems.result((recorded, (note,)))


def _null_id_note(rows: list[Row]) -> tuple[str, ...]:
    """What a run says of instance records that wrote ``evaluation_result_id: null``."""
    nulled = sum(1 for row in rows if row.null_result_id)
    if not nulled:
        return ()
    note = (
        f"{nulled} of the {len(rows)} instance records write evaluation_result_id null (EEE's own "
        "lm-eval converter does; the schema allows only a string): read as absent, each record is tied "
        "to its evaluation result by evaluation_name."
    )
    return (note,)


def _duplicate_samples(rows: list[Row]) -> list[Problem]:
    first: dict[str, Row] = {}
    found: list[Problem] = []
    for row in rows:
        sample = row.record["sample_id"]
        if sample in first:
            earlier = first[sample]
            place = (
                f"line {earlier.line}" if earlier.file == row.file else f"{earlier.file} line {earlier.line}"
            )
            message = (
                f"sample {sample!r} is recorded again for {row.record['evaluation_name']!r} (first at "
                f"{place}): an EEE record holds one attempt per sample"
            )
            found.append(Problem(row.file, f"line {row.line} $.sample_id", message))
        first.setdefault(sample, row)
    return found


def _declared_problems(
    aggregate: _Aggregate, where: str, declared: list[str], rows: list[Row]
) -> list[Problem]:
    found: list[Problem] = []
    seen: set[str] = set()
    for position, sample in enumerate(declared):
        if sample in seen:
            place = f"{where}.source_data.sample_ids[{position}]"
            found.append(Problem(aggregate.file, place, f"sample {sample!r} is declared twice"))
        seen.add(sample)
    for row in rows:
        if row.record["sample_id"] not in seen:
            sample = row.record["sample_id"]
            message = f"sample {sample!r} is not among the sample_ids the aggregate record declares"
            found.append(Problem(row.file, f"line {row.line} $.sample_id", message))
    return found


def _run(
    aggregate: _Aggregate,
    index: int,
    rows: list[Row],
    planned: tuple[str, ...],
    sources: tuple[SourceFile, ...],
    notes: tuple[str, ...],
) -> ImportedRun:
    record = aggregate.record
    result = record["evaluation_results"][index]
    return ImportedRun(
        subject=record["model_info"]["id"],
        task=result["evaluation_name"],
        planned=tuple((sample, 1) for sample in planned),
        observations=tuple(_observation(row.record) for row in rows),
        sources=sources,
        producer=f"every-eval-ever {record['schema_version']}",
        status="success",
        reported=(_reported(record, result),),
        notes=notes,
        created=result.get("evaluation_timestamp")
        or record.get("evaluation_timestamp")
        or record["retrieved_timestamp"],
    )


def _observation(record: dict[str, Any]) -> Observation:
    """One instance record as the producer wrote it: epoch 1 (EEE records no repetitions)."""
    evaluation = record["evaluation"]
    correct = evaluation.get("is_correct")
    errored = record.get("error") is not None
    usage = record.get("token_usage")
    values = [(CHECK, _json_text(correct)), ("score", eee_schema.number_text(evaluation["score"]))]
    if record.get("sample_hash") is not None:
        values.append(("sample_hash", record["sample_hash"]))
    return Observation(
        sample_id=record["sample_id"],
        epoch=1,
        terminal="error" if errored else "completed",
        checks=((CHECK, _state(correct)),),
        failure_code="error" if errored else None,
        elapsed_ms=_milliseconds((record.get("performance") or {}).get("latency_ms")),
        tokens_in=None if usage is None else int(usage["input_tokens"]),
        tokens_out=None if usage is None else int(usage["output_tokens"]),
        values=tuple(values),
    )


def _state(correct: object) -> CheckState:
    if correct is True:
        return "pass"
    if correct is False:
        return "fail"
    return "not_evaluable"


def _json_text(value: object) -> str:
    if value is None:
        return "null"
    return "true" if value is True else "false"


def _milliseconds(value: Decimal | int | None) -> int | None:
    """Whole milliseconds from the producer's decimal text, half to even (``812.5`` → 812); a
    latency too long to read was refused before (:func:`_latency_problems`)."""
    if value is None:
        return None
    return numbers.whole(Decimal(value))


def _reported(record: dict[str, Any], result: dict[str, Any]) -> Reported:
    metric = result["metric_config"]
    library = record["eval_library"]
    direction = "lower is better" if metric["lower_is_better"] else "higher is better"
    basis = (
        f"The aggregate record's score_details.score for {result['evaluation_name']!r} ({direction}), "
        f"as {library['name']} {library['version']} computed it; EEE does not record how errored or "
        "missing samples were counted."
    )
    name = metric.get("metric_id") or metric.get("metric_name") or "score"
    return Reported(
        name=name, check=CHECK, value=eee_schema.number_text(result["score_details"]["score"]), basis=basis
    )


def _notes(record: dict[str, Any], unlinked: list[str], blind: bool) -> tuple[str, ...]:
    """What every run of the record discloses; when ``blind``, without the record's id and source
    organization, which name the model or its maker (``arith/example-org_model-a/…``)."""
    source = record["source_metadata"]
    kind = f"source type {source['source_type']}, evaluator {source['evaluator_relationship']}"
    withheld = "its evaluation_id and source organization are withheld while the models are blind"
    named = f"Every Eval Ever record {record['evaluation_id']!r}, {kind}"
    notes = [
        f"Every Eval Ever record, {kind} ({withheld})."
        if blind
        else f"{named} ({source['source_organization_name']}).",
        "EEE records no run status: 'success' stands for a published record.",
    ]
    if unlinked:
        names = ", ".join(repr(name) for name in unlinked)
        notes.append(f"Not imported: no instance record names the aggregate's result(s) {names}.")
    return tuple(notes)


def _repeated_runs(runs: list[ImportedRun], aggregates: list[Path]) -> list[Problem]:
    """One run per evaluation and model: a second record of the same pair is refused."""
    seen: dict[tuple[str, str], str] = {}
    found: list[Problem] = []
    for run in runs:
        key = (run.task, run.subject)
        file = run.sources[0].name
        if key in seen:
            place = next((str(path) for path in aggregates if path.name == file), file)
            message = (
                f"evaluation {run.task!r} of model {run.subject!r} is also in {seen[key]}: "
                "benchsite imports one run per evaluation and model"
            )
            found.append(Problem(place, "$.evaluation_results", message))
        seen.setdefault(key, file)
    return found


def _hash_conflicts(runs: list[ImportedRun]) -> set[tuple[str, str]]:
    """(task, sample id) pairs whose records across runs give more than one ``sample_hash``."""
    hashes: dict[tuple[str, str], set[str]] = {}
    for run in runs:
        for observation in run.observations:
            value = dict(observation.values).get("sample_hash")
            if value is not None:
                hashes.setdefault((run.task, observation.sample_id), set()).add(value)
    return {key for key, values in hashes.items() if len(values) > 1}


def _with_hash_note(run: ImportedRun, conflicts: set[tuple[str, str]]) -> ImportedRun:
    samples = sorted(o.sample_id for o in run.observations if (run.task, o.sample_id) in conflicts)
    if not samples:
        return run
    note = (
        f"{len(samples)} sample(s) of {run.task!r} carry another sample_hash in another run "
        f"({', '.join(samples)}): the inputs differ, or the records were hashed by different recipes "
        "(EEE's converters differ); samples are paired by sample_id."
    )
    blind_notes = None if run.blind_notes is None else (*run.blind_notes, note)
    return replace(run, notes=(*run.notes, note), blind_notes=blind_notes)

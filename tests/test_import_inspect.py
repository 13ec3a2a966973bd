"""``importers.inspect_log``: real inspect_ai logs in, an ``Imported`` out, or located problems.

Two kinds of input, both written by inspect_ai itself:

* logs made in this session by ``tests/inspect_producer.py`` (slow: it runs inspect_ai), checked
  against inspect_ai's own reading of each log (``read_eval_log``), the independent oracle;
* the logs checked in under ``tests/data/inspect/`` (fast, no inspect_ai), checked against the
  counts its README states, worked out from the producer's answer table by hand.

Every broken input is made from a real log in a temporary folder.
"""

from __future__ import annotations

import io
import json
import shutil
import struct
import sys
import zipfile
from collections import Counter
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from generator.errors import EXIT_INVALID, ProblemReport
from generator.importers import inspect_log
from generator.importers.model import Imported, ImportedRun

DATA = Path(__file__).parent / "data" / "inspect"
MODEL_JSON = DATA / "2026-12-06T05-19-06-00-00_quiz_Ex8pV7vgC9E4uTbkdUAyMy.json"
MODEL_EVAL = DATA / "2026-12-06T05-19-07-00-00_quiz_b4t4ad92h9H3E7CAXGiJ5v.eval"
OTHER_JSON = DATA / "2026-12-06T05-19-06-00-00_quiz_cAF8BwqaxXqrqido84MRvj.json"
OTHER_EVAL = DATA / "2026-12-06T05-19-07-00-00_quiz_NYmEAuWAtYnpUs575M3YAG.eval"
ERROR_EVAL = DATA / "2026-12-06T05-19-08-00-00_quiz_PfPKeyRpUskLqBReHPyJxg.eval"
STARTED_EVAL = DATA / "started-2026-12-06T05-19-08-00-00_quiz_8kst3wRhm3VkDHiw5KPD4d.eval"
CANCELLED_EVAL = DATA / "cancelled-2026-12-06T05-19-09-00-00_quiz_eb8ZsYgvqb46Z4csXVarUH.eval"
IDS = ("s1", "s2", "s3", "7", "q/7", "s6", "s7", "s8")


def tally(run: ImportedRun) -> dict[str, int]:
    """How the run's records ended: pass / fail of ``includes``, errors, time and message limits."""
    counts: Counter[str] = Counter()
    for observation in run.observations:
        states = dict(observation.checks)
        counts[states.get("includes", "unscored")] += 1
        counts[observation.failure_code or "completed"] += 1
    return dict(counts)


def refusal(paths: list[Path], **options: Any) -> ProblemReport:
    with pytest.raises(ProblemReport) as caught:
        inspect_log.read(paths, **options)
    assert caught.value.exit_code == EXIT_INVALID
    return caught.value


def one_line(report: ProblemReport) -> str:
    (line, _summary) = report.message.splitlines()
    return line


def json_copy(source: Path, target_dir: Path, change: Any) -> Path:
    """A copy of a json log with ``change(log)`` applied to its parsed object."""
    log = json.loads(source.read_bytes())
    change(log)
    target = target_dir / source.name
    target.write_text(json.dumps(log), encoding="utf-8")
    return target


def members(path: Path) -> list[tuple[str, bytes]]:
    """Every member of an .eval log, decompressed by ``zipfile_zstd`` (not by the reader's code)."""
    import zipfile_zstd  # noqa: F401  (teaches zipfile the zstd method; an inspect_ai dependency)

    with zipfile.ZipFile(path) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def deflated(entries: list[tuple[str, bytes]], target: Path) -> Path:
    """An .eval log of ``entries``, deflate-compressed (as inspect_ai wrote them before zstd)."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return target


# ---- the checked-in logs: fast, no inspect_ai -------------------------------------------------


def test_the_checked_in_logs_read_as_their_readme_says() -> None:
    imported = inspect_log.read([MODEL_JSON, OTHER_JSON])
    assert imported.producer == "inspect_ai"
    assert imported.checks == ("includes",)
    model, other = imported.runs
    assert (model.subject, other.subject) == ("mockllm/model", "mockllm/other")
    assert tally(model) == {
        "pass": 9,
        "fail": 6,
        "unscored": 1,
        "completed": 12,
        "error": 1,
        "limit:time": 2,
        "limit:message": 1,
    }
    assert tally(other) == {
        "pass": 7,
        "fail": 8,
        "unscored": 1,
        "completed": 12,
        "error": 1,
        "limit:time": 2,
        "limit:message": 1,
    }
    assert model.planned == tuple((sample, epoch) for sample in IDS for epoch in (1, 2))
    assert [(o.sample_id, o.epoch) for o in model.observations] == list(model.planned)
    assert (model.task, model.status, model.notes) == ("quiz", "success", ())
    assert model.producer == "inspect_ai 0.3.285, log format 2"
    assert model.sources[0].name == MODEL_JSON.name
    assert model.sources[0].data == MODEL_JSON.read_bytes()


def test_each_way_a_sample_ends_maps_to_its_terminal() -> None:
    (run,) = inspect_log.read([MODEL_JSON]).runs
    trial = {(o.sample_id, o.epoch): o for o in run.observations}
    raised, timed_out, chatty = trial["s3", 1], trial["s8", 1], trial["s6", 2]
    assert (raised.terminal, raised.failure_code, raised.checks, raised.values) == ("error", "error", (), ())
    assert (timed_out.terminal, timed_out.failure_code, timed_out.checks) == (
        "timeout",
        "limit:time",
        (("includes", "fail"),),
    )
    assert (chatty.terminal, chatty.failure_code, chatty.values) == (
        "error",
        "limit:message",
        (("includes", "I"),),
    )
    right = trial["q/7", 2]
    assert (right.terminal, right.checks, right.values) == (
        "completed",
        (("includes", "pass"),),
        (("includes", "C"),),
    )
    assert trial["7", 1].checks == (("includes", "pass"),)
    assert right.tokens_in is not None and right.tokens_out is not None and right.elapsed_ms is not None


def test_json_and_eval_logs_of_one_model_agree() -> None:
    """Two runs of the same eval (one per format): the same trials, states, values and figures."""
    for json_log, eval_log in ((MODEL_JSON, MODEL_EVAL), (OTHER_JSON, OTHER_EVAL)):
        runs = inspect_log.read([json_log, eval_log]).runs
        timeless = [[replace(o, elapsed_ms=None) for o in run.observations] for run in runs]
        assert timeless[0] == timeless[1]
        assert runs[0].reported == runs[1].reported
        assert runs[0].planned == runs[1].planned


def test_the_reported_accuracy_is_the_logs_text() -> None:
    (run,) = inspect_log.read([MODEL_JSON]).runs
    (accuracy,) = run.reported  # inspect's counts are not rates: not set beside benchsite's
    assert (accuracy.check, accuracy.value) == ("includes", "0.625")  # (1+1+1+1+1+0+0+0)/8, s3 by epoch 2
    assert b'"value": 0.625' in MODEL_JSON.read_bytes()
    assert "reduced over its epochs by mean" in accuracy.basis


def test_a_folder_reads_every_log_sorted_and_skips_logs_json(tmp_path: Path) -> None:
    for log in (MODEL_JSON, MODEL_EVAL):
        shutil.copyfile(log, tmp_path / log.name)
    (tmp_path / "logs.json").write_text("{}", encoding="utf-8")
    runs = inspect_log.read([tmp_path]).runs
    assert [run.sources[0].name for run in runs] == sorted([MODEL_JSON.name, MODEL_EVAL.name])


def test_a_log_that_ended_in_error_imports_with_a_note() -> None:
    (run,) = inspect_log.read([ERROR_EVAL]).runs
    assert run.status == "error"
    assert len(run.planned) == 16
    assert tally(run) == {"pass": 2, "unscored": 2, "completed": 2, "error": 2}
    assert run.notes == (
        "the eval ended in error (inspect_ai status 'error'): 4 of 16 planned trials have a result;"
        " each missing one counts as a failure",
    )
    assert run.reported == ()


def test_a_started_log_is_refused_unless_asked_for() -> None:
    report = refusal([STARTED_EVAL])
    assert one_line(report) == (
        f"{STARTED_EVAL}: _journal/start.json: status: the log's status is 'started' (the eval did not"
        " finish); pass --allow-unfinished to import it, each planned trial without a result counting"
        " as a failure"
    )
    (run,) = inspect_log.read([STARTED_EVAL], allow_unfinished=True).runs
    assert run.status == "started"
    assert run.notes == (
        "the log is still 'started': 10 of 16 planned trials have a result;"
        " each missing one counts as a failure",
    )
    assert tally(run) == {"pass": 7, "fail": 3, "completed": 10}


def test_a_cancelled_log_is_refused_unless_asked_for() -> None:
    assert refusal([CANCELLED_EVAL]).problems[0].where == "header.json: status"
    (run,) = inspect_log.read([CANCELLED_EVAL], allow_unfinished=True).runs
    assert run.status == "cancelled"
    assert run.notes == (
        "the log was 'cancelled': 12 of 16 planned trials have a result;"
        " each missing one counts as a failure",
    )
    assert tally(run) == {"pass": 8, "fail": 3, "unscored": 1, "completed": 11, "error": 1}
    assert ("7", 2) in {(o.sample_id, o.epoch) for o in run.observations if o.terminal == "error"}


def test_an_eval_log_of_deflated_members_reads_like_the_zstd_one(tmp_path: Path) -> None:
    copy = deflated(members(MODEL_EVAL), tmp_path / MODEL_EVAL.name)
    ours, theirs = (inspect_log.read([path]).runs[0] for path in (copy, MODEL_EVAL))
    assert replace(ours, sources=()) == replace(theirs, sources=())


def test_a_numeric_score_needs_a_threshold(tmp_path: Path) -> None:
    def numeric(log: dict[str, Any]) -> None:
        for sample in log["samples"]:
            for score in (sample.get("scores") or {}).values():
                score["value"] = {"C": 1.0, "I": 0.25}[score["value"]]

    path = json_copy(MODEL_JSON, tmp_path, numeric)
    report = refusal([path])
    assert report.problems[0].where == "samples[0].scores.includes.value"
    assert report.problems[0].message.startswith("the score is a number (1.0): pass --threshold")
    (run,) = inspect_log.read([path], threshold=Decimal("0.5")).runs
    assert tally(run)["pass"] == 9 and tally(run)["fail"] == 6
    assert ("includes", "0.25") in [value for o in run.observations for value in o.values]
    (lenient,) = inspect_log.read([path], threshold=Decimal("0.25")).runs
    assert tally(lenient)["pass"] == 15
    assert (
        "a number passes when it is at least 0.25"
        in inspect_log.read([path], threshold=Decimal("0.25")).success
    )


def test_a_number_is_compared_as_the_text_inspect_wrote(tmp_path: Path) -> None:
    """0.09999999999999999999 is below 0.1, though as a float it is 0.1 exactly."""
    text = MODEL_JSON.read_text(encoding="utf-8").replace(
        '"value": "C"', '"value": 0.09999999999999999999', 1
    )
    assert float("0.09999999999999999999") == 0.1
    path = tmp_path / MODEL_JSON.name
    path.write_text(text.replace('"value": "I"', '"value": 0.1'), encoding="utf-8")
    (run,) = inspect_log.read([path], threshold=Decimal("0.1")).runs
    read = [
        (text, state)
        for o in run.observations
        for (_, state), (_, text) in zip(o.checks, o.values, strict=True)
    ]
    assert ("0.09999999999999999999", "fail") in read
    assert ("0.1", "pass") in read


def test_a_threshold_that_is_not_a_number_is_refused() -> None:
    assert (
        one_line(refusal([MODEL_JSON], threshold=Decimal("NaN"))) == "--threshold: NaN is not a finite number"
    )


def test_true_and_false_and_partial_and_no_answer(tmp_path: Path) -> None:
    values = {"s1": True, "s2": False, "7": "P", "q/7": "N"}

    def mixed(log: dict[str, Any]) -> None:
        for sample in log["samples"]:
            if sample["epoch"] == 1 and str(sample["id"]) in values:
                sample["scores"]["includes"]["value"] = values[str(sample["id"])]

    (run,) = inspect_log.read([json_copy(MODEL_JSON, tmp_path, mixed)]).runs
    first = {o.sample_id: o for o in run.observations if o.epoch == 1 and o.sample_id in values}
    assert [first[i].checks[0][1] for i in values] == ["pass", "fail", "fail", "fail"]
    assert [first[i].values[0][1] for i in values] == ["true", "false", "P", "N"]


def test_a_task_version_names_its_own_task(tmp_path: Path) -> None:
    path = json_copy(MODEL_JSON, tmp_path, lambda log: log["eval"].update(task_version=3))
    assert inspect_log.read([path]).runs[0].task == "quiz@3"


def test_a_subset_of_the_dataset_is_noted(tmp_path: Path) -> None:
    path = json_copy(MODEL_JSON, tmp_path, lambda log: log["eval"]["dataset"].update(samples=20))
    (note,) = inspect_log.read([path]).runs[0].notes
    assert note == "the log ran 8 of its dataset's 20 samples (a --limit or --sample-id selection)"


# ---- refusals: each a located problem, exit 4 -------------------------------------------------


def test_a_truncated_eval_log_is_refused(tmp_path: Path) -> None:
    cut = tmp_path / MODEL_EVAL.name
    cut.write_bytes(MODEL_EVAL.read_bytes()[:-200])
    report = refusal([cut])
    assert one_line(report).startswith(f"{cut}: not a readable zip archive (")
    assert one_line(report).endswith("): truncated?")


def test_a_corrupt_eval_member_is_refused_with_its_name(tmp_path: Path) -> None:
    data = bytearray(MODEL_EVAL.read_bytes())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.getinfo("samples/s2_epoch_1.json")
    name_length, extra_length = struct.unpack("<HH", data[info.header_offset + 26 : info.header_offset + 30])
    middle = info.header_offset + 30 + name_length + extra_length + info.compress_size // 2
    data[middle] ^= 0xFF
    broken = tmp_path / MODEL_EVAL.name
    broken.write_bytes(bytes(data))
    problem = refusal([broken]).problems[0]
    assert (problem.file, problem.where) == (str(broken), "samples/s2_epoch_1.json")
    assert problem.message.startswith("cannot be read: its ")
    assert "corrupt" in problem.message


def test_an_eval_log_without_a_header_is_refused(tmp_path: Path) -> None:
    entries = [
        (name, data) for name, data in members(MODEL_EVAL) if not name.endswith(("header.json", "start.json"))
    ]
    path = deflated(entries, tmp_path / MODEL_EVAL.name)
    assert one_line(refusal([path])) == (
        f"{path}: no header.json (nor _journal/start.json): not an inspect_ai .eval log, or cut short"
    )


def test_a_corrupt_json_log_is_refused(tmp_path: Path) -> None:
    cut = tmp_path / MODEL_JSON.name
    cut.write_bytes(MODEL_JSON.read_bytes()[:5000])
    problem = refusal([cut]).problems[0]
    assert problem.file == str(cut)
    assert problem.where.startswith("line ")
    assert problem.message.startswith("not valid JSON (") and problem.message.endswith("): truncated?")


def test_an_unknown_log_version_is_refused(tmp_path: Path) -> None:
    path = json_copy(MODEL_JSON, tmp_path, lambda log: log.update(version=3))
    assert (
        one_line(refusal([path]))
        == f"{path}: version: log format version 3: this reader knows inspect_ai's format 2"
    )


def test_version_3_in_an_eval_header_is_refused_at_its_member(tmp_path: Path) -> None:
    def bump(name: str, data: bytes) -> bytes:
        return json.dumps({**json.loads(data), "version": 3}).encode() if name == "header.json" else data

    path = deflated([(name, bump(name, data)) for name, data in members(MODEL_EVAL)], tmp_path / "x.eval")
    assert one_line(refusal([path])).startswith(f"{path}: header.json: version: log format version 3")


def test_an_unknown_scorer_is_refused_with_the_known_ones() -> None:
    assert one_line(refusal([MODEL_JSON], scorer="match")) == (
        f"{MODEL_JSON}: results.scores: no scorer named 'match': the logs' scorers are includes"
    )
    assert inspect_log.read([MODEL_JSON], scorer="includes").checks == ("includes",)


def test_logs_with_different_scorers_are_refused(tmp_path: Path) -> None:
    def rename(log: dict[str, Any]) -> None:
        log["results"]["scores"][0]["name"] = log["results"]["scores"][0]["scorer"] = "match"

    path = json_copy(MODEL_JSON, tmp_path, rename)
    report = refusal([path, OTHER_JSON])
    assert [p.file for p in report.problems] == sorted([str(path), str(OTHER_JSON)])
    assert all(
        p.message.endswith("the logs do not share their scorers; import them apart") for p in report.problems
    )


def test_a_duplicate_sample_record_is_refused(tmp_path: Path) -> None:
    path = json_copy(MODEL_JSON, tmp_path, lambda log: log["samples"].append(log["samples"][0]))
    assert one_line(refusal([path])) == (
        f"{path}: samples[16]: a second record of sample '7' epoch 1 (the first: samples[0])"
    )


def test_undeclared_samples_and_epochs_are_refused(tmp_path: Path) -> None:
    def stray(log: dict[str, Any]) -> None:
        log["samples"][0]["id"] = "s99"
        log["samples"][1]["epoch"] = 3

    report = refusal([json_copy(MODEL_JSON, tmp_path, stray)])
    assert [(p.where, p.message) for p in report.problems] == [
        ("samples[0]", "sample id 's99' is not one of the log's declared ids (eval.dataset.sample_ids)"),
        ("samples[1]", "epoch 3 of sample 'q/7' is outside the log's epochs (eval.config.epochs)"),
    ]


def test_a_log_without_sample_ids_imports_when_its_records_are_the_whole_dataset(tmp_path: Path) -> None:
    """Issue 45: a log written before ``sample_ids``; its records list all 8 of the dataset's ids."""
    path = json_copy(MODEL_JSON, tmp_path, lambda log: log["eval"]["dataset"].pop("sample_ids"))
    (run,) = inspect_log.read([path]).runs
    (declared,) = inspect_log.read([MODEL_JSON]).runs
    assert sorted(run.planned) == sorted(declared.planned)
    assert set(run.observations) == set(declared.observations)
    assert run.notes == (
        "the log predates eval.dataset.sample_ids: the plan is the 8 sample ids its records list,"
        " which are all of its dataset's 8 samples",
    )


def test_a_log_without_sample_ids_that_ran_part_of_its_dataset_is_refused(tmp_path: Path) -> None:
    def older(log: dict[str, Any]) -> None:
        log["eval"]["dataset"].pop("sample_ids")
        log["eval"]["dataset"]["samples"] = 500  # as a --limit run records the whole dataset's size

    path = json_copy(MODEL_JSON, tmp_path, older)
    assert one_line(refusal([path])) == (
        f"{path}: eval.dataset.sample_ids: no sample_ids (a log written before inspect_ai recorded them):"
        " its records list 8 sample ids and it declares the dataset's 500 samples, so the samples it"
        " planned but did not run are unknown; import a log of the whole dataset, or re-run the eval"
        " with a current inspect_ai (which records the planned ids)"
    )


def test_wrong_types_and_unreadable_scores_are_each_reported(tmp_path: Path) -> None:
    def damage(log: dict[str, Any]) -> None:
        log["samples"][2]["scores"]["includes"]["value"] = {"a": 1}
        log["samples"][3]["scores"]["includes"]["value"] = "X"
        log["samples"][4]["total_time"] = "soon"
        log["samples"][5]["epoch"] = True

    report = refusal([json_copy(MODEL_JSON, tmp_path, damage)])
    assert [p.where for p in report.problems] == [
        "samples[2].scores.includes.value",
        "samples[3].scores.includes.value",
        "samples[4].total_time",
        "samples[5].epoch",
    ]
    assert report.problems[1].message == "score value 'X' is none of C, I, P, N"
    assert report.message.splitlines()[-1].startswith("4 problem(s): 0 refused input(s), 4 invalid content")


def test_a_missing_path_is_refused(tmp_path: Path) -> None:
    assert (
        one_line(refusal([tmp_path / "nowhere.eval"]))
        == f"{tmp_path / 'nowhere.eval'}: no such file or folder"
    )


# ---- logs made now by inspect_ai itself, checked against inspect_ai's own reading ------------


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The producer's logs, made in this test session (module-scoped, so one worker makes them)."""
    pytest.importorskip("inspect_ai", reason="inspect_ai (the test extra) makes these logs")
    from tests.inspect_producer import make_logs

    folder = tmp_path_factory.mktemp("inspect-logs")
    return {role: folder / name for role, name in make_logs(folder).items()}


def oracle(path: Path) -> dict[int, Counter[str]]:
    """Per epoch, inspect_ai's own count of correct, incorrect and errored records, and of limits."""
    from inspect_ai.log import read_eval_log

    counts: dict[int, Counter[str]] = {}
    for sample in read_eval_log(str(path)).samples or []:
        seen = counts.setdefault(sample.epoch, Counter())
        if sample.error is not None:
            seen["errored"] += 1
        elif sample.scores:
            seen["correct" if sample.scores["includes"].value == "C" else "incorrect"] += 1
        if sample.limit is not None:
            seen[f"limit {sample.limit.type}"] += 1
    return counts


def ours(run: ImportedRun) -> dict[int, Counter[str]]:
    counts: dict[int, Counter[str]] = {}
    for observation in run.observations:
        seen = counts.setdefault(observation.epoch, Counter())
        if observation.failure_code == "error":
            seen["errored"] += 1
        elif observation.checks:
            seen["correct" if dict(observation.checks)["includes"] == "pass" else "incorrect"] += 1
        if observation.failure_code and observation.failure_code.startswith("limit:"):
            seen[f"limit {observation.failure_code.removeprefix('limit:')}"] += 1
    return counts


def inspects_trials(path: Path) -> dict[tuple[str, int], tuple[str | None, int | None, int | None]]:
    """Per (sample, epoch), as inspect_ai reads it: "error" or the score's value, its milliseconds
    (total_time, half to even) and its tokens (input, output over every model)."""
    from inspect_ai.log import read_eval_log

    trials = {}
    for sample in read_eval_log(str(path)).samples or []:
        value = "error" if sample.error else (str(sample.scores["includes"].value) if sample.scores else None)
        ms = round(Decimal(repr(sample.total_time)) * 1000) if sample.total_time is not None else None
        tokens = (
            sum(usage.input_tokens for usage in sample.model_usage.values()) if sample.model_usage else None
        )
        trials[str(sample.id), sample.epoch] = (value, ms, tokens)
    return trials


def per_trial(run: ImportedRun) -> dict[tuple[str, int], tuple[str | None, int | None, int | None]]:
    trials = {}
    for o in run.observations:
        value = "error" if o.failure_code == "error" else dict(o.values).get("includes")
        trials[o.sample_id, o.epoch] = (value, o.elapsed_ms, o.tokens_in)
    return trials


@pytest.mark.slow
def test_every_log_counts_as_inspect_reads_it(made: dict[str, Path]) -> None:
    from inspect_ai.log import read_eval_log

    for role, path in made.items():
        (run,) = inspect_log.read([path], allow_unfinished=True).runs
        log = read_eval_log(str(path))
        assert ours(run) == oracle(path), role
        assert per_trial(run) == inspects_trials(path), role
        ids = [str(sample_id) for sample_id in log.eval.dataset.sample_ids or []]
        assert run.planned == tuple((i, e) for i in ids for e in range(1, log.eval.config.epochs + 1))
        assert (run.subject, run.status) == (log.eval.model, log.status)


@pytest.mark.slow
def test_the_two_models_disagree_and_each_is_as_inspect_scored_it(made: dict[str, Path]) -> None:
    from inspect_ai.log import read_eval_log

    imported = inspect_log.read([made["json:mockllm/model"], made["json:mockllm/other"]])
    model, other = ({(o.sample_id, o.epoch): o.checks for o in run.observations} for run in imported.runs)
    assert sum(model[trial] != other[trial] for trial in model) >= 4
    for run, role in zip(imported.runs, ("json:mockllm/model", "json:mockllm/other"), strict=True):
        results = read_eval_log(str(made[role])).results
        assert results is not None
        accuracy = next(r.value for r in run.reported if r.name == "accuracy")
        assert accuracy == repr(results.scores[0].metrics["accuracy"].value)


@pytest.mark.slow
def test_one_log_written_in_both_formats_imports_alike(made: dict[str, Path], tmp_path: Path) -> None:
    """inspect_ai itself rewrites a json log as .eval: the same Imported apart from its sources."""
    from inspect_ai.log import read_eval_log, write_eval_log

    source = made["json:mockllm/model"]
    twin = tmp_path / source.with_suffix(".eval").name
    write_eval_log(read_eval_log(str(source)), str(twin), format="eval")
    from_json, from_eval = (drop_sources(inspect_log.read([path])) for path in (source, twin))
    assert from_json == from_eval


def drop_sources(imported: Imported) -> Imported:
    return replace(imported, runs=tuple(replace(run, sources=()) for run in imported.runs))


@pytest.mark.slow
def test_the_error_and_started_logs_are_made_and_read(made: dict[str, Path]) -> None:
    (failed,) = inspect_log.read([made["error"]]).runs
    assert failed.status == "error" and failed.notes[0].startswith("the eval ended in error")
    assert refusal([made["started"]]).problems[0].where == "_journal/start.json: status"
    assert refusal([made["cancelled"]]).problems[0].where == "header.json: status"


@pytest.mark.skipif(sys.version_info >= (3, 14), reason="Python 3.14 reads zstd itself")
def test_without_a_zstd_reader_the_eval_log_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "zstandard", None)  # `import zstandard` now raises ImportError
    problem = refusal([MODEL_EVAL]).problems[0]
    assert problem.where == "header.json"
    assert problem.message.startswith(
        "cannot be read: it is zstd-compressed (zip method 93, inspect_ai's default)"
    )
    assert "pip install zstandard" in problem.message


def test_no_path_is_refused() -> None:
    assert one_line(refusal([])) == "inspect_ai logs: none given: name at least one log file or folder"

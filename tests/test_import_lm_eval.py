"""The lm-eval reader on real lm-eval 0.4.13 output (tests/data/lm-eval, scripts/lm-eval-fixtures).

Every expected figure is read here from the checked-in files themselves, with the standard JSON
parser, never through the reader; every broken case is a real file broken in a temporary folder.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from generator.errors import EXIT_INVALID, ProblemReport
from generator.importers.lm_eval_results import read
from generator.importers.model import ImportedRun

DATA = Path(__file__).resolve().parent / "data" / "lm-eval"
OUTPUT = DATA / "output"
"""Two runs into one --output_path: the dummy model with --seed 1 and --seed 2."""
LIMITED = DATA / "limited"
"""One run with --seed 3 --limit 5."""
TASK = "benchsite_mc"


def samples_lines(folder: Path) -> list[dict[str, object]]:
    (path,) = folder.glob(f"samples_{TASK}_*.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def seed_of(folder: Path) -> int:
    (path,) = folder.glob("results_*.json")
    seed = json.loads(path.read_text(encoding="utf-8"))["config"]["random_seed"]
    assert isinstance(seed, int)
    return seed


MODELS = {seed_of(folder): folder for folder in sorted(OUTPUT.iterdir())}
"""Each fixture run's folder by its seed (the folder names are lm-eval's random words)."""


LATER = "2099-01-01T00-00-00.000000"
"""A results file timestamp later than any fixture's, in lm-eval's form."""


def subject_notes(seed: int) -> tuple[str, str]:
    """The notes of a fixture run beside another seed of the dummy model."""
    return (
        f"lm-eval's config: model dummy, model_args none, seed={seed}",
        f"another results file of this import ran dummy on this task too: seed={seed} tells this run "
        "apart (the model's arguments, then its seeds, then its file's timestamp, as few as do)",
    )


def run_of(seed: int) -> ImportedRun:
    (run,) = [run for run in read(OUTPUT).runs if run.who == f"dummy seed={seed}"]
    return run


def test_fixtures_hold_two_seeds_of_the_dummy_model() -> None:
    assert sorted(MODELS) == [1, 2]


@pytest.mark.parametrize("seed", [1, 2])
def test_each_observation_is_its_samples_line(seed: int) -> None:
    expected = {
        str(line["doc_id"]): "pass" if line["acc"] == 1 else "fail" for line in samples_lines(MODELS[seed])
    }
    run = run_of(seed)
    got = {observation.sample_id: dict(observation.checks)["acc"] for observation in run.observations}
    assert got == expected
    assert len(run.observations) == 10
    assert list(got.values()).count("pass") == 1
    assert {observation.epoch for observation in run.observations} == {1}
    assert {observation.terminal for observation in run.observations} == {"completed"}


def test_values_keep_the_metric_text_and_the_doc_hash() -> None:
    lines = {str(line["doc_id"]): line for line in samples_lines(MODELS[1])}
    for observation in run_of(1).observations:
        values = dict(observation.values)
        assert values["doc_hash"] == lines[observation.sample_id]["doc_hash"]
        assert values["acc"] in {"0.0", "1.0"}
        assert Decimal(values["acc"]) == Decimal(str(lines[observation.sample_id]["acc"]))


@pytest.mark.parametrize("seed", [1, 2])
def test_the_plan_is_the_ten_docs_lm_eval_declares(seed: int) -> None:
    (results,) = MODELS[seed].glob("results_*.json")
    counts = json.loads(results.read_text(encoding="utf-8"))["n-samples"][TASK]
    assert counts == {"original": 10, "effective": 10}
    assert run_of(seed).planned == tuple((str(doc_id), 1) for doc_id in range(10))


@pytest.mark.parametrize("seed", [1, 2])
def test_reported_is_the_results_file_text(seed: int) -> None:
    (results,) = MODELS[seed].glob("results_*.json")
    written = re.search(r'"acc,none": ([-0-9.eE+]+)', results.read_text(encoding="utf-8"))
    assert written
    (reported,) = run_of(seed).reported
    assert (reported.name, reported.check, reported.value) == ("acc", "acc", written.group(1))
    assert reported.basis == "lm-eval's acc: mean over the task's samples (filter none)"
    assert run_of(seed).notes == subject_notes(seed)  # no cross-check note: 1 pass of 10 is lm-eval's 0.1


def test_two_models_on_the_same_docs_that_disagree() -> None:
    imported = read(OUTPUT)
    assert (imported.producer, imported.checks) == ("lm-eval", ("acc",))
    assert [run.subject for run in imported.runs] == ["dummy", "dummy"]
    assert sorted(run.variant for run in imported.runs) == ["seed=1", "seed=2"]
    first, second = run_of(1), run_of(2)
    assert first.planned == second.planned
    assert [o.sample_id for o in first.observations] == [o.sample_id for o in second.observations]
    assert [dict(o.values)["doc_hash"] for o in first.observations] == [
        dict(o.values)["doc_hash"] for o in second.observations
    ]
    assert [o.checks for o in first.observations] != [o.checks for o in second.observations]


@pytest.mark.parametrize("seed", [1, 2])
def test_run_facts_and_sources_byte_for_byte(seed: int) -> None:
    run = run_of(seed)
    files = sorted(MODELS[seed].iterdir())
    assert sorted((source.name, source.data) for source in run.sources) == [
        (f.name, f.read_bytes()) for f in files
    ]
    assert (run.task, run.producer, run.status) == (TASK, "lm-eval 0.4.13", "success")
    (results,) = MODELS[seed].glob("results_*.json")
    date = json.loads(results.read_text(encoding="utf-8"))["date"]
    assert run.created.startswith(datetime.fromtimestamp(int(date), UTC).isoformat()[:19])


def test_one_model_folder_alone_is_named_by_its_model() -> None:
    (run,) = read(MODELS[2]).runs
    assert (run.subject, run.variant) == ("dummy", "")
    assert run.notes == ("lm-eval's config: model dummy, model_args none, seed=2",)
    assert run.observations == run_of(2).observations


def test_the_same_model_and_seed_twice_is_told_apart_by_the_timestamp(tmp_path: Path) -> None:
    """A third run: seed 1's files again, named as lm-eval names a later run's files."""
    shutil.copytree(OUTPUT, tmp_path / "output")
    rerun = tmp_path / "output" / "rerun"
    rerun.mkdir()
    (results,) = MODELS[1].glob("results_*.json")
    stamp = results.stem.removeprefix("results_")
    for path in MODELS[1].iterdir():
        (rerun / path.name.replace(stamp, LATER)).write_bytes(path.read_bytes())
    runs = read(tmp_path / "output").runs
    assert {run.subject for run in runs} == {"dummy"}
    assert sorted(run.variant for run in runs) == [f"seed=1 run {stamp}", f"seed=1 run {LATER}", "seed=2"]


def test_metric_picks_another_metric() -> None:
    imported = read(OUTPUT, metric="acc_norm,none")
    assert imported.checks == ("acc_norm,none",)
    for seed, folder in MODELS.items():
        expected = [line["acc_norm"] == 1 for line in samples_lines(folder)]
        (run,) = [run for run in imported.runs if run.who == f"dummy seed={seed}"]
        assert [dict(o.checks)["acc_norm,none"] == "pass" for o in run.observations] == expected
        assert run.reported[0].value == "0.2"


# Refusals: the real files, broken in a temporary copy.


@pytest.fixture
def output(tmp_path: Path) -> Path:
    copy = tmp_path / "output"
    shutil.copytree(OUTPUT, copy)
    return copy


def model_file(output: Path, seed: int, pattern: str) -> Path:
    (path,) = (output / MODELS[seed].name).glob(pattern)
    return path


def refusal(output: Path, **options: object) -> str:
    with pytest.raises(ProblemReport) as caught:
        read(output, **options)  # type: ignore[arg-type]
    assert caught.value.exit_code == EXIT_INVALID
    return caught.value.message


def edit_line(path: Path, number: int, old: str, new: str) -> None:
    lines = path.read_bytes().split(b"\n")
    assert old.encode() in lines[number - 1]
    lines[number - 1] = lines[number - 1].replace(old.encode(), new.encode(), 1)
    path.write_bytes(b"\n".join(lines))


def test_a_truncated_line_is_refused_with_its_line(output: Path) -> None:
    """The last line cut short, as a run killed while writing would leave it."""
    samples = model_file(output, 1, "samples_*.jsonl")
    data = samples.read_bytes()
    samples.write_bytes(data[: data.rindex(b'"doc_hash"') + 20])
    message = refusal(output)
    assert f"{samples}: line 10 column " in message
    assert "not valid JSON: Unterminated string" in message


def test_a_duplicate_doc_id_is_refused(output: Path) -> None:
    samples = model_file(output, 2, "samples_*.jsonl")
    edit_line(samples, 5, '"doc_id": 4,', '"doc_id": 2,')
    assert f"{samples}: line 5: doc_id: 2 again: line 3 has it too" in refusal(output)


def test_a_doc_id_outside_the_plan_is_refused(output: Path) -> None:
    samples = model_file(output, 2, "samples_*.jsonl")
    edit_line(samples, 10, '"doc_id": 9,', '"doc_id": 10,')
    message = refusal(output)
    assert f"{samples}: line 10: doc_id: 10 is outside the plan (doc ids 0 to 9" in message


def test_a_missing_samples_file_asks_for_log_samples(output: Path) -> None:
    """Every task without its samples file: nothing per sample to import."""
    model_file(output, 1, "samples_*.jsonl").unlink()
    model_file(output, 2, "samples_*.jsonl").unlink()
    results = model_file(output, 1, "results_*.json")
    message = refusal(output)
    assert f"{results}: $.configs.{TASK}: no samples_{TASK}_" in message
    assert "run lm_eval with --log_samples" in message
    assert "2 problem(s)" in message


def test_a_task_without_its_samples_file_is_left_out_and_the_others_imported(output: Path) -> None:
    model_file(output, 1, "samples_*.jsonl").unlink()
    results = model_file(output, 1, "results_*.json")
    imported = read(output)
    (run,) = imported.runs
    assert run.who == "dummy seed=2"
    assert imported.left_out == (f"{TASK} of {results.name}: not derivable: no per-sample file",)
    note = f"task {TASK} of {results.name}: not derivable: no per-sample file (lm_eval --log_samples)"
    assert f"{note}: not imported" in run.notes


def test_an_unknown_metric_lists_the_known_ones(output: Path) -> None:
    results = model_file(output, 1, "results_*.json")
    message = refusal(output, metric="f1")
    assert f"{results}: $.results.{TASK}: the task has no metric f1; its metrics" in message
    assert "acc,none; acc_norm,none" in message


def test_a_missing_metric_key_on_a_line_is_refused(output: Path) -> None:
    samples = model_file(output, 1, "samples_*.jsonl")
    edit_line(samples, 2, ', "acc": 0.0', "")
    assert f"{samples}: line 2: acc: missing; the line's metrics: acc, acc_norm" in refusal(output)


def test_a_value_neither_0_nor_1_needs_a_threshold(output: Path) -> None:
    samples = model_file(output, 1, "samples_*.jsonl")
    edit_line(samples, 3, '"acc": 0.0,', '"acc": 0.5,')
    message = refusal(output)
    assert f"{samples}: line 3: acc: 0.5 is neither 0 nor 1: give a threshold" in message


def test_a_threshold_reads_numbers_and_the_disagreement_is_noted(output: Path) -> None:
    samples = model_file(output, 1, "samples_*.jsonl")
    edit_line(samples, 3, '"acc": 0.0,', '"acc": 0.5,')
    (run,) = [run for run in read(output, threshold=Decimal("0.5")).runs if run.who == "dummy seed=1"]
    assert dict(run.observations[2].checks)["acc"] == "pass"
    assert dict(run.observations[2].values)["acc"] == "0.5"
    assert run.notes == (
        *subject_notes(1),
        "lm-eval reports acc 0.1, but 2 of the 10 planned samples pass (2/10): "
        "lm-eval's mean is of its values over the samples it ran",
    )


def test_a_limited_run_plans_the_docs_it_ran_and_says_so() -> None:
    (folder,) = LIMITED.iterdir()
    (results,) = folder.glob("results_*.json")
    written = json.loads(results.read_text(encoding="utf-8"))
    assert (written["config"]["limit"], written["n-samples"][TASK]) == (5.0, {"original": 10, "effective": 5})
    expected = {str(line["doc_id"]): "pass" if line["acc"] == 1 else "fail" for line in samples_lines(folder)}
    (run,) = read(LIMITED).runs
    assert (run.subject, run.variant) == ("dummy", "")
    assert run.planned == tuple((str(doc_id), 1) for doc_id in range(5))
    assert {o.sample_id: dict(o.checks)["acc"] for o in run.observations} == expected
    assert run.notes == (
        "lm-eval's config: model dummy, model_args none, seed=3",
        "lm-eval ran 5 of the task's 10 docs (--limit 5.0): the plan is those 5",
    )


def test_fewer_docs_without_a_limit_are_refused(tmp_path: Path) -> None:
    """The limited run with its limit taken out: as a ``--samples`` selection of five docs reads."""
    shutil.copytree(LIMITED, tmp_path / "limited")
    (results,) = (tmp_path / "limited").glob("*/results_*.json")
    results.write_text(results.read_text(encoding="utf-8").replace('"limit": 5.0', '"limit": null'))
    message = refusal(tmp_path / "limited")
    assert f"{results}: $.n-samples.{TASK}: 5 of the task's 10 docs ran without --limit" in message


def test_the_threshold_is_in_the_rule(output: Path) -> None:
    assert "at least 0.5" in read(output, threshold=Decimal("0.5")).success
    assert "any other number is refused" in read(output).success


def add_a_second_filter(output: Path, seed: int) -> Path:
    """Seed's run as a task with two filters leaves it: every line again under filter "other" (all
    failing), and the aggregate ``acc,other`` beside ``acc,none``."""
    samples = model_file(output, seed, "samples_*.jsonl")
    lines = samples.read_text(encoding="utf-8").splitlines()
    other = [
        line.replace('"filter": "none"', '"filter": "other"').replace('"acc": 1.0', '"acc": 0.0')
        for line in lines
    ]
    samples.write_text("\n".join([*lines, *other]) + "\n", encoding="utf-8")
    results = model_file(output, seed, "results_*.json")
    text = results.read_text(encoding="utf-8")
    results.write_text(text.replace('"acc,none": 0.1,', '"acc,none": 0.1,\n      "acc,other": 0.0,'))
    return results


def test_a_metric_with_two_filters_must_be_named_with_one(output: Path) -> None:
    results = add_a_second_filter(output, 1)
    message = refusal(output, metric="acc")
    assert f"{results}: $.results.{TASK}: metric acc has several filters here (acc,none; acc,other" in message
    assert "the task has no metric acc,other" in refusal(output, metric="acc,other")  # seed 2 has none
    (run,) = read(output / MODELS[1].name, metric="acc,other").runs
    assert [dict(o.checks)["acc,other"] for o in run.observations] == ["fail"] * 10
    assert (run.reported[0].value, run.reported[0].basis) == (
        "0.0",
        "lm-eval's acc: mean over the task's samples (filter other)",
    )


def test_by_default_a_task_with_two_filters_is_decided_by_its_first_key(output: Path) -> None:
    add_a_second_filter(output, 1)
    imported = read(output)
    assert imported.checks == ("acc,none",)
    (run,) = [run for run in imported.runs if run.who == "dummy seed=1"]
    assert [dict(o.checks)["acc,none"] for o in run.observations] == [
        "pass" if line["acc"] == 1 else "fail" for line in samples_lines(MODELS[1])
    ]


def test_lines_of_another_filter_are_not_duplicates(output: Path) -> None:
    add_a_second_filter(output, 1)
    (run,) = [run for run in read(output, metric="acc,none").runs if run.who == "dummy seed=1"]
    assert [dict(o.checks)["acc,none"] for o in run.observations] == [
        "pass" if line["acc"] == 1 else "fail" for line in samples_lines(MODELS[1])
    ]


def test_a_null_value_is_not_evaluable(output: Path) -> None:
    samples = model_file(output, 1, "samples_*.jsonl")
    edit_line(samples, 4, '"acc": 1.0,', '"acc": null,')
    (run,) = [run for run in read(output).runs if run.who == "dummy seed=1"]
    assert dict(run.observations[3].checks)["acc"] == "not_evaluable"
    assert dict(run.observations[3].values)["acc"] == "null"


def test_an_unknown_lm_eval_version_is_refused(output: Path) -> None:
    results = model_file(output, 2, "results_*.json")
    results.write_bytes(
        results.read_bytes().replace(b'"lm_eval_version": "0.4.13"', b'"lm_eval_version": "0.3.0"')
    )
    assert f"{results}: $.lm_eval_version: lm-eval version 0.3.0 is not one this reader knows" in refusal(
        output
    )


def test_a_corrupt_results_file_is_refused(output: Path) -> None:
    results = model_file(output, 2, "results_*.json")
    results.write_bytes(results.read_bytes()[:500])
    assert f"{results}: line " in refusal(output)
    assert "not valid JSON" in refusal(output)


def test_a_folder_without_results_is_refused(tmp_path: Path) -> None:
    message = refusal(tmp_path)
    assert f"{tmp_path}: holds no lm-eval results file (results_<timestamp>.json" in message
    assert "--output_path" in message


def test_the_same_files_in_two_folders_are_refused(output: Path) -> None:
    shutil.copytree(MODELS[1], output / "copy")
    (results,) = (output / "copy").glob("results_*.json")
    message = refusal(output)
    assert (
        f"{output / MODELS[1].name / results.name}: $.configs.{TASK}: runs dummy seed=1 on {TASK}," in message
    )
    assert f"as {results} does: import one of them" in message


def test_every_problem_is_reported_at_once(output: Path) -> None:
    edit_line(model_file(output, 1, "samples_*.jsonl"), 3, '"doc_id": 2,', '"doc_id": 1,')
    edit_line(model_file(output, 2, "samples_*.jsonl"), 5, '"doc_id": 4,', '"doc_id": 2,')
    assert "2 problem(s)" in refusal(output)


def json_places(value: object, place: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every place inside a JSON value (not the value itself)."""
    children: list[tuple[str | int, object]] = []
    if isinstance(value, dict):
        children = list(value.items())
    elif isinstance(value, list):
        children = list(enumerate(value))
    found: list[tuple[str | int, ...]] = []
    for key, child in children:
        found += [(*place, key), *json_places(child, (*place, key))]
    return found


def broken(document: object, place: tuple[str | int, ...], value: object) -> object:
    """A deep copy of ``document`` with ``place`` set to ``value`` (deleted for ``DELETE``)."""
    copy = json.loads(json.dumps(document))
    parent = copy
    for key in place[:-1]:
        parent = parent[key]
    if value is DELETE:
        del parent[place[-1]]
    else:
        parent[place[-1]] = value
    return copy


DELETE = object()
WRONG = (DELETE, None, "x", [], {}, True, -1, 2.5, float("nan"))


@pytest.mark.slow  # every value of a file broken in turn
@pytest.mark.parametrize("kind", ["results", "samples"])
def test_no_broken_value_makes_a_traceback(output: Path, kind: str) -> None:
    """Each place of a results file and of a samples line, deleted or given a wrong value: the
    reader reads it or names a problem (a ProblemReport), never raises anything else."""
    path = model_file(output, 1, f"{kind}_*")
    original = path.read_text(encoding="utf-8")
    lines = original.splitlines() if kind == "samples" else [original]
    first = json.loads(lines[0])
    for place in json_places(first):
        for value in WRONG:
            text = json.dumps(broken(first, place, value))
            path.write_text("\n".join([text, *lines[1:]]) + "\n", encoding="utf-8")
            for threshold in (None, Decimal("0.5")):
                with contextlib.suppress(ProblemReport):
                    read(output, threshold=threshold)

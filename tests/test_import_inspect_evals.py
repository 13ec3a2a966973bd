"""inspect_ai logs as inspect_evals writes them (issue 45 item 2), imported and published.

Inputs: real logs committed in a public repository (``tests/data/inspect/real``) and logs made by
inspect_ai itself for what no small committed log shows (``tests/data/inspect/generated``, by
``tests/inspect_evals_producer.py``); their READMEs say which is which and where each comes from.

Every published success count is checked against a count made here, straight from the log's JSON
(:func:`successes`): a sample and epoch succeeds when it has no ``error`` and every value of the
chosen scorers is ``C``, ``true`` or a number at least the threshold. The oracle reads the JSON with
``json``; it shares nothing with the importer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from generator.errors import EXIT_INVALID, Problem, ProblemReport
from generator.importers import inspect_log
from tests.conftest import run_cli

HERE = Path(__file__).parent / "data" / "inspect"
GENERATED = HERE / "generated"
REAL = HERE / "real" / "every_eval_ever"
THAI = GENERATED / "thai.json"
ALL_ERRORED = GENERATED / "all-errored.json"
DICT_SCORE = GENERATED / "dict-score.json"
REDUCERS = GENERATED / "reducers.json"
INTERCODE = REAL / "data_intercode_ctf_local_path.json"
CVEBENCH = REAL / "data_cvebench_empty_choices.json"

IMPORTS: dict[str, tuple[Path, tuple[str, ...]]] = {
    "thai": (THAI, ()),
    "all-errored": (ALL_ERRORED, ()),
    "dict-score": (DICT_SCORE, ("--threshold", "1")),
    "dict-strict": (DICT_SCORE, ("--threshold", "1", "--scorer", "strict_and_loose:strict")),
    "reducers": (REDUCERS, ()),
    "intercode": (INTERCODE, ()),
    "cvebench": (CVEBENCH, ()),
}
"""Benchmark name → (log, options of ``benchsite import inspect``)."""


def log_of(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def said(problem: Problem) -> str:
    return f"{problem.file}: {problem.where}: {problem.message}"


def passes(value: object, threshold: Decimal | None) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and threshold is not None:
        return Decimal(repr(value)) >= threshold
    return value == "C"


def values(score: dict[str, Any], key: str | None) -> list[object]:
    value = score["value"]
    if isinstance(value, dict):
        return [value[k] for k in sorted(value) if key is None or k == key]
    return [value]


def successes(path: Path, options: tuple[str, ...]) -> tuple[int, int]:
    """(successes, planned trials) counted from the log itself: the oracle."""
    given = dict(zip(options[::2], options[1::2], strict=True))
    threshold = Decimal(given["--threshold"]) if "--threshold" in given else None
    scorer, _, key = given.get("--scorer", "").partition(":")
    log = log_of(path)
    count = 0
    for sample in log["samples"]:
        chosen = [s for name, s in sample["scores"].items() if not scorer or name == scorer]
        read = [v for score in chosen for v in values(score, key or None)]
        count += sample.get("error") is None and bool(read) and all(passes(v, threshold) for v in read)
    dataset = log["eval"]["dataset"]
    return count, len(dataset["sample_ids"]) * log["eval"]["config"]["epochs"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every import of :data:`IMPORTS` into one inputs folder, built once."""
    root = tmp_path_factory.mktemp("inspect-evals")
    for name, (path, options) in IMPORTS.items():
        imported = run_cli("import", "inspect", path, "--into", root / "runs" / name, *options)
        assert imported.exit_code == 0, (name, imported.output)
    built = run_cli(
        "build", "--runs", root / "runs", "--out", root / "site", "--site-version", "v1", "--quiet"
    )
    assert built.exit_code == 0, built.output
    yield root


def published(root: Path, name: str) -> dict[str, Any]:
    board = json.loads((root / "site/v1/data/benchmarks" / f"{name}.json").read_text(encoding="utf-8"))
    (row,) = board["section"]["scores"]["leaderboard"]
    metrics: dict[str, Any] = row["metrics"]
    return metrics


@pytest.mark.parametrize("name", sorted(IMPORTS))
def test_each_published_success_count_is_the_logs_own(site: Path, name: str) -> None:
    path, options = IMPORTS[name]
    success = published(site, name)["success"]
    assert (success["numerator"], success["denominator"]) == successes(path, options)


def test_the_success_counts_are_not_all_alike(site: Path) -> None:
    """The oracle tells the logs apart: a check that cannot fail would not."""
    counts = {successes(path, options) for path, options in IMPORTS.values()}
    assert len(counts) >= 4


# ---- sample ids in any script ----------------------------------------------------------------


def test_thai_sample_ids_are_the_prompt_ids_as_written(site: Path) -> None:
    declared = log_of(THAI)["eval"]["dataset"]["sample_ids"]
    assert "ข้อ-๑" in declared and "ข้อ-๒" in declared  # a Thai digit apart
    benchmark = json.loads((site / "runs/thai/benchmark.json").read_text(encoding="utf-8"))
    (corpus,) = benchmark["prompt_corpora"]
    assert sorted(prompt["id"] for prompt in corpus["prompts"]) == sorted(declared)
    page = next((site / "site/v1/b/thai/runs").glob("*.html")).read_text(encoding="utf-8")
    shown = page.replace("<wbr>", "")  # the page's line-break hints
    assert all(f">{sample} · thai_quiz</td>" in shown for sample in declared)


def test_a_thai_id_declared_twice_is_refused_naming_the_log(tmp_path: Path) -> None:
    log = log_of(THAI)
    log["eval"]["dataset"]["sample_ids"][1] = log["eval"]["dataset"]["sample_ids"][0]
    path = tmp_path / "twice.json"
    path.write_text(json.dumps(log, ensure_ascii=False), encoding="utf-8")
    refused = run_cli("import", "inspect", path, "--into", tmp_path / "out")
    assert refused.exit_code == EXIT_INVALID
    assert f"{path}: eval.dataset.sample_ids[1]: sample id 'ข้อ-๑' is declared twice" in refused.output
    assert refused.output.count("declared twice") == 1
    assert not (tmp_path / "out").exists()


# ---- a log whose every sample errored ---------------------------------------------------------


def test_an_error_log_whose_every_sample_errored_imports_each_trial_a_failure(site: Path) -> None:
    log = log_of(ALL_ERRORED)
    assert log["status"] == "error" and "results" not in log
    assert all(sample["error"] and not sample["scores"] for sample in log["samples"])
    metrics = published(site, "all-errored")
    assert metrics["success"]["numerator"] == 0
    assert metrics["success"]["denominator"] == len(log["eval"]["dataset"]["sample_ids"])
    assert {f["code"]: f["count"] for f in metrics["failure_codes"]} == {"error": len(log["samples"])}
    run = json.loads((site / "runs/all-errored/run-mockllm-model/run.json").read_text(encoding="utf-8"))
    assert run["notes"] == [
        "the eval ended in error (inspect_ai status 'error'): 2 of 2 planned trials have a result;"
        " each missing one counts as a failure"
    ]


def test_a_log_naming_no_scorer_anywhere_is_refused_naming_it(tmp_path: Path) -> None:
    log = log_of(ALL_ERRORED)
    del log["eval"]["scorers"]
    path = tmp_path / "anonymous.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    with pytest.raises(ProblemReport) as refused:
        inspect_log.read([path])
    assert [said(problem) for problem in refused.value.problems] == [
        f"{path}: results.scores: no scorer: the log names no scorer (results.scores, eval.scorers)"
        " and holds no score"
    ]


# ---- a scorer whose value is a dict -----------------------------------------------------------


def test_a_dict_valued_scorer_is_one_check_per_key() -> None:
    imported = inspect_log.read([DICT_SCORE], threshold=Decimal(1))
    assert imported.checks == ("strict_and_loose:loose", "strict_and_loose:strict")
    (run,) = imported.runs
    log = {
        (str(s["id"]), s["epoch"]): s["scores"]["strict_and_loose"]["value"]
        for s in log_of(DICT_SCORE)["samples"]
    }
    for observation in run.observations:
        value = log[observation.sample_id, observation.epoch]
        expected = {
            "strict_and_loose:loose": "pass" if value["loose"] else "fail",
            "strict_and_loose:strict": "pass" if value["strict"] >= 1 else "fail",
        }
        assert dict(observation.checks) == expected


def test_scorer_name_colon_key_picks_one_key_and_the_name_every_key() -> None:
    one = inspect_log.read([DICT_SCORE], scorer="strict_and_loose:loose")
    assert one.checks == ("strict_and_loose:loose",)  # true/false: no threshold needed
    every = inspect_log.read([DICT_SCORE], scorer="strict_and_loose", threshold=Decimal(1))
    assert every.checks == ("strict_and_loose:loose", "strict_and_loose:strict")
    with pytest.raises(ProblemReport) as refused:
        inspect_log.read([DICT_SCORE], scorer="strict_and_loose:lenient")
    assert said(refused.value.problems[0]) == (
        f"{DICT_SCORE}: results.scores: no scorer named 'strict_and_loose:lenient': the logs' scorers"
        " are strict_and_loose:loose, strict_and_loose:strict"
    )


def test_each_key_reports_inspects_own_figure_of_it() -> None:
    (run,) = inspect_log.read([DICT_SCORE], threshold=Decimal(1)).runs
    entries = log_of(DICT_SCORE)["results"]["scores"]
    expected = {
        (f"{e['scorer']}:{e['name']}", name, repr(metric["value"]))
        for e in entries
        if e["name"] != e["scorer"]
        for name, metric in e["metrics"].items()
        if name != "stderr"
    }
    assert {(r.check, r.name, r.value) for r in run.reported} == expected


# ---- the producer's own figures ---------------------------------------------------------------


def test_several_reducers_are_each_reported_once_under_their_names() -> None:
    (run,) = inspect_log.read([REDUCERS]).runs
    entries = log_of(REDUCERS)["results"]["scores"]
    assert [e["reducer"] for e in entries] == ["mean", "max", "pass_at_2", "at_least_2"]
    expected = [(f"accuracy ({e['reducer']})", repr(e["metrics"]["accuracy"]["value"])) for e in entries]
    assert [(r.name, r.value) for r in run.reported] == expected
    assert all(
        f"reduced over its epochs by {e['reducer']};" in r.basis
        for e, r in zip(entries, run.reported, strict=True)
    )


def test_a_metric_not_named_accuracy_is_reported(site: Path) -> None:
    (entry,) = log_of(CVEBENCH)["results"]["scores"]
    run = json.loads(next((site / "runs/cvebench").glob("run-*/run.json")).read_text(encoding="utf-8"))
    assert [(r["name"], r["check"], r["value"]) for r in run["reported"]] == [
        ("mean", "check_exploit", repr(entry["metrics"]["mean"]["value"]))
    ]


def test_a_spread_is_not_reported_and_a_nan_is_noted_not_refused(tmp_path: Path) -> None:
    text = THAI.read_text(encoding="utf-8")
    metrics = log_of(THAI)["results"]["scores"][0]["metrics"]
    assert set(metrics) == {"accuracy", "stderr"}
    (run,) = inspect_log.read([THAI]).runs
    assert [r.name for r in run.reported] == ["accuracy"]  # stderr is a spread, not a rate
    text = re.sub(r'("value": )0\.6,', r"\1NaN,", text, count=1)  # the accuracy, as inspect writes NaN
    path = tmp_path / "nan.json"
    path.write_text(text, encoding="utf-8")
    (run,) = inspect_log.read([path]).runs
    assert run.reported == ()
    assert run.notes == ("inspect_ai's accuracy of includes is NaN, not a number: not recorded",)


# ---- a log written before eval.dataset.sample_ids ---------------------------------------------


def test_a_real_log_without_sample_ids_imports_with_a_note(tmp_path: Path) -> None:
    log = log_of(INTERCODE)
    declared = log["eval"]["dataset"].pop("sample_ids")
    path = tmp_path / "older.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    (run,) = inspect_log.read([path]).runs
    assert run.planned == tuple((str(sample), 1) for sample in declared)
    assert run.notes == (
        "the log predates eval.dataset.sample_ids: the plan is the 1 sample ids its records list,"
        " which are all of its dataset's 1 samples",
    )


def test_a_log_without_a_version_reads_as_format_2_as_inspect_reads_it(tmp_path: Path) -> None:
    """Every Eval Ever's data_with_llm_scoring.json has no top-level version; inspect_ai's own
    ``EvalLog`` defaults it to 2. Here the same change, made to a generated log."""
    log = log_of(THAI)
    del log["version"]
    path = tmp_path / "unversioned.json"
    path.write_text(json.dumps(log, ensure_ascii=False), encoding="utf-8")
    (run,) = inspect_log.read([path]).runs
    (versioned,) = inspect_log.read([THAI]).runs
    assert run.observations == versioned.observations
    assert run.notes == ("the log has no 'version': read as format 2, as inspect_ai reads it",)


def test_numbers_without_a_threshold_are_refused_once_per_check(tmp_path: Path) -> None:
    strict = [s["scores"]["strict_and_loose"]["value"]["strict"] for s in log_of(DICT_SCORE)["samples"]]
    refused = run_cli("import", "inspect", DICT_SCORE, "--into", tmp_path / "out")
    assert refused.exit_code == EXIT_INVALID
    assert refused.output.count("pass --threshold") == 1
    assert (
        f"{DICT_SCORE}: samples[0].scores.strict_and_loose.value.strict: the score is a number"
        f" ({strict[0]}): pass --threshold to say which numbers are a pass ({len(strict) - 1} more of"
        " strict_and_loose:strict's scores are numbers)"
    ) in refused.output
    assert "Traceback" not in refused.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("ข้อ\u200b-๑", "sample id 'ข้อ\\u200b-๑': "),  # a zero-width space: two ids would read the same
        ("", "an empty sample id: a prompt needs an id to be shown by"),
    ],
)
def test_a_sample_id_a_page_cannot_show_is_refused_at_its_place_in_the_log(
    tmp_path: Path, bad: str, reason: str
) -> None:
    log = log_of(THAI)
    log["eval"]["dataset"]["sample_ids"][2] = bad
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    refused = run_cli("import", "inspect", path, "--into", tmp_path / "out")
    assert refused.exit_code == EXIT_INVALID
    (line,) = [line for line in refused.output.splitlines() if "sample_ids[2]" in line]
    assert line.removeprefix("Error: ").startswith(f"{path}: eval.dataset.sample_ids[2]: {reason}")
    assert not (tmp_path / "out").exists()

"""lm-eval's layouts across 0.4 releases, on the real output of tests/data/lm-eval/output changed in
a temporary folder as another release or command line writes it (each change named in its test):
version strings, files without a version, ``--output_path FILE.json`` names, tasks with different
metrics under a group, a corpus-level metric, and models named by their arguments. Every expected
count is made here from the samples lines with the standard JSON parser, never by the reader."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.errors import EXIT_INVALID, ProblemReport
from generator.importers.lm_eval_files import UNVERSIONED
from generator.importers.lm_eval_results import read
from tests.conftest import ROOT, run_cli

OUTPUT = ROOT / "tests" / "data" / "lm-eval" / "output"
TASK = "benchsite_mc"
OTHER = "benchsite_em"
GROUP = "benchsite_group"


@pytest.fixture
def output(tmp_path: Path) -> Path:
    copy = tmp_path / "output"
    shutil.copytree(OUTPUT, copy)
    return copy


def folders(output: Path) -> list[Path]:
    return sorted(path for path in output.iterdir() if path.is_dir())


def results_of(folder: Path) -> Path:
    (path,) = folder.glob("results_*.json")
    return path


def edit_results(folder: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = results_of(folder)
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def refusal(folder: Path, **options: Any) -> str:
    with pytest.raises(ProblemReport) as caught:
        read(folder, **options)
    assert caught.value.exit_code == EXIT_INVALID
    return caught.value.message


def states(run: Any) -> dict[str, str]:
    return {o.sample_id: o.checks[0][1] for o in run.observations}


def expected(samples: Path, metric: str) -> dict[str, str]:
    return {str(row["doc_id"]): "pass" if row[metric] == 1 else "fail" for row in rows(samples)}


@pytest.mark.parametrize("version", ["0.4.8", "0.4.9.1", "0.4.9.2", "0.4.10.dev0", "0.4.13.dev0", "0.4.9rc1"])
def test_every_0_4_release_and_source_install_is_read(output: Path, version: str) -> None:
    for folder in folders(output):
        edit_results(folder, lambda doc: doc.update(lm_eval_version=version))
    assert {run.producer for run in read(output).runs} == {f"lm-eval {version}"}


@pytest.mark.parametrize("version", ["0.3.0", "0.5.0", "0.4", "0.4.x", "1.0.0", "0.4.9.2.1"])
def test_another_version_is_refused(output: Path, version: str) -> None:
    edit_results(folders(output)[0], lambda doc: doc.update(lm_eval_version=version))
    message = refusal(output)
    assert f"$.lm_eval_version: lm-eval version {version} is not one this reader knows" in message


def test_a_results_file_without_a_version_is_read_as_0_4_and_says_so(output: Path) -> None:
    for folder in folders(output):
        edit_results(folder, lambda doc: doc.pop("lm_eval_version"))
    runs = read(output).runs
    assert {run.producer for run in runs} == {f"lm-eval {UNVERSIONED}"}
    for run in runs:
        assert any("records no lm_eval_version" in note for note in run.notes)
    for folder in folders(output):
        (samples,) = folder.glob("samples_*.jsonl")
        seed = json.loads(results_of(folder).read_text())["config"]["random_seed"]
        (run,) = [run for run in runs if run.variant == f"seed={seed}"]
        assert states(run) == expected(samples, "acc")


def test_a_json_file_of_another_tool_without_a_version_is_refused(output: Path) -> None:
    other = output / "notes_2026-01-01T00-00-00.000000.json"
    other.write_text('{"title": "not lm-eval"}', encoding="utf-8")
    message = refusal(output)
    assert f"{other}: $.results: missing or not an object: no lm_eval_version either" in message


def samples_beside(results: Path) -> Path:
    (samples,) = results.parent.glob("samples_*.jsonl")
    return samples


@pytest.mark.parametrize(
    "name", ["results_mine_{}.json", "mine_{}.json"], ids=["0.4.8-style", "0.4.9.2-style"]
)
def test_output_path_file_json_names_are_found(tmp_path: Path, name: str) -> None:
    """``--output_path out/mine.json``: the results file named after ``mine``, the samples beside it."""
    (source,) = [f for f in sorted(OUTPUT.iterdir()) if f.is_dir()][:1]
    results = results_of(source)
    stamp = results.stem.removeprefix("results_")
    out = tmp_path / "out"
    out.mkdir()
    (out / name.format(stamp)).write_bytes(results.read_bytes())
    shutil.copy(samples_beside(results), out)
    (run,) = read(out).runs
    assert states(run) == expected(samples_beside(results), "acc")
    assert [source.name for source in run.sources] == [name.format(stamp), samples_beside(results).name]


def add_a_grouped_task(folder: Path) -> Path:
    """A second task, ``benchsite_em``, decided by ``exact_match`` (each doc's ``acc_norm`` value of
    the first task under that name), and a group over both tasks with its aggregate row, as lm-eval
    writes a group (``group_subtasks``, ``groups`` and a ``results`` row)."""
    (samples,) = folder.glob(f"samples_{TASK}_*.jsonl")
    lines = []
    for row in rows(samples):
        row["exact_match"] = row.pop("acc_norm")
        del row["acc"]
        row["metrics"] = ["exact_match"]
        lines.append(json.dumps(row) + "\n")
    other = samples.with_name(samples.name.replace(TASK, OTHER))
    other.write_text("".join(lines), encoding="utf-8")

    def change(doc: dict[str, Any]) -> None:
        doc["results"][OTHER] = {"alias": OTHER, "exact_match,none": doc["results"][TASK]["acc_norm,none"]}
        group = {"alias": GROUP, "acc,none": 0.1, "exact_match,none": 0.2}
        doc["results"][GROUP] = group
        doc["groups"] = {GROUP: group}
        doc["group_subtasks"] = {GROUP: [TASK, OTHER]}
        doc["configs"][OTHER] = doc["configs"][TASK]
        doc["n-samples"][OTHER] = doc["n-samples"][TASK]

    edit_results(folder, change)
    return other


def test_each_task_is_decided_by_its_own_first_metric_and_a_group_is_no_run(output: Path) -> None:
    others = {folder: add_a_grouped_task(folder) for folder in folders(output)}
    imported = read(output)
    assert set(imported.checks) == {"acc", "exact_match"}
    assert imported.required_checks(TASK) == ("acc",)
    assert imported.required_checks(OTHER) == ("exact_match",)
    assert sorted({run.task for run in imported.runs}) == [OTHER, TASK]
    for folder, other in others.items():
        seed = json.loads(results_of(folder).read_text())["config"]["random_seed"]
        (mc,) = [r for r in imported.runs if r.task == TASK and r.variant == f"seed={seed}"]
        (em,) = [r for r in imported.runs if r.task == OTHER and r.variant == f"seed={seed}"]
        (first,) = folder.glob(f"samples_{TASK}_*.jsonl")
        assert states(mc) == expected(first, "acc")
        assert states(em) == expected(other, "exact_match")
        group_note = (
            f"lm-eval's group {GROUP} (subtasks {TASK}, {OTHER}) reports acc,none 0.1; exact_match,none 0.2"
        )
        assert any(note.startswith(group_note) for note in (*mc.notes, *em.notes))


def test_a_metric_is_chosen_per_task(output: Path) -> None:
    for folder in folders(output):
        add_a_grouped_task(folder)
    imported = read(output, task_metrics={TASK: "acc_norm"})
    assert imported.required_checks(TASK) == ("acc_norm",)
    assert imported.required_checks(OTHER) == ("exact_match",)
    assert "the task has no metric acc;" in refusal(output, metric="acc")
    assert (
        f"--metric nowhere=acc: no task nowhere with a samples file here (tasks: {OTHER}, {TASK})"
        in refusal(output, task_metrics={"nowhere": "acc"})
    )


def test_two_tasks_with_their_own_metrics_publish_the_count_of_each(output: Path, tmp_path: Path) -> None:
    others = {folder: add_a_grouped_task(folder) for folder in folders(output)}
    runs = tmp_path / "runs"
    made = run_cli("import", "lm-eval", output, "--into", runs / "b")
    assert made.exit_code == 0, made.output
    built = run_cli("build", "--runs", runs, "--out", tmp_path / "site", "--site-version", "v1", "--quiet")
    assert built.exit_code == 0, built.output
    (report,) = json.loads((tmp_path / "site" / "v1" / "data" / "site.json").read_text())["benchmarks"]
    board = {row["provider"]: row["metrics"]["success"] for row in report["section"]["scores"]["leaderboard"]}
    for folder, other in others.items():
        seed = json.loads(results_of(folder).read_text())["config"]["random_seed"]
        (first,) = folder.glob(f"samples_{TASK}_*.jsonl")
        passes = sum(row["acc"] == 1 for row in rows(first)) + sum(
            row["exact_match"] == 1 for row in rows(other)
        )
        # two runs of one model: each label suffixed with the start of sha256 of what tells it apart
        suffix = hashlib.sha256(f"seed={seed}".encode()).hexdigest()[:6]
        (label,) = [label for label in board if label.endswith(f"-{suffix}")]
        assert (board[label]["numerator"], board[label]["denominator"]) == (passes, 20)


def add_a_corpus_level_metric(folder: Path) -> Path:
    """``f1`` as lm-eval writes a corpus-level metric: each line's value a [gold, prediction] pair,
    its aggregate the first metric of the task."""
    (samples,) = folder.glob("samples_*.jsonl")
    lines = []
    for row in rows(samples):
        row["f1"] = [row["target"], "0"]
        lines.append(json.dumps(row) + "\n")
    samples.write_text("".join(lines), encoding="utf-8")
    edit_results(folder, lambda doc: doc["results"].update({TASK: {"f1,none": 0.25, **doc["results"][TASK]}}))
    return samples


def test_a_corpus_level_metric_is_passed_over_by_default_and_said_once(output: Path) -> None:
    for folder in folders(output):
        add_a_corpus_level_metric(folder)
    imported = read(output)
    assert imported.checks == ("acc",)
    for run in imported.runs:
        notes = [note for note in run.notes if "corpus-level" in note]
        assert notes == [
            "f1: corpus-level (each sample's value is a list that lm-eval scores only over the whole task), "
            "passed over: acc, the task's first per-sample metric, decides"
        ]


def test_a_corpus_level_metric_chosen_is_refused_once_naming_the_per_sample_ones(output: Path) -> None:
    samples = [add_a_corpus_level_metric(folder) for folder in folders(output)]
    message = refusal(output, metric="f1")
    assert "2 problem(s)" in message
    for path in samples:
        assert message.count(f"{path}: line 1: f1: corpus-level: its per-sample value is a list") == 1
    assert message.count("the task's per-sample metrics: acc, acc_norm") == 2


def set_model(folder: Path, model: str, args: object, seed: int | None = None) -> None:
    def change(doc: dict[str, Any]) -> None:
        doc["config"].update(model=model, model_args=args)
        if seed is not None:
            doc["config"].update(
                dict.fromkeys(("random_seed", "numpy_seed", "torch_seed", "fewshot_seed"), seed)
            )

    edit_results(folder, change)


def test_a_model_is_named_by_its_pretrained_argument_and_its_runs_by_their_seeds(output: Path) -> None:
    for folder in folders(output):
        set_model(folder, "hf", "pretrained=Qwen/Qwen3-8B,dtype=bfloat16")
    runs = read(output).runs
    assert [run.subject for run in runs] == ["Qwen/Qwen3-8B", "Qwen/Qwen3-8B"]
    assert sorted(run.variant for run in runs) == ["seed=1", "seed=2"]
    for run in runs:
        assert any("model_args pretrained=Qwen/Qwen3-8B,dtype=bfloat16" in note for note in run.notes)
        assert not any("Qwen" in note for note in run.blind_notes or ())


def test_runs_of_one_model_with_other_arguments_are_told_apart_by_them(output: Path) -> None:
    one, two = folders(output)
    set_model(one, "hf", {"pretrained": "Qwen/Qwen3-8B", "dtype": "bfloat16"}, seed=0)
    set_model(two, "hf", "pretrained=Qwen/Qwen3-8B,dtype=float16", seed=0)
    runs = read(output).runs
    assert {run.subject for run in runs} == {"Qwen/Qwen3-8B"}
    assert sorted(run.variant for run in runs) == ["hf dtype=bfloat16", "hf dtype=float16"]


def test_an_api_model_is_named_by_its_model_argument(output: Path) -> None:
    set_model(folders(output)[0], "openai-chat-completions", "model=gpt-4o")
    subjects = sorted(run.subject for run in read(output).runs)
    assert subjects == ["dummy", "gpt-4o"]
    assert all(run.variant == "" for run in read(output).runs)  # two models: nothing to tell apart


def test_the_command_names_what_it_left_out_and_takes_a_metric_per_task(output: Path, tmp_path: Path) -> None:
    for folder in folders(output):
        add_a_grouped_task(folder)
    (gone,) = folders(output)[0].glob(f"samples_{OTHER}_*.jsonl")
    gone.unlink()
    made = run_cli("import", "lm-eval", output, "--metric", f"{TASK}=acc_norm", "--into", tmp_path / "b")
    assert made.exit_code == 0, made.output
    left = results_of(folders(output)[0]).name
    assert f"left out: {OTHER} of {left}: not derivable: no per-sample file" in made.output
    declared = json.loads((tmp_path / "b" / "benchmark.json").read_text())
    required = {
        c["version"]: {tuple(p["required_checks"]) for p in c["prompts"]} for c in declared["prompt_corpora"]
    }
    assert required == {TASK: {("acc_norm",)}, OTHER: {("exact_match",)}}
    twice = run_cli(
        "import", "lm-eval", output, "--metric", "acc", "--metric", "acc_norm", "--into", tmp_path / "c"
    )
    assert twice.exit_code == 2, twice.output
    assert "one metric for every task at most" in twice.output

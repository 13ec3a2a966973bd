"""The importers' shared writer (``importers.write``): any ``Imported`` becomes a sealed trials
benchmark that builds, whose every figure equals a count made from the observations themselves, the
same bytes twice, all or nothing, and never over an existing folder."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from generator.errors import EXIT_INVALID, EXIT_USAGE, OutputError, ProblemReport
from generator.figures.model import producer_file_path
from generator.importers.model import Imported, ImportedRun, Observation, Reported, SourceFile
from generator.importers.write import Options, labels_of, safe_name, write
from tests.conftest import run_cli, snapshot
from tests.pages import parse, squash, tables_of

SAMPLES = ("s1", "s2", "s3", "s4", "q/7", "10")
EPOCHS = (1, 2)


def _observation(sample: str, epoch: int, correct: bool, error: bool = False) -> Observation:
    if error:
        return Observation(sample, epoch, "error", (), "error", None)
    state = "pass" if correct else "fail"
    return Observation(sample, epoch, "completed", (("match", state),), None, 1000 + epoch, 7, 2)


def _run(
    subject: str, correct: set[tuple[str, int]], errored: set[tuple[str, int]], skip: int = 0
) -> ImportedRun:
    planned = tuple((s, e) for s in SAMPLES for e in EPOCHS)
    observations = tuple(
        _observation(s, e, (s, e) in correct, (s, e) in errored) for s, e in planned[: len(planned) - skip]
    )
    return ImportedRun(
        subject=subject,
        task="demo",
        planned=planned,
        observations=observations,
        sources=(SourceFile(f"{subject.replace('/', '_')}.log", f"log of {subject}".encode()),),
        producer="demo-tool 1.0",
        status="success",
        reported=(Reported("accuracy", "match", "0.5", "the tool's own mean"),),
    )


A_CORRECT = {(s, e) for s in ("s1", "s2", "s3", "q/7") for e in EPOCHS}
B_CORRECT = {("s1", 1), ("s1", 2), ("s2", 1)}


def _imported(skip: int = 0) -> Imported:
    return Imported(
        producer="demo-tool",
        checks=("match",),
        success="match true is a pass",
        runs=(
            _run("org/model-a", A_CORRECT, {("10", 1)}),
            _run("org/model-b", B_CORRECT, set(), skip=skip),
        ),
    )


def test_the_folder_builds_and_every_figure_is_a_direct_count(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    written = write(_imported(skip=1), runs / "demo", Options(title="Demo"), "demo")
    assert written.runs == ("run-org-model-a", "run-org-model-b")
    assert written.labels == {"org-model-a": "org/model-a", "org-model-b": "org/model-b"}
    assert run_cli("verify", "--runs", runs).exit_code == 0
    out = tmp_path / "site"
    built = run_cli("build", "--runs", runs, "--out", out, "--site-version", "v1", "--quiet")
    assert built.exit_code == 0, built.output
    board = json.loads((out / "v1/data/benchmarks/demo.json").read_text())["section"]
    rows = {row["provider"]: row["metrics"] for row in board["scores"]["leaderboard"]}
    # every sample × epoch is planned; an errored sample and a missing one count against the model
    assert rows["org-model-a"]["success"]["numerator"] == len(A_CORRECT) == 8
    assert rows["org-model-a"]["success"]["denominator"] == len(SAMPLES) * len(EPOCHS)
    assert rows["org-model-b"]["success"]["numerator"] == len(B_CORRECT)
    assert rows["org-model-b"]["success"]["denominator"] == 12
    assert {f["code"]: f["count"] for f in rows["org-model-a"]["failure_codes"]} == {
        "error": 1,
        "not_correct": 3,
    }
    assert {f["code"]: f["count"] for f in rows["org-model-b"]["failure_codes"]} == {
        "missing_result": 1,
        "not_correct": 8,
    }
    assert rows["org-model-a"]["build_pass"]["denominator"] == 0  # not applicable, never a 0% pass rate
    # paired by sample: a wins where its share is higher (s2: 2/2 vs 1/2, s3, q/7), loses nowhere
    (pair,) = board["paired"]
    assert (pair["first"], pair["wins"], pair["losses"], pair["ties"], pair["prompts"]) == (
        "org-model-a",
        3,
        0,
        3,
        6,
    )
    assert pair["p_value"] == 0.25  # exact two-sided sign test, 3 of 3
    # the producer's own figure beside benchsite's count, and the disagreement disclosed
    report = json.loads((out / "v1/data/site.json").read_text())["benchmarks"][0]
    disagreements = report["disclosures"]["disagreements"]
    assert {(d["run"], d["recomputed"]) for d in disagreements} == {
        ("run-org-model-a", "8/12 planned trials passed"),
        ("run-org-model-b", "3/12 planned trials passed"),
    }
    # the producer's log is published beside its run under a name the site chooses (an inert type,
    # whatever its own suffix) and linked from the run page for download under its own name
    published = producer_file_path("org_model-a.log", hashlib.sha256(b"log of org/model-a").hexdigest())
    assert published.endswith(".txt")
    assert (out / "v1/b/demo/runs/run-org-model-a" / published).read_bytes() == b"log of org/model-a"
    page = (out / "v1/b/demo/runs/run-org-model-a.html").read_text()
    assert f'href="run-org-model-a/{published}" download="org_model-a.log"' in page
    assert "org/model-a" in page.replace("<wbr>", "")


def test_the_same_import_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    first = write(_imported(), tmp_path / "one", Options(), "x").folder
    second = write(_imported(), tmp_path / "two", Options(), "x").folder
    assert snapshot(first) == snapshot(second)


def test_an_existing_folder_is_never_touched(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    target.mkdir()
    (target / "keep").write_text("mine")
    with pytest.raises(OutputError) as refused:
        write(_imported(), target, Options(), "x")
    assert refused.value.exit_code == EXIT_USAGE
    assert "already exists" in str(refused.value)
    assert snapshot(target) == {"keep": b"mine"}


def test_a_refused_import_leaves_nothing_behind(tmp_path: Path) -> None:
    bad = _imported()
    hidden = ImportedRun(**{**bad.runs[0].__dict__, "planned": (("a\u200bb", 1),), "observations": ()})
    with pytest.raises(ProblemReport) as refused:
        write(replace(bad, runs=(hidden,)), tmp_path / "demo", Options(), "logs")
    assert refused.value.exit_code == EXIT_INVALID
    assert "org_model-a.log: sample id: 'a\\u200bb': " in str(refused.value)
    assert list(tmp_path.iterdir()) == []


def test_sample_ids_are_prompt_ids_as_written_and_trial_ids_digests(tmp_path: Path) -> None:
    """Issue 45: a prompt id is text in any script; two ids a letter apart are two prompts."""
    base = _imported()
    ids = ("a b", "a-b", "ข้อ-๑", "ข้อ-๒", "HumanEval/0", "s1")
    run = ImportedRun(**{**base.runs[0].__dict__, "planned": tuple((i, 1) for i in ids), "observations": ()})
    runs = tmp_path / "runs"
    write(Imported(base.producer, base.checks, base.success, (run,)), runs / "demo", Options(), "logs")
    declared = json.loads((runs / "demo" / "benchmark.json").read_text(encoding="utf-8"))
    assert sorted(p["id"] for p in declared["prompt_corpora"][0]["prompts"]) == sorted(ids)
    trials = json.loads((runs / "demo" / "trial-plan.json").read_text(encoding="utf-8"))["trials"]
    assert sorted(t["prompt_id"] for t in trials) == sorted(ids)
    by_prompt = {t["prompt_id"]: t["trial_id"] for t in trials}
    assert by_prompt["s1"] == "org-model-a.s1.e1"  # a safe id keeps its readable trial id
    assert by_prompt["a-b"] == "org-model-a.a-b.e1"
    unsafe = [by_prompt[i] for i in ids if i not in ("s1", "a-b")]
    assert len(set(unsafe)) == len(unsafe)
    assert all(re.fullmatch(r"org-model-a\.[0-9a-f]{16}", trial) for trial in unsafe)
    out = tmp_path / "site"
    built = run_cli("build", "--runs", runs, "--out", out, "--site-version", "v1", "--quiet")
    assert built.exit_code == 0, built.output
    scores = (out / "v1/data/scores/demo.json").read_text(encoding="utf-8")
    shown = set(re.findall(r'"prompt_id": ("(?:[^"\\]|\\.)*")', scores))
    assert {json.loads(text) for text in shown} == set(ids)


def test_an_observation_the_run_did_not_plan_is_refused(tmp_path: Path) -> None:
    bad = _imported()
    extra = ImportedRun(**{**bad.runs[0].__dict__, "observations": (_observation("s99", 1, True),)})
    with pytest.raises(ProblemReport, match="sample 's99' epoch 1 is not one the run declared"):
        write(Imported(bad.producer, bad.checks, bad.success, (extra,)), tmp_path / "demo", Options(), "logs")
    assert list(tmp_path.iterdir()) == []


def test_two_runs_of_one_model_on_one_task_are_refused(tmp_path: Path) -> None:
    bad = _imported()
    twice = Imported(bad.producer, bad.checks, bad.success, (bad.runs[0], bad.runs[0]))
    with pytest.raises(ProblemReport, match="two runs of 'org/model-a' on task 'demo'"):
        write(twice, tmp_path / "demo", Options(), "logs")


def test_blind_labels_are_opaque_and_the_logs_wait_for_the_reveal(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    written = write(_imported(), runs / "demo", Options(blind=True), "x")
    assert sorted(written.labels) == ["m-1", "m-2"]
    meta = json.loads((runs / "demo" / f"run-{sorted(written.labels)[0]}" / "run.json").read_text())
    assert "subject" not in meta
    out = tmp_path / "site"
    assert run_cli("build", "--runs", runs, "--out", out, "--site-version", "v1", "--quiet").exit_code == 0
    published = [p for p in (out / "v1").rglob("*") if p.is_file() and p.read_bytes().startswith(b"log of")]
    assert published == []
    texts = "".join(p.read_text() for p in (out / "v1").rglob("*.html"))
    assert "org/model" not in texts and "model-a" not in texts
    assert "not published while the models are blind" in texts


def test_labels_and_names() -> None:
    assert safe_name("openai/gpt-4o (2024)") == "openai-gpt-4o-2024"
    assert safe_name("///") == "x"
    assert labels_of(["a/b", "a b", "c"], blind=False) == {"a b": "a-b", "a/b": "a-b-2", "c": "c"}
    blind = labels_of(["zeta", "alpha"], blind=True)
    assert sorted(blind.values()) == ["m-1", "m-2"]


# ---- labels people recognise (issue 45 item 5) ---------------------------------------------------


def _variants(*variants: str, subject: str = "Qwen/Qwen3-8B") -> Imported:
    """One model's runs told apart by what the producer recorded (its seeds), each with its own
    successes: run k passes samples s1 … s<k>, every epoch."""
    runs = []
    for k, variant in enumerate(variants, start=1):
        correct = {(s, e) for s in SAMPLES[:k] for e in EPOCHS}
        run = _run(subject, correct, set())
        runs.append(
            ImportedRun(**{**run.__dict__, "variant": variant, "sources": (SourceFile(f"r{k}.log", b"log"),)})
        )
    return Imported(producer="demo-tool", checks=("match",), success="match true is a pass", runs=tuple(runs))


def _provider_cells(page: Path) -> list[str]:
    (board, *_) = tables_of(page, squashed=True)
    return [row[1] for row in board[1:] if row[0]]


def test_a_model_is_shown_by_its_own_name_on_the_leaderboard(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    write(_imported(), runs / "demo", Options(), "demo")
    out = tmp_path / "site"
    assert run_cli("build", "--runs", runs, "--out", out, "--site-version", "v1", "--quiet").exit_code == 0
    cells = _provider_cells(out / "v1" / "b" / "demo" / "index.html")
    assert cells == ["org/model-a org-model-a", "org/model-b org-model-b"]
    section = json.loads((out / "v1/data/benchmarks/demo.json").read_text())["section"]
    assert section["names"] == [
        {"provider": "org-model-a", "name": "org/model-a"},
        {"provider": "org-model-b", "name": "org/model-b"},
    ]


def test_two_runs_of_one_model_are_told_apart_by_a_stable_suffix_the_run_explains(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    variants = ("seed=1", "seed=2", "seed=3")
    written = write(_variants(*variants), runs / "demo", Options(), "demo")
    suffix = {v: hashlib.sha256(v.encode()).hexdigest()[:6] for v in variants}
    labels = {f"Qwen-Qwen3-8B-{suffix[v]}": v for v in variants}
    assert set(written.labels) == set(labels)
    assert written.labels == {label: f"Qwen/Qwen3-8B {variant}" for label, variant in labels.items()}
    for label, variant in labels.items():
        meta = json.loads((runs / "demo" / f"run-{label}" / "run.json").read_text())
        assert meta["subject"] == "Qwen/Qwen3-8B"
        (note,) = [n for n in meta["notes"] if n.startswith(f"Labelled {label}:")]
        assert note.endswith(f"this run's is: {variant}.")
    # the same runs in another order, or one run fewer, keep each run's label
    again = write(_variants(*reversed(variants[1:])), tmp_path / "again", Options(), "demo")
    assert set(again.labels) == {f"Qwen-Qwen3-8B-{suffix[v]}" for v in variants[1:]}
    out = tmp_path / "site"
    assert run_cli("build", "--runs", runs, "--out", out, "--site-version", "v1", "--quiet").exit_code == 0
    board = json.loads((out / "v1/data/benchmarks/demo.json").read_text())["section"]["scores"]["leaderboard"]
    counts = {row["provider"]: row["metrics"]["success"]["numerator"] for row in board}
    # run k passes samples s1 … s<k> in every epoch: a count made from the plan of _variants
    assert counts == {label: (variants.index(v) + 1) * len(EPOCHS) for label, v in labels.items()}
    page = out / "v1" / "b" / "demo" / "index.html"
    assert sorted(_provider_cells(page)) == sorted(f"Qwen/Qwen3-8B ({label})" for label in labels)
    for label, variant in labels.items():  # the run page explains its label
        text = squash(" ".join(parse(out / "v1" / "b" / "demo" / "runs" / f"run-{label}.html").text))
        assert f"Labelled {label}:" in text and f"this run's is: {variant}." in text


def test_one_model_s_runs_blind_get_opaque_labels_and_no_variant_in_their_notes(tmp_path: Path) -> None:
    written = write(_variants("seed=1", "seed=2"), tmp_path / "demo", Options(blind=True), "demo")
    assert sorted(written.labels) == ["m-1", "m-2"]
    for label in written.labels:
        meta = json.loads((tmp_path / "demo" / f"run-{label}" / "run.json").read_text())
        assert not any("seed=" in note or "Qwen" in note for note in meta["notes"])


def test_runs_nothing_tells_apart_are_still_refused(tmp_path: Path) -> None:
    with pytest.raises(ProblemReport, match="that nothing the producer recorded tells apart"):
        write(_variants("seed=1", "seed=1"), tmp_path / "demo", Options(), "demo")

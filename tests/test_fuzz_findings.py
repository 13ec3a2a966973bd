"""Inputs the mutation fuzzer found mishandled, kept as regressions: each is now invalid content
(exit 4) with a located message, never a traceback, a silently dropped benchmark or row, or a flood."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import corpus_of, reseal, run_cli, snapshot

STORE_RUN = "recsys-grounding/.agenteval/subjects/agents/recsys-agent/runs/2026-10-01_10-00-01_fadc2bac"
SCENARIO = "scenarios/c01·policy-match.json"


def _check(corpus: Path, out: Path, before: dict[str, bytes], expected: str) -> str:
    result = run_cli("build", "--runs", corpus, "--out", out, "--site-version", "v1")
    assert result.exit_code == 4, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    assert expected in result.output, result.output
    assert snapshot(out) == before
    return result.output


def _mutate_scenario(corpus: Path, change: str) -> None:
    path = corpus / STORE_RUN / SCENARIO
    scenario = json.loads(path.read_text(encoding="utf-8"))
    scenario["output"] = change
    path.write_text(json.dumps(scenario), encoding="utf-8")
    reseal(corpus / STORE_RUN)


def test_a_benchmark_declaration_that_is_null_is_refused_not_dropped(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path / "runs", "je-validation")  # the benchmark the case breaks, alone
    out = tmp_path / "site"
    assert run_cli("build", "--runs", corpus, "--out", out, "--site-version", "v0").exit_code == 0
    before = snapshot(out)
    (corpus / "je-validation" / "benchmark.json").write_text("null\n", encoding="utf-8")
    reseal(corpus / "je-validation")
    _check(corpus, out, before, "benchmark.json: $: the document is null: expected a JSON object")


def test_a_row_that_is_null_is_refused_not_skipped(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path / "runs", "agent-dx")  # the benchmark the case breaks, alone
    run = corpus / "agent-dx" / "run-subject-a3f1-1"
    lines = (run / "attempts.jsonl").read_text(encoding="utf-8").splitlines()
    out = tmp_path / "site"
    assert run_cli("build", "--runs", corpus, "--out", out, "--site-version", "v0").exit_code == 0
    before = snapshot(out)
    (run / "attempts.jsonl").write_text("\n".join([lines[0], "null", *lines[1:]]) + "\n", encoding="utf-8")
    reseal(run)
    _check(corpus, out, before, "attempts.jsonl: line 2: the row is null: expected a JSON object")


def test_a_store_output_tree_nested_too_deep_is_invalid_not_a_traceback(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path / "runs", "recsys-grounding")  # the benchmark the case breaks, alone
    out = tmp_path / "site"
    assert run_cli("build", "--runs", corpus, "--out", out, "--site-version", "v0").exit_code == 0
    before = snapshot(out)
    _mutate_scenario(corpus, '{"score": ' + "[" * 100_000 + "]" * 100_000 + "}")
    _check(corpus, out, before, "JSON nesting is too deep")


def test_a_store_output_tree_is_read_as_strictly_as_a_file(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path / "runs", "recsys-grounding")  # the benchmark the case breaks, alone
    out = tmp_path / "site"
    assert run_cli("build", "--runs", corpus, "--out", out, "--site-version", "v0").exit_code == 0
    before = snapshot(out)
    _mutate_scenario(corpus, '{"score": {"value": 1, "value": 0}, "details": {"x": 1E+400}}')
    output = _check(corpus, out, before, "the output tree is not strict JSON")
    assert "duplicate key" in output or "infinity" in output


def test_a_million_element_row_is_refused_and_the_report_stays_one_screen(tmp_path: Path) -> None:
    corpus = corpus_of(tmp_path / "runs", "vibe-delivery")  # the benchmark the case breaks, alone
    out = tmp_path / "site"
    assert run_cli("build", "--runs", corpus, "--out", out, "--site-version", "v0").exit_code == 0
    before = snapshot(out)
    run = corpus / "vibe-delivery" / "run-p-c"
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row["checks"] = [{"wrong": True}] * 1_000_000
    (run / "results.jsonl").write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n", encoding="utf-8")
    reseal(run)
    output = _check(corpus, out, before, "a row may hold at most 1048576")
    assert len(output.splitlines()) < 50


def test_problems_past_the_per_file_cap_are_counted_not_printed() -> None:
    from generator.errors import PER_FILE, Problem, ProblemReport

    report = ProblemReport([Problem("a.jsonl", f"line {n}", "wrong") for n in range(PER_FILE + 40)])
    lines = report.message.splitlines()
    assert len(lines) == PER_FILE + 2
    assert lines[-2] == "a.jsonl: … and 40 more problem(s) in this file, not printed"
    assert lines[-1].startswith(f"{PER_FILE + 40} problem(s)")


def test_an_allowlist_of_a_million_entries_is_refused_at_once(tmp_path: Path) -> None:
    """Valid JSON, but every changed path is matched against every entry: it took minutes."""
    corpus = corpus_of(tmp_path / "runs", "agent-dx")  # the benchmark the case breaks, alone
    out = tmp_path / "site"
    assert run_cli("build", "--runs", corpus, "--out", out, "--site-version", "v0").exit_code == 0
    before = snapshot(out)
    declaration = json.loads((corpus / "agent-dx" / "benchmark.json").read_text(encoding="utf-8"))
    declaration["tasks"][3]["allowlist"] = ["docs/"] * 1_000_000
    (corpus / "agent-dx" / "benchmark.json").write_text(json.dumps(declaration), encoding="utf-8")
    reseal(corpus / "agent-dx")
    _check(corpus, out, before, "$.tasks[3].allowlist")

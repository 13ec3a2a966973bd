"""The steps of scoring one benchmark (``generator.score.run``), each on its own, and their composition.

The steps take and return frozen values: a step's result cannot be changed after the fact, the
counts of a benchmark's runs come back as values (never a counter inside the options), and the
benchmark's digests are returned, not written into a dict the caller passed.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from generator.errors import Problem, Result
from generator.inputs.discover import FolderReads, discover
from generator.inputs.seal import SEAL_NAME, write_seal
from generator.progress import Progress
from generator.score.run import (
    BenchmarkScore,
    Details,
    ScoreOptions,
    fold_runs,
    prepare,
    read_benchmark,
    read_reveal,
    score_benchmark,
    score_inputs,
)
from generator.score.workers import Outcome
from tests.conftest import CORPUS, rendering


def layout_of(root: Path, bench: str):  # type: ignore[no-untyped-def]
    found = discover(root)
    return next(layout for layout in found.value or () if layout.id == bench)


def test_read_benchmark_gives_the_declaration_and_the_contract_of_a_sealed_benchmark() -> None:
    layout = layout_of(CORPUS, "docs-quality")
    read = read_benchmark("runs/docs-quality", layout, FolderReads())
    assert read.problems == ()
    assert read.value is not None
    assert read.value.declaration.family == "points"
    assert read.value.family.name == "points"
    assert read.value.rubric_sha == read.value.declaration.rubric.sha256
    with pytest.raises(dataclasses.FrozenInstanceError):
        read.value.rubric_sha = "changed"  # type: ignore[misc]


def _sealed_benchmark(root: Path, declaration: object) -> Path:
    folder = root / "bench"
    folder.mkdir(parents=True)
    (folder / "benchmark.json").write_text(json.dumps(declaration), encoding="utf-8")
    write_seal(folder)
    return folder


def test_read_benchmark_names_an_unknown_family_and_reads_nothing_further(tmp_path: Path) -> None:
    _sealed_benchmark(tmp_path / "runs", {"family": "astrology"})
    layout = layout_of(tmp_path / "runs", "bench")
    read = read_benchmark("runs/bench", layout, FolderReads())
    assert read.value is None
    (problem,) = read.problems
    assert (problem.file, problem.where) == ("runs/bench/benchmark.json", "$.family")
    assert "unknown rubric family 'astrology'" in problem.message


def test_read_benchmark_refuses_a_subfolder_without_its_own_seal(tmp_path: Path) -> None:
    folder = _sealed_benchmark(tmp_path / "runs", {"family": "points"})
    (folder / "hidden").mkdir()
    layout = layout_of(tmp_path / "runs", "bench")
    read = read_benchmark("runs/bench", layout, FolderReads())
    assert read.value is None
    refused = [p for p in read.problems if p.refused]
    assert [p.file for p in refused] == [str(folder / "hidden")]
    assert "no seal of its own" in refused[0].message


def test_prepare_lists_the_runs_to_score_in_run_order_and_the_benchmark_digest() -> None:
    layout = layout_of(CORPUS, "docs-quality")
    reads = FolderReads()
    read = read_benchmark("runs/docs-quality", layout, reads)
    assert read.value is not None
    prepared = prepare("runs/docs-quality", layout, read.value, None)
    assert prepared.problems == ()
    assert prepared.value is not None
    assert [rel for rel, _ in prepared.value.jobs] == list(layout.runs)
    assert prepared.value.skipped == 0
    assert not prepared.value.has_reveal
    assert prepared.value.digests == (("docs-quality", read.value.folder.digest),)


def test_a_reveal_is_read_only_when_reveals_apply_and_its_id_is_taken() -> None:
    layout = layout_of(CORPUS, "vibe-delivery")
    reads = FolderReads()
    read = read_benchmark("runs/vibe-delivery", layout, reads)
    assert read.value is not None
    assert read_reveal(layout, read.value, False, reads) == Result(None)
    reveal = read_reveal(layout, read.value, True, reads)
    assert reveal.problems == ()
    assert reveal.value is not None
    prepared = prepare("runs/vibe-delivery", layout, read.value, reveal.value)
    assert prepared.value is not None
    assert prepared.value.has_reveal
    assert "reveal" not in [rel for rel, _ in prepared.value.jobs]
    assert ("vibe-delivery/reveal", reveal.value.digest) in prepared.value.digests


def test_fold_runs_keeps_every_outcome_problem_and_folds_nothing_once_one_was_found() -> None:
    layout = layout_of(CORPUS, "docs-quality")
    read = read_benchmark("runs/docs-quality", layout, FolderReads())
    assert read.value is not None
    prepared = prepare("runs/docs-quality", layout, read.value, None).value
    assert prepared is not None
    broken = Problem("runs/docs-quality/x", "", "broken")
    outcomes = [
        Outcome("run-a", "run-a", "d" * 64, None, None, (broken,)),
        Outcome("run-b", "run-b", None, None, None, ()),
    ]
    progress = Progress()
    folded = fold_runs(prepared, outcomes, failed=False, progress=progress)
    assert folded.problems == (broken,)
    assert folded.value is not None
    assert folded.value.summaries == ()
    assert folded.value.digests == (("docs-quality/run-a", "d" * 64),)
    assert progress.done == 2


def _score(layout_id: str, options: ScoreOptions) -> BenchmarkScore:
    layout = layout_of(CORPUS, layout_id)
    details = Details()
    try:
        return score_benchmark(Path("runs"), layout, details, options=options)
    finally:
        details.close()


def test_score_benchmark_returns_its_counts_and_digests_as_values() -> None:
    options = ScoreOptions(outputs=False)
    first = _score("docs-quality", options)
    second = _score("docs-quality", options)
    assert first.problems == ()
    assert first.report is not None
    assert first.scored + first.reused == first.report.run_count == 4
    assert first.rendered == 0  # outputs=False renders no page
    assert (first.scored, first.reused) == (second.scored, second.reused)  # nothing accumulates in options
    assert [path for path, _ in first.digests] == [
        "docs-quality",
        *(f"docs-quality/{r}" for r in sorted(layout_of(CORPUS, "docs-quality").runs)),
    ]
    assert [i.path for i in first.report.inputs] == sorted(path for path, _ in first.digests)


def test_a_broken_run_makes_the_benchmark_fail_with_its_problem_and_no_report(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    shutil.copytree(CORPUS / "docs-quality", root / "docs-quality")
    run = sorted((root / "docs-quality").glob("run-*"))[0]
    victim = sorted(p for p in run.rglob("*") if p.is_file() and p.name != SEAL_NAME)[0]
    victim.write_bytes(victim.read_bytes() + b" ")
    layout = layout_of(root, "docs-quality")
    details = Details()
    try:
        score = score_benchmark(root, layout, details, options=ScoreOptions(outputs=False))
    finally:
        details.close()
    assert score.report is None
    assert any(p.refused and p.file == str(victim) for p in score.problems), score.problems
    assert (score.scored, score.reused, score.rendered, score.digests) == (0, 0, 0, ())


def test_score_inputs_sums_the_benchmarks_counts_and_counts_each_sealed_folder_once() -> None:
    scored = score_inputs(CORPUS, None, options=ScoreOptions(outputs=False))
    try:
        runs = sum(b.run_count for b in scored.report.benchmarks)
        assert scored.scored + scored.reused == runs
        seals = sum(1 for _ in CORPUS.rglob(SEAL_NAME))
        assert scored.folders == seals
    finally:
        scored.details.close()


def _rendered_pages(
    layout_id: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[BenchmarkScore, tuple[int, int], dict[str, list[tuple[str, bytes]]]]:
    """A benchmark scored with pages in this process: its score, how many times a run's pages were
    rendered and its spooled rows read back, and each run's spooled pages."""
    import generator.render.pages

    calls, reads = [], []
    render_run, get = generator.render.pages.render_run, Details.get

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args[2])
        return render_run(*args, **kwargs)

    def reading(self: Details, bench: str, run: str) -> bytes:
        reads.append(run)
        return get(self, bench, run)

    monkeypatch.setattr(generator.render.pages, "render_run", counting)
    monkeypatch.setattr(Details, "get", reading)
    details = Details()
    try:
        score = score_benchmark(Path("runs"), layout_of(CORPUS, layout_id), details, options=rendering())
        read_back = len(reads)  # before this test reads the rows itself (run_files)
        assert score.report is not None, score.problems
        pages = {}
        for run in score.report.section.runs:
            files = details.run_files(layout_id, run.id).pages
            pages[run.id] = [(path, data) for path, data in files if isinstance(data, bytes)]
    finally:
        details.close()
    return score, (len(calls), read_back), pages


@pytest.mark.parametrize("bench", ["docs-quality", "agent-dx-successor"])
def test_a_points_run_is_rendered_once_as_it_is_scored_with_the_view_its_benchmark_finishes_with(
    bench: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The points family knows its run view when prepared: each run's pages are rendered from its rows
    in memory as it is scored, and the render step finds the finished view equal and renders none
    again."""
    score, (calls, reads), pages = _rendered_pages(bench, monkeypatch)
    assert score.report is not None
    runs = score.report.run_count
    assert (score.scored, score.rendered, calls) == (runs, runs, runs)
    assert reads == 0  # no run's rows were read back from the spool to render its pages
    assert all(pages[run] for run in pages)


def test_a_run_view_that_differs_once_finished_renders_the_pages_again_as_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where a family's prepared view is not the finished one, the pages are rendered again with the
    finished view: the same bytes as a family that knows no view until then."""
    from generator.families.base import RunStatus
    from generator.families.points.family import PointsFamily

    prepared = PointsFamily.prepared_run_status
    _, (calls, early_reads), early = _rendered_pages("docs-quality", monkeypatch)
    monkeypatch.setattr(PointsFamily, "prepared_run_status", lambda self, bench, state: None)
    _, (late_calls, late_reads), late = _rendered_pages("docs-quality", monkeypatch)
    wrong = RunStatus(status="not the contract's status")
    monkeypatch.setattr(
        PointsFamily,
        "prepared_run_status",
        lambda self, bench, state: (wrong, prepared(self, bench, state)[1]),
    )
    score, (wrong_calls, wrong_reads), again = _rendered_pages("docs-quality", monkeypatch)
    assert score.report is not None
    runs = score.report.run_count
    assert (calls, late_calls, wrong_calls) == (runs, runs, 2 * runs)
    assert (early_reads, late_reads, wrong_reads) == (0, runs, runs)
    assert early == late == again

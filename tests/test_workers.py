"""Scoring in worker processes (generator.score.workers): the order of results, what a worker works with,
and the build's locks closed in every forked worker. No module state is set in the build's process."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.inputs import discover as inputs
from generator.inputs import seal
from generator.inputs.discover import FolderReads, discover
from generator.inputs.portable import can_fork
from generator.score import pool, workers
from generator.score import run as score
from generator.score.cache import RunCache
from generator.score.details import Details
from generator.score.pool import in_workers
from generator.score.run import _shared, prepare, read_benchmark
from generator.score.workers import PARALLEL_MIN_RUNS, Job, Outcome, Shared, verified_run
from scripts import make_corpus
from tests.conftest import CORPUS, rendering


def _shared_for(bench: str, details: Details, locks: tuple[int, ...] = ()) -> Shared:
    layout = next(layout for layout in discover(CORPUS).value or () if layout.id == bench)
    read = read_benchmark(f"runs/{bench}", layout, FolderReads())
    assert read.value is not None
    prepared = prepare(f"runs/{bench}", layout, read.value, None).value
    assert prepared is not None
    return _shared(layout, prepared, details, rendering(cache=RunCache(None), locks=locks))


def where_done(shared: Shared, job: Job) -> tuple[int, Job, str]:
    """A job's process, the job and the benchmark it was given (module level: a pool pickles it)."""
    return os.getpid(), job, shared.layout.id


def lock_closed(shared: Shared, job: Job) -> bool:
    """Whether the last of the build's locks is closed in the process that does the job."""
    try:
        os.fstat(shared.locks[-1])
    except OSError:
        return True
    return False


JOBS = [(f"rel-{n:02d}", f"run-{n:02d}") for n in range(PARALLEL_MIN_RUNS + 4)]


def test_in_process_each_job_is_done_here_in_order_with_the_shared_value() -> None:
    details = Details()
    try:
        shared = _shared_for("docs-quality", details)
        done = list(in_workers(shared, where_done, JOBS, workers=1))
    finally:
        details.close()
    assert done == [(os.getpid(), job, "docs-quality") for job in JOBS]
    assert pool._IN_WORKER.shared is None


@pytest.mark.skipif(not can_fork(), reason="workers are forked only where the platform can fork")
def test_forked_workers_give_results_in_job_order_and_leave_no_state_here() -> None:
    details = Details()
    try:
        shared = _shared_for("docs-quality", details)
        done = list(in_workers(shared, where_done, JOBS, workers=2))
    finally:
        details.close()
    assert [(job, bench) for _, job, bench in done] == [(job, "docs-quality") for job in JOBS]
    assert os.getpid() not in {pid for pid, _, _ in done}
    assert pool._IN_WORKER.shared is None  # set in the workers only


@pytest.mark.skipif(not can_fork(), reason="workers are forked only where the platform can fork")
def test_a_forked_worker_closes_its_copies_of_the_build_locks(tmp_path: Path) -> None:
    fd = os.open(tmp_path / "lock", os.O_RDWR | os.O_CREAT)
    details = Details()
    try:
        shared = _shared_for("docs-quality", details, locks=(fd,))
        assert shared.locks == (*details.locks, fd)
        assert all(in_workers(shared, lock_closed, JOBS, workers=2))
        assert not lock_closed(shared, JOBS[0])  # still open here
    finally:
        details.close()
        os.close(fd)


def test_a_run_folder_holding_a_sealed_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "SHA256SUMS").write_text("")
    verified = verified_run(tmp_path)
    assert verified.value is None
    assert [p.message for p in verified.problems] == ["a run folder may not hold further sealed folders"]


def _run_folder(root: Path, name: str, size: int) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "attempts.jsonl").write_bytes(b"x" * size)
    return folder


def test_a_few_large_runs_are_worth_forking_for_and_a_few_small_ones_are_not(tmp_path: Path) -> None:
    half = workers.PARALLEL_MIN_BYTES // 2
    small = [_run_folder(tmp_path, f"small-{n}", 1000) for n in range(3)]
    large = [_run_folder(tmp_path, f"large-{n}", half) for n in range(2)]
    assert workers.fewest_jobs(small) == PARALLEL_MIN_RUNS
    assert workers.fewest_jobs(large) == 2  # two runs of half the bytes each reach the floor
    assert workers.fewest_jobs(large[:1]) == PARALLEL_MIN_RUNS
    assert workers.fewest_jobs([tmp_path / "missing", *large]) == 2  # verifying it says what is wrong
    many = [_run_folder(tmp_path, f"many-{n}", 10) for n in range(PARALLEL_MIN_RUNS)]
    assert workers.fewest_jobs(many) == PARALLEL_MIN_RUNS  # enough runs: no file is looked at


def test_a_benchmark_of_a_few_large_runs_goes_to_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "runs"
    make_corpus.make(root, runs=4, rows=700, seed=3)  # three points runs of about 0.7 MB each
    layout = next(layout for layout in discover(root).value or () if layout.id == "agent-dx")
    assert len(layout.runs) == 3 < PARALLEL_MIN_RUNS
    read = read_benchmark("runs/agent-dx", layout, FolderReads())
    assert read.value is not None
    prepared = prepare("runs/agent-dx", layout, read.value, None).value
    assert prepared is not None
    asked: list[tuple[int, int]] = []

    def recorded(
        shared: Shared, work: object, jobs: list[Job], workers: int, min_jobs: int
    ) -> Iterator[object]:
        asked.append((workers, min_jobs))
        return iter([Outcome(rel, run_id, None, None, None, ()) for rel, run_id in jobs])

    monkeypatch.setattr(score, "in_workers", recorded)
    details = Details()
    try:
        options = rendering(cache=RunCache(None), jobs=2)
        shared = _shared(layout, prepared, details, options)
        outcomes = list(score.score_runs(prepared, shared, options))
        assert [outcome.run_id for outcome in outcomes] == [run_id for _, run_id in prepared.jobs]
    finally:
        details.close()
    assert asked == [(2, 2)]  # the pool's workers, from the second run on


def test_listing_a_benchmark_knows_which_of_its_runs_hold_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = tmp_path / "bench"
    for name in ("run-a", "run-b/inner", "run-c/notes"):
        (bench / name).mkdir(parents=True)
    for name in ("run-a", "run-b", "run-b/inner", "run-c"):
        (bench / name / "SHA256SUMS").write_text("")
    reads = FolderReads()
    assert reads.nested(bench) == ("run-a", "run-b", "run-c")
    listed: list[Path] = []

    def listing(path: Path, leaves: list[str] | None = None) -> list[str]:
        listed.append(path)
        return seal.nested_seals(path, leaves)

    monkeypatch.setattr(inputs, "nested_seals", listing)
    assert reads.nested(bench / "run-a") == ()  # known from the benchmark's listing
    assert reads.nested(bench / "run-b") == ("inner",)  # holds a folder: listed
    assert reads.nested(bench / "run-c") == ()
    assert listed == [bench / "run-b", bench / "run-c"]
    assert [p.message for p in verified_run(bench / "run-b", reads).problems] == [
        "a run folder may not hold further sealed folders"
    ]

"""Scoring a benchmark's runs: each on its own, in worker processes, or taken from the run cache.

A run is verified (every byte hashed against its seal), looked up in the cache by its seal digest,
and scored by its family only on a miss. A worker returns the small outcome (summary, the run's
share of the aggregates, its problems) and spools the run's rows itself; the parent folds shares
in sorted run order whatever order workers finish in, so no figure depends on the worker count.

Workers are forked, so what they share (the benchmark, its prepared state, the spool, the cache)
is inherited, never serialised. A worker ignores Ctrl-C (the parent stops the pool), closes its
copies of the site lock, and exits when its parent is gone, so a killed build leaves no lock held
and no process behind.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from generator.cache import RunCache
from generator.errors import Problem
from generator.families.base import BenchmarkContext, Family
from generator.inputs import BenchmarkLayout, VerifiedFolder, verify_folder
from generator.seal import nested_seals
from generator.write import HELD_LOCKS

if TYPE_CHECKING:
    from generator.score import Details

PARALLEL_MIN_RUNS = 8
"""Fewer runs than this are scored in the build's own process: forking would cost more than it saves."""


def default_jobs() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def verified_run(run_path: Path) -> tuple[VerifiedFolder | None, list[Problem]]:
    """A run folder read and checked against its seal; it may not hold further sealed folders."""
    if nested_seals(run_path):
        return None, [Problem(str(run_path), "", "a run folder may not hold further sealed folders")]
    return verify_folder(run_path)


@dataclass(frozen=True)
class Shared:
    """What every run of one benchmark is scored with."""

    layout: BenchmarkLayout
    bench: BenchmarkContext
    family: Family
    state: Any
    details: Details
    cache: RunCache
    cache_bench: str


@dataclass(frozen=True)
class Outcome:
    """One run, scored or reused: its seal digest (None when unreadable) and either a result or problems."""

    rel: str
    run_id: str
    digest: str | None
    summary: BaseModel | None
    part: BaseModel | None
    problems: list[Problem]
    reused: bool = False


_SHARED: Shared | None = None


def score_one(job: tuple[str, str]) -> Outcome:
    """Verify, look up, and on a miss score one run; spool its rows; keep a clean result in the cache."""
    assert _SHARED is not None, "score_one runs inside scored_runs only"
    shared = _SHARED
    rel, run_id = job
    run, problems = verified_run(shared.layout.path / rel)
    if run is None:
        return Outcome(rel, run_id, None, None, None, problems)
    family = shared.family
    key = shared.cache.key(shared.cache_bench, rel, run.digest)
    hit = shared.cache.load(key, family.name, family.summary_model, family.part_model)
    if hit is not None:
        shared.details.put_bytes(shared.bench.id, run_id, hit.detail)
        return Outcome(rel, run_id, run.digest, hit.summary, hit.part, [], reused=True)
    scored, problems = family.score_run(shared.bench, shared.state, run_id, run)
    if scored is None or problems:
        return Outcome(rel, run_id, run.digest, None, None, problems)
    detail = shared.details.put(shared.bench.id, run_id, scored.detail)
    shared.cache.store(key, family.name, scored.summary, scored.part, detail)
    return Outcome(rel, run_id, run.digest, scored.summary, scored.part, [])


def _worker_start(parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for fd in HELD_LOCKS:
        with contextlib.suppress(OSError):
            os.close(fd)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def scored_runs(shared: Shared, jobs: list[tuple[str, str]], workers: int) -> Iterator[Outcome]:
    """Each job's outcome, in the order given, scored by up to ``workers`` processes."""
    global _SHARED
    _SHARED = shared
    try:
        forking = "fork" in multiprocessing.get_all_start_methods()
        if workers <= 1 or len(jobs) < PARALLEL_MIN_RUNS or not forking:
            yield from map(score_one, jobs)
            return
        context = multiprocessing.get_context("fork")
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_worker_start,
                                   initargs=(os.getpid(),))  # fmt: skip
        try:
            chunk = max(1, min(32, len(jobs) // (workers * 8)))
            yield from pool.map(score_one, jobs, chunksize=chunk)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    finally:
        _SHARED = None

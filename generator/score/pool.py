"""Work on forked worker processes: each job of a list (:func:`in_workers`), or contiguous parts of
one (:func:`in_parts`), done by up to ``--jobs`` processes, results in the order given.

Workers are forked, so what they share (a scoring step's ``workers.Shared``, a blind scan's files,
the files a stage hashes) is inherited, never serialised: the pool's initialiser receives it at the
fork and keeps it in the worker process's one piece of state (:data:`_IN_WORKER`), because a process
pool calls a task through a picklable module-level function and pickling what the workers share for
every task would cost more than the task. The build's own process never sets it: there every step is
handed what it shares. A worker ignores Ctrl-C (the parent stops the pool), closes its copies of the
build's locks (:class:`Forked`), and exits when its parent is gone, so a killed build leaves no lock
held and no process behind.

Standard library and ``portable`` only, and ``multiprocessing`` imported where a pool starts: the
writer (``write.Staging.settle``) uses it as the scoring and the blind scan do, and a no-op rebuild
loads none of it.
"""

from __future__ import annotations

import gc
import itertools
import os
from collections.abc import Callable, Generator
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, TypeVar

from generator.inputs.portable import can_fork, worker_start

T = TypeVar("T")


class _InWorker:
    """What a forked worker process works with: set once, by the pool's initialiser, in the worker."""

    shared: Any = None


_IN_WORKER = _InWorker()
"""The one piece of module state, set in a forked worker process only (see the module's docstring)."""


class Forked(Protocol):
    """What forked workers share: anything, with the descriptors of the locks they must close."""

    @property
    def locks(self) -> tuple[int, ...]: ...


S = TypeVar("S", bound=Forked)
J = TypeVar("J")


COLLECT_AFTER = (20_000, 20, 50)
"""The cyclic collector's thresholds for a build (the interpreter's: 700, 10, 10)."""


def collect_seldom() -> Callable[[], None]:
    """Tune the cyclic garbage collector for a build, in its process and (inherited at the fork) its
    workers: what is garbage now collected, then what is alive frozen (modules, classes, compiled
    templates: never garbage, never traversed again, nor written to by a collection in a forked
    worker), and young objects collected every 20,000 allocations rather than 700. Scoring builds
    container objects by the row (a model, its tuples and dicts) and keeps a run's worth of them: at
    the interpreter's thresholds the collector traversed them again and again, about a tenth of a
    cold build's CPU on the 100k corpus (scripts/benchmark.py). Garbage is still collected, only in
    larger batches: the peak memory of the same build did not move (150 MB either way). Turning the
    collector off instead left 417 MB: some steps do leave cycles.

    Returns what undoes it (nothing frozen, the thresholds as they were), for a process that goes on
    after the build (the CLI calls it as its command's context closes: a test's many commands in one
    process, or a program that calls ``main``, keep nothing frozen)."""
    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECT_AFTER)

    def restore() -> None:
        gc.unfreeze()
        gc.set_threshold(*before)

    return restore


def _start_worker(parent: int, shared: Forked) -> None:
    """A forked worker's initialiser: ``portable.worker_start``, then keep what it works with."""
    worker_start(parent, shared.locks)
    _IN_WORKER.shared = shared


def _in_worker(work: Callable[[Any, J], T], job: J) -> T:
    """``work`` of one job, in a worker process, with what its initialiser kept."""
    assert _IN_WORKER.shared is not None, "runs in a worker that _start_worker started"
    return work(_IN_WORKER.shared, job)


def in_workers(
    shared: S, work: Callable[[S, J], T], jobs: list[J], workers: int, min_jobs: int = 2
) -> Generator[T, None, None]:
    """``work`` of each job with ``shared``, in the order given, done by up to ``workers`` processes
    (in this one when there are fewer than ``min_jobs`` jobs: forking would cost more than it saves)."""
    if workers <= 1 or len(jobs) < min_jobs or not can_fork():
        yield from (work(shared, job) for job in jobs)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker, initargs=(os.getpid(), shared)
    )
    try:
        chunk = max(1, min(32, len(jobs) // (workers * 8)))
        yield from pool.map(partial(_in_worker, work), jobs, chunksize=chunk)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


PART_ITEMS = 16
"""The fewest items of a part (:func:`in_parts`) unless the caller says otherwise: fewer than two
parts' worth are done in the build's own process."""


@dataclass(frozen=True)
class _Parts:
    """What :func:`in_parts` hands its forked workers: the items, the work, the build's locks."""

    items: list[Any]
    work: Callable[[list[Any]], Any]
    locks: tuple[int, ...]


def _part(parts: _Parts, bounds: tuple[int, int]) -> Any:
    start, end = bounds
    return parts.work(parts.items[start:end])


def in_parts(
    work: Callable[[list[Any]], T],
    items: list[Any],
    workers: int,
    locks: tuple[int, ...] = (),
    least: int | None = None,
) -> Generator[T, None, None]:
    """``work`` of contiguous parts of ``items`` (four a worker, each of ``least`` items at least,
    :data:`PART_ITEMS` by default), done by up to ``workers`` forked processes; each part's result
    in the order of the parts. ``work`` is inherited by the workers at the fork, never pickled: a
    ``functools.partial`` will do. ``locks``: the build's, which each worker closes."""
    count = max(1, min(workers * 4, len(items) // (least or PART_ITEMS)))
    bounds = list(itertools.pairwise(len(items) * i // count for i in range(count + 1)))
    yield from in_workers(_Parts(items, work, locks), _part, bounds, workers, min_jobs=2)

"""Scoring a benchmark's runs: each on its own, in worker processes, or taken from the run cache.

A run is verified (every byte hashed against its seal), looked up in the cache by its seal digest,
and on a miss scored by its family and its pages rendered (a run page shows only the run and what
its benchmark's sealed folder decides: ``Family.run_view``). A worker spools the run's rows and
pages itself and returns the small outcome (summary, the run's share of the aggregates, its
problems); the parent folds shares in sorted run order whatever order workers finish in, so no
figure depends on the worker count.

Runs are scored and rendered on forked worker processes (``pool.in_workers``): what they share
(:class:`Shared`: the benchmark, its prepared state, the spool, the cache) is inherited at the fork,
never serialised, and a worker closes its copies of the build's locks (``Shared.locks``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from generator.errors import Problem, Result
from generator.families.base import AnyFamily, BenchmarkContext, RunView
from generator.inputs.discover import BenchmarkLayout, FolderReads, VerifiedFolder
from generator.inputs.portable import usable_cores
from generator.score.cache import Kept, Pages, RunCache
from generator.score.details import Details, RunPagesOutcome
from generator.score.ledger import Ledger, PagesKept
from generator.score.statrecords import FolderRecord, StatStore

PageRenderer = Callable[[str, RunView, str, BaseModel], Pages]
"""Renders one run's pages (family name, the benchmark's run view, run id, its rows): the render
stage's ``render_run``, handed in by the build (``ScoreOptions.pages``), so that scoring imports no
renderer and a worker renders a run as soon as it is scored."""

PARALLEL_MIN_RUNS = 8
"""Fewer runs than this are scored in the build's own process, forking would cost more than it
saves, unless their files hold at least :data:`PARALLEL_MIN_BYTES` (a few large runs)."""

PARALLEL_MIN_BYTES = 1 << 20
"""Runs whose files hold this many bytes (about a thousand rows) go to the worker processes however
few they are: scoring them takes seconds, a fork of the build some milliseconds."""


def fewest_jobs(folders: Iterable[Path]) -> int:
    """The fewest runs worth forking for (``in_workers``'s ``min_jobs``): two when the files of
    ``folders`` hold :data:`PARALLEL_MIN_BYTES` or more, else :data:`PARALLEL_MIN_RUNS`. Only a
    benchmark with fewer runs than that asks, and only the size of each file is read."""
    folders = list(folders)
    if len(folders) >= PARALLEL_MIN_RUNS:
        return PARALLEL_MIN_RUNS
    total = 0
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                total += sum(
                    entry.stat().st_size for entry in entries if entry.is_file(follow_symlinks=False)
                )
        except OSError:
            continue  # verifying the run says what is wrong with its folder
        if total >= PARALLEL_MIN_BYTES:
            return 2
    return PARALLEL_MIN_RUNS


def default_jobs() -> int:
    """The cores this process may run on."""
    return usable_cores()


def verified_run(run_path: Path, reads: FolderReads | None = None) -> Result[VerifiedFolder]:
    """A run folder read and checked against its seal (through the build's ``reads``); it may not hold
    further sealed folders."""
    reads = reads or FolderReads()
    if reads.nested(run_path):
        return Result(None, (Problem(str(run_path), "", "a run folder may not hold further sealed folders"),))
    return reads.verify(run_path)


def recorded_run(run_path: Path, reads: FolderReads, records: StatStore) -> tuple[str, FolderRecord] | None:
    """The run's seal digest and stat record when it holds no nested seal and that record vouches
    for its files (``StatStore.vouches``): no file but the seal is read. None: the run is verified by
    hashing."""
    return None if reads.nested(run_path) else records.vouching(run_path, (), reads)


def verified_and_recorded(
    run_path: Path, reads: FolderReads, records: StatStore
) -> tuple[Result[VerifiedFolder], FolderRecord | None]:
    """:func:`verified_run`, and when its files were hashed now and matched, a stat record of them
    (the stamp read before the first was examined), as kept. A folder the build verified earlier and
    holds (``FolderReads.keep``) is not recorded: it was hashed before this stamp."""
    stamp = records.stamp()
    fresh = run_path not in reads.folders
    verified = verified_run(run_path, reads)
    if fresh and verified.value is not None:
        return verified, records.remember(run_path, verified.value.seal.entries, stamp)
    return verified, None


@dataclass(frozen=True)
class Viewed:
    """A benchmark's run view and its digest (under which its run pages are kept in the run cache),
    taken once a benchmark, not once a run."""

    view: RunView
    digest: str


@dataclass(frozen=True)
class Shared:
    """What every run of one benchmark is scored with."""

    layout: BenchmarkLayout
    bench: BenchmarkContext[Any, Any]
    family: AnyFamily
    state: Any
    details: Details
    cache: RunCache
    cache_bench: str
    outputs: bool = True
    """Spool each run's rows and keep them in the cache; False for ``verify``."""
    view: Viewed | None = None
    """The benchmark as its run pages show it: known once every run is folded in."""
    early: Viewed | None = None
    """The same, when its family knows it before any run is folded (``Family.prepared_run_status``):
    each run's pages are rendered as it is scored, from its rows in memory, not read back."""
    detail_model: type[BaseModel] | None = None
    """The type of a spooled run's rows, to render its pages from."""
    reads: FolderReads | None = None
    """The build's reads of sealed folders (a forked worker inherits what was read before the fork)."""
    locks: tuple[int, ...] = ()
    """Descriptors of the locks the build holds (the spool's, the site's): a forked worker closes its
    copies, so a lock never outlives the build that took it."""
    min_jobs: int = PARALLEL_MIN_RUNS
    """The fewest runs worth forking for (:func:`fewest_jobs` of the benchmark's runs)."""
    pages: PageRenderer | None = None
    """How a run's pages are rendered (``ScoreOptions.pages``); None: none are (``verify``)."""
    records: StatStore = field(default_factory=lambda: StatStore(None))
    """The stat records of run folders (kept beside the run cache): a run whose files are as its
    record says is looked up in the cache without hashing them. None kept for ``verify`` and
    ``--no-cache``, which hash every file."""
    ledger: Ledger = field(default_factory=Ledger.none)
    """The benchmark's ledger (``score.ledger``): each run it vouches for is taken from it in the
    build's own process; an empty one for ``verify`` and ``--no-cache``."""


@dataclass(frozen=True)
class Outcome:
    """One run, scored or reused: its seal digest (None when unreadable) and either a result or problems."""

    rel: str
    run_id: str
    digest: str | None
    summary: BaseModel | None
    part: BaseModel | None
    problems: tuple[Problem, ...]
    reused: bool = False
    key: str = ""
    """The run's cache key (its pages are kept under it and the view's digest)."""
    kept: Kept | None = None
    """Where the run cache keeps the rows of a reused run: read from there when the version is
    written (``Details.keep_rows``), never copied to the spool."""
    rendered_with: str = ""
    """The digest of the view its pages were rendered and spooled with as it was scored
    (``Shared.early``); empty when they were not."""
    inputs: FolderRecord | None = None
    """The stat record of the run's files (as it vouched, or as kept once they were hashed now)."""
    rows: Kept | None = None
    """Where the run cache keeps the run's rows (loaded, or stored now), with the file's stat."""
    pages: PagesKept | None = None
    """The pages rendered as it was scored (``rendered_with``), as the run cache keeps them."""


Job = tuple[str, str]
"""(sealed subfolder, run id) of a run to score; (run id, cache key) of a run whose pages to render."""


def score_one(shared: Shared, job: Job) -> Outcome:
    """Verify, look up, and on a miss score one run; spool its rows; keep a clean result in the cache;
    and when the benchmark's run view is known already (``Shared.early``), render its pages from its
    rows in memory, unless the cache keeps them."""
    rel, run_id = job
    run_path, reads = shared.layout.run_path(rel), shared.reads or FolderReads()
    recorded = recorded_run(run_path, reads, shared.records) if shared.records.folder else None
    digest = recorded[0] if recorded is not None else None
    reused = _reused(shared, rel, run_id, *recorded) if recorded is not None else None
    if reused is not None:
        return reused
    verified, record = verified_and_recorded(run_path, reads, shared.records)
    run = verified.value
    if run is None:
        return Outcome(rel, run_id, None, None, None, verified.problems)
    family = shared.family
    key = shared.cache.key(shared.cache_bench, rel, run.digest)
    reused = None if run.digest == digest else _reused(shared, rel, run_id, run.digest, record)
    if reused is not None:
        return reused
    bench = shared.bench.id
    scoring = family.score_run(shared.bench, shared.state, run_id, run)
    scored = scoring.value
    if scored is None or scoring.problems:
        return Outcome(rel, run_id, run.digest, None, None, scoring.problems)
    rendered_with, rows, pages = "", None, None
    if shared.outputs:
        detail = shared.details.put(bench, run_id, scored.detail)
        rows = shared.cache.store(key, family.name, scored.summary, scored.part, detail)
        early = shared.early
        if early is not None and not shared.cache.has_pages(shared.cache.pages_key(key, early.digest)):
            pages = _render(shared, early, run_id, key, scored.detail)
            rendered_with = early.digest
    return Outcome(
        rel,
        run_id,
        run.digest,
        scored.summary,
        scored.part,
        (),
        key=key,
        rendered_with=rendered_with,
        inputs=record,
        rows=rows,
        pages=pages,
    )


def _reused(
    shared: Shared, rel: str, run_id: str, digest: str, record: FolderRecord | None
) -> Outcome | None:
    """The run taken from the run cache under its seal's ``digest``; None on a miss. ``record``: the
    stat record of its files, as it vouched or as kept once they were hashed."""
    family = shared.family
    key = shared.cache.key(shared.cache_bench, rel, digest)
    hit = shared.cache.load(key, family.name, family.summary_model, family.part_model, shared.outputs)
    if hit is None:
        return None
    return Outcome(
        rel,
        run_id,
        digest,
        hit.summary,
        hit.part,
        (),
        reused=True,
        key=key,
        kept=hit.kept,
        inputs=record,
        rows=hit.kept,
    )


def render_one(shared: Shared, job: Job) -> RunPagesOutcome:
    """One run's pages with the benchmark's view: from the cache (left there, where the version's
    writer reads them), else rendered from its spooled rows, spooled and kept."""
    assert shared.view and shared.detail_model, "render_one renders once the benchmark is finished"
    run_id, run_key = job
    pages = shared.cache.load_pages(shared.cache.pages_key(run_key, shared.view.digest))
    if pages is not None:
        kept = tuple((path, file) for (path, _), file in zip(pages.pages, pages.kept, strict=True))
        loaded = PagesKept(shared.view.digest, pages.located, kept)
        return RunPagesOutcome(run_id, False, kept, pages.located, loaded)
    run = shared.detail_model.model_validate_json(shared.details.get(shared.bench.id, run_id))
    return RunPagesOutcome(run_id, True, stored=_render(shared, shared.view, run_id, run_key, run))


def _render(shared: Shared, viewed: Viewed, run_id: str, run_key: str, run: BaseModel) -> PagesKept | None:
    """A run's pages rendered with ``viewed`` by the renderer the build handed in, spooled and kept
    in the run cache under its digest; as kept there (None: they were not)."""
    assert shared.pages is not None, "a build that renders pages hands in its renderer (ScoreOptions.pages)"
    pages = shared.pages(shared.family.name, viewed.view, run_id, run)
    kept = shared.cache.store_pages(shared.cache.pages_key(run_key, viewed.digest), pages)
    shared.details.put_pages(shared.bench.id, run_id, pages.pages, pages.located)
    if len(kept) != len(pages.pages):
        return None
    files = tuple((path, file) for (path, _), file in zip(pages.pages, kept, strict=True))
    return PagesKept(viewed.digest, pages.located, files)

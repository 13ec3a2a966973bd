"""Score: verified benchmark folders → one :class:`SiteReport`. Reads inputs, writes nothing."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from generator import __version__
from generator.errors import Problem, ProblemReport, Problems, Result
from generator.families.base import AnyFamily, BenchmarkContext, Finished, RunStatus, RunView
from generator.families.registry import FAMILIES
from generator.inputs.discover import (
    BenchmarkLayout,
    FolderReads,
    VerifiedFolder,
    discover,
    id_problem,
    inputs_digest,
)
from generator.inputs.jsonio import load_json_bytes, validate_model
from generator.inputs.seal import key_of
from generator.inputs.siteconfig import SiteLook
from generator.progress import SILENT, Progress
from generator.report.model import BenchmarkReport, SealedInput, SiteReport
from generator.score.cache import RunCache, bench_key
from generator.score.cluster import SCHEDULER_TIMEOUT, on_cluster
from generator.score.details import Details, RunPagesOutcome
from generator.score.ledger import Ledger, Reused
from generator.score.pool import in_workers
from generator.score.statrecords import StatStore
from generator.score.workers import (
    Outcome,
    PageRenderer,
    Shared,
    Viewed,
    fewest_jobs,
    render_one,
    score_one,
    verified_run,
)

DECLARATION = "benchmark.json"


@dataclass(frozen=True)
class Scored:
    """The outcome of reading and scoring every input."""

    report: SiteReport
    folders: int
    """How many sealed folders were verified."""
    details: Details
    """Every run's rows, for the render stage; close it when done."""
    reused: int = 0
    """Runs taken from the run cache (their seals hold and nothing they were scored with changed)."""
    scored: int = 0
    """Runs parsed and scored."""
    rendered: int = 0
    """Runs whose pages were rendered (the others' pages came from the run cache)."""
    unrevealed: Mapping[str, BenchmarkScore] = field(default_factory=dict)
    """Each benchmark without a reveal folder, by id: a blind build of the same inputs takes these."""


@dataclass(frozen=True)
class ScoreOptions:
    """How runs are scored: with which cache, by how many processes. Neither changes a figure."""

    cache: RunCache = field(default_factory=lambda: RunCache(None))
    jobs: int = 1
    outputs: bool = True
    """Spool rows and render run pages (False: ``verify``, which only checks and scores)."""
    scheduler: str | None = None
    """A dask.distributed scheduler address: runs are scored by its workers (``generator.score.cluster``)."""
    scheduler_timeout: float = SCHEDULER_TIMEOUT
    """Seconds every wait for the dask cluster may last (``--scheduler-timeout``)."""
    reads: FolderReads = field(default_factory=FolderReads, compare=False)
    """The sealed folders this build read: each seal once, a revealed benchmark's files once."""
    site: SiteLook = field(default_factory=SiteLook)
    """How the site presents itself on its run pages: never a figure."""
    locks: tuple[int, ...] = ()
    """Descriptors of the locks the build holds besides the spool's (the site lock, while a blind
    version is rebuilt): a forked worker closes its copies (``portable.worker_start``)."""
    pages: PageRenderer | None = None
    """How a run's pages are rendered: the render stage's ``render_run``, handed in by the build (the
    score stage imports no renderer); needed when ``outputs`` is true."""


# --- the steps of scoring one benchmark, in the order ``score_benchmark`` composes them ----------


@dataclass(frozen=True)
class Declared:
    """Step 1: a benchmark's own sealed folder verified, its declaration and pinned contract read."""

    folder: VerifiedFolder
    declaration: Any
    contract: Any
    rubric_sha: str
    """The sha256 of the rubric file, as its pin in the declaration says."""

    @property
    def family(self) -> AnyFamily:
        return FAMILIES[self.declaration.family]


@dataclass(frozen=True)
class Prepared:
    """Step 3: what every run of a benchmark is scored with, and which runs there are to score."""

    bench: BenchmarkContext[Any, Any]
    family: AnyFamily
    state: Any
    """The family's prepared state (its ``fold`` merges each run's share into it)."""
    jobs: tuple[tuple[str, str], ...]
    """(sealed subfolder, run id) of every run to score, in run order."""
    skipped: int
    """Runs not scored because their id is unusable or collides (each one a problem)."""
    has_reveal: bool
    """The benchmark holds a reveal folder (read or not): its runs are scored in this process."""
    digests: tuple[tuple[str, str], ...]
    """(path, seal digest) of the benchmark's folder and of its reveal folder when read."""


@dataclass(frozen=True)
class Folded:
    """Step 5: the runs' outcomes, folded into the family's state in run order."""

    summaries: tuple[BaseModel, ...]
    """Each folded run's summary, in run order, for the family's ``finish``."""
    keys: tuple[tuple[str, str], ...]
    """(run id, cache key) of each folded run, to find its pages by."""
    digests: tuple[tuple[str, str], ...]
    """(path, seal digest) of every run folder whose seal was read."""
    reused: int
    """Folded runs taken from the run cache."""
    rendered_with: Mapping[str, str] = field(default_factory=dict)
    """Run id → the digest of the view its pages were rendered with as it was scored (``Shared.early``)."""

    @property
    def scored(self) -> int:
        """Folded runs parsed and scored."""
        return len(self.summaries) - self.reused


@dataclass(frozen=True)
class BenchmarkScore:
    """One benchmark scored: its report (None when it has problems) and what scoring it counted."""

    report: BenchmarkReport | None
    problems: tuple[Problem, ...] = ()
    digests: tuple[tuple[str, str], ...] = ()
    """(path, seal digest) of the benchmark's folder and of each of its sealed subfolders read."""
    reused: int = 0
    scored: int = 0
    rendered: int = 0
    has_reveal: bool = False
    """Its reveal folder was there (read or not): a blind build scores it again, without it."""


def _declaration(label: str, folder: VerifiedFolder) -> Result[Any]:
    file = f"{label}/{DECLARATION}"
    if DECLARATION not in folder.files:
        return Result(None, (Problem(file, "", "required file is missing"),))
    loaded = load_json_bytes(folder.files[DECLARATION], file)
    raw = loaded.value
    if raw is None:
        return loaded
    if not isinstance(raw, dict):
        return Result(None, (Problem(file, "$", "must be a JSON object declaring its 'family'"),))
    family = raw.get("family")
    if not isinstance(family, str) or family not in FAMILIES:
        known = ", ".join(sorted(FAMILIES))
        problem = Problem(file, "$.family", f"unknown rubric family {family!r} (known: {known})")
        return Result(None, (problem,))
    return validate_model(FAMILIES[family].declaration_model, raw, file)


def _contract(label: str, decl: Any, folder: VerifiedFolder) -> Result[Declared]:
    file = f"{label}/{decl.rubric.file}"
    data = folder.files.get(decl.rubric.file)
    if data is None:
        message = "rubric file named in benchmark.json is not in the sealed folder"
        return Result(None, (Problem(file, "", message),))
    digest = hashlib.sha256(data).hexdigest()
    if digest != decl.rubric.sha256:
        pinned = decl.rubric.sha256[:16]
        message = f"rubric does not match its pin in benchmark.json: pinned {pinned}…, found {digest[:16]}…"
        return Result(None, (Problem(file, "", message, refused=True),))
    problems = Problems()
    contract = problems.take(FAMILIES[decl.family].read_contract(data, file))
    return problems.result(Declared(folder, decl, contract, digest) if contract is not None else None)


def _run_id_problem(run_path: Path, run_id: str, seen: Mapping[str, str]) -> Problem | None:
    """A run id names files and anchors: it must be usable and unique when case is ignored."""
    bad = id_problem("run", run_id, run_path)
    if bad is None and run_id.casefold() in seen:
        message = f"run id collides with {seen[run_id.casefold()]!r} when case is ignored"
        bad = Problem(str(run_path), "", message)
    return bad


def _checked_ids(
    layout: BenchmarkLayout, runs: Iterable[tuple[str, str | None]], taken: tuple[str, ...] = ()
) -> Iterator[tuple[str, str] | Problem]:
    """Each (sealed subfolder, run id) in order, or the problem with its id; ``taken``: ids in use."""
    seen = {run_id.casefold(): run_id for run_id in taken}
    for rel, run_id in runs:
        run_path = layout.run_path(rel)
        if run_id is None:
            yield Problem(str(run_path), "", "a sealed folder where this family's layout has no run")
            continue
        bad = _run_id_problem(run_path, run_id, seen)
        if bad is None:
            seen[run_id.casefold()] = run_id
        yield (rel, run_id) if bad is None else bad


def _unsealed_subfolders(layout: BenchmarkLayout) -> list[Problem]:
    """Every subfolder of a benchmark is a sealed run (or reveal) folder: none may hide in its seal."""
    sealed_tops = {run.split("/")[0] for run in layout.runs}
    return [
        Problem(
            str(sub),
            "",
            "subfolder has no seal of its own: every run folder carries its own SHA256SUMS",
            refused=True,
        )
        for sub in sorted(layout.path.iterdir())
        if sub.is_dir() and not sub.is_symlink() and key_of(sub.name) not in sealed_tops
    ]


def _verify_runs_only(
    layout: BenchmarkLayout, runs: Iterable[str], reads: FolderReads
) -> tuple[Problem, ...]:
    """When the benchmark itself cannot be read, still report every run whose seal does not hold."""
    named = [(rel, rel.rsplit("/", 1)[-1]) for rel in runs]
    usable = [job[0] for job in _checked_ids(layout, named) if not isinstance(job, Problem)]
    found = (verified_run(layout.run_path(rel), reads).problems for rel in usable)
    return tuple(problem for problems in found for problem in problems if problem.refused)


def read_benchmark(label: str, layout: BenchmarkLayout, reads: FolderReads) -> Result[Declared]:
    """Step 1: the benchmark's own sealed folder verified, its declaration and pinned contract read,
    and every subfolder sealed on its own. None with the problems when any of it fails."""
    problems = Problems(_unsealed_subfolders(layout))
    folder = problems.take(reads.verify(layout.path, layout.runs))
    if folder is None:
        return problems.result(None)
    decl = problems.take(_declaration(label, folder))
    declared = problems.take(_contract(label, decl, folder)) if decl is not None else None
    return problems.result(None if problems else declared)


def read_reveal(
    layout: BenchmarkLayout, declared: Declared, with_reveals: bool, reads: FolderReads
) -> Result[VerifiedFolder]:
    """Step 2: the benchmark's reveal folder verified, when it has one and reveals apply (else a
    value of None and no problems)."""
    name = declared.family.reveal_folder
    if name is None or name not in layout.runs or not with_reveals:
        return Result(None)
    return verified_run(layout.run_path(name), reads)


def prepare(
    label: str, layout: BenchmarkLayout, declared: Declared, reveal: VerifiedFolder | None
) -> Result[Prepared]:
    """Step 3: the family's state prepared (its specification resolved, the benchmark-wide rules
    checked) and the runs to score listed by id. A benchmark that cannot be scored at all (e.g. no
    scoring specification) is None; a run whose id is unusable or collides is a problem."""
    family, decl = declared.family, declared.declaration
    bench = BenchmarkContext(
        layout.id,
        label,
        declared.folder,
        decl,
        declared.contract,
        decl.rubric.file,
        declared.rubric_sha,
        reveal,
    )
    problems = Problems()
    state = problems.take(family.prepare(bench))
    if state is None:
        return problems.result(None)
    runs = [(rel, family.run_id(rel)) for rel in layout.runs if rel != family.reveal_folder]
    taken = (family.reveal_folder,) if reveal is not None and family.reveal_folder else ()
    checked = list(_checked_ids(layout, runs, taken))
    jobs = tuple(job for job in checked if not isinstance(job, Problem))
    problems.extend(job for job in checked if isinstance(job, Problem))
    digests = ((layout.id, declared.folder.digest), *_reveal_digest(layout.id, family, reveal))
    has_reveal = family.reveal_folder in layout.runs
    return problems.result(Prepared(bench, family, state, jobs, len(runs) - len(jobs), has_reveal, digests))


def _reveal_digest(
    bench: str, family: AnyFamily, reveal: VerifiedFolder | None
) -> tuple[tuple[str, str], ...]:
    return ((f"{bench}/{family.reveal_folder}", reveal.digest),) if reveal is not None else ()


def _shared(layout: BenchmarkLayout, prepared: Prepared, details: Details, options: ScoreOptions) -> Shared:
    """What every run of the benchmark is scored and rendered with, here or in a worker process."""
    bench = prepared.bench
    cache_bench = bench_key(layout.id, bench.folder.digest, bench.reveal.digest if bench.reveal else None)
    records = _records(options)
    family = prepared.family.name
    opened = records.folder is not None
    ledger = (
        Ledger.open(options.cache, layout.path, cache_bench, family, records.stamp)
        if opened
        else Ledger.none()
    )
    return Shared(
        layout,
        bench,
        prepared.family,
        prepared.state,
        details,
        options.cache,
        cache_bench,
        options.outputs,
        reads=options.reads,
        locks=(*details.locks, *options.locks),
        min_jobs=fewest_jobs(layout.run_path(rel) for rel, _ in prepared.jobs),
        early=early_view(prepared, options),
        pages=options.pages,
        records=records,
        ledger=ledger,
    )


def _records(options: ScoreOptions) -> StatStore:
    """Stat records kept beside the run cache, under its key; none without a cache or for ``verify``
    (every file hashed)."""
    if not options.outputs or options.cache.folder is None:
        return StatStore(None)
    return StatStore(options.cache.folder, options.cache.mac_key)


def score_runs(prepared: Prepared, shared: Shared, options: ScoreOptions) -> Iterator[Outcome]:
    """Step 4, a map: each run the benchmark's ledger vouches for taken from it here; every other
    verified, looked up in the run cache and on a miss scored, in worker processes, on a cluster or
    here; outcomes in run order. A benchmark with a reveal scores its runs in this process, so the
    blind version does not read them again."""
    jobs = list(prepared.jobs)
    ledgered = {job[1]: outcome for job in jobs if (outcome := _from_ledger(shared, job)) is not None}
    missed = [job for job in jobs if job[1] not in ledgered]
    in_process = prepared.has_reveal and options.jobs > 1
    if options.scheduler and not in_process:
        outcomes = on_cluster(shared, missed, options.scheduler, options.scheduler_timeout)
    else:
        workers = 1 if prepared.has_reveal else options.jobs
        outcomes = in_workers(shared, score_one, missed, workers, shared.min_jobs)
    return _keeping_rows(_in_order(jobs, ledgered, outcomes), shared)


def _from_ledger(shared: Shared, job: tuple[str, str]) -> Outcome | None:
    """The run as the benchmark's ledger keeps it, when it vouches for it (``Ledger.reuse``)."""
    rel, run_id = job
    reads = shared.reads or FolderReads()
    models = (shared.family.summary_model, shared.family.part_model)
    found = shared.ledger.reuse(rel, run_id, shared.layout.run_path(rel), reads, shared.cache, models)
    if found is None:
        return None
    return Outcome(
        rel,
        run_id,
        found.digest,
        found.summary,
        found.part,
        (),
        reused=True,
        key=found.key,
        kept=found.rows,
        inputs=found.inputs,
        rows=found.rows,
    )


def _in_order(
    jobs: list[tuple[str, str]], ready: Mapping[str, Outcome], rest: Iterator[Outcome]
) -> Iterator[Outcome]:
    """Every job's outcome in job order: ``ready``'s by run id, the others the next of ``rest``."""
    for _, run_id in jobs:
        yield ready[run_id] if run_id in ready else next(rest)


def _keeping_rows(outcomes: Iterator[Outcome], shared: Shared) -> Iterator[Outcome]:
    """The outcomes as they come, each reused run's rows noted where the run cache keeps them, and
    what the benchmark's ledger keeps of each clean one noted there."""
    for outcome in outcomes:
        if outcome.kept is not None:
            shared.details.keep_rows(shared.bench.id, outcome.run_id, outcome.kept)
        _note(shared.ledger, outcome)
        yield outcome


def _note(ledger: Ledger, outcome: Outcome) -> None:
    if (
        outcome.problems
        or outcome.digest is None
        or outcome.inputs is None
        or outcome.rows is None
        or outcome.summary is None
        or outcome.part is None
    ):
        return
    found = Reused(outcome.digest, outcome.key, outcome.summary, outcome.part, outcome.rows, outcome.inputs)
    ledger.note(outcome.rel, outcome.run_id, found)
    if outcome.pages is not None:
        ledger.note_pages(outcome.run_id, outcome.pages)


def fold_runs(
    prepared: Prepared, outcomes: Iterable[Outcome], failed: bool, progress: Progress
) -> Result[Folded]:
    """Step 5: every outcome taken in run order (whatever order workers finished in) and its share
    folded into the family's state, until a problem is found (``failed``: one was, before); every
    outcome's problems are kept."""
    problems = Problems()
    summaries: list[BaseModel] = []
    keys: list[tuple[str, str]] = []
    digests: list[tuple[str, str]] = []
    reused = 0
    rendered_with: dict[str, str] = {}
    for outcome in outcomes:
        progress.advance()
        problems.extend(outcome.problems)
        if outcome.digest is not None:
            digests.append((f"{prepared.bench.id}/{outcome.rel}", outcome.digest))
        if outcome.part is None or outcome.summary is None or failed or problems:
            continue
        problems.extend(prepared.family.fold(prepared.bench, prepared.state, outcome.run_id, outcome.part))
        summaries.append(outcome.summary)
        keys.append((outcome.run_id, outcome.key))
        reused += outcome.reused
        if outcome.rendered_with:
            rendered_with[outcome.run_id] = outcome.rendered_with
    folded = Folded(tuple(summaries), tuple(keys), tuple(digests), reused, rendered_with)
    return problems.result(folded)


def finish(prepared: Prepared, folded: Folded) -> Result[Finished[Any]]:
    """Step 6: the runs' summaries, in run order, aggregated into the family's section of the report
    and the benchmark's disclosures; None when the family found a problem."""
    finished = prepared.family.finish(prepared.bench, prepared.state, list(folded.summaries))
    return Result(None, finished.problems) if finished.problems else finished


def _run_view(bench: BenchmarkContext[Any, Any], status: RunStatus, section: Any, site: SiteLook) -> RunView:
    return RunView(id=bench.id, title=bench.declaration.title, disclosures=status, section=section, site=site)


def early_view(prepared: Prepared, options: ScoreOptions) -> Viewed | None:
    """The benchmark's run view before any run is scored, when its family knows it then
    (``Family.prepared_run_status``) and pages are made (not for ``verify``)."""
    early = prepared.family.prepared_run_status(prepared.bench, prepared.state) if options.outputs else None
    if early is None:
        return None
    view = _run_view(prepared.bench, *early, options.site)
    return Viewed(view, view.digest())


def render_pages(shared: Shared, finished: Finished[Any], folded: Folded, options: ScoreOptions) -> int:
    """Step 7: each folded run's pages, rendered with the finished benchmark as its run pages show it
    (or taken from the run cache); how many were rendered. A run whose pages were rendered with this
    same view as it was scored (``Folded.rendered_with``) is not rendered again. None for ``verify``."""
    if not options.outputs:
        return 0
    bench = shared.bench
    status = RunStatus(status=finished.disclosures.status)
    view = _run_view(bench, status, shared.family.run_section(finished.section), options.site)
    viewed = Viewed(view, view.digest())
    jobs = [job for job in folded.keys if folded.rendered_with.get(job[0]) != viewed.digest]
    rendered = len(folded.keys) - len(jobs)
    ledger = shared.ledger
    jobs = [job for job in jobs if not _pages_from_ledger(shared, viewed.digest, job[0])]
    pages = dataclasses.replace(shared, view=viewed, detail_model=finished.section.detail_model())
    for outcome in in_workers(pages, render_one, jobs, options.jobs, shared.min_jobs):
        if outcome.kept:
            shared.details.keep_pages(bench.id, outcome)
        if outcome.stored is not None:
            ledger.note_pages(outcome.run_id, outcome.stored)
        rendered += outcome.rendered
    ledger.write()
    return rendered


def _pages_from_ledger(shared: Shared, view: str, run_id: str) -> bool:
    """Whether the run's pages with ``view`` are the ones the benchmark's ledger names: then they are
    taken from the run cache where it keeps them, as a loaded pages entry's are."""
    found = shared.ledger.pages(run_id, view, shared.cache)
    if found is None:
        return False
    kept = RunPagesOutcome(run_id, False, found.pages, found.located, found)
    shared.details.keep_pages(shared.bench.id, kept)
    shared.ledger.note_pages(run_id, found)
    return True


def benchmark_report(
    prepared: Prepared, finished: Finished[Any], folded: Folded, digests: tuple[tuple[str, str], ...]
) -> BenchmarkReport:
    """Step 8: the benchmark's report: its declaration, its sealed inputs and its family's section."""
    bench, section = prepared.bench, finished.section
    decl = bench.declaration
    rankings = section.rankings()
    return BenchmarkReport(
        id=bench.id,
        title=decl.title,
        description=decl.description,
        family=decl.family,
        rubric_file=bench.rubric_file,
        rubric_sha256=bench.rubric_sha256,
        inputs=tuple(SealedInput(path=path, digest=digest) for path, digest in sorted(digests)),
        run_count=len(folded.summaries),
        disclosures=finished.disclosures,
        section=section,
        rankings=rankings,
        headline=section.headline(rankings),
    )


def _read_and_prepare(
    label: str, layout: BenchmarkLayout, with_reveals: bool, progress: Progress, reads: FolderReads
) -> Result[Prepared]:
    """Steps 1 to 3. When the benchmark itself cannot be read or prepared, every run whose seal does
    not hold is still reported."""
    declared = read_benchmark(label, layout, reads)
    if declared.value is None:
        return Result(None, declared.problems + _verify_runs_only(layout, layout.runs, reads))
    reveal_folder = declared.value.family.reveal_folder
    if reveal_folder in layout.runs:
        progress.advance()  # read below when reveals apply, else deliberately left out
        reads.keep(declared.value.folder)  # the blind version scores these same bytes again
    reveal = read_reveal(layout, declared.value, with_reveals, reads)
    if reveal.problems:
        return Result(None, reveal.problems)
    prepared = prepare(label, layout, declared.value, reveal.value)
    if prepared.value is None:
        runs = (rel for rel in layout.runs if rel != reveal_folder)
        return Result(None, prepared.problems + _verify_runs_only(layout, runs, reads))
    return prepared


def score_benchmark(
    root: Path,
    layout: BenchmarkLayout,
    details: Details,
    with_reveals: bool = True,
    progress: Progress = SILENT,
    options: ScoreOptions | None = None,
) -> BenchmarkScore:
    """Verify, parse and score one benchmark: the steps above, composed. Every step takes and
    returns frozen values; the family's state is the one thing the family's hooks change."""
    options = options or ScoreOptions()
    ready = _read_and_prepare((root / layout.id).as_posix(), layout, with_reveals, progress, options.reads)
    prepared = ready.value
    if prepared is None:
        return BenchmarkScore(None, ready.problems)
    progress.advance(prepared.skipped)
    shared = _shared(layout, prepared, details, options)
    folded = fold_runs(prepared, score_runs(prepared, shared, options), bool(ready.problems), progress)
    problems = ready.problems + folded.problems
    if problems or folded.value is None:
        return BenchmarkScore(None, problems)
    finished = finish(prepared, folded.value)
    if finished.value is None:
        return BenchmarkScore(None, finished.problems)
    rendered = render_pages(shared, finished.value, folded.value, options)
    digests = (*prepared.digests, *folded.value.digests)
    report = benchmark_report(prepared, finished.value, folded.value, digests)
    return BenchmarkScore(
        report, (), digests, folded.value.reused, folded.value.scored, rendered, prepared.has_reveal
    )


def score_inputs(
    root: Path,
    site_version: str | None,
    with_reveals: bool = True,
    progress: Progress = SILENT,
    options: ScoreOptions | None = None,
    revealed: Scored | None = None,
) -> Scored:
    """Read, verify and score everything under ``root``; raise once with every problem found.

    ``with_reveals=False`` scores the inputs as they stood before any reveal: the blind build. Given
    the ``revealed`` build of the same inputs, it takes each benchmark without a reveal folder from
    it (the same bytes, read once: the same report, rows and pages) and scores only the others.
    """
    options = options or ScoreOptions()
    problems = Problems()
    layouts = problems.take(discover(root, options.reads)) or ()
    details = Details()
    lender = revealed if revealed is not None and not with_reveals else None
    progress.start("verifying and scoring runs", sum(len(layout.runs) for layout in layouts))
    try:
        scores = []
        for layout in layouts:
            if lender is not None and layout.id in lender.unrevealed:
                details.borrow(lender.details, layout.id)
                scores.append(lender.unrevealed[layout.id])
                progress.advance(len(layout.runs))
            else:
                scores.append(score_benchmark(root, layout, details, with_reveals, progress, options))
        problems.extend(problem for score in scores for problem in score.problems)
        if problems:
            raise ProblemReport(problems)
    except BaseException:
        details.close()
        raise
    finally:
        progress.finish()
    return _scored(scores, site_version, details)


def _scored(scores: list[BenchmarkScore], site_version: str | None, details: Details) -> Scored:
    """Every benchmark's report in one site report, and what scoring them counted."""
    digests = dict(digest for score in scores for digest in score.digests)
    digest = inputs_digest(digests)
    site = SiteReport(
        generator=f"benchsite {__version__}",
        site_version=site_version or f"sha-{digest[:12]}",
        inputs_digest=digest,
        benchmarks=tuple(score.report for score in scores if score.report is not None),
    )
    return Scored(
        report=site,
        folders=len(digests),
        details=details,
        reused=sum(score.reused for score in scores),
        scored=sum(score.scored for score in scores),
        rendered=sum(score.rendered for score in scores),
        unrevealed={s.report.id: s for s in scores if s.report is not None and not s.has_reveal},
    )

"""Score: verified benchmark folders → one :class:`SiteReport`. Reads inputs, writes nothing."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from generator import __version__
from generator.cache import RunCache, bench_key
from generator.canon import compact_json
from generator.cluster import on_cluster
from generator.errors import OutputError, Problem, ProblemReport
from generator.families.base import BenchmarkContext, RunStatus, RunView
from generator.families.registry import FAMILIES
from generator.inputs import (
    BenchmarkLayout,
    FolderReads,
    VerifiedFolder,
    discover,
    id_problem,
    inputs_digest,
)
from generator.jsonio import load_json_bytes, validate_model
from generator.portable import HELD_LOCKS, open_folder, wait_lock
from generator.progress import SILENT, Progress
from generator.report import BenchmarkReport, SealedInput, SiteReport
from generator.seal import key_of
from generator.siteconfig import SiteLook
from generator.spool import SPOOL_PREFIX, sweep_stale
from generator.workers import Shared, in_workers, render_one, score_one, verified_run

DECLARATION = "benchmark.json"


class Details:
    """Each run's scored rows as canonical JSON, spooled to a private temporary folder."""

    PREFIX = SPOOL_PREFIX

    def __init__(self) -> None:
        self.sweep_stale()
        self.folder, self._held = self._claim()

    @classmethod
    def _claim(cls) -> tuple[Path, int]:
        """A new spool folder, locked (a lock on the folder itself) until ``close``: the lock, not a
        PID, tells a sweep that a build is using it, so it holds across PID namespaces sharing TMPDIR.
        Where folders cannot be locked (``portable.open_folder``), no sweep removes it (-1)."""
        while True:
            folder = Path(tempfile.mkdtemp(prefix=f"{cls.PREFIX}{os.getpid()}-"))
            held = open_folder(folder)
            if held is None:
                return folder, -1
            wait_lock(held)  # waits only while a sweep that got there first deletes it
            if os.fstat(held).st_nlink > 0:
                HELD_LOCKS.add(held)  # a forked worker closes its copy: the lock dies with the build
                return folder, held
            os.close(held)  # swept between mkdtemp and flock: take another

    @classmethod
    def sweep_stale(cls) -> None:
        """Remove the spools no build holds (``spool.sweep_stale``)."""
        sweep_stale(cls.PREFIX)

    def put(self, bench: str, run: str, detail: BaseModel) -> bytes:
        data = compact_json(detail.model_dump(mode="json", by_alias=True)).encode("utf-8")
        self.put_bytes(bench, run, data)
        return data

    def put_bytes(self, bench: str, run: str, data: bytes) -> None:
        self._write(self.folder / bench / "rows" / f"{run}.json", data)

    def get(self, bench: str, run: str) -> bytes:
        return (self.folder / bench / "rows" / f"{run}.json").read_bytes()

    def put_pages(
        self, bench: str, run: str, pages: list[tuple[str, bytes]], located: dict[str, str]
    ) -> None:
        """A run's rendered pages (``page-<n>.html``) and an index of their paths and paged rows."""
        folder = self.folder / bench / "pages" / run
        index = {"paths": [path for path, _ in pages], "located": located}
        self._write(folder / "index.json", compact_json(index).encode("utf-8"))
        for number, (_, data) in enumerate(pages, start=1):
            self._write(folder / f"page-{number}.html", data)

    def run_pages(self, bench: str, run: str) -> tuple[list[tuple[str, bytes]], dict[str, str]]:
        folder = self.folder / bench / "pages" / run
        index = json.loads((folder / "index.json").read_bytes())
        paths = enumerate(index["paths"], start=1)
        return [(path, (folder / f"page-{n}.html").read_bytes()) for n, path in paths], index["located"]

    def _write(self, path: Path, data: bytes) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        except OSError as exc:
            message = f"cannot spool run details: {exc.strerror} (TMPDIR chooses where)"
            raise OutputError(f"{path}: {message}") from None

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        if self._held >= 0:
            HELD_LOCKS.discard(self._held)
            os.close(self._held)
            self._held = -1


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


@dataclass(frozen=True)
class ScoreOptions:
    """How runs are scored: with which cache, by how many processes. Neither changes a figure."""

    cache: RunCache = field(default_factory=lambda: RunCache(None))
    jobs: int = 1
    outputs: bool = True
    """Spool rows and render run pages (False: ``verify``, which only checks and scores)."""
    scheduler: str | None = None
    """A dask.distributed scheduler address: runs are scored by its workers (``generator.cluster``)."""
    counts: Counter[str] = field(default_factory=Counter, compare=False)
    """Runs "reused" from the cache and "scored" so far, and runs whose pages were "rendered"."""
    reads: FolderReads = field(default_factory=FolderReads, compare=False)
    """The sealed folders this build read: each seal once, a revealed benchmark's files once."""
    site: SiteLook = field(default_factory=SiteLook)
    """How the site presents itself on its run pages: never a figure."""


def _declaration(layout: BenchmarkLayout, label: str, files: dict[str, bytes]) -> tuple[Any, list[Problem]]:
    file = f"{label}/{DECLARATION}"
    if DECLARATION not in files:
        return None, [Problem(file, "", "required file is missing")]
    raw, problems = load_json_bytes(files[DECLARATION], file)
    if raw is None:
        return None, problems
    if not isinstance(raw, dict):
        return None, [Problem(file, "$", "must be a JSON object declaring its 'family'")]
    family = raw.get("family")
    if not isinstance(family, str) or family not in FAMILIES:
        known = ", ".join(sorted(FAMILIES))
        return None, [Problem(file, "$.family", f"unknown rubric family {family!r} (known: {known})")]
    return validate_model(FAMILIES[family].declaration_model, raw, file)


def _contract(label: str, decl: Any, files: dict[str, bytes]) -> tuple[Any, str, list[Problem]]:
    family = FAMILIES[decl.family]
    file = f"{label}/{decl.rubric.file}"
    data = files.get(decl.rubric.file)
    if data is None:
        return (
            None,
            "",
            [Problem(file, "", "rubric file named in benchmark.json is not in the sealed folder")],
        )
    digest = hashlib.sha256(data).hexdigest()
    if digest != decl.rubric.sha256:
        pinned = decl.rubric.sha256[:16]
        message = f"rubric does not match its pin in benchmark.json: pinned {pinned}…, found {digest[:16]}…"
        return None, digest, [Problem(file, "", message, refused=True)]
    contract, problems = family.read_contract(data, file)
    return contract, digest, problems


def _run_id_problem(
    layout: BenchmarkLayout, rel: str, run_id: str | None, seen: dict[str, str]
) -> Problem | None:
    """A run id names files and anchors: it must be usable and unique when case is ignored."""
    run_path = layout.run_path(rel)
    if run_id is None:
        return Problem(str(run_path), "", "a sealed folder where this family's layout has no run")
    bad = id_problem("run", run_id, run_path)
    if bad is None and run_id.casefold() in seen:
        message = f"run id collides with {seen[run_id.casefold()]!r} when case is ignored"
        bad = Problem(str(run_path), "", message)
    if bad is None:
        seen[run_id.casefold()] = run_id
    return bad


def _run_folder(
    layout: BenchmarkLayout, rel: str, run_id: str | None, seen: dict[str, str], reads: FolderReads
) -> tuple[VerifiedFolder | None, list[Problem]]:
    """Verify one sealed subfolder of a benchmark, after checking its id."""
    bad = _run_id_problem(layout, rel, run_id, seen)
    return (None, [bad]) if bad is not None else verified_run(layout.run_path(rel), reads)


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


def _verify_runs_only(layout: BenchmarkLayout, runs: list[str], reads: FolderReads) -> list[Problem]:
    """When the benchmark itself cannot be read, still report every run whose seal does not hold."""
    seen: dict[str, str] = {}
    return [
        p
        for rel in runs
        for p in _run_folder(layout, rel, rel.rsplit("/", 1)[-1], seen, reads)[1]
        if p.refused
    ]


def score_benchmark(
    root: Path,
    layout: BenchmarkLayout,
    digests: dict[str, str],
    details: Details,
    with_reveals: bool = True,
    progress: Progress = SILENT,
    options: ScoreOptions | None = None,
) -> tuple[BenchmarkReport | None, list[Problem]]:
    """Verify, parse and score one benchmark; record each sealed folder's digest."""
    options = options or ScoreOptions()
    label = (root / layout.id).as_posix()
    unsealed = _unsealed_subfolders(layout)
    folder, problems = options.reads.verify(layout.path, layout.runs)
    decl, contract, rubric_sha = None, None, ""
    if folder is not None:
        digests[layout.id] = folder.digest
        decl, problems = _declaration(layout, label, dict(folder.files))
    if decl is not None and folder is not None:
        contract, rubric_sha, problems = _contract(label, decl, dict(folder.files))
    if folder is None or decl is None or contract is None or unsealed:
        return None, unsealed + problems + _verify_runs_only(layout, list(layout.runs), options.reads)
    family = FAMILIES[decl.family]
    seen: dict[str, str] = {}
    runs = [r for r in layout.runs if r != family.reveal_folder]
    jobs_at_once = options.jobs
    if family.reveal_folder in layout.runs:
        progress.advance()  # read below when reveals apply, else deliberately left out
        options.reads.keep(folder)  # the blind version scores these same bytes again
        jobs_at_once = 1  # runs verified in this process, so the blind version does not read them again
    reveal = None
    if family.reveal_folder in layout.runs and with_reveals:
        reveal_folder = family.reveal_folder
        reveal, problems = _run_folder(layout, reveal_folder, reveal_folder, seen, options.reads)
        if reveal is None:
            return None, problems
        digests[f"{layout.id}/{family.reveal_folder}"] = reveal.digest
    bench = BenchmarkContext(layout.id, label, folder, decl, contract, decl.rubric.file, rubric_sha, reveal)
    state, problems = family.prepare(bench)
    if state is None:  # the benchmark cannot be scored at all (e.g. no scoring specification)
        return None, problems + _verify_runs_only(layout, runs, options.reads)
    jobs = []
    for rel in runs:
        run_id = family.run_id(rel)
        bad = _run_id_problem(layout, rel, run_id, seen)
        if bad is not None or run_id is None:
            problems += [bad] if bad is not None else []
            progress.advance()
        else:
            jobs.append((rel, run_id))
    cache_bench = bench_key(layout.id, folder.digest, reveal.digest if reveal else None)
    shared = Shared(
        layout,
        bench,
        family,
        state,
        details,
        options.cache,
        cache_bench,
        options.outputs,
        reads=options.reads,
    )
    results: list[Any] = []
    keys: list[tuple[str, str]] = []
    in_process = jobs_at_once == 1 and options.jobs > 1  # a reveal keeps this benchmark's reads here
    outcomes = (
        on_cluster(shared, jobs, options.scheduler)
        if options.scheduler and not in_process
        else in_workers(shared, score_one, jobs, jobs_at_once)
    )
    for outcome in outcomes:
        progress.advance()
        problems += outcome.problems
        if outcome.digest is not None:
            digests[f"{layout.id}/{outcome.rel}"] = outcome.digest
        if outcome.part is None or problems:
            continue
        problems += family.fold(bench, state, outcome.run_id, outcome.part)
        results.append(outcome.summary)
        keys.append((outcome.run_id, outcome.key))
        options.counts["reused" if outcome.reused else "scored"] += 1
    if problems:
        return None, problems
    section, disclosures, problems = family.finish(bench, state, results)
    if problems:
        return None, problems
    if options.outputs:
        status = RunStatus(status=disclosures.status)
        view = RunView(
            id=layout.id,
            title=decl.title,
            disclosures=status,
            section=family.run_section(section),
            site=options.site,
        )
        pages = dataclasses.replace(shared, view=view, detail_model=section.detail_model())
        options.counts["rendered"] += sum(in_workers(pages, render_one, keys, options.jobs))
    inputs = tuple(
        SealedInput(path=p, digest=d)
        for p, d in sorted(digests.items())
        if p == layout.id or p.startswith(layout.id + "/")
    )
    rankings = section.rankings()
    return BenchmarkReport(
        id=layout.id,
        title=decl.title,
        description=decl.description,
        family=decl.family,
        rubric_file=decl.rubric.file,
        rubric_sha256=rubric_sha,
        inputs=inputs,
        run_count=len(results),
        disclosures=disclosures,
        section=section,
        rankings=rankings,
        headline=section.headline(rankings),
    ), []


def score_inputs(
    root: Path,
    site_version: str | None,
    with_reveals: bool = True,
    progress: Progress = SILENT,
    options: ScoreOptions | None = None,
) -> Scored:
    """Read, verify and score everything under ``root``; raise once with every problem found.

    ``with_reveals=False`` scores the inputs as they stood before any reveal: the blind build.
    """
    options = options or ScoreOptions()
    layouts, problems = discover(root)
    digests: dict[str, str] = {}
    benchmarks = []
    details = Details()
    progress.start("verifying and scoring runs", sum(len(layout.runs) for layout in layouts))
    try:
        for layout in layouts:
            report, more = score_benchmark(root, layout, digests, details, with_reveals, progress, options)
            problems += more
            if report is not None:
                benchmarks.append(report)
        if problems:
            raise ProblemReport(problems)
    except BaseException:
        details.close()
        raise
    finally:
        progress.finish()
    digest = inputs_digest(digests)
    site = SiteReport(
        generator=f"benchsite {__version__}",
        site_version=site_version or f"sha-{digest[:12]}",
        inputs_digest=digest,
        benchmarks=tuple(benchmarks),
    )
    return Scored(
        report=site,
        folders=len(digests),
        details=details,
        reused=options.counts["reused"],
        scored=options.counts["scored"],
        rendered=options.counts["rendered"],
    )

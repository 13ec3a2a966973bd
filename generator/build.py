"""The pipeline: load → verify → score → render → write. The CLI calls these and nothing else."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import itertools
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from generator.canon import canonical_json
from generator.errors import InvalidContent, OutputError, VersionConflict
from generator.inputs.discover import SAFE_ID, FolderReads
from generator.inputs.identity import generator_digest, seals_digest
from generator.inputs.outputs import BUILD_RECORD
from generator.inputs.siteconfig import SiteLook
from generator.progress import SILENT, Progress
from generator.publish.write import (
    IndexRecord,
    Published,
    SiteWriter,
    Staging,
    check_output,
    check_published,
    cited_versions,
    earlier_versions,
    replace_export,
)
from generator.score.spool import sweep_stale
from generator.score.statrecords import FolderRecord, LedgerRecords, StatStore
from generator.score.userkey import trusted_key

if TYPE_CHECKING:
    from generator.report.history import EarlierVersion, History
    from generator.report.model import SiteReport
    from generator.score.run import Scored, ScoreOptions

# The stages that parse, score and render (pydantic, Jinja2, scipy, Markdown) are imported where a
# build needs them, after the no-op check: an unchanged site is verified with the standard library.


def _default_options() -> ScoreOptions:
    from generator.score.run import ScoreOptions

    return ScoreOptions()


def _rendering(config: BuildConfig) -> BuildConfig:
    """``config`` whose scoring renders each run's pages with the render stage's ``render_run``:
    the build composes the stages, so the score stage imports no renderer."""
    from generator.render.pages import render_run

    return dataclasses.replace(config, options=dataclasses.replace(config.options, pages=render_run))


@dataclass(frozen=True)
class BuildConfig:
    runs: Path
    out: Path
    site_version: str | None = None
    options: ScoreOptions = field(default_factory=_default_options)
    """Run cache and worker count: how runs are scored, never what a figure is."""


@dataclass(frozen=True)
class BuildResult:
    scored: Scored | None
    """None for a no-op that parsed nothing (the version exists from the same inputs and generator)."""
    published: Published
    files: dict[str, int]
    """Files written per kind (file name suffix)."""
    size: int
    """Bytes of the published version."""
    seconds: dict[str, float]
    """Wall time per stage: score, render, publish."""
    blind: Published | None = None
    """The earlier blind version a reveal applies to, when this build had to publish it."""


RESERVED_SUFFIXES = (".html", ".json", ".md", ".css", ".js", ".lock", ".txt", ".xml")


def check_version(version: str | None) -> None:
    """A version names a folder beside site-level files: it may not look like one of them."""
    if version is None:
        return
    if not SAFE_ID.match(version):
        allowed = "letters, digits, '.', '_', '-' (it names a folder)"
        raise OutputError(f"--site-version {version!r}: use {allowed}")
    if version.lower().endswith(RESERVED_SUFFIXES) or version.lower() in (
        "data",
        "assets",
        "index",
        "badges",
    ):
        raise OutputError(f"--site-version {version!r}: reserved for site-level files; choose another name")


def _citations(report: SiteReport) -> dict[str, tuple[str, str]]:
    """Benchmark id → (earlier version, frozen scores sha256) for every reveal in the report."""
    found = {b.id: b.section.reveal_citation() for b in report.benchmarks}
    return {bench: citation for bench, citation in found.items() if citation is not None}


def _frozen_version(config: BuildConfig, scored: Scored, writer: SiteWriter) -> tuple[str, Staging] | None:
    """The blind version the reveals apply to: checked if published, else rebuilt blind and staged.

    The blind version is the same inputs without any reveal folder, so it can always be
    reproduced; a reveal is accepted only when that version's frozen scores file has the
    digest the reveal cites. A rebuild takes from ``scored`` (this build's) every benchmark without a
    reveal folder, and scores only the others again.
    """
    report = scored.report
    citations = _citations(report)
    versions = {version for version, _ in citations.values()}
    if not versions:
        return None
    if len(versions) > 1 or report.site_version in versions:
        raise InvalidContent(
            f"reveals must all apply to one earlier version, not {sorted(versions)} "
            f"(this version is {report.site_version!r})"
        )
    (version,) = versions
    try:
        check_version(version)
    except OutputError as exc:
        raise InvalidContent(f"a reveal cites version {version!r}: {exc.message}") from None
    existing = config.out / version
    staged: tuple[str, Staging] | None = None
    from generator.publish.blind_scan import folder_files
    from generator.render.pages import render_site
    from generator.report.history import site_history
    from generator.score.run import score_inputs

    options = dataclasses.replace(config.options, locks=writer.locks)  # workers close the site lock
    if existing.exists():
        _scan_blind(folder_files(existing, f"{version}/"), report, options, version, existing)

        def frozen(bench: str) -> bytes | None:
            path = existing / "data" / "scores" / f"{bench}.json"
            return path.read_bytes() if path.is_file() else None

    else:
        _scan_site_look(config.options.site, report, version)
        blind = score_inputs(config.runs, version, with_reveals=False, options=options, revealed=scored)
        try:
            stage = writer.stage()
            earlier = earlier_versions(config.out, version, past=writer.past)
            history = site_history(blind.report, earlier)
            render_site(
                blind.report,
                blind.details,
                stage,
                look=config.options.site,
                history=history,
                inputs=config.runs,
            )
            stage.settle(options.jobs, options.locks)
            _remember(writer, version, stage, blind.report, earlier, history)
        finally:
            blind.details.close()
        staged = (version, stage)
        scanned = [(rel, (stage.folder / rel).read_bytes) for rel in sorted(stage.paths)]
        _scan_blind(scanned, report, options, version)

        def frozen(bench: str) -> bytes | None:
            return stage.read(f"data/scores/{bench}.json")

    for bench, (_, digest) in sorted(citations.items()):
        data = frozen(bench)
        found = "no scores file" if data is None else hashlib.sha256(data).hexdigest()[:16] + "…"
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            raise InvalidContent(
                f"{config.runs / bench}/reveal: cites frozen scores {digest[:16]}… of version "
                f"{version!r}, but that version has {found}: a reveal applies only to frozen scores"
            )
    return staged


def _remember(
    writer: SiteWriter,
    version: str,
    stage: Staging,
    report: SiteReport,
    earlier: list[EarlierVersion],
    history: History,
) -> None:
    """What publishing derives from a version this build just rendered, taken from its report in
    memory rather than read back from the staged site.json (``past.Past.remember``)."""
    if writer.past is not None:
        previous = (earlier[-1].version, earlier[-1].folder) if earlier and earlier[-1].folder else None
        writer.past.remember(version, stage.folder, report, previous, history.changes)


def _revealed_names(report: SiteReport) -> set[str]:
    return {name for b in report.benchmarks for name in b.section.revealed_names()}


_LOOK_TEXTS = (
    ("name", "--site-name (or name in benchsite.toml [site])"),
    ("description", "--description (or description in benchsite.toml [site])"),
)
_SVG_LOGO = "data:image/svg+xml;base64,"


def _scan_site_look(look: SiteLook, report: SiteReport, version: str) -> None:
    """The site's own texts go on every page of a blind version this build renders: one that shows a
    revealed name to a reader (``blind_scan.text_shows``) is refused naming its flag, before the
    version is rendered, rather than the first page the scan of its files would meet."""
    from generator.publish.blind_scan import html_text, text_shows

    names = _revealed_names(report)
    texts = [(flag, getattr(look, key)) for key, flag in _LOOK_TEXTS]
    if look.logo is not None and look.logo.startswith(_SVG_LOGO):  # text drawn inside the logo
        svg = base64.b64decode(look.logo.removeprefix(_SVG_LOGO)).decode("utf-8", "replace")
        texts.append(("--logo (or logo in benchsite.toml [site])", html_text(svg)))
    for flag, text in texts:
        found = text_shows(text, names)
        if found is not None:
            raise InvalidContent(
                f"{flag}: every page of the blind version {version} would show a revealed provider "
                f"name ({found}); the site's look must not name a provider before its reveal"
            )


def _scan_blind(
    files: list[tuple[str, Callable[[], bytes]]],
    report: SiteReport,
    options: ScoreOptions,
    version: str,
    published: Path | None = None,
) -> None:
    """Every revealed name must be absent from every byte, every rendered text and every file name
    of the blind version (``blind_scan``), whether this build rebuilt it or ``--out`` holds it
    (``published``, its folder).

    The run cache keeps that a version's files showed none of these names (``cache.scan_key``: the
    names, the generator and every file's path in the version and sha256, read and hashed on the
    build's workers, or for a published version taken from its stat record where that vouches a
    file: ``_sha256s_of``): the same files are not scanned again. The key leaves out the
    build record, which a version gets when it is published, after this scan of its staged files;
    it is scanned always.
    """
    from generator.publish.blind_scan import find_revealed
    from generator.score.cache import scan_key

    cache, workers, locks = options.cache, options.jobs, options.locks
    names = _revealed_names(report)
    local = [(rel.removeprefix(f"{version}/"), rel, read) for rel, read in files]
    record = [(rel, read) for path, rel, read in local if path == BUILD_RECORD]
    pages = sorted(
        ((path, read) for path, _, read in local if path != BUILD_RECORD), key=lambda page: page[0]
    )
    hashed = _sha256s_of(pages, published, options)
    key = scan_key(names, zip((path for path, _ in pages), hashed, strict=True))
    clean = cache.scanned_clean(key)
    found = find_revealed(record, names) if clean else _find_revealed_in_workers(files, names, workers, locks)
    if found is not None:
        rel, name = found
        raise InvalidContent(
            f"{rel}: the blind version would contain a revealed provider name "
            f"({name}); blind inputs must not name providers"
        )
    if not clean:
        cache.store_scan(key)


SCAN_PART_FILES = 16
"""The fewest files of a part of a blind scan (``_find_revealed_in_workers``): a version with fewer
than two parts' worth is scanned in the build's own process."""


def _sha256s(files: list[tuple[str, Callable[[], bytes]]]) -> list[str]:
    return [hashlib.sha256(read()).hexdigest() for _, read in files]


def _sha256s_of(
    pages: list[tuple[str, Callable[[], bytes]]], published: Path | None, options: ScoreOptions
) -> list[str]:
    """The sha256 of each of ``pages`` (paths relative to the version), in order, hashed on the
    build's workers; for a published version (``published``) beside a trusted run cache, a file its
    stat record vouches is the file last found with a sha256 (``FolderRecord.sha256_of``) is not read,
    and the files hashed are recorded with the rest (the stamp read before any is examined), so the
    next build hashes none. An edit since moved a file's ctime: it is hashed, and a changed file
    changes the key (scanned again). Without a cache, every file is hashed."""
    cache = options.cache
    if published is None or cache.folder is None or not cache.mac_key:
        return _hashed_in_workers(pages, options.jobs, options.locks)
    records = StatStore(cache.folder, cache.mac_key)
    stamp = records.stamp()
    known = records.load(published)
    recorded = [None if known is None else _recorded_sha256(known, published, path) for path, _ in pages]
    rest = [page for page, sha256 in zip(pages, recorded, strict=True) if sha256 is None]
    fresh = iter(_hashed_in_workers(rest, options.jobs, options.locks))
    found = [next(fresh) if sha256 is None else sha256 for sha256 in recorded]
    if rest:
        records.remember(published, dict(zip((path for path, _ in pages), found, strict=True)), stamp)
    return found


def _recorded_sha256(known: FolderRecord, folder: Path, rel: str) -> str | None:
    """The sha256 the stat record ``known`` vouches for the file ``rel`` of ``folder``, as ``lstat``
    finds it now; None: hash it."""
    try:
        return known.sha256_of(rel, os.lstat(folder / rel))
    except OSError:
        return None


def _hashed_in_workers(
    files: list[tuple[str, Callable[[], bytes]]], workers: int, locks: tuple[int, ...]
) -> list[str]:
    """The sha256 of each of ``files``, in order, read and hashed in contiguous parts by up to
    ``workers`` processes (a published version of 10,000 runs of 100 rows holds 1.9 GB)."""
    from generator.score.pool import in_parts

    return list(itertools.chain.from_iterable(in_parts(_sha256s, files, workers, locks)))


def _find_revealed_in_workers(
    files: list[tuple[str, Callable[[], bytes]]], names: set[str], workers: int, locks: tuple[int, ...]
) -> tuple[str, str] | None:
    """``blind_scan.find_revealed`` of ``files``, in contiguous parts scanned by up to ``workers``
    processes: the same answer, the first file in the order given that shows a name, since the
    parts come back in order."""
    from generator.publish.blind_scan import find_revealed
    from generator.score.pool import in_parts

    scan = partial(find_revealed, names=frozenset(names))
    with contextlib.closing(in_parts(scan, files, workers, locks, SCAN_PART_FILES)) as found:
        return next((hit for hit in found if hit is not None), None)


def unchanged(
    runs: Path,
    out: Path,
    site_version: str | None,
    index: IndexRecord | None = None,
    reads: FolderReads | None = None,
    look: SiteLook | None = None,
) -> BuildResult | None:
    """The no-op rebuild: the version these inputs name exists, built from the same sealed folders by
    this same generator. Every input file is still checked against its seal and every published
    file against the sha256 the version's build record lists (a changed one is refused, exit 5):
    hashed, or a stat record vouches it is the file last hashed (``_inputs_digest``,
    ``check_published``); no input is parsed, nothing is scored or rendered, and the site-level
    files are rendered again only when
    the signed note of them (``index``) does not hold. Anything else (a problem, another digest, a
    version whose record lists no hashes) takes the full path, which says why or compares every byte.
    Only the seals are read until the recorded digest matches them: a build that is not a no-op reads
    each file once, in the full path. Standard library only (filelock aside, for the site lock):
    nothing heavier is imported here."""
    started = time.monotonic()
    check_version(site_version)
    check_output(out, runs)
    sweep_stale()  # a killed build's spool goes even when this build turns out a no-op
    reads = reads or FolderReads()
    digest = seals_digest(runs, reads, files=False)
    if digest is None:
        return None
    target = out / (site_version or f"sha-{digest[:12]}")
    try:
        raw = (target / BUILD_RECORD).read_bytes()
        record = json.loads(raw)
        files = record["files"]
        built_by, current = str(record["generator_digest"]), generator_digest()
        same = record["inputs_digest"] == digest and (
            built_by == current or (index is not None and index.reproduced(target, raw, current))
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not same or not isinstance(files, dict) or not files or _inputs_digest(runs, reads, index) != digest:
        return None
    with SiteWriter(out, index_pages, index, look or SiteLook()) as writer:
        records = StatStore(index.folder, index.key) if index is not None else None
        sizes = check_published(target, files, raw, _expected_record(target, files, built_by), records)
        writer.refresh(target.name, cited_versions(target))
    kinds = Counter(PurePosixPath(rel).suffix or "(none)" for rel in sizes)
    seconds = {"verify seals": time.monotonic() - started}
    return BuildResult(None, Published(target, created=False), dict(kinds), sum(sizes.values()), seconds)


def _inputs_digest(runs: Path, reads: FolderReads, index: IndexRecord | None) -> str | None:
    """``seals_digest`` with every file checked against its seal: hashed, but where a stat record
    kept beside the run cache (under the key of ``index``, the trusted cache's) vouches that the
    folder's files are the ones last found as sealed (``statrecords``). No cache: all hashed."""
    if index is None:
        return seals_digest(runs, reads)
    records = StatStore(index.folder, index.key)
    ledgers = LedgerRecords(records, runs)

    def vouched(path: Path, nested: tuple[str, ...]) -> bool:
        return ledgers.vouches(path, nested, reads) or records.vouches(path, nested, reads) is not None

    return seals_digest(runs, reads, vouched=vouched)


def index_pages(versions: list[dict[str, Any]], latest: str | None, look: SiteLook) -> dict[str, bytes]:
    """The site-level pages, rendered for the writer (``write.IndexPages``); the renderer is imported
    only when they are rendered (a no-op rebuild whose signed note holds renders none)."""
    from generator.render.pages import render_index

    return render_index(versions, latest, look)


def index_record(cache_folder: Path | None) -> IndexRecord | None:
    """The signed note of the site-level files, kept beside the run cache under its key (None when
    there is no trusted cache: the site-level files are then always rendered)."""
    if cache_folder is None:
        return None
    key, _ = trusted_key(cache_folder)
    return None if key is None else IndexRecord(cache_folder, key)


def _index_of(options: ScoreOptions) -> IndexRecord | None:
    cache = options.cache
    return IndexRecord(cache.folder, cache.mac_key) if cache.folder is not None and cache.mac_key else None


def _reading_once(config: BuildConfig) -> BuildConfig:
    """The config with fresh folder reads: one build reads each input once, and no build sees another's."""
    return dataclasses.replace(config, options=dataclasses.replace(config.options, reads=FolderReads()))


def _record_published(options: ScoreOptions, published: Iterable[tuple[Published, Staging]]) -> None:
    """Stat records of each version this build published (``statrecords``, beside a trusted run
    cache): every file it placed, with the sha256 its build record lists, when ``lstat`` finds it as
    it was once placed (``Staging.written``), the ones changed within the record's own second left
    out (the racy-git rule). The next no-op, and the next build's settle, check those by their stat
    rather than hashing the version again (at 1M rows, 1.9 GB); they hash the rest (and record them).
    A written file's bytes are the build's own, written into a staging folder only its user can write
    to; a linked file is another version's inode too, which an edit there reaches, so it is recorded
    only when the link was still the inode just hashed or compared with its size and modification
    time (a write moves the modification time; only a deliberate ``utime`` sets it back, and that
    moves the change time after the link, which the record then does not match). A file changed
    since shows another ctime or inode, which only root can set back. Best effort."""
    cache = options.cache
    if cache.folder is None or not cache.mac_key:
        return
    records = StatStore(cache.folder, cache.mac_key)
    stamp = records.stamp()
    for version, stage in published:
        if not version.created:
            continue
        try:
            files = json.loads((version.path / BUILD_RECORD).read_bytes())["files"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if isinstance(files, dict):
            records.remember(version.path, files, stamp, stage.written)


def _note_reproduced(index: IndexRecord | None, published: tuple[Published, ...]) -> None:
    """Each version this build found published already and rebuilt byte for byte, noted for this
    generator (``IndexRecord.keep_reproduced``): after an upgrade that renders the same bytes, the
    next rebuild is a no-op again rather than this full path each time."""
    if index is None:
        return
    current = generator_digest()
    for version in published:
        if not version.created:
            index.keep_reproduced(version.path, current)


def _expected_record(target: Path, files: dict[str, str], built_by: str) -> bytes:
    """The build record the version's own ``data/site.json`` yields, as ``render.build_record`` writes
    it (a test holds the two equal) by the generator ``built_by``; empty when that cannot be read:
    then the record cannot be it."""
    try:
        report = json.loads((target / "data" / "site.json").read_bytes())
        fields = {
            "schema_version": 1,
            "site_version": report["site_version"],
            "generator": report["generator"],
            "generator_digest": built_by,
            "inputs_digest": report["inputs_digest"],
            "benchmarks": [
                {
                    "id": b["id"],
                    "title": b["title"],
                    "family": b["family"],
                    "status": b["disclosures"]["status"],
                    "headline": b["headline"]["sentence"],
                }
                for b in report["benchmarks"]
            ],
            "files": dict(sorted(files.items())),
        }
    except (OSError, ValueError, KeyError, TypeError):
        return b""
    return canonical_json(fields).encode("utf-8")


def verify(runs: Path, options: ScoreOptions | None = None) -> Scored:
    """Check every seal and every file's content; write nothing. A run in the run cache (same seal,
    benchmark and generator) is hashed against its seal, not parsed again."""
    from generator.score.run import ScoreOptions, score_inputs

    options = dataclasses.replace(options or ScoreOptions(), outputs=False, reads=FolderReads())
    scored = score_inputs(runs, None, options=options)
    scored.details.close()
    return scored


def build(config: BuildConfig, progress: Progress = SILENT, checked: bool = False) -> BuildResult:
    """Read and verify everything, compute one report, render it, publish one version.

    When a reveal applies to an earlier blind version that this site does not hold yet, that
    version is rebuilt from the same inputs without the reveal and published first.
    """
    index = _index_of(config.options)
    if not checked:  # ``checked``: the caller tried ``unchanged`` with these options' reads
        config = _reading_once(config)
        options = config.options
        same = unchanged(config.runs, config.out, config.site_version, index, options.reads, options.site)
        if same is not None:
            return same
    from generator.figures import statproc

    statproc.start()  # scipy imported on another core while the runs are read and scored
    try:
        return _full_build(config, progress, index)
    finally:
        statproc.stop()


def _full_build(config: BuildConfig, progress: Progress, index: IndexRecord | None) -> BuildResult:
    """The build that reads, scores, renders and publishes (``build``, once the no-op check failed)."""
    from generator.publish.past import Past
    from generator.render.pages import keep_compiled_templates, render_site
    from generator.report.history import site_history
    from generator.score.run import score_inputs

    keep_compiled_templates(config.options.cache)
    config = _rendering(config)
    clock = [time.monotonic()]
    scored = score_inputs(config.runs, config.site_version, progress=progress, options=config.options)
    clock.append(time.monotonic())
    try:
        version = scored.report.site_version
        past = Past(config.options.cache)
        with SiteWriter(config.out, index_pages, index, config.options.site, past) as writer:
            blind = _frozen_version(config, scored, writer)
            reveals = tuple({v for v, _ in _citations(scored.report).values()})
            staged = (blind[0], blind[1].folder) if blind else None
            earlier = earlier_versions(config.out, version, staged, reveals, writer.past)
            stage = writer.stage()
            history = site_history(scored.report, earlier)
            render_site(
                scored.report,
                scored.details,
                stage,
                progress,
                config.options.site,
                history,
                inputs=config.runs,
            )
            stage.settle(config.options.jobs, writer.locks)
            _remember(writer, version, stage, scored.report, earlier, history)
            writer.precheck(version, stage)
            clock.append(time.monotonic())
            files = Counter(PurePosixPath(p).suffix or "(none)" for p in stage.paths)
            size = sum((stage.folder / p).stat().st_size for p in stage.paths)
            cited = () if blind else tuple({v for v, _ in _citations(scored.report).values()})
            *before, published = writer.publish_all([*([blind] if blind else []), (version, stage)], cited)
            blind_published = before[0] if before else None
            _note_reproduced(index, (published, *before))
            stages = (*((blind[1],) if blind else ()), stage)  # in the order publish_all took them
            _record_published(config.options, zip((*before, published), stages, strict=True))
            clock.append(time.monotonic())
    finally:
        scored.details.close()
    seconds = dict(
        zip(("score", "render", "publish"), (b - a for a, b in itertools.pairwise(clock)), strict=True)
    )
    return BuildResult(scored, published, dict(files), size, seconds, blind=blind_published)


@dataclass(frozen=True)
class ExportResult:
    scored: Scored
    files: list[str]
    seconds: float


def export_mkdocs(config: BuildConfig, prefix: str | None, progress: Progress = SILENT) -> ExportResult:
    """Markdown pages and a ``nav.yml`` for an existing mkdocs site, written into ``config.out`` whole."""
    check_version(config.site_version)
    check_output(config.out, config.runs)
    from generator.render.mkdocs_export import render_mkdocs
    from generator.render.pages import keep_compiled_templates
    from generator.score.run import score_inputs

    keep_compiled_templates(config.options.cache)
    config = _rendering(_reading_once(config))
    started = time.monotonic()
    scored = score_inputs(config.runs, config.site_version, progress=progress, options=config.options)
    try:
        files = replace_export(
            config.out,
            lambda stage: render_mkdocs(
                scored.report, scored.details, stage, prefix or config.out.name, config.runs
            ),
        )
    finally:
        scored.details.close()
    return ExportResult(scored, files, time.monotonic() - started)


@dataclass(frozen=True)
class Rederived:
    """A published version found equal, file for file, to its re-derivation."""

    version: Path
    files: int
    """Files of the version, each compared byte for byte."""


def rederive(runs: Path, site: Path, version: str | None, options: ScoreOptions) -> Rederived:
    """The auditor's check (``publish.rederive``): ``site``'s version ``version`` (the latest when
    None) built again from ``runs`` with no run cache, on this machine, in a temporary folder holding
    a copy of the versions published before it, and compared file by file: VersionConflict (exit 5)
    naming every file that differs, or saying the version was built from other inputs."""
    import tempfile

    from generator.publish.rederive import (
        copy_earlier,
        derived_by,
        differences,
        files_of,
        published_order,
        verdict,
    )
    from generator.score.cache import RunCache

    order, version = published_order(site, version)
    built = derived_by(runs, site, order, version)
    options = dataclasses.replace(options, cache=RunCache(None), scheduler=None)
    with tempfile.TemporaryDirectory(prefix="benchsite-rederive-") as temporary:
        again = Path(temporary) / "site"
        copy_earlier(site, again, order[: order.index(version)])
        build(BuildConfig(runs=runs, out=again, site_version=built, options=options))
        found = differences(site / version, again / version)
    if found:
        raise VersionConflict("\n".join([*found, verdict(site / version, runs, len(found))]))
    return Rederived(site / version, sum(1 for _ in files_of(site / version)))

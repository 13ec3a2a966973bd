"""A benchmark's ledger: one signed file of the run cache that says, for every run of one benchmark as
the last build left it, what scoring it needs again, so that a rebuild which changed one run of
10,000 reads one file for the benchmark, not a stat record, a run entry and a pages entry per run
(and the 83 KB of rows each entry names, hashed) on worker processes.

Kept as ``<cache>/ledgers-v1/<key[:2]>/<key>.json``, keyed by the benchmark folder's absolute path
(``statrecords.ledger_file``: the no-op check reads its runs' stat records there), and naming what
every run of it is scored with (``cache.bench_key``: its seal's digest and its reveal's): a ledger
read for other ones is empty. For each run:

- its id, its seal's digest and its run cache key (which names the generator, the benchmark and the
  reveal: a ledger of another generator or benchmark folder never matches);
- the stat record of its input files (``statrecords``: stamp, and per file its stat and sha256);
- its summary and aggregate share, as the run entry keeps them;
- where the run cache keeps its rows, and its pages as rendered with one benchmark view: each file's
  sha256, size and stat once written or checked.

A run is taken from the ledger (:meth:`Ledger.reuse`) only when its seal (read by the build already)
has the recorded digest, its record vouches for its files exactly as a stat record does
(``FolderRecord.vouches``: every file listed and no other, each unchanged by its stat, the racy rule
applied), the key computed now is the recorded one, and the run cache's rows file is the one recorded
(same stat). Its pages are taken when the view is the same and every page file is as recorded.
Anything else sends the run the full way (its own stat record, run entry and hashing), as before.

Trust: the ledger is signed like every entry (``score.signed``, the user's key), written by the
build's own process from what its workers hashed, checked or wrote. A cache file it names is read
only where the version needs its bytes, and checked against its sha256 then (``cache.Kept.read``); its
stat only spares the early check a run entry's load makes. Decoded by msgspec with unknown fields
refused; a ledger that fails anything is ignored (and replaced by the build's own).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from generator.inputs.discover import FolderReads
from generator.score.cache import Kept, RunCache
from generator.score.signed import signed_body, write_signed
from generator.score.statrecords import (
    CLOCK_SLACK_NS,
    LEDGER_FORMAT,
    FolderRecord,
    ledger_file,
    racy,
    stat_of,
)
from generator.score.userkey import Untrusted, read_owned

FORMAT = LEDGER_FORMAT


class FileLine(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A file of the run cache: the sha256 and size of its bytes, its stat once written or checked."""

    sha256: str
    size: int
    stat: tuple[int, int, int, int, int]


class PageLine(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    path: str
    """Where the page goes in a version."""
    file: FileLine


class PagesLine(msgspec.Struct, forbid_unknown_fields=True):
    """A run's pages as rendered with one benchmark view (its digest), kept in the run cache."""

    view: str
    located: dict[str, str]
    pages: list[PageLine]


class RunLine(msgspec.Struct, forbid_unknown_fields=True):
    id: str
    digest: str
    key: str
    stamp: int
    inputs: dict[str, tuple[int, int, int, int, int, str]]
    """The run folder's stat record (``statrecords``): per file, its stat and sha256."""
    rows: FileLine
    summary: msgspec.Raw
    part: msgspec.Raw
    pages: PagesLine | None = None


class LedgerFile(msgspec.Struct, forbid_unknown_fields=True):
    format: str
    folder: str
    bench: str
    family: str
    runs: dict[str, RunLine]


_DECODER = msgspec.json.Decoder(LedgerFile)
_ENCODER = msgspec.json.Encoder()


@dataclass(frozen=True)
class Reused:
    """A run the ledger vouches for: what scoring it yielded, and where its rows are kept."""

    digest: str
    key: str
    summary: Any
    part: Any
    rows: Kept
    inputs: FolderRecord


@dataclass(frozen=True)
class _Noted:
    """What the ledger keeps of a run this build scored or reused: its summary and share as JSON
    (the line's as read when the run is the same, else its models' now), never the models: a
    components share of 10 KB of JSON is many times that as objects, for each of 2,000 runs."""

    digest: str
    key: str
    rows: Kept
    inputs: FolderRecord
    summary: msgspec.Raw
    part: msgspec.Raw


@dataclass(frozen=True)
class PagesKept:
    """A run's pages kept in the run cache with the view (digest) they were rendered with."""

    view: str
    located: dict[str, str]
    pages: tuple[tuple[str, Kept], ...]


class Ledger:
    """One benchmark's ledger as read (empty: none, or one that failed), and what this build noted of
    each run it scored or reused (:meth:`note`, :meth:`note_pages`), written once every run's pages
    are known (:meth:`write`)."""

    def __init__(
        self,
        path: Path | None,
        key: bytes,
        folder: Path,
        bench: str,
        family: str,
        stamp: Callable[[], int] = lambda: time.time_ns() - CLOCK_SLACK_NS,
    ) -> None:
        self._path, self._key, self._stamp = path, key, stamp
        self._header = (FORMAT, str(folder.absolute()), bench, family)
        self.runs: dict[str, RunLine] = {}
        self._noted: dict[str, tuple[str, _Noted]] = {}
        """Run id → (its sealed subfolder, what scoring or reusing it yielded), in this build."""
        self._pages: dict[str, PagesKept] = {}

    @classmethod
    def none(cls) -> Ledger:
        """No ledger: nothing is taken from one or kept (``verify``, ``--no-cache``)."""
        return cls(None, b"", Path(), "", "")

    @classmethod
    def open(cls, cache: RunCache, folder: Path, bench: str, family: str, stamp: Callable[[], int]) -> Ledger:
        """The ledger of the benchmark in ``folder`` scored with ``bench`` (``cache.bench_key``), as
        the run cache keeps it; none without a cache. ``stamp``: the moment a file's stat is judged
        racy against (``StatStore.stamp``)."""
        if cache.folder is None or not cache.mac_key:
            return cls.none()
        ledger = cls(ledger_file(cache.folder, folder), cache.mac_key, folder, bench, family, stamp)
        ledger.runs = ledger._read()
        return ledger

    def _read(self) -> dict[str, RunLine]:
        assert self._path is not None
        try:
            body = signed_body(self._key, read_owned(self._path))
            if body is None:
                return {}
            found = _DECODER.decode(body)
        except (OSError, Untrusted, msgspec.DecodeError):
            return {}
        if (found.format, found.folder, found.bench, found.family) != self._header:
            return {}
        return found.runs

    def reuse(
        self,
        rel: str,
        run_id: str,
        run_path: Path,
        reads: FolderReads,
        cache: RunCache,
        models: tuple[type[Any], type[Any]],
    ) -> Reused | None:
        """The run as the ledger keeps it, when it vouches for it (see the module); else None."""
        line = self.runs.get(rel)
        if line is None or line.id != run_id or reads.nested(run_path):
            return None
        seal = reads.seal(run_path).value
        if seal is None or seal.digest != line.digest:
            return None
        record = FolderRecord.listed(line.stamp, line.inputs)
        if not record.vouches(seal, ()) or cache.key(self._header[2], rel, line.digest) != line.key:
            return None
        rows = _kept(cache.rows_file(line.key), line.rows)
        if rows is None:
            return None
        try:
            summary = models[0].model_validate_json(bytes(line.summary))
            part = models[1].model_validate_json(bytes(line.part))
        except ValueError:
            return None
        return Reused(line.digest, line.key, summary, part, rows, record)

    def pages(self, run_id: str, view: str, cache: RunCache) -> PagesKept | None:
        """The pages of a run noted in this build as kept with ``view``, when the ledger names them
        for the same run and every page file is the one it names; else None."""
        noted = self._noted.get(run_id)
        line = self.runs.get(noted[0]) if noted is not None else None
        if noted is None or line is None or line.key != noted[1].key:
            return None
        if line.id != run_id or line.pages is None or line.pages.view != view:
            return None
        pages_key = cache.pages_key(line.key, view)
        kept = []
        for number, page in enumerate(line.pages.pages, start=1):
            file = _kept(cache.page_file(pages_key, number), page.file)
            if file is None:
                return None
            kept.append((page.path, file))
        return PagesKept(view, line.pages.located, tuple(kept))

    def note(self, rel: str, run_id: str, reused: Reused) -> None:
        """A run this build scored or reused, clean."""
        old = self.runs.get(rel)
        if old is not None and old.key == reused.key:
            summary, part = old.summary, old.part  # the same run scored alike: its JSON as read
        else:
            summary, part = _raw(reused.summary, True), _raw(reused.part, False)
        noted = _Noted(reused.digest, reused.key, reused.rows, reused.inputs, summary, part)
        self._noted[run_id] = (rel, noted)

    def note_pages(self, run_id: str, pages: PagesKept) -> None:
        """The pages of a run as the run cache keeps them (the last noted are the version's)."""
        self._pages[run_id] = pages

    def write(self) -> None:
        """The ledger as this build leaves it, when a run's line changed or a run is gone, written
        line by line (best effort)."""
        if self._path is None:
            return
        noted = [
            (rel, run_id, reused, self._pages.get(run_id)) for run_id, (rel, reused) in self._noted.items()
        ]
        if {rel for rel, *_ in noted} == self.runs.keys() and all(
            self._same(rel, reused, pages) for rel, _, reused, pages in noted
        ):
            return
        try:
            for level in (self._path.parent.parent.parent, self._path.parent.parent, self._path.parent):
                level.mkdir(mode=0o700, exist_ok=True)
            write_signed(self._path, self._key, self._pieces(noted, self._stamp()))
        except OSError:
            return

    def _pieces(self, noted: list[tuple[str, str, _Noted, PagesKept | None]], stamp: int) -> Iterator[bytes]:
        """The ledger's JSON object in pieces (``LedgerFile``'s fields in order, a line a piece)."""
        encode = _ENCODER.encode
        head = zip(("format", "folder", "bench", "family"), self._header, strict=True)
        yield b"{" + b",".join(encode(name) + b":" + encode(value) for name, value in head) + b',"runs":{'
        comma = b""
        for rel, run_id, reused, pages in noted:
            line = self._line(rel, run_id, reused, pages, stamp)
            if line is not None:
                yield comma + encode(rel) + b":" + encode(line)
                comma = b","
        yield b"}}"

    def _same(self, rel: str, reused: _Noted, pages: PagesKept | None) -> bool:
        """Whether the line read for the run is this build's: the same key, input record, rows file
        and pages."""
        old = self.runs.get(rel)
        return (
            old is not None
            and (old.key, old.stamp, old.rows.stat) == (reused.key, reused.inputs.stamp, reused.rows.stat)
            and _same_pages(old.pages, pages)
        )

    def _line(
        self, rel: str, run_id: str, reused: _Noted, pages: PagesKept | None, stamp: int
    ) -> RunLine | None:
        """This build's line for a run: the one read when nothing about the run changed, else made
        anew (the cache files' stats as taken when written or checked, each still so and not racy
        against ``stamp``; a run whose rows file is not, is left out)."""
        summary, part = reused.summary, reused.part
        old = self.runs.get(rel)
        if old is not None and self._same(rel, reused, pages):
            return old
        rows = _file_line(reused.rows, stamp)
        if rows is None:
            return None
        files = [(path, _file_line(kept, stamp)) for path, kept in pages.pages] if pages is not None else []
        pages_line = (
            PagesLine(pages.view, pages.located, [PageLine(path, file) for path, file in files if file])
            if pages is not None and all(file is not None for _, file in files)
            else None
        )
        inputs = {name: (*known[0], known[1]) for name, known in reused.inputs.files.items()}
        return RunLine(
            run_id, reused.digest, reused.key, reused.inputs.stamp, inputs, rows, summary, part, pages_line
        )


def _kept(file: Path, line: FileLine) -> Kept | None:
    """The cache file as a ``Kept`` when ``lstat`` finds it as the ledger names it."""
    try:
        info = stat_of(os.lstat(file))
    except OSError:
        return None
    return Kept(file, line.sha256, line.size, info) if info == line.stat else None


def _file_line(kept: Kept, stamp: int) -> FileLine | None:
    """A cache file's line: its stat as taken when its bytes were written or checked, when ``lstat``
    still finds it so and it is not racy against ``stamp``; else None."""
    if kept.stat is None or racy(kept.stat, stamp):
        return None
    try:
        now = stat_of(os.lstat(kept.file))
    except OSError:
        return None
    return FileLine(kept.sha256, kept.size, now) if now == kept.stat else None


def _same_pages(old: PagesLine | None, new: PagesKept | None) -> bool:
    if old is None or new is None:
        return old is None and new is None
    return old.view == new.view and [page.file.stat for page in old.pages] == [
        kept.stat for _, kept in new.pages
    ]


def _raw(model: Any, by_alias: bool) -> msgspec.Raw:
    """A summary or share as JSON, as the run entry spells it (``cache.RunCache.store``)."""
    return msgspec.Raw(model.__pydantic_serializer__.to_json(model, by_alias=by_alias))

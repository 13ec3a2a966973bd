"""The run cache: what scoring and rendering a run yielded, kept by content, so a rebuild redoes only
what changed.

A **run entry** is keyed by sha256 over the run's seal digest, its path in the benchmark, the
benchmark folder's seal digest (declaration, contract, plan…), the reveal's, and the generator's
own digest (code, templates, schemas). A **pages entry** is keyed by the run entry's key and the
digest of the benchmark view its pages were rendered with (``RunView``: title, status and the few
benchmark-wide facts a run template shows), so a run page is rendered again exactly when its run,
its benchmark's view or the generator changed. No modification time enters a key: a run is looked
up only after every one of its files was hashed against its seal.

Entries are data (JSON, no pickle), but for compiled templates (below)::

    <cache>/runs-v1/<key[:2]>/<key>.json             summary and aggregate share: validated on read
    <cache>/runs-v1/<key[:2]>/<key>.detail.json      the scored rows, checked by size and sha256
    <cache>/pages-v1/<key[:2]>/<key>.json            page paths and digests, rows of a paged run
    <cache>/pages-v1/<key[:2]>/<key>.page-<n>.html   each page, checked by size and sha256
    <cache>/scans-v1/<key[:2]>/<key>.json            a blind version scanned clean of some names
    <cache>/templates-v1/<key[:2]>/<key>.json        a compiled template: its blob's sha256, signed
    <cache>/templates-v1/<key[:2]>/<key>.blob        Jinja2's bytecode of that template
    <cache>/past-v1/<key[:2]>/<key>.json             what a published version's site.json yields
    <cache>/past-v1/<key[:2]>/<key>.blob             (``past.Past``): signed like a template entry

A **scan entry** records that the blind scan (``blind_scan``) found none of a set of revealed names
in a published blind version: keyed by sha256 over the names, the generator's digest and every
file of that version (path and sha256), so a later build that finds the same bytes (hashed again,
every time) skips scanning them again; one changed byte, name or generator misses.

An entry that does not parse, validate, name its own key, carry its own MAC or match its files is
deleted and its work done again; it is never trusted.

A **template entry** keeps Jinja2's compiled form of one template (``render.SignedBytecode``), so a
new process does not compile the templates again. It is the one entry that holds code (marshalled
Python bytecode), so it is loaded only when its MAC under the user's key holds: only the user's own
builds can have written it, as for every entry; one the key does not sign is deleted, never loaded.

A build that reuses a run does not copy its rows and pages to its spool: the worker that loaded the
entry returns where they are kept (:class:`Kept`), and the version's writer reads them from there,
checked again against the sha256 the entry named (a file changed in between stops the build, exit 2).

**Trust.** Each entry carries an HMAC-SHA256 over its fields (which name its files' sha256), as its
file spells them and checked before they are parsed, under a
per-user secret key kept outside the cache (``$BENCHSITE_CACHE_KEY``, else
``cache-key`` in the user's configuration folder: ``userkey.default_key_file``; 32 random bytes
as hex, created 0600 on first use). An entry forged or copied from another key's cache fails its MAC
and is redone. As ssh does with its files, a cache folder not owned by the user or writable by
others, one below a folder others may write to (without the sticky bit), and a key file not the
user's own or readable by others are not used: the build warns, naming the folder and the reason,
and runs without the cache; so does a key in a folder others may write to. An entry or file not
owned by the user or writable by others is redone. The cache is still the user's: an auditor
re-derives every figure with ``--no-cache``.

Only runs that scored without a problem are kept. Writing is best effort (a full or read-only disk
costs the cache, never the build) and atomic (a temporary file renamed into place, the entry
last), so concurrent builds can share a cache. Deleting the folder is always safe: it costs one
full build.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from generator.canon import compact_json
from generator.errors import OutputError
from generator.figures.model import Model
from generator.inputs.identity import generator_digest
from generator.score.signed import signed, signed_body, write_atomic
from generator.score.statrecords import Stat, stat_of
from generator.score.userkey import Untrusted, read_owned, trusted_key

FORMAT = "benchsite-run-cache/3"


def open_cache(folder: Path | None, key_file: Path | None = None) -> tuple[RunCache, str | None]:
    """The run cache in ``folder`` under the user's key, or no cache and a warning saying why."""
    if folder is None:
        return RunCache(None), None
    key, reason = trusted_key(folder, key_file)
    if key is None:
        return RunCache(None), f"{folder}: not used as the run cache: {reason}; every run is scored"
    return RunCache(folder, key), None


class FileRef(Model):
    path: str
    sha256: str
    size: int


class RunEntry(Model):
    format: str
    key: str
    family: str
    summary: dict[str, Any]
    part: dict[str, Any]
    detail: FileRef
    mac: str
    """HMAC-SHA256 under the user's key over every other field, as the entry file spells them
    (``score.signed``): a changed, forged or foreign entry fails."""


class PagesEntry(Model):
    format: str
    key: str
    pages: tuple[FileRef, ...]
    located: dict[str, str]
    mac: str


class ScanEntry(Model):
    format: str
    key: str
    clean: Literal[True]
    mac: str


class BlobEntry(Model):
    format: str
    key: str
    blob: FileRef
    mac: str


"""An entry file begins with its MAC (64 hex digits), the first key of its JSON object; the MAC is
over the object the rest of the file spells with ``{`` before it: the entry's other fields as
``compact_json`` wrote them. The file stays one JSON object."""


def scan_key(names: Iterable[str], files: Iterable[tuple[str, str]]) -> str:
    """The scan entry's key for these revealed ``names`` over these files (path, sha256 of its
    bytes, hashed now), in order."""
    digest = hashlib.sha256(f"{FORMAT}\nscan\n{generator_digest()}\n".encode())
    digest.update(compact_json(sorted(set(names))).encode("utf-8"))
    for rel, sha256 in files:
        digest.update(f"\n{rel}\n{sha256}".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Kept:
    """A file of the cache whose bytes were checked against its entry's sha256 when the entry was
    loaded: a build that reuses an entry reads its rows and pages from here when it writes them out,
    rather than copying them to its spool (checked again then: ``read``)."""

    file: Path
    sha256: str
    size: int
    stat: Stat | None = field(default=None, compare=False)
    """The file as ``lstat`` found it when its bytes were written or checked (None: not taken): a
    benchmark's ledger (``score.ledger``) keeps it, so the next build finds the file by its stat."""

    def read(self) -> bytes:
        """The bytes, still as the entry names them; else :class:`errors.OutputError` naming the file."""
        try:
            data = read_owned(self.file)
        except (OSError, Untrusted) as exc:
            raise OutputError(f"{self.file}: {_reason(exc)}; {CHANGED_DURING_BUILD}") from None
        if len(data) != self.size or hashlib.sha256(data).hexdigest() != self.sha256:
            with contextlib.suppress(OSError):
                self.file.unlink()  # never trusted again: the next build misses and does the work anew
            raise OutputError(
                f"{self.file}: no longer holds the bytes it was loaded with; {CHANGED_DURING_BUILD}"
            )
        return data


CHANGED_DURING_BUILD = "the run cache changed during the build (build again, or with --no-cache)"


def _reason(exc: OSError | Untrusted) -> str:
    return exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc)


@dataclass(frozen=True)
class RunHit:
    summary: BaseModel
    part: BaseModel
    detail: bytes
    kept: Kept | None = field(default=None, compare=False)
    """Where the rows are kept in the cache (None when they were not read: ``rows=False``)."""


@dataclass(frozen=True)
class Pages:
    """One run's rendered pages (path, bytes) and, for a paged run, the page of every row id."""

    pages: list[tuple[str, bytes]]
    located: dict[str, str]
    kept: tuple[Kept, ...] = field(default=(), compare=False)
    """Where each page is kept in the cache, in order (empty for pages just rendered): where they
    are, not what they are, so not compared."""


def bench_key(bench: str, bench_digest: str, reveal_digest: str | None) -> str:
    """What every run of one benchmark shares: its folder's seal and its reveal's (if read)."""
    return f"{bench}\n{bench_digest}\n{reveal_digest or '-'}"


def _ref(path: str, data: bytes) -> dict[str, Any]:
    return {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def _matches(data: bytes, ref: FileRef) -> bool:
    return len(data) == ref.size and hashlib.sha256(data).hexdigest() == ref.sha256


class RunCache:
    """A folder of entries; ``RunCache(None)`` is no cache (every lookup misses, nothing is kept)."""

    def __init__(self, folder: Path | None, key: bytes = b"") -> None:
        """``key``: the user's secret (``user_key``); required with a folder."""
        if folder is not None and len(key) < 16:
            raise ValueError("a run cache needs the user's key")
        self.folder = folder
        self._key = key

    @property
    def mac_key(self) -> bytes:
        """The per-user key entries are signed with (empty without a cache)."""
        return self._key

    def _signed(self, fields: dict[str, Any]) -> bytes:
        """An entry's bytes: its fields as compact JSON, with their MAC written first (``signed``)."""
        return signed(self._key, compact_json(fields).encode("utf-8"))

    def _verified(self, raw: bytes) -> bytes:
        """An entry's bytes, once the MAC written first holds over the bytes that follow it: the
        entry is checked as it was written, before it is parsed, with no spelling of it made again.
        ValueError when it does not hold."""
        if signed_body(self._key, raw) is None:
            raise ValueError("entry does not carry its own MAC")
        return raw

    def key(self, bench: str, rel: str, run_digest: str, generator: str | None = None) -> str:
        """A run entry's key; ``generator``: the digest of the generator that scored the run (a dask
        worker's, which the client checks equals its own), by default this process's."""
        text = f"{FORMAT}\n{generator or generator_digest()}\n{bench}\n{rel}\n{run_digest}\n"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    @staticmethod
    def pages_key(run_key: str, view_digest: str) -> str:
        return hashlib.sha256(f"{FORMAT}\npages\n{run_key}\n{view_digest}\n".encode()).hexdigest()

    def _entry(self, kind: str, key: str) -> Path:
        assert self.folder is not None
        return self.folder / f"{kind}-v1" / key[:2] / f"{key}.json"

    def _file(self, kind: str, key: str, name: str) -> Path:
        assert self.folder is not None
        return Path(f"{self.folder}/{kind}-v1/{key[:2]}/{key}.{name}")  # one Path, not four joins

    def rows_file(self, key: str) -> Path:
        """Where the run entry under ``key`` keeps its rows."""
        return self._file("runs", key, "detail.json")

    def page_file(self, key: str, number: int) -> Path:
        """Where the pages entry under ``key`` keeps its page ``number`` (from 1)."""
        return self._file("pages", key, f"page-{number}.html")

    def _raw(self, kind: str, key: str) -> bytes | None:
        """An entry's bytes; None without a cache or without that entry (a miss, nothing to discard)."""
        if self.folder is None:
            return None
        try:
            return read_owned(self._entry(kind, key))
        except Untrusted:
            self.discard(kind, key)
            return None
        except OSError:
            return None

    def load(
        self,
        key: str,
        family: str,
        summary_model: type[BaseModel],
        part_model: type[BaseModel],
        rows: bool = True,
    ) -> RunHit | None:
        """The run entry under ``key``, validated whole; None (and the entry deleted) if anything is
        off. ``rows=False`` (``verify``: summary and share only) leaves the rows file unread."""
        raw = self._raw("runs", key)
        if raw is None:
            return None
        try:
            entry = RunEntry.model_validate_json(self._verified(raw))
            rows_file = self.rows_file(key)
            info = stat_of(os.lstat(rows_file)) if rows else None
            detail = read_owned(rows_file) if rows else b""
            if (entry.format, entry.key, entry.family) != (FORMAT, key, family) or (
                rows and not _matches(detail, entry.detail)
            ):
                raise ValueError("entry does not match its key, its digest or its rows")
            summary, part = summary_model.model_validate(entry.summary), part_model.model_validate(entry.part)
            kept = Kept(rows_file, entry.detail.sha256, entry.detail.size, info) if rows else None
            return RunHit(summary, part, detail, kept)
        except (OSError, ValueError, ValidationError, Untrusted):
            self.discard("runs", key)
            return None

    def has_pages(self, key: str) -> bool:
        """Whether a pages entry is kept under ``key``; unchecked (``load_pages`` checks it)."""
        return self.folder is not None and self._entry("pages", key).exists()

    def load_pages(self, key: str) -> Pages | None:
        """The pages entry under ``key`` with every page checked; None (and deleted) if anything is off."""
        raw = self._raw("pages", key)
        if raw is None:
            return None
        try:
            entry = PagesEntry.model_validate_json(self._verified(raw))
            files = [self.page_file(key, n) for n in range(1, len(entry.pages) + 1)]
            found = [stat_of(os.lstat(file)) for file in files]
            pages = [(ref.path, read_owned(file)) for ref, file in zip(entry.pages, files, strict=True)]
            if (entry.format, entry.key) != (FORMAT, key) or not all(
                _matches(data, ref) for (_, data), ref in zip(pages, entry.pages, strict=True)
            ):
                raise ValueError("entry does not match its key, its digest or its pages")
            kept = tuple(
                Kept(file, ref.sha256, ref.size, info)
                for file, ref, info in zip(files, entry.pages, found, strict=True)
            )
            return Pages(pages, entry.located, kept)
        except (OSError, ValueError, ValidationError, Untrusted):
            self.discard("pages", key)
            return None

    def scanned_clean(self, key: str) -> bool:
        """True when a scan entry under ``key`` (``scan_key``) is intact and signed with this key."""
        raw = self._raw("scans", key)
        if raw is None:
            return False
        try:
            entry = ScanEntry.model_validate_json(self._verified(raw))
            if (entry.format, entry.key) != (FORMAT, key):
                raise ValueError("entry does not match its key")
            return True
        except (ValueError, ValidationError):
            self.discard("scans", key)
            return False

    def store_scan(self, key: str) -> None:
        """Keep that the files of ``key`` showed none of its names."""
        self._keep("scans", key, {"format": FORMAT, "key": key, "clean": True}, [])

    def load_blob(self, kind: str, key: str) -> bytes | None:
        """The bytes a blob entry under ``key`` keeps, checked against its signed sha256; None (and the
        entry deleted) if anything is off."""
        raw = self._raw(kind, key)
        if raw is None:
            return None
        try:
            entry = BlobEntry.model_validate_json(self._verified(raw))
            data = read_owned(self._file(kind, key, "blob"))
            if (entry.format, entry.key) != (FORMAT, key) or not _matches(data, entry.blob):
                raise ValueError("entry does not match its key, its MAC or its blob")
            return data
        except (OSError, ValueError, ValidationError, Untrusted):
            self.discard(kind, key)
            return None

    def store_blob(self, kind: str, key: str, data: bytes) -> None:
        """Keep ``data`` under ``key``, signed like every entry."""
        ref = _ref("blob", data)
        self._keep(kind, key, {"format": FORMAT, "key": key, "blob": ref}, [("blob", data, ref["sha256"])])

    def discard(self, kind: str, key: str) -> None:
        entry = self._entry(kind, key)
        files = list(entry.parent.glob(f"{key}.*")) if entry.parent.is_dir() else []
        for path in files:
            with contextlib.suppress(OSError):
                path.unlink()

    def store(self, key: str, family: str, summary: BaseModel, part: BaseModel, detail: bytes) -> Kept | None:
        """Keep one scored run: its summary, its share of the aggregates and its rows; where its rows
        are kept (None: nothing was kept)."""
        fields: dict[str, Any] = {
            "format": FORMAT,
            "key": key,
            "family": family,
            "detail": (ref := _ref("detail.json", detail)),
            "summary": summary.model_dump(mode="json", by_alias=True),
            "part": part.model_dump(mode="json"),
        }
        written = self._keep("runs", key, fields, [("detail.json", detail, ref["sha256"])])
        return written[0] if written else None

    def store_pages(self, key: str, pages: Pages) -> tuple[Kept, ...]:
        """Keep one run's pages as rendered with one benchmark view; where each is kept (none when
        they were not)."""
        refs = [_ref(path, data) for path, data in pages.pages]
        files = [
            (f"page-{n}.html", data, ref["sha256"])
            for n, ((_, data), ref) in enumerate(zip(pages.pages, refs, strict=True), start=1)
        ]
        fields: dict[str, Any] = {"format": FORMAT, "key": key, "located": pages.located, "pages": refs}
        return tuple(self._keep("pages", key, fields, files))

    def _keep(
        self, kind: str, key: str, fields: dict[str, Any], files: list[tuple[str, bytes, str]]
    ) -> list[Kept]:
        """Best effort; each file atomically, the entry last, so an entry never names a missing file.
        Each file as kept, its stat taken once written (none when nothing was kept)."""
        if self.folder is None:
            return []
        entry = self._entry(kind, key)
        kept: list[Kept] = []
        try:
            for folder in (self.folder, entry.parent.parent, entry.parent):
                folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            for name, data, sha256 in files:
                file = self._file(kind, key, name)
                write_atomic(file, data)
                kept.append(Kept(file, sha256, len(data), stat_of(os.lstat(file))))
            write_atomic(entry, self._signed(fields))
        except OSError:
            self.discard(kind, key)
            return []
        return kept

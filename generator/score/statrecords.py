"""Stat records: what a sealed folder's files looked like to the file system when they were last
hashed, so that a later build that finds them the same takes their sha256 from the record rather
than reading and hashing the bytes again (as git's index does).

A record is kept for one folder, in the user's run cache (``<cache>/stats-v1/<key[:2]>/<key>.json``,
keyed by the folder's absolute path), and signed like every cache entry: an HMAC-SHA256 under the
user's key, written first and checked over the bytes that follow before they are parsed. It lists,
for each file, ``(device, inode, size, mtime_ns, ctime_ns, sha256)``, and the moment (``stamp``)
taken *before* the folder's files were examined and hashed.

A file is taken as unchanged when all five stat fields match and neither its mtime nor its ctime
falls in the stamp's second or after it (the racy-git rule: a file changed in the same clock tick as
it was examined may keep the same times with other bytes). Anything else is hashed again. Why this
keeps the promise "sealed inputs only" is in docs/architecture.md ("Stat records"). The stat records
a benchmark's ledger keeps of its run folders (``score.ledger``) are read here too, for the no-op
check (``LedgerRecords``, with msgspec imported when a ledger is first read). Standard library
otherwise: the no-op rebuild may use it without importing the cache's models.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, cast

from generator.inputs.discover import FolderReads
from generator.inputs.seal import SEAL_NAME, SealedFolder, check_coverage, key_of, native
from generator.score.signed import signed, signed_body, write_atomic
from generator.score.userkey import Untrusted, read_owned

FORMAT = "benchsite-stat-records/1"

CLOCK_SLACK_NS = 100_000_000
"""Taken off the stamp: the file system stamps a change with a coarse clock (a kernel tick behind
the clock this process reads), so a change made just after the stamp is read may carry a time just
before it; 0.1 s covers any tick."""

SECOND_NS = 1_000_000_000

Stat = tuple[int, int, int, int, int]
"""(device, inode, size, mtime_ns, ctime_ns) of a regular file."""


def _name(folder: Path) -> str:
    """The folder a record is for: its absolute path (links in it are not resolved: the files'
    device and inode say which files they are)."""
    return str(folder.absolute())


def stat_of(info: os.stat_result) -> Stat:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def racy(info: Stat, stamp: int) -> bool:
    """Whether a file's mtime or ctime falls in the stamp's second or later: it may have changed
    within the tick it was examined in, so its times prove nothing."""
    return max(info[3], info[4]) >= stamp - stamp % SECOND_NS


@dataclass(frozen=True)
class FolderRecord:
    """One folder's record as read back, its MAC checked: each file's stat and sha256."""

    stamp: int
    files: Mapping[str, tuple[Stat, str]]

    @classmethod
    def listed(cls, stamp: int, files: Mapping[str, Sequence[int | str]]) -> FolderRecord:
        """A record from its files as a record file or a ledger lists them: each file's five stat
        fields, then its sha256."""
        return cls(
            stamp, {rel: (cast(Stat, tuple(known[:5])), str(known[5])) for rel, known in files.items()}
        )

    def unchanged(self, rel: str, info: os.stat_result, sha256: str) -> bool:
        """Whether the file at ``rel``, as ``lstat`` found it now, is the file hashed to ``sha256``."""
        return self.sha256_of(rel, info) == sha256

    def sha256_of(self, rel: str, info: os.stat_result) -> str | None:
        """The sha256 recorded for the file at ``rel`` when ``lstat`` found it now (``info``) a regular
        file exactly as recorded and not racy; None: hash it (``build._scan_blind`` and
        ``Staging.settle``, which have no other sha256 to hold it to)."""
        known = self.files.get(rel)
        if known is None or not stat.S_ISREG(info.st_mode):
            return None
        now = stat_of(info)
        return known[1] if now == known[0] and not racy(now, self.stamp) else None

    def vouches(self, seal: SealedFolder, nested: tuple[str, ...]) -> bool:
        """Whether the sealed folder is as this record says it was when last hashed: every file its
        ``seal`` lists there and nothing else outside the ``nested`` sealed folders
        (``check_coverage``), and each listed file, by its stat, the file last found to have the
        sha256 the seal lists (:meth:`unchanged`). No file but the seal is read."""
        found = None if nested else _flat_listing(seal.path)
        if found is not None:  # a folder without subfolders: its listing is every file's lstat
            return found.keys() == seal.entries.keys() and all(
                self.unchanged(rel, found[rel], sha256) for rel, sha256 in seal.entries.items()
            )
        if check_coverage(seal, set(nested)):
            return False
        for rel, sha256 in seal.entries.items():
            try:
                info = os.lstat(seal.path / native(rel))
            except OSError:
                return False
            if not self.unchanged(rel, info, sha256):
                return False
        return True


def _flat_listing(folder: Path) -> dict[str, os.stat_result] | None:
    """The ``lstat`` of every entry of ``folder`` but its seal, by name, when it holds no subfolder,
    its seal is a regular file and every name is UTF-8; else None (``check_coverage`` walks it and
    says what is wrong). What it finds is what ``check_coverage`` would: a name the seal does not list,
    or a listed file missing, is a different set of names, and a link or special file fails
    ``FolderRecord.unchanged``."""
    found: dict[str, os.stat_result] = {}
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(info.st_mode) or key_of(entry.name) != entry.name:
                    return None
                found[entry.name] = info
    except OSError:
        return None
    seal = found.pop(SEAL_NAME, None)
    return found if seal is not None and stat.S_ISREG(seal.st_mode) else None


@dataclass(frozen=True)
class StatStore:
    """The stat records kept in a run cache folder under the user's key; ``folder`` None: none are
    kept or trusted (``--no-cache``, ``verify``: every file is hashed)."""

    folder: Path | None
    key: bytes = field(default=b"", repr=False)
    clock: Callable[[], int] = time.time_ns
    """The clock a stamp is read from (a seam for tests)."""

    def stamp(self) -> int:
        """The moment to record, read before the files are examined (less :data:`CLOCK_SLACK_NS`)."""
        return self.clock() - CLOCK_SLACK_NS

    def _path(self, folder: Path) -> Path | None:
        if self.folder is None or len(self.key) < 16:
            return None
        name = os.fsencode(_name(folder))
        key = hashlib.sha256(FORMAT.encode() + b"\n" + name).hexdigest()
        return self.folder / "stats-v1" / key[:2] / f"{key}.json"

    def load(self, folder: Path) -> FolderRecord | None:
        """The record of ``folder`` when there is one, the user's own, its MAC holds and it names
        this folder; else None (a record that fails is deleted)."""
        path = self._path(folder)
        if path is None:
            return None
        try:
            raw = read_owned(path)
        except (OSError, Untrusted):
            return None
        record = self._parsed(raw, folder)
        if record is None:
            with contextlib.suppress(OSError):
                path.unlink()
        return record

    def _parsed(self, raw: bytes, folder: Path) -> FolderRecord | None:
        body = signed_body(self.key, raw)
        if body is None:
            return None
        try:
            fields = json.loads(body)
            if fields["format"] != FORMAT or fields["folder"] != _name(folder):
                return None
            return FolderRecord.listed(int(fields["stamp"]), fields["files"])
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None

    def vouches(self, folder: Path, nested: tuple[str, ...], reads: FolderReads) -> str | None:
        """The folder's seal digest when it is as its record says it was when last hashed: every file
        listed and nothing else outside the ``nested`` sealed folders (``check_coverage``), and each
        listed file, by its stat, the file last found to have the sha256 its seal lists
        (``FolderRecord.unchanged``). No file but the seal is read. None: anything else (hash it)."""
        vouched = self.vouching(folder, nested, reads)
        return None if vouched is None else vouched[0]

    def vouching(
        self, folder: Path, nested: tuple[str, ...], reads: FolderReads
    ) -> tuple[str, FolderRecord] | None:
        """:meth:`vouches`, with the record that vouched."""
        record = self.load(folder)
        seal = reads.seal(folder).value if record is not None else None
        if record is None or seal is None or not record.vouches(seal, nested):
            return None
        return seal.digest, record

    def remember(
        self,
        folder: Path,
        entries: Mapping[str, str],
        stamp: int,
        expected: Callable[[str], Stat | None] | None = None,
    ) -> FolderRecord:
        """Record each of ``entries`` (relative path → the sha256 its bytes were just found to have,
        hashed after ``stamp`` was read) as ``lstat`` finds it now, leaving out any file racy against
        ``stamp`` (it is hashed again next time). With ``expected`` (the files' bytes were written,
        not hashed: ``build._record_published``), a file is recorded only when it is still as it was
        once written (its stat then, or None: not recorded). Best effort: a cache that cannot be
        written costs the records, never the build. Returns the record as kept (a benchmark's ledger
        keeps it too: ``score.ledger``)."""
        path = self._path(folder)
        if path is None:
            return FolderRecord(stamp, {})
        files: dict[str, list[int | str]] = {}
        recorded: dict[str, tuple[Stat, str]] = {}
        for rel, sha256 in entries.items():
            try:
                info = os.lstat(folder / native(rel))
            except OSError:
                continue
            now = stat_of(info)
            if expected is not None and expected(rel) != now:
                continue
            if stat.S_ISREG(info.st_mode) and not racy(now, stamp):
                files[rel] = [*now, sha256]
                recorded[rel] = (now, sha256)
        if files:
            self._write(path, folder, files, stamp)
        return FolderRecord(stamp, recorded)

    def _write(self, path: Path, folder: Path, files: dict[str, list[int | str]], stamp: int) -> None:
        fields = {
            "files": files,
            "folder": _name(folder),
            "format": FORMAT,
            "stamp": stamp,
        }
        body = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode("utf-8")
        with contextlib.suppress(OSError):
            for level in (path.parent.parent.parent, path.parent.parent, path.parent):
                level.mkdir(mode=0o700, exist_ok=True)
            write_atomic(path, signed(self.key, body))


LEDGER_FORMAT = "benchsite-ledger/1"


def ledger_file(cache: Path, folder: Path) -> Path:
    """Where the run cache ``cache`` keeps the ledger of the benchmark in ``folder`` (``score.ledger``),
    by its absolute path."""
    key = hashlib.sha256(f"{LEDGER_FORMAT}\n{folder.absolute()}\n".encode()).hexdigest()
    return cache / "ledgers-v1" / key[:2] / f"{key}.json"


@cache
def _inputs_decoder() -> Any:
    """A decoder of a ledger's run lines that keeps what they say of the runs' files and skips the
    rest (msgspec, imported when a no-op first reads a ledger: about 20 ms of its start-up)."""
    import msgspec

    files = dict[str, tuple[int, int, int, int, int, str]]
    run = msgspec.defstruct("RunInputs", [("digest", str), ("stamp", int), ("inputs", files)])
    ledger = msgspec.defstruct("LedgerInputs", [("format", str), ("folder", str), ("runs", dict[str, run])])  # type: ignore[valid-type]
    return msgspec.json.Decoder(ledger)


@dataclass
class LedgerRecords:
    """The stat records of run folders that their benchmarks' ledgers keep, for the no-op check
    (``build._inputs_digest``): one read, MAC check and decode a benchmark (of the run lines' input
    records only), rather than a stat record file a run folder."""

    store: StatStore
    root: Path
    """The inputs root: a run folder's benchmark is its first folder below it."""
    _read: dict[Path, Mapping[str, Any]] = field(default_factory=dict)

    def vouches(self, folder: Path, nested: tuple[str, ...], reads: FolderReads) -> bool:
        """Whether its benchmark's ledger vouches for the run folder as ``FolderRecord.vouches`` does,
        for the seal it has now (the recorded digest)."""
        try:
            parts = folder.relative_to(self.root).parts
        except ValueError:
            return False
        if len(parts) < 2 or nested:
            return False
        line = self._runs(self.root / parts[0]).get("/".join(parts[1:]))
        seal = reads.seal(folder).value if line is not None else None
        if line is None or seal is None or seal.digest != line.digest:
            return False
        return FolderRecord.listed(line.stamp, line.inputs).vouches(seal, ())

    def _runs(self, bench: Path) -> Mapping[str, Any]:
        if bench not in self._read:
            self._read[bench] = self._load(bench)
        return self._read[bench]

    def _load(self, bench: Path) -> Mapping[str, Any]:
        if self.store.folder is None or len(self.store.key) < 16:
            return {}
        try:
            body = signed_body(self.store.key, read_owned(ledger_file(self.store.folder, bench)))
            found = _inputs_decoder().decode(body) if body is not None else None
        except (OSError, Untrusted, ValueError):  # msgspec's DecodeError is a ValueError
            return {}
        if found is None or found.format != LEDGER_FORMAT or found.folder != str(bench.absolute()):
            return {}
        runs: Mapping[str, Any] = found.runs
        return runs

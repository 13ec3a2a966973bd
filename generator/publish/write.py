"""Write: the only stage that touches the output. Versions are immutable and published atomically.

A version is rendered into a temporary folder beside the site folder (never inside it: the folder
holds only what is deployed) and published with one ``rename``; ``site/index.html`` and
``site/versions.json`` are then replaced atomically. A build that fails at any point leaves the
previous site as it was. A lock beside the site folder keeps two builds apart.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import itertools
import json
import os
import shutil
import stat
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.canon import canonical_json
from generator.errors import InvalidContent, OutputError, VersionConflict
from generator.inputs.files import ReadFailure, Stored, read_regular
from generator.inputs.outputs import BUILD_RECORD, VERSIONS, published_version_around
from generator.inputs.portable import BINARY, CLOEXEC, NOFOLLOW, NONBLOCK, try_lock
from generator.inputs.siteconfig import SiteLook
from generator.score.pool import in_parts
from generator.score.statrecords import CLOCK_SLACK_NS, FolderRecord, Stat, StatStore, racy, stat_of

if TYPE_CHECKING:
    from generator.publish.past import Past
    from generator.report.changes import VersionChanges
    from generator.report.history import EarlierVersion

TEMP_PREFIX = ".benchsite-tmp-"
PUBLISHED_MODE = 0o444
"""Every file of a published version is read-only: an editor or a script refuses to write one in
place (which would change every version that shares it as a hard link), root aside. Its folders stay
writable, so ``rm -rf`` still removes a version."""
LOCK_NAME = ".benchsite.lock"
"""What ``lock_path`` ends in; earlier versions kept it inside the site folder."""


@dataclass(frozen=True)
class Published:
    path: Path
    created: bool
    """False when the version already existed with identical bytes (a verified no-op)."""


def check_output(out: Path, inputs: Path) -> None:
    """Refuse an output folder inside the inputs, the inputs inside it, or one inside a published version."""
    o, i = out.resolve(), inputs.resolve()
    if o == i or i in o.parents:
        raise OutputError(f"{out}: the output folder may not be inside the inputs ({inputs})")
    if o in i.parents:
        raise OutputError(f"{out}: the output folder may not contain the inputs ({inputs})")
    folder = published_version_around(o)
    if folder is not None:
        raise OutputError(f"{out}: is inside the published version {folder}; versions are immutable")


LOCK_ATTEMPTS = 5
"""Tries to take a lock file that its previous holder removed between our open and our flock."""


def planted_link(path: Path, what: str) -> OutputError:
    """The refusal for a symbolic link where benchsite keeps one of its own files."""
    return OutputError(
        f"{path}: is a symbolic link where benchsite keeps its {what}; benchsite never follows links "
        "there (it would write outside the site): remove it and build again"
    )


def _open_lock(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | NOFOLLOW | CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise planted_link(path, "lock") from None
        raise


def _same_file_as(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (a finished build removes its lock file)."""
    try:
        here, there = os.fstat(fd), os.lstat(path)
    except FileNotFoundError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _beside(out: Path, same_device: bool) -> Path:
    """The folder beside the site where benchsite keeps its own files: the site's parent, unless
    benchsite cannot write there (or, for staging, it is another file system than the site, as when
    the site folder is a mount point: publishing must stay a rename); then the site folder itself."""
    resolved = out.resolve()
    parent = resolved.parent
    try:
        usable = os.access(parent, os.W_OK) and (
            not same_device or parent.stat().st_dev == resolved.stat().st_dev
        )
    except OSError:
        usable = False
    return parent if usable and parent != resolved else resolved


def lock_path(out: Path) -> Path:
    """The site's lock, ``.<site folder name>.benchsite.lock`` beside the site folder (never in what
    is deployed, unless benchsite cannot write beside it)."""
    resolved = out.resolve()
    return _beside(out, same_device=False) / f".{resolved.name or 'site'}{LOCK_NAME}"


def temp_prefix(out: Path) -> tuple[Path, str]:
    """Where this site's staging folders and index temporaries go (beside the site folder, on its
    file system), and the prefix that names them as this site's."""
    resolved = out.resolve()
    tag = hashlib.sha256(str(resolved).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return _beside(out, same_device=True), f"{TEMP_PREFIX}{tag}-"


def _take_lock(out: Path) -> int:
    path = lock_path(out)
    for _ in range(LOCK_ATTEMPTS):
        fd = _open_lock(path)
        try:
            locked = try_lock(fd)
        except OSError:
            os.close(fd)
            raise
        if not locked:
            os.close(fd)
            break
        if _same_file_as(fd, path):
            return fd
        os.close(fd)
    raise OutputError(f"{out}: another benchsite build is writing this site")


@contextlib.contextmanager
def site_lock(out: Path) -> Iterator[int]:
    """The site's lock file, taken without waiting and removed when the build ends (held until
    removed, so a build that opened it meanwhile sees it gone and takes a new one). Yields the
    lock's descriptor, for a forked worker to close (``portable.worker_start``)."""
    fd = _take_lock(out)
    try:
        yield fd
    finally:
        with contextlib.suppress(OSError):
            lock_path(out).unlink()
        os.close(fd)


def _sweep(out: Path) -> None:
    """Remove what a killed build left (staging folders, index temporaries, beside the site or, from
    earlier versions of benchsite, inside it); refuse a planted link."""
    parent, prefix = temp_prefix(out)
    for stale in sorted({*out.glob(f"{TEMP_PREFIX}*"), *parent.glob(f"{prefix}*")}):
        if stale.is_symlink():
            raise planted_link(stale, "temporary files")
        shutil.rmtree(stale) if stale.is_dir() else stale.unlink()


def _write_new(path: Path, data: bytes) -> None:
    """Create ``path`` (never an existing file, never through a link) and write ``data``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC, 0o666)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


class Staging:
    """A temporary folder beside the site that one version is rendered into, file by file.

    A file whose bytes equal the same path's in ``shared`` (the newest version the site recorded) is
    a hard link to that file, not a copy: versions share their unchanged run pages and row files on
    disk, and a static host still sees plain files. Where links are not possible (another file
    system, a file system without them) the bytes are written.

    A shared file is one file in several versions: an edit of it in place changes each of them. So
    :meth:`settle` checks the shared version against its build record (the sha256 it lists for each
    file) wherever a file is shared: each file this version would share (its bytes have the sha256
    listed for that path) and each file another version holds as a hard link; one that differs is
    refused (exit 5). The files this version shares are hashed (or compared) once, for both, or
    taken from the shared version's stat record (``records``) where it vouches a file."""

    def __init__(
        self,
        folder: Path,
        shared: Path | None = None,
        read_only: bool = False,
        records: StatStore | None = None,
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        self.folder = folder
        self.shared = shared
        self.records = records
        self._clock = clock
        """The clock a linked file's times are judged racy against (a seam for tests)."""
        """Stat records beside a trusted run cache (None: ``--no-cache``, every shared file is hashed)."""
        self.read_only = read_only
        """Each file written is made read-only (:data:`PUBLISHED_MODE`) as it is written, not at
        :meth:`freeze`: its change time is then the moment its bytes were written, so a stat record
        taken as the version is published (``build._record_published``) finds all but the last
        second's files settled (a ``chmod`` of every file at the end moved every ctime there)."""
        self._written: dict[str, Stat] = {}
        """Each file this stage placed, by its path, as ``lstat`` found it once placed: written and
        made read-only, or linked to a shared file that was still the one examined (:meth:`written`)."""
        self.paths: set[str] = set()
        self.linked = 0
        """Files linked to the shared version rather than written."""
        self._listed = None if shared is None else _listed_files(shared)
        """The sha256 the shared version's build record lists for each of its files (None: it lists
        none, as an older generator's does; nothing to check it against)."""
        self._equal: set[str] = set()
        """Files :meth:`add` found byte for byte equal to the shared version's (linked, or written
        where a link is not possible)."""
        self._checked = self._listed is None
        """Whether the shared version was checked against its record (:meth:`settle`, once)."""
        self._folded: dict[str, str] = {}
        self._root, self._shared_root = str(folder), None if shared is None else str(shared)
        """The two folders as text: a version of 10,000 runs adds 20,000 files, and a ``Path`` joined,
        hashed and turned back into text for each cost a third of adding them."""
        self._made: set[str] = {""}
        """Folders of the stage made so far, relative (a version of 10,000 runs has a few dozen)."""
        self._pending: list[tuple[str, str, Stored]] = []
        """(path, target, stored file) of each stored file added and not yet placed (``settle``)."""
        folder.mkdir()

    def add(self, path: str, data: bytes) -> None:
        target = self._claim(path)
        if not self._link_if(path, target, len(data), data.__eq__):
            self._write(target, data)

    def add_stored(self, path: str, stored: Stored) -> None:
        """A file whose bytes are named by their sha256 (a reused run's row file or page, kept in the
        run cache: ``cache.Kept``): placed by :meth:`settle`, which links the shared version's file
        when that one's bytes have that sha256 (the stored copy is then not read at all: unchanged
        files of a version of 10,000 runs are 20,000 reads and hashes fewer), else reads it from where
        it is stored (which checks it again) and writes it. Without a shared version, written now."""
        target = self._claim(path)
        if self._shared_root is None:
            self._write(target, stored.read())
        else:
            self._pending.append((path, target, stored))

    def settle(self, workers: int = 1, locks: tuple[int, ...] = ()) -> None:
        """Place the stored files added since the last call (:meth:`add_stored`) and, on the first
        call, check the shared version where it shares files (see the class): its files are read and
        hashed by up to ``workers`` forked processes (``locks``: the build's, which they close), but
        those its stat record vouches (:meth:`_examined`), each stored file linked only if it is still
        the file that was hashed or vouched, unchanged. A shared file that is not what the shared
        version's record lists is refused (exit 5), naming each such file, before any file is placed.
        The files hashed are then recorded, with the vouched ones (:meth:`_remember`)."""
        pending, self._pending = self._pending, []
        checks: list[tuple[str, str | None, Stored | None]] = list(pending)
        sizes = [stored.size for _, _, stored in pending]
        if not self._checked:
            self._checked = True
            guarded = self._guarded({path for path, _, _ in pending})
            checks += [(path, None, None) for path, _ in guarded]
            sizes += [size for _, size in guarded]
        if not checks:
            return
        shared = Path(str(self._shared_root))
        paths = [path for path, _, _ in checks]
        sources = [f"{self._shared_root}/{path}" for path in paths]
        stamp = self.records.stamp() if self.records is not None else 0  # before any file is examined
        known = self.records.load(shared) if self.records is not None else None
        vouched = [_recorded_held(known, path, source) for path, source in zip(paths, sources, strict=True)]
        held = self._examined(sources, sizes, vouched, workers, locks)
        changed = [
            path
            for (path, _, stored), found in zip(checks, held, strict=True)
            if not self._kept(path, stored, found)
        ]
        if changed:
            raise changed_after_publication(shared, sorted(set(changed)), BUILT_ON)
        for (_, target, stored), source, found in zip(checks, sources, held, strict=True):
            if target is not None and stored is not None:
                self._place(source, target, stored, found)
        if self.records is not None and None in vouched:
            self._remember(self.records, shared, known, dict(_found(paths, held)), stamp)

    def _examined(
        self,
        sources: list[str],
        sizes: list[int],
        vouched: list[Held | None],
        workers: int,
        locks: tuple[int, ...],
    ) -> list[Held | None]:
        """Each shared file as its stat record vouches it (``vouched``: as ``lstat`` found it, with
        the sha256 recorded) or, where it does not, as :func:`_holding` hashes it on up to ``workers``
        processes: a file edited since shows another ctime (or inode), and is hashed."""
        rest = [source for source, found in zip(sources, vouched, strict=True) if found is None]
        size = sum(size for size, found in zip(sizes, vouched, strict=True) if found is None)
        if size < SETTLE_PARALLEL_BYTES:
            workers = 1  # hashed sooner than a pool is forked
        with contextlib.closing(in_parts(_holding, rest, workers, locks)) as parts:
            hashed = iter(list(itertools.chain.from_iterable(parts)))
        return [next(hashed) if found is None else found for found in vouched]

    def _remember(
        self, records: StatStore, shared: Path, known: FolderRecord | None, found: dict[str, str], stamp: int
    ) -> None:
        """Record the shared version's files as they were found (``found``: path → sha256, vouched or
        hashed since ``stamp``), with those its record vouched that this settle did not examine (each
        found by ``lstat`` as recorded still), so that a later build that shares from it hashes none
        of them. A file a new version linked is left out by the racy rule: the link moved its ctime
        past ``stamp`` (its new version is the one a later build shares from)."""
        for rel in sorted((known.files.keys() if known is not None else set()) - found.keys()):
            still = _recorded_held(known, rel, f"{self._shared_root}/{rel}")
            if still is not None:
                found[rel] = still[1]
        records.remember(shared, found, stamp)

    def _kept(self, path: str, stored: Stored | None, found: Held | None) -> bool:
        """Whether a shared version's file, hashed or vouched (``found``), is as its record lists it,
        or is its version's alone: this version has other bytes there (``stored``) and no other version
        holds it (one link). ``stored`` None: a file checked because it must be as listed
        (:meth:`_guarded`)."""
        listed = (self._listed or {}).get(path)
        if listed is None or (found is not None and found[1] == listed):
            return True
        if stored is None or stored.sha256 == listed:
            return False
        return found is None or found[2] == 1

    def _place(self, source: str, target: str, stored: Stored, found: Held | None) -> None:
        """Link ``target`` to the shared file ``source`` when it has the stored file's sha256 and is
        still the file hashed or vouched (``found``); else write the stored bytes."""
        if found is None or found[1] != stored.sha256 or not self._link_same(source, target, found[0]):
            self._write(target, stored.read())

    def _write(self, target: str, data: bytes) -> None:
        file = Path(target)
        file.write_bytes(data)
        if self.read_only:
            file.chmod(PUBLISHED_MODE)
            self._written[target] = stat_of(file.lstat())

    def written(self, path: str) -> Stat | None:
        """How ``path`` looked once this stage placed it: written and made read-only, or linked to the
        shared version's file whose bytes it had just hashed, vouched or compared, when ``lstat``
        finds the link the same inode with the same size and modification time (a link moves only the
        change time; a write in between would have moved the modification time too). None for a file
        it did not make read-only, or a link that was not so."""
        return self._written.get(f"{self._root}/{path}")

    def _placed_link(self, target: str, examined: Identity) -> None:
        """Note ``target``, just linked, for :meth:`written` when it is the file examined, and the
        file was not changed in the second it was examined (the racy rule: a change within the same
        clock tick could keep its times)."""
        if not self.read_only or racy(examined, self._clock() - CLOCK_SLACK_NS):
            return
        try:
            now = stat_of(os.lstat(target))
        except OSError:
            return
        if now[:4] == examined[:4]:  # device, inode, size, modification time
            self._written[target] = now

    def _guarded(self, pending: set[str]) -> list[tuple[str, int]]:
        """The shared version's files besides ``pending`` that must be as its record lists them, to
        be hashed (path and size): each one this version would share (its own record lists the same
        sha256 for it) that :meth:`add` did not find equal (changed, gone, or too large to compare),
        and each one another version holds too (more than one link)."""
        listed = self._listed or {}
        own = _listed_files(self.folder) or {}  # this version's record, once it is added
        guarded: list[tuple[str, int]] = []
        for path in sorted(listed.keys() - pending - self._equal):
            try:
                info: os.stat_result | None = os.lstat(f"{self._shared_root}/{path}")
            except OSError:
                info = None
            linked = info is not None and stat.S_ISREG(info.st_mode) and info.st_nlink > 1
            if linked or own.get(path) == listed[path]:
                guarded.append((path, 0 if info is None else info.st_size))
        return guarded

    def freeze(self) -> None:
        """Make every file of the stage read-only (:data:`PUBLISHED_MODE`), as a published version's
        are. A linked file is the shared version's too: it gets the mode an older generator, which
        published files writable, did not give it. A file read-only already is left as it is (a
        ``chmod`` moves its change time, and a linked file's is the shared version's too)."""
        for path in self.paths:
            file = Path(f"{self._root}/{path}")
            if stat.S_IMODE(file.lstat().st_mode) != PUBLISHED_MODE:
                file.chmod(PUBLISHED_MODE)

    @property
    def settled(self) -> bool:
        """Whether every stored file added is placed (:meth:`settle`)."""
        return not self._pending

    def _link_same(self, source: str, target: str, identity: Identity) -> bool:
        """Link ``target`` to ``source`` when that is still the file of ``identity``."""
        try:
            if stat_of(os.lstat(source)) != identity:
                return False
            os.link(source, target)
        except OSError:
            return False
        self._placed_link(target, identity)
        self.linked += 1
        return True

    def _claim(self, path: str) -> str:
        """Where ``path`` goes in the stage, its folder made; refused when it collides with another."""
        if path in self.paths:
            raise AssertionError(f"two outputs claim {path}")  # a bug, never user input
        folded = unicodedata.normalize("NFC", path).casefold()
        if folded in self._folded:
            raise InvalidContent(
                f"{path}: would overwrite {self._folded[folded]} on a case-insensitive file system "
                "(hosts such as macOS and Windows): ids must differ by more than letter case"
            )
        self._folded[folded] = path
        self.paths.add(path)
        parent = path.rpartition("/")[0]
        if parent not in self._made:
            (self.folder / parent).mkdir(parents=True, exist_ok=True)
            self._made.update(_folders_of(parent))
        return f"{self._root}/{path}"

    def _link_if(self, path: str, target: str, size: int, same: Callable[[bytes], bool]) -> bool:
        """Link ``target`` to the shared version's file when that is a regular file of ``size`` bytes
        that are the ones wanted (``same``, given the bytes read now)."""
        if self._shared_root is None:
            return False
        source = f"{self._shared_root}/{path}"
        try:
            info = os.lstat(source)
            if not stat.S_ISREG(info.st_mode) or info.st_size != size or not same(read_regular(source)):
                return False
            if stat_of(os.lstat(source)) != stat_of(info):
                return False  # changed while it was read: written, and the shared file checked (settle)
            self._equal.add(path)
            os.link(source, target)
        except (OSError, ReadFailure):
            return False
        self._placed_link(target, stat_of(info))
        self.linked += 1
        return True

    def read(self, path: str) -> bytes | None:
        assert self.settled, "a stage is read once its stored files are placed (settle)"
        return (self.folder / path).read_bytes() if path in self.paths else None


def _folders_of(folder: str) -> list[str]:
    """A relative folder and each folder above it: ``a/b/c`` → ``a/b/c``, ``a/b``, ``a``."""
    parts = folder.split("/")
    return ["/".join(parts[:n]) for n in range(len(parts), 0, -1)]


def _sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


SETTLE_PARALLEL_BYTES = 32 << 20
"""The shared files a stage settles are hashed on the build's workers when they hold this much (about
30 ms of hashing, what forking a pool costs); fewer bytes are hashed in the build's own process."""

Identity = Stat
"""A file as ``os.lstat`` sees it (``statrecords.stat_of``): device, inode, size, modification and
change times (ns). Another file renamed over its path changes the inode; a write changes the times,
to the file system's timestamp granularity (a clock tick on older Linux kernels): the shared files
were written by an earlier build, well before this one hashes them."""


Held = tuple[Identity, str, int]
"""A shared file as ``Staging.settle`` hashed it (or found it as its stat record vouches it): its
identity, the sha256 of its bytes, its links (``lstat``'s count either way)."""


def _found(paths: list[str], held: list[Held | None]) -> Iterator[tuple[str, str]]:
    """(path, sha256) of each shared file examined that was a regular file, unchanged while hashed."""
    return ((path, found[1]) for path, found in zip(paths, held, strict=True) if found is not None)


def _recorded_held(known: FolderRecord | None, rel: str, source: str) -> Held | None:
    """The shared file ``rel`` (at ``source``) as ``lstat`` finds it, with the sha256 its stat record
    (``known``) lists, when that vouches it is the file last found with it
    (``FolderRecord.sha256_of``); None: hash it."""
    if known is None:
        return None
    try:
        info = os.lstat(source)
    except OSError:
        return None
    sha256 = known.sha256_of(rel, info)
    return None if sha256 is None else (stat_of(info), sha256, info.st_nlink)


def _holding(paths: list[str]) -> list[Held | None]:
    """For each path: the file as hashed when it is a regular file, unchanged while its bytes were
    read; else None (``Staging.settle``, on its workers)."""
    return [_held(path) for path in paths]


def _held(path: str) -> Held | None:
    try:
        before = os.lstat(path)
        if not stat.S_ISREG(before.st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | CLOEXEC | NONBLOCK | BINARY)
        with os.fdopen(fd, "rb") as handle:  # of any size: an output file may exceed an input's limit
            opened = os.fstat(fd)
            if (opened.st_dev, opened.st_ino) != (before.st_dev, before.st_ino):
                return None  # replaced between the lstat and the open
            sha256 = hashlib.file_digest(handle, "sha256").hexdigest()
        if stat_of(os.lstat(path)) != stat_of(before):
            return None
    except OSError:
        return None
    return stat_of(before), sha256, before.st_nlink


def _listed_files(version: Path) -> dict[str, str] | None:
    """The sha256 of each file a published version's build record lists (every file but the record
    itself); None when it lists none (an older generator's record) or there is none. A record that
    cannot be read was changed after publication: refused (exit 5)."""
    try:
        record = json.loads((version / BUILD_RECORD).read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        record = None
    files = record.get("files", {}) if isinstance(record, dict) else None
    if not isinstance(files, dict) or not all(isinstance(sha256, str) for sha256 in files.values()):
        raise VersionConflict(
            f"{version}: published version {version.name!r} was changed after publication: its "
            f"{BUILD_RECORD} cannot be read; {BUILT_ON}{RESTORE}"
        )
    return files or None


def _relative_files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def _same_file(rel: str, old: bytes, new: bytes) -> bool:
    """Byte equality; the build record may differ in the generator digest and its list of file
    hashes alone (an upgraded generator that renders the same bytes still rebuilds a version as a
    no-op, whether or not the generator that published it listed the hashes)."""
    if old == new or rel != "data/build.json":
        return old == new
    try:
        a, b = json.loads(old), json.loads(new)
    except ValueError:
        return False
    same = {"generator_digest": "", "files": {}}  # the files' hashes: each file is compared itself
    return isinstance(a, dict) and isinstance(b, dict) and a | same == b | same


def _check_existing(target: Path, stage: Staging) -> None:
    """Same inputs and same bytes: a verified no-op. Anything else: a version conflict."""
    try:
        old = json.loads((target / "data" / "build.json").read_bytes())
        new = json.loads(stage.read("data/build.json") or b"{}")
    except (OSError, ValueError):
        raise VersionConflict(f"{target}: exists but holds no readable data/build.json") from None
    if old.get("inputs_digest") != new["inputs_digest"]:
        raise VersionConflict(
            f"{target}: version {target.name!r} was built from different inputs "
            f"({str(old.get('inputs_digest'))[:12]}… ≠ {new['inputs_digest'][:12]}…); "
            "published versions are immutable: choose a new --site-version"
        )
    published = _relative_files(target)
    differ = sorted(set(published) ^ stage.paths) + [
        rel
        for rel in sorted(stage.paths & set(published))
        if not _same_file(rel, (target / rel).read_bytes(), (stage.folder / rel).read_bytes())
    ]
    if differ:
        raise VersionConflict(
            f"{target}: version {target.name!r} exists from the same inputs but different bytes in "
            f"{_some(differ)} (built by {old.get('generator')}, now {new['generator']}); "
            "versions are immutable"
        )


def _some(paths: list[str]) -> str:
    return ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def check_published(
    target: Path, files: dict[str, str], build_json: bytes, expected: bytes, records: StatStore | None = None
) -> dict[str, int]:
    """A published version holds exactly the files its build record lists, each with the sha256 it
    lists, and the record is the one its verified ``data/site.json`` yields (``expected``). Anything
    else was changed after publication: refused (exit 5), never rewritten. With ``records`` (the
    no-op check, beside a trusted run cache): a file whose stat record vouches it is the file last
    found with that sha256 is not hashed again, and the files hashed are recorded. Returns the size of
    each file, by its path in the version."""
    known = records.load(target) if records is not None else None
    stamp = records.stamp() if records is not None else 0
    found = _version_files(str(target), "", {})
    listed = {**files, BUILD_RECORD: ""}
    differ = sorted(found.keys() ^ listed.keys())
    hashed = 0
    for rel in sorted(found.keys() & files.keys()):
        info = found[rel]
        vouched = info is not None and known is not None and known.unchanged(rel, info, files[rel])
        hashed += not vouched
        if info is None or (not vouched and _sha256(target / rel) != files[rel]):
            differ.append(rel)
    if not differ and build_json != expected:
        differ.append(BUILD_RECORD)
    if differ:
        raise changed_after_publication(target, differ)
    if records is not None and hashed:
        records.remember(target, {rel: files[rel] for rel in found.keys() & files.keys()}, stamp)
    return {rel: info.st_size for rel, info in found.items() if info is not None}


def _version_files(folder: str, prefix: str, found: dict[str, os.stat_result | None]) -> dict[str, Any]:
    """Every entry below a version's ``folder`` but its folders, by relative path: a regular file with
    its ``lstat`` (``os.scandir``'s, taken as it lists), a link or special file None (never ours:
    refused); a folder that cannot be listed is None too (refused, named). A published version of
    10,000 runs holds 20,000 files: a ``Path`` and three ``stat``s each cost most of a no-op."""
    pending = [(folder, prefix)]
    while pending:  # a stack, not recursion: a version nested deeper than Python's limit is refused
        here, above = pending.pop()
        try:
            with os.scandir(here) as entries:
                listed = list(entries)
        except OSError:
            found[above.rstrip("/") or "."] = None
            continue
        for entry in listed:
            rel = above + entry.name
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                found[rel] = None  # gone or unreadable since listed: refused, by its name
                continue
            if stat.S_ISDIR(info.st_mode):
                pending.append((entry.path, rel + "/"))
            else:
                found[rel] = info if stat.S_ISREG(info.st_mode) else None
    return found


RESTORE = (
    "versions are immutable: restore the folder from your deployment, or delete it and build again "
    "(the same inputs rebuild the same bytes)"
)
BUILT_ON = "no version is built on files shared with it (by the new version or another); "
"""What a build adds when it refuses the version it shares from (``Staging.settle``)."""


def changed_after_publication(target: Path, differ: list[str], why: str = "") -> VersionConflict:
    """The refusal of a published version whose files are not the ones its build record lists,
    naming them and every other version that holds one of them as the same file (a hard link: an
    edit in place changed that version too)."""
    return VersionConflict(
        f"{target}: published version {target.name!r} was changed after publication: {_some(differ)} "
        f"differ from the sha256 its {BUILD_RECORD} lists{_sharing(target, differ)}; {why}{RESTORE}"
    )


def _sharing(target: Path, differ: list[str]) -> str:
    """The other versions beside ``target`` that hold one of the files ``differ`` names as the same
    file (device and inode): what an edit in place of that file changed as well."""
    holders: dict[str, list[str]] = {}
    for rel in differ:
        try:
            info = os.lstat(target / rel)
        except OSError:
            continue  # removed: no other version shares what is not there
        for record in sorted(target.parent.glob(f"*/{BUILD_RECORD}")):
            version = record.parent.parent
            if version.name.startswith("."):
                continue  # a staging folder, never a version
            with contextlib.suppress(OSError):
                there = os.lstat(version / rel)
                if version != target and (there.st_dev, there.st_ino) == (info.st_dev, info.st_ino):
                    holders.setdefault(version.name, []).append(rel)
    shared = "; ".join(
        f"version {v!r} holds {_some(rels)} as the same file (a hard link): changed too"
        for v, rels in holders.items()
    )
    return f" ({shared})" if shared else ""


def _names_itself(record: Path) -> bool:
    """Whether a ``data/build.json`` is a build record of the folder that holds it."""
    from generator.report.model import BuildRecord

    try:
        return BuildRecord.model_validate_json(record.read_bytes()).site_version == record.parent.parent.name
    except (OSError, ValueError):
        return False


def _recorded(out: Path) -> list[str]:
    """The versions the site recorded, in published order: those ``versions.json`` lists whose
    folder is present. When it cannot be read (deleted, damaged), the record is rebuilt from the
    folders whose ``data/build.json`` is a valid record naming that folder; a folder merely holding
    a ``data/build.json`` (a copy, a stray) is never listed."""
    present = {
        p.parent.parent.name
        for p in out.glob("*/data/build.json")
        if not p.parent.parent.name.startswith(".")
    }
    try:
        listed = json.loads((out / VERSIONS).read_bytes())["versions"]
        return list(dict.fromkeys(v for v in listed if isinstance(v, str) and v in present))
    except (OSError, ValueError, KeyError, TypeError):
        return sorted(v for v in present if _names_itself(out / v / "data" / "build.json"))


def cited_versions(target: Path) -> tuple[str, ...]:
    """The earlier versions a published version's reveals apply to, read from its report as JSON."""
    try:
        report = json.loads((target / "data" / "site.json").read_bytes())
        cited = [(b["section"].get("reveal") or {}).get("scores_version") for b in report["benchmarks"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return ()
    return tuple(sorted({v for v in cited if isinstance(v, str) and v != target.name}))


def _versions(out: Path, added: list[str], confirmed: tuple[str, ...] = ()) -> list[str]:
    """Published order: the site's record, then the versions this build confirmed unchanged that it
    lacked (a build killed before its index was switched), then the versions it adds."""
    order = [v for v in _recorded(out) if v not in added]
    order += [v for v in confirmed if v not in order and v not in added]
    return order + added


def _record(folder: Path) -> dict[str, Any]:
    """A version's build record, or a stand-in saying it cannot be read (never a crash)."""
    from generator.report.model import BuildRecord

    try:
        record = json.loads((folder / "data" / "build.json").read_bytes())
        BuildRecord.model_validate(record)
        return dict(record)
    except (OSError, ValueError):
        return {
            "site_version": folder.name,
            "generator": "unknown",
            "inputs_digest": "unreadable record",
            "benchmarks": [],
        }


def earlier_versions(
    out: Path,
    version: str,
    staged: tuple[str, Path] | None = None,
    cited: tuple[str, ...] = (),
    past: Past | None = None,
) -> list[EarlierVersion]:
    """The versions ``out`` published before ``version`` (all of them when it is new), then a version
    this build staged to publish first (``staged``: its name and folder), oldest first, as the history
    reads them: each one's points and report derived when asked, once per content (``past``). A
    published version ``version`` cites (a reveal's blind version) counts even when the site's record
    lacks it (a build killed before its index switch), as publishing will list it. The versions are
    listed now (what the site's record says when this is called); nothing is read until asked."""
    from generator.publish.past import Past
    from generator.report.history import EarlierVersion

    past = past or Past()
    recorded = _versions(out, [], tuple(v for v in cited if v != version and (out / v).is_dir()))
    order = recorded[: recorded.index(version)] if version in recorded else recorded
    folders = [(v, out / v) for v in order]
    if staged is not None and staged[0] not in order:
        folders.append(staged)
    points, report = past.points, past.report
    return [EarlierVersion(v, partial(points, v, f), partial(report, f), f) for v, f in folders]


def _changes(folders: dict[str, Path], order: list[str], past: Past) -> list[VersionChanges]:
    """Each version against the one published before it, oldest first (``past``: once per content)."""
    previous: list[str | None] = [None, *order[:-1]]
    return [
        past.changes(version, before, folders[before] if before is not None else None, folders[version])
        for version, before in zip(order, previous, strict=True)
    ]


INDEX_FILES = ("404.html", "index.html", VERSIONS)
"""Site-level files, in the order they are switched: the machine-readable list last."""
ONLINE_FILES = ("sitemap.xml", "feed.xml")
"""Site-level files written only when the site has a base URL (removed when it has none)."""


def index_files(look: SiteLook) -> tuple[str, ...]:
    return INDEX_FILES if look.base_url is None else (*ONLINE_FILES, *INDEX_FILES)


def _online_files(
    look: SiteLook, order: list[str], folders: dict[str, Path], changes: list[VersionChanges], past: Past
) -> dict[str, bytes]:
    """``sitemap.xml`` and ``feed.xml`` of a site with a base URL (nothing without one)."""
    if look.base_url is None:
        return {}
    from generator.render.pages import render_feed, render_sitemap
    from generator.render.syndication import FeedEntry, changed, page_urls, stamp, summary

    records = {v: _record(folders[v]) for v in order}
    entries = [
        FeedEntry(
            version=v,
            url=look.absolute(f"{v}/index.html"),
            updated=stamp(folders[v] / BUILD_RECORD),
            summary=summary(past.run_counts(folders[v]), records[v]),
            changes=changed(c),
        )
        for v, c in zip(reversed(order), reversed(changes), strict=True)
    ]
    return {
        "sitemap.xml": render_sitemap(look, page_urls(look, order, records)),
        "feed.xml": render_feed(look, entries),
    }


IndexPages = Callable[[list[dict[str, Any]], str | None, SiteLook], dict[str, bytes]]
"""What renders the site-level pages (``404.html``, ``index.html``) from the versions' entries, newest
first (each its ``version``, build ``record``, ``changes`` and, for the latest only, its benchmarks'
``headlines``: ``past.Headlines``, None when its report cannot be read or for an earlier version),
the latest version's name and the site's look: the build hands it over (``render.render_index``);
the writer imports no renderer (``sitemap.xml`` and ``feed.xml`` of a site with a base URL are
rendered where they are made, on demand)."""


def _stage_index(
    out: Path,
    pages: IndexPages,
    added: list[tuple[str, Path]],
    confirmed: tuple[str, ...] = (),
    look: SiteLook | None = None,
    past: Past | None = None,
) -> list[tuple[Path, Path]]:
    """Render the site-level files into temporary files beside them, before anything is published.

    ``pages`` renders the HTML ones; ``added`` are the versions about to be published, in order
    (their staged folders); ``confirmed`` are existing versions this build found identical (listed
    if the site lacks them). A failure here (a full disk) leaves the site untouched; what remains is
    renames, which need no space. ``past`` derives each version's changes and badges once per content.
    """
    from generator.publish.past import Past
    from generator.report.changes import VersionsIndex

    look = look or SiteLook()
    past = past or Past()
    order = _versions(out, [name for name, _ in added], confirmed)
    folders = {v: out / v for v in order} | dict(added)
    changes = _changes(folders, order, past)
    latest = order[-1] if order else None
    entries = [
        {
            "version": v,
            "record": _record(folders[v]),
            "changes": c,
            "headlines": past.headlines(folders[v]) if v == latest else None,
        }
        for v, c in zip(reversed(order), reversed(changes), strict=True)
    ]
    index = VersionsIndex(versions=tuple(order), changes=tuple(changes))
    data = {
        **_online_files(look, order, folders, changes, past),
        **pages(entries, latest, look),
        VERSIONS: canonical_json(index.model_dump(mode="json")).encode("utf-8"),
    }
    parent, prefix = temp_prefix(out)
    staged: list[tuple[Path, Path]] = []
    try:
        staged.append(_stage_badges(out, folders[order[-1]] if order else None, past))
        for file in index_files(look):
            temp = parent / f"{prefix}{file}"
            staged.append((temp, out / file))
            _write_new(temp, data[file])
    except OSError:
        for temp, _ in staged:
            shutil.rmtree(temp, ignore_errors=True) if temp.is_dir() else temp.unlink(missing_ok=True)
        raise
    return staged


BADGES = "badges"
"""``site/badges/<benchmark>/<subject>.svg``: the latest version's badges, at a stable address."""


def _stage_badges(out: Path, latest: Path | None, past: Past) -> tuple[Path, Path]:
    """The badges of the latest version (``latest``, its folder), written into a temporary folder."""
    temp = out / f"{TEMP_PREFIX}{BADGES}"
    shutil.rmtree(temp, ignore_errors=True)
    temp.mkdir()
    for rel, data in sorted((past.badges(latest) if latest is not None else {}).items()):
        (temp / rel).parent.mkdir(parents=True, exist_ok=True)
        _write_new(temp / rel, data)
    return temp, out / BADGES


def _switch_index(staged: list[tuple[Path, Path]]) -> None:
    """Renames, back to back: the badges folder (the old one moved aside, then removed), then the
    three files (five with a base URL). A kill between them leaves index.html one version ahead of
    versions.json (or the badges of a newer version): every entry of each is a complete version,
    and the next build reconciles them. A sitemap or feed left from a base URL the site no longer
    has is removed."""
    names = {final.name for _, final in staged}
    for temp, final in staged:
        if temp.is_dir():
            old = final.parent / f"{TEMP_PREFIX}{final.name}-old"
            if final.is_dir() and not final.is_symlink():
                final.rename(old)
            temp.rename(final)
            shutil.rmtree(old, ignore_errors=True)
        else:
            temp.replace(final)
    if staged and not names & set(ONLINE_FILES):
        out = staged[-1][1].parent
        for name in ONLINE_FILES:
            (out / name).unlink(missing_ok=True)


@dataclass(frozen=True)
class IndexRecord:
    """A signed note, kept in the user's run cache, of the site-level files a site's versions
    yield: a no-op rebuild that finds them unchanged need not render them again (nor import the
    renderer). Keyed by the output folder; signed with the run cache's per-user key (``userkey``), so
    a note others wrote is not taken; anything off and the files are rendered again."""

    folder: Path
    key: bytes

    FORMAT = "benchsite-index/1"

    def _path(self, out: Path) -> Path:
        name = hashlib.sha256(str(out.resolve()).encode("utf-8", "surrogateescape")).hexdigest()
        return self.folder / "index-v1" / f"{name}.json"

    def _mac(self, fields: dict[str, Any]) -> str:
        return hmac.new(self.key, canonical_json(fields).encode("utf-8"), hashlib.sha256).hexdigest()

    def holds(self, out: Path, digest: str) -> bool:
        """Whether the site-level files of ``out`` are the ones its versions (``digest``) yield."""
        try:
            note = json.loads(read_regular(self._path(out), 1 << 16))
            fields = {k: note[k] for k in ("format", "out", "digest", "files")}
            if not hmac.compare_digest(str(note["mac"]), self._mac(fields)):
                return False
            files = sorted(fields["files"])
            expected = (self.FORMAT, str(out.resolve()), digest, files)
            if (fields["format"], fields["out"], fields["digest"], files) != expected:
                return False
            return all(_sha256(out / name) == fields["files"][name] for name in files)
        except (OSError, ReadFailure, ValueError, KeyError, TypeError, AttributeError):
            return False

    def keep(self, out: Path, digest: str, names: tuple[str, ...] = INDEX_FILES) -> None:
        """Note the site-level files as they are now; best effort (the note only saves time)."""
        try:
            files = {name: _sha256(out / name) for name in names}
            fields = {"format": self.FORMAT, "out": str(out.resolve()), "digest": digest, "files": files}
            path = self._path(out)
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            temp = path.with_name(f".tmp-{os.getpid()}-{path.name}")
            temp.write_text(canonical_json({**fields, "mac": self._mac(fields)}), encoding="utf-8")
            temp.replace(path)
        except (OSError, ValueError):
            pass

    REPRODUCED = "benchsite-reproduced/1"

    def _reproduction(self, target: Path, record: bytes, generator: str) -> tuple[Path, str]:
        """Where the note that ``generator`` rebuilt the version at ``target`` (whose build record
        holds ``record``) byte for byte is kept, and the MAC it holds."""
        text = "\n".join(
            (self.REPRODUCED, str(target.resolve()), hashlib.sha256(record).hexdigest(), generator)
        ).encode("utf-8", "surrogateescape")
        path = self.folder / "reproduced-v1" / f"{hashlib.sha256(text).hexdigest()}.json"
        return path, hmac.new(self.key, text, hashlib.sha256).hexdigest()

    def reproduced(self, target: Path, record: bytes, generator: str) -> bool:
        """Whether a build of this user's found that ``generator`` rebuilds the version at ``target``,
        as its build record ``record`` stands, byte for byte (an upgraded generator that renders the
        same bytes): its no-op rebuilds are then no-ops for this generator too."""
        path, mac = self._reproduction(target, record, generator)
        try:
            return hmac.compare_digest(read_regular(path, 1 << 10), mac.encode())
        except (OSError, ReadFailure):
            return False

    def keep_reproduced(self, target: Path, generator: str) -> None:
        """Note that ``generator`` has just rebuilt the published version at ``target`` byte for
        byte (``_check_existing``); best effort (the note only saves time)."""
        try:
            path, mac = self._reproduction(target, (target / BUILD_RECORD).read_bytes(), generator)
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            temp = path.with_name(f".tmp-{os.getpid()}-{path.name}")
            temp.write_text(mac, encoding="utf-8")
            temp.replace(path)
        except OSError:
            pass


def index_digest(out: Path, order: list[str], look: SiteLook | None = None, past: Past | None = None) -> str:
    """What the site-level files are derived from: the generator, the site's look, the versions in
    published order, and each one's build record and report (each report's sha256 as ``past`` holds
    it when it has hashed it in this build: a site of many versions is not hashed twice)."""
    from generator.inputs.identity import generator_digest

    lines = [generator_digest(), (look or SiteLook()).digest()]
    for version in order:
        folder = out / version / "data"
        try:
            record = _sha256(folder / "build.json")
            report = (past.digest(out / version) if past is not None else None) or _sha256(
                folder / "site.json"
            )
        except (OSError, ReadFailure):
            record = report = "unreadable"
        lines.append(f"{version} {record} {report}")
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogateescape")).hexdigest()


class SiteWriter:
    """Holds the site's lock while versions are staged and published; cleans up after any failure."""

    def __init__(
        self,
        out: Path,
        pages: IndexPages,
        index: IndexRecord | None = None,
        look: SiteLook | None = None,
        past: Past | None = None,
    ) -> None:
        self.out = out
        self.past = past
        """What the versions' reports yield, derived once per content (None: this build's memory only)."""
        self.pages = pages
        """Renders the site-level pages (``IndexPages``)."""
        self.index = index
        self.look = look or SiteLook()
        """How the site-level files present the site (name, base URL, …)."""
        """Where the note of the site-level files is kept (None: no run cache, always render them)."""
        self.stages: list[Staging] = []
        self._lock: contextlib.ExitStack | None = None
        self.locks: tuple[int, ...] = ()
        """The descriptor of the site lock while it is held: a forked scoring worker closes its copy."""
        self._created: list[Path] = []
        """Folders this build created for ``out``, innermost first: a failed build removes them."""

    def __enter__(self) -> SiteWriter:
        try:
            self._created = [p for p in (self.out, *self.out.parents) if not p.exists()]
            self.out.mkdir(parents=True, exist_ok=True)
            self._lock = contextlib.ExitStack()
            self.locks = (self._lock.enter_context(site_lock(self.out)),)
            _sweep(self.out)
        except BaseException as exc:
            self.__exit__(type(exc), exc, None)
            raise
        return self

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        for stage in self.stages:
            shutil.rmtree(stage.folder, ignore_errors=True)
        if self._lock is not None:
            self._lock.close()
            self.locks = ()
        if exc is not None:
            for folder in self._created:  # a refused build leaves a new --out as it was: absent
                with contextlib.suppress(OSError):
                    folder.rmdir()
        if isinstance(exc, OSError) and exc.errno is not None:  # jinja2's TemplateNotFound has none
            raise _output_error(exc, self.out) from None

    def stage(self) -> Staging:
        """A staging folder for a version, sharing from the newest the site recorded, checked with the
        stat records kept beside the run cache (the note's folder and key; none without a cache)."""
        recorded = _recorded(self.out)
        shared = self.out / recorded[-1] if recorded else None
        parent, prefix = temp_prefix(self.out)
        records = StatStore(self.index.folder, self.index.key) if self.index is not None else None
        stage = Staging(parent / f"{prefix}{os.getpid()}-{len(self.stages)}", shared, True, records)
        self.stages.append(stage)
        return stage

    def precheck(self, version: str, stage: Staging) -> None:
        """Raise now, before anything is published, if publishing ``version`` would conflict."""
        target = self.out / version
        if target.exists():
            _check_existing(target, stage)

    def refresh(self, version: str, cited: tuple[str, ...] = ()) -> None:
        """Re-derive the site-level files from the versions recorded, the published versions
        ``version`` cites (the blind version its reveal applies to) and ``version``, found unchanged
        (a no-op rebuild repairs them, a build killed before its index switch included); not when
        the signed note says they are already what the versions yield."""
        confirmed = (*(v for v in cited if (self.out / v).is_dir()), version)
        order = _versions(self.out, [], confirmed)
        if self.index is not None and self.index.holds(self.out, index_digest(self.out, order, self.look)):
            return
        _switch_index(_stage_index(self.out, self.pages, [], confirmed, self.look, self.past))
        self._note_index()

    def _note_index(self) -> None:
        if self.index is not None:
            digest = index_digest(self.out, _recorded(self.out), self.look, self.past)
            self.index.keep(self.out, digest, index_files(self.look))

    def publish(self, version: str, stage: Staging) -> Published:
        """Publish a staged version with one rename; an identical existing version is a no-op."""
        return self.publish_all([(version, stage)])[0]

    def publish_all(
        self, versions: list[tuple[str, Staging]], confirmed: tuple[str, ...] = ()
    ) -> list[Published]:
        """Publish staged versions together: every check and the site-level files are prepared
        first, so a failure (a conflict, a full disk) publishes none of them; then only renames.
        ``confirmed`` are published versions this build checked otherwise (the blind version a
        reveal cites): listed if the site's record lacks them."""
        fresh, same = [], list(confirmed)
        for version, stage in versions:
            assert stage.settled, "a stage is published once its stored files are placed (settle)"
            target = self.out / version
            if target.exists():
                _check_existing(target, stage)
                same.append(version)
            else:
                fresh.append((version, stage))
        for _, stage in fresh:
            stage.freeze()
        added = [(version, stage.folder) for version, stage in fresh]
        staged = _stage_index(self.out, self.pages, added, tuple(same), self.look, self.past)
        try:
            for version, stage in fresh:
                stage.folder.rename(self.out / version)
                self.stages.remove(stage)
        except OSError:
            for temp, _ in staged:
                temp.unlink(missing_ok=True)
            raise
        _switch_index(staged)
        self._note_index()
        names = {version for version, _ in fresh}
        return [Published(self.out / version, created=version in names) for version, _ in versions]


def _output_error(exc: OSError, out: Path) -> OutputError:
    """Names the file in the site: a rename's target (the staging folder it came from is beside the site)."""
    return OutputError(f"{exc.filename2 or exc.filename or out}: cannot write the site: {exc.strerror}")


MKDOCS_MARK = ".benchsite-mkdocs"


def replace_export(out: Path, render: Callable[[Staging], None]) -> list[str]:
    """Write an mkdocs export into ``out`` whole, or not at all.

    The export is staged beside ``out`` and swapped in by renames; ``out`` may be new, empty, or an
    earlier benchsite export (it carries ``.benchsite-mkdocs``), never a folder of someone else's.
    """
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MKDOCS_MARK).is_file())):
        raise OutputError(
            f"{out}: exists and is not a benchsite mkdocs export (no {MKDOCS_MARK}); "
            "give a new or empty folder inside your docs_dir"
        )
    parent = out.parent
    stage: Staging | None = None
    old = parent / f"{TEMP_PREFIX}old-{os.getpid()}-{out.name}"
    try:
        parent.mkdir(parents=True, exist_ok=True)
        stage = Staging(parent / f"{TEMP_PREFIX}{os.getpid()}-{out.name}")
        render(stage)
        stage.add(
            MKDOCS_MARK, b"Written by benchsite build --format mkdocs; replaced whole on each export.\n"
        )
        if out.exists():
            out.rename(old)
        stage.folder.rename(out)
        shutil.rmtree(old, ignore_errors=True)
        return sorted(stage.paths)
    except OSError as exc:
        if old.exists() and not out.exists():
            old.rename(out)
        if exc.errno is None:  # not the file system's: a missing template (a bug), not the site's
            raise
        raise _output_error(exc, out) from None
    finally:
        if stage is not None and stage.folder.exists():
            shutil.rmtree(stage.folder, ignore_errors=True)

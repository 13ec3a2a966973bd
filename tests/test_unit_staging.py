"""Unit tests of ``write.Staging``: a new version's files linked to the last version's where their
bytes are equal, written otherwise; a stored file (``cache.Kept``) is not even read when linked.
Stored files are placed by ``settle``, which hashes the last version's files on forked workers and
checks that version whole against its build record (one changed after publication is refused)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from generator.errors import VersionConflict
from generator.publish.write import Staging
from generator.score.cache import Kept

OLD = b"<p>the same page</p>\n"


@dataclass
class Counted:
    """A stored file that counts its reads (``read`` is what a cache file costs)."""

    data: bytes
    reads: list[int] = field(default_factory=list)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def size(self) -> int:
        return len(self.data)

    def read(self) -> bytes:
        self.reads.append(1)
        return self.data


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    folder = tmp_path / "v1"
    (folder / "runs").mkdir(parents=True)
    (folder / "runs" / "a.html").write_bytes(OLD)
    return folder


def test_a_stored_file_equal_to_the_last_versions_is_linked_unread(shared: Path, tmp_path: Path) -> None:
    stage = Staging(tmp_path / "stage", shared)
    stored = Counted(OLD)
    stage.add_stored("runs/a.html", stored)
    stage.settle()
    assert (stage.folder / "runs" / "a.html").samefile(shared / "runs" / "a.html")
    assert stored.reads == [] and stage.linked == 1 and stage.paths == {"runs/a.html"}


@pytest.mark.parametrize(
    "new",
    [b"<p>the same size</p>\n!", b"<p>the sane page</p>\n", b"longer: " + OLD],
    ids=["size", "bytes", "len"],
)
def test_a_stored_file_that_differs_is_read_and_written(shared: Path, tmp_path: Path, new: bytes) -> None:
    stage = Staging(tmp_path / "stage", shared)
    stored = Counted(new)
    stage.add_stored("runs/a.html", stored)
    stage.settle()
    written = stage.folder / "runs" / "a.html"
    assert written.read_bytes() == new and not written.samefile(shared / "runs" / "a.html")
    assert stored.reads == [1] and stage.linked == 0


def test_without_a_shared_version_or_file_a_stored_file_is_read(shared: Path, tmp_path: Path) -> None:
    alone = Staging(tmp_path / "alone")
    alone.add_stored("runs/a.html", Counted(OLD))
    assert (alone.folder / "runs" / "a.html").read_bytes() == OLD and alone.linked == 0
    stage = Staging(tmp_path / "stage", shared)
    stored = Counted(OLD)
    stage.add_stored("runs/b.html", stored)  # the last version has no such file
    stage.settle()
    assert stored.reads == [1] and stage.linked == 0


def test_a_linked_shared_file_must_be_a_regular_file(shared: Path, tmp_path: Path) -> None:
    (shared / "runs" / "a.html").unlink()
    (shared / "runs" / "a.html").symlink_to(tmp_path / "elsewhere.html")
    (tmp_path / "elsewhere.html").write_bytes(OLD)
    stage = Staging(tmp_path / "stage", shared)
    stored = Counted(OLD)
    stage.add_stored("runs/a.html", stored)
    stage.settle()
    written = stage.folder / "runs" / "a.html"
    assert not written.is_symlink() and written.read_bytes() == OLD and stored.reads == [1]


def test_a_kept_cache_file_is_checked_when_it_must_be_read(shared: Path, tmp_path: Path) -> None:
    """The run cache's file is read (and checked against its sha256) only when nothing equal can be
    linked: a cache file changed since it was loaded then stops the build, naming it."""
    from generator.errors import OutputError

    kept_file = tmp_path / "kept.html"
    kept_file.write_bytes(b"changed since it was loaded")
    kept = Kept(kept_file, hashlib.sha256(OLD).hexdigest(), len(OLD))
    stage = Staging(tmp_path / "stage", shared)
    stage.add_stored("runs/a.html", kept)  # equal to the last version's: linked, the cache not read
    stage.settle()
    assert stage.linked == 1
    alone = Staging(tmp_path / "alone")
    with pytest.raises(OutputError, match="no longer holds the bytes it was loaded with"):
        alone.add_stored("runs/a.html", kept)


def test_stored_files_are_placed_alike_by_one_process_or_by_forked_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``settle`` hashes the last version's files in parts on up to ``workers`` processes: the same
    files are linked, the same written, in either case; nothing is placed before it."""
    from generator.publish import write
    from generator.score import pool

    monkeypatch.setattr(pool, "PART_ITEMS", 2)
    monkeypatch.setattr(write, "SETTLE_PARALLEL_BYTES", 0)  # a pool even for these few bytes
    shared = tmp_path / "v1"
    (shared / "runs").mkdir(parents=True)
    pages = {f"runs/{i:02d}.html": f"<p>page {i}</p>".encode() for i in range(20)}
    for path, data in pages.items():
        (shared / path).write_bytes(data)
    for jobs in (1, 2):
        stage = Staging(tmp_path / f"stage-{jobs}", shared)
        stored = {path: Counted(data if int(path[5:7]) % 3 else data + b"!") for path, data in pages.items()}
        for path, file in stored.items():
            stage.add_stored(path, file)
        assert not (stage.folder / "runs" / "00.html").exists()
        with pytest.raises(AssertionError, match="settle"):
            stage.read("runs/00.html")
        stage.settle(jobs)
        written = {path for path, file in stored.items() if file.reads}
        assert written == {path for path in pages if int(path[5:7]) % 3 == 0}
        assert stage.linked == len(pages) - len(written)
        for path, file in stored.items():
            assert (stage.folder / path).read_bytes() == file.data
            assert (stage.folder / path).samefile(shared / path) == (path not in written)


def test_a_shared_file_changed_after_it_was_hashed_is_not_linked(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last version's file is linked only if it is still the file that was hashed: one written to
    or replaced in between (here, right after the workers hashed it) is not; the stored copy is."""
    from generator.publish import write

    old = shared / "runs" / "a.html"
    os.utime(old, ns=(1_000_000_000, 1_000_000_000))  # written long before, as a published version is
    holding = write._holding

    def then_changed(paths: list[str]) -> list[tuple[write.Identity, str] | None]:
        held = holding(paths)
        old.write_bytes(b"<p>the sam3 page</p>\n")  # the same size, a new modification time
        return held

    monkeypatch.setattr(write, "_holding", then_changed)
    stage = Staging(tmp_path / "stage", shared)
    stored = Counted(OLD)
    stage.add_stored("runs/a.html", stored)
    stage.settle()
    assert (stage.folder / "runs" / "a.html").read_bytes() == OLD
    assert stored.reads == [1] and stage.linked == 0


def recorded(folder: Path, files: dict[str, bytes]) -> Path:
    """A published version: ``files`` and a build record listing each one's sha256."""
    for path, data in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
    listed = {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}
    (folder / "data").mkdir(exist_ok=True)
    (folder / "data" / "build.json").write_text(json.dumps({"files": listed}))
    return folder


def test_a_shared_file_changed_after_publication_is_refused_at_settle(tmp_path: Path) -> None:
    """A file the new version would share (its bytes have the sha256 the record lists), whether from
    the run cache or rendered, and a file another version holds as a hard link, must be as the record
    lists them; a file of the shared version alone may differ. Nothing is placed once one differs."""
    files = {f"runs/{name}.html": OLD for name in ("a", "b", "c", "d", "e")}
    shared = recorded(tmp_path / "v1", files)
    for name in ("b", "c", "d", "e"):
        (shared / "runs" / f"{name}.html").write_bytes(b"edited")
    os.link(shared / "runs" / "d.html", tmp_path / "another-version.html")
    stage = Staging(tmp_path / "stage", shared)
    stored = Counted(OLD)
    stage.add_stored("runs/a.html", stored)  # unchanged: would be linked
    stage.add_stored("runs/b.html", Counted(OLD))  # shared from the run cache: changed
    stage.add("runs/c.html", OLD)  # shared by its rendered bytes: changed
    own = {path: hashlib.sha256(OLD).hexdigest() for path in files}
    stage.add("data/build.json", json.dumps({"files": own}).encode())
    stage.add_stored("runs/e.html", Counted(b"new bytes"))  # not shared, and one link: its version's own
    with pytest.raises(
        VersionConflict, match=r"runs/b\.html, runs/c\.html, runs/d\.html differ from"
    ) as raised:
        stage.settle()
    assert "e.html" not in str(raised.value)
    assert stored.reads == [] and not (stage.folder / "runs" / "a.html").exists()


def test_a_shared_file_gone_or_replaced_is_refused_and_an_unreadable_record_too(tmp_path: Path) -> None:
    shared = recorded(tmp_path / "v1", {"runs/a.html": OLD, "runs/b.html": OLD, "index.html": b"v1"})
    (shared / "runs" / "a.html").unlink()
    (shared / "runs" / "b.html").unlink()
    (shared / "runs" / "b.html").symlink_to(tmp_path / "elsewhere.html")
    (tmp_path / "elsewhere.html").write_bytes(OLD)
    (shared / "index.html").unlink()  # the shared version's own page: the new one has other bytes
    (shared / "extra.html").write_bytes(b"added")
    stage = Staging(tmp_path / "stage", shared)
    stage.add("runs/a.html", OLD)
    stage.add_stored("runs/b.html", Counted(OLD))
    stage.add("index.html", b"v2")
    own = {"runs/a.html": hashlib.sha256(OLD).hexdigest(), "index.html": hashlib.sha256(b"v2").hexdigest()}
    stage.add("data/build.json", json.dumps({"files": own}).encode())
    with pytest.raises(
        VersionConflict, match=r"v1' was changed after publication: runs/a\.html, runs/b\.html differ"
    ):
        stage.settle()
    (shared / "data" / "build.json").write_bytes(b"{not json")
    with pytest.raises(VersionConflict, match=r"its data/build\.json cannot be read"):
        Staging(tmp_path / "other", shared)
    assert not (tmp_path / "other").exists()


def test_a_record_that_lists_no_hashes_is_not_checked(tmp_path: Path) -> None:
    """An older generator's record lists no hashes: nothing to check against (bytes still compared)."""
    shared = recorded(tmp_path / "v1", {"runs/a.html": OLD})
    (shared / "data" / "build.json").write_text(json.dumps({"site_version": "v1"}))
    (shared / "runs" / "a.html").write_bytes(b"edited")
    stage = Staging(tmp_path / "stage", shared)
    stage.add("runs/a.html", OLD)
    stage.settle()
    assert (stage.folder / "runs" / "a.html").read_bytes() == OLD and stage.linked == 0


def test_only_what_is_shared_is_hashed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``add`` compared the bytes of what it links; settle hashes the stored files and the shared
    version's files that another version holds too (more than one link), nothing else."""
    from generator.publish import write

    names = ("added", "stored", "alone", "linked")
    shared = recorded(tmp_path / "v1", {f"runs/{name}.html": name.encode() for name in names})
    os.link(shared / "runs" / "linked.html", tmp_path / "another-version.html")
    hashed: list[str] = []
    holding = write._holding

    def counted(paths: list[str]) -> list[write.Held | None]:
        hashed.extend(Path(path).relative_to(shared).as_posix() for path in paths)
        return holding(paths)

    monkeypatch.setattr(write, "_holding", counted)
    stage = Staging(tmp_path / "stage", shared)
    stage.add("runs/added.html", b"added")
    stage.add_stored("runs/stored.html", Counted(b"stored"))
    stage.settle()
    assert hashed == ["runs/stored.html", "runs/linked.html"] and stage.linked == 2


def test_freeze_makes_every_file_read_only(shared: Path, tmp_path: Path) -> None:
    stage = Staging(tmp_path / "stage", shared)
    stage.add("runs/a.html", OLD)  # linked: the shared version's file gets the mode too
    stage.add("index.html", b"new")
    stage.settle()
    stage.freeze()
    for path in (stage.folder / "runs" / "a.html", stage.folder / "index.html", shared / "runs" / "a.html"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o444

"""Stat records (``score.statrecords``): a run folder whose files are as the record says is not hashed
again, nor a published version's files (the no-op check, the blind version's scan key, the files a
new version shares); any edit a user can make without root (in place, a swapped file, a change
within the record's second) is, and refused as today when its bytes differ from the seal or the
build record; a record whose MAC fails is ignored; ``verify`` and ``--no-cache`` keep none."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import generator.inputs.discover as discover
from generator import build as pipeline
from generator.errors import VersionConflict
from generator.inputs.discover import FolderReads
from generator.inputs.identity import seals_digest
from generator.inputs.outputs import BUILD_RECORD
from generator.inputs.seal import write_seal
from generator.publish import write
from generator.score.cache import RunCache
from generator.score.run import ScoreOptions, _records
from generator.score.statrecords import CLOCK_SLACK_NS, StatStore
from generator.score.workers import recorded_run, verified_and_recorded
from tests.conftest import run_cli, snapshot, writable

KEY = b"s" * 32
LATER = 5_000_000_000
"""How far ahead of the files' times a test's clock reads: past the racy second."""

Hashes = list[str]


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> Hashes:
    """Every file whose bytes are read and hashed against its seal (``seal.read_verified``)."""
    calls: Hashes = []
    original = discover.read_verified

    def counting(folder: object, rel: str) -> object:
        calls.append(rel)
        return original(folder, rel)  # type: ignore[arg-type]

    monkeypatch.setattr(discover, "read_verified", counting)
    return calls


@pytest.fixture
def run(tmp_path: Path) -> Path:
    folder = tmp_path / "runs" / "r1"
    folder.mkdir(parents=True)
    (folder / "results.jsonl").write_bytes(b'{"id": "a", "score": 1}\n')
    (folder / "meta.json").write_bytes(b'{"model": "m"}\n')
    write_seal(folder)
    return folder


def _store(tmp_path: Path, clock: Callable[[], int] = lambda: time.time_ns() + LATER) -> StatStore:
    return StatStore(tmp_path / "cache", KEY, clock)


def _check(folder: Path, store: StatStore) -> str | None:
    """What a build does with one run (``workers.score_one``): its digest from the record, else
    verified by hashing (and recorded); None when refused."""
    reads = FolderReads()
    recorded = recorded_run(folder, reads, store)
    if recorded is not None:
        return recorded[0]
    verified, _ = verified_and_recorded(folder, reads, store)
    return verified.value.digest if verified.value else None


def _problems(folder: Path, store: StatStore) -> list[str]:
    return [p.render() for p in verified_and_recorded(folder, FolderReads(), store)[0].problems]


def test_an_unchanged_folder_is_hashed_once_then_taken_from_its_record(
    run: Path, tmp_path: Path, hashed: Hashes
) -> None:
    store = _store(tmp_path)
    first = _check(run, store)
    assert sorted(hashed) == ["meta.json", "results.jsonl"]
    assert _check(run, store) == first is not None
    assert _check(run, store) == first
    assert len(hashed) == 2, "the second and third checks hashed nothing"


def _settle() -> None:
    """Wait past the file system's clock tick, so the next change gets a new ctime."""
    time.sleep(0.05)


def test_an_in_place_edit_that_restores_size_and_mtime_is_hashed_and_refused(
    run: Path, tmp_path: Path, hashed: Hashes
) -> None:
    store = _store(tmp_path)
    assert _check(run, store) is not None
    target = run / "results.jsonl"
    before = target.stat()
    _settle()
    target.write_bytes(b'{"id": "a", "score": 9}\n')  # same size
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = target.stat()
    kept = (before.st_size, before.st_mtime_ns, before.st_ino)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == kept
    assert after.st_ctime_ns != before.st_ctime_ns
    hashed.clear()
    assert recorded_run(run, FolderReads(), store) is None
    problems = _problems(run, store)
    assert "results.jsonl" in hashed
    assert len(problems) == 1 and "results.jsonl: hash mismatch: sealed" in problems[0]


def test_a_file_replaced_by_another_inode_is_hashed_again(run: Path, tmp_path: Path, hashed: Hashes) -> None:
    store = _store(tmp_path)
    digest = _check(run, store)
    target = run / "meta.json"
    before = target.stat()
    swap = run.parent / "swap"
    swap.write_bytes(target.read_bytes())
    os.utime(swap, ns=(before.st_atime_ns, before.st_mtime_ns))
    swap.replace(target)
    assert target.stat().st_ino != before.st_ino
    hashed.clear()
    assert _check(run, store) == digest
    assert hashed == ["meta.json", "results.jsonl"]


def test_a_file_changed_within_the_records_second_is_hashed_again(
    run: Path, tmp_path: Path, hashed: Hashes
) -> None:
    newest = max(max(p.stat().st_mtime_ns, p.stat().st_ctime_ns) for p in run.iterdir())
    store = _store(tmp_path, clock=lambda: newest + CLOCK_SLACK_NS)  # the stamp falls in their second
    assert _check(run, store) is not None
    assert recorded_run(run, FolderReads(), store) is None
    hashed.clear()
    assert _check(run, store) is not None
    assert len(hashed) == 2


def test_a_file_changed_after_the_stamp_is_not_taken_on_trust(run: Path, tmp_path: Path) -> None:
    """The stamp is read before the files are examined: a file whose times fall after it is racy,
    even in a later second."""
    newest = max(max(p.stat().st_mtime_ns, p.stat().st_ctime_ns) for p in run.iterdir())
    store = _store(tmp_path, clock=lambda: newest - 2_000_000_000)
    assert _check(run, store) is not None
    assert recorded_run(run, FolderReads(), store) is None


def _record_file(tmp_path: Path) -> Path:
    (record,) = (tmp_path / "cache" / "stats-v1").rglob("*.json")
    return record


@pytest.mark.parametrize(
    "forge",
    [
        lambda raw: raw.replace(b'"stamp":', b'"stamp":1'),
        lambda raw: raw[:8] + (b"0" if raw[8:9] != b"0" else b"1") + raw[9:],
        lambda raw: b"",
    ],
    ids=["field changed", "mac changed", "emptied"],
)
def test_a_record_whose_mac_fails_is_ignored_and_deleted(
    run: Path, tmp_path: Path, hashed: Hashes, forge: Callable[[bytes], bytes]
) -> None:
    store = _store(tmp_path)
    _check(run, store)
    record = _record_file(tmp_path)
    record.write_bytes(forge(record.read_bytes()))
    assert store.load(run) is None and not record.exists()
    hashed.clear()
    assert _check(run, store) is not None
    assert len(hashed) == 2


def test_a_record_signed_with_another_key_is_ignored(run: Path, tmp_path: Path) -> None:
    _check(run, _store(tmp_path))
    other = StatStore(tmp_path / "cache", b"o" * 32, lambda: time.time_ns() + LATER)
    assert other.load(run) is None
    assert recorded_run(run, FolderReads(), other) is None


def test_an_unlisted_file_is_not_taken_on_trust(run: Path, tmp_path: Path) -> None:
    store = _store(tmp_path)
    _check(run, store)
    (run / "extra.txt").write_bytes(b"x")
    assert recorded_run(run, FolderReads(), store) is None
    assert any("extra.txt: is not listed in" in p for p in _problems(run, store))


def test_verify_and_no_cache_keep_no_records(tmp_path: Path) -> None:
    cache = RunCache(tmp_path / "cache", KEY)
    assert _records(ScoreOptions(cache=cache)).folder == tmp_path / "cache"
    assert _records(ScoreOptions(cache=cache, outputs=False)).folder is None  # verify
    assert _records(ScoreOptions(cache=RunCache(None))).folder is None  # --no-cache


def test_without_a_folder_every_file_is_hashed(run: Path, hashed: Hashes) -> None:
    store = StatStore(None)
    for _ in range(2):
        assert _check(run, store) is not None
    assert len(hashed) == 4


def test_a_no_op_rebuild_takes_run_folders_from_their_records(tmp_path: Path, hashed: Hashes) -> None:
    """``seals_digest`` with a stat store's vouching (the no-op check, ``build._inputs_digest``): the
    same digest, the run folders' files not hashed; a folder a record does not cover is."""
    corpus = tmp_path / "corpus"
    bench = corpus / "b1"
    for name in ("r1", "r2"):
        (bench / name).mkdir(parents=True)
        (bench / name / "rows.jsonl").write_bytes(f'{{"run": "{name}"}}\n'.encode())
        write_seal(bench / name)
    (bench / "benchmark.json").write_bytes(b"{}\n")
    write_seal(bench)
    store = _store(tmp_path)
    assert _check(bench / "r1", store) is not None
    hashed.clear()
    hashing = seals_digest(corpus, FolderReads())
    assert sorted(hashed) == ["benchmark.json", "rows.jsonl", "rows.jsonl"]
    hashed.clear()
    reads = FolderReads()
    vouching = seals_digest(
        corpus, reads, vouched=lambda path, nested: store.vouches(path, nested, reads) is not None
    )
    assert vouching == hashing is not None
    assert sorted(hashed) == ["benchmark.json", "rows.jsonl"], "r1 was taken from its record, r2 hashed"


def test_a_published_version_is_hashed_once_then_taken_from_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The no-op check of a published version (``write.check_published`` with stat records): its files
    hashed once and recorded, then not hashed again; a file edited in place since is hashed and the
    version refused as today (exit 5)."""
    version = tmp_path / "site" / "v1"
    (version / "runs").mkdir(parents=True)
    pages = {"index.html": b"<p>hi</p>\n", "runs/r1.html": b"<p>r1</p>\n"}
    for rel, data in pages.items():
        (version / rel).write_bytes(data)
    (version / BUILD_RECORD).parent.mkdir(parents=True, exist_ok=True)
    (version / BUILD_RECORD).write_bytes(b"{}")
    files = {rel: hashlib.sha256(data).hexdigest() for rel, data in pages.items()}
    calls: list[Path] = []
    original = write._sha256
    monkeypatch.setattr(write, "_sha256", lambda path: calls.append(path) or original(path))
    store = _store(tmp_path)
    for _ in range(3):
        write.check_published(version, files, b"{}", b"{}", store)
    assert len(calls) == 2, "hashed on the first check only"
    before = (version / "index.html").stat()
    _settle()
    (version / "index.html").write_bytes(b"<p>ho</p>\n")
    os.utime(version / "index.html", ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(VersionConflict) as refused:
        write.check_published(version, files, b"{}", b"{}", store)
    assert "index.html" in str(refused.value) and refused.value.exit_code == 5
    write.check_published(
        version, {**files, "index.html": hashlib.sha256(b"<p>ho</p>\n").hexdigest()}, b"{}", b"{}"
    )


def test_a_warm_build_hashes_no_run_file_again_and_publishes_the_same_bytes(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole build, in this process (``--jobs 1``), with the clock read past the corpus's racy
    second: the second build (another site, so no no-op) takes every scored run from its record and
    the run cache, hashing only the benchmark folders and the reveal; its site is the same bytes."""
    monkeypatch.setattr(StatStore, "stamp", lambda self: time.time_ns() + LATER - CLOCK_SLACK_NS)
    folders: list[Path] = []
    original = discover.read_verified

    def counting(folder: Any, rel: str) -> Any:
        folders.append(folder.path)
        return original(folder, rel)

    monkeypatch.setattr(discover, "read_verified", counting)
    cache = tmp_path / "cache"
    for out in ("one", "two"):
        result = run_cli("build", "--runs", corpus, "--out", tmp_path / out, "--jobs", "1", "--cache", cache)
        assert result.exit_code == 0, result.output
        if out == "one":
            cold, folders[:] = set(folders), []
    runs = {path for path in cold if path.parent.parent == corpus}
    assert len(runs) > 10
    assert not runs & set(folders) - {path for path in runs if path.name == "reveal"}
    assert snapshot(tmp_path / "one") == snapshot(tmp_path / "two")


def test_the_first_no_op_after_a_build_takes_the_version_it_published_from_its_record(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build records the files of the version it publishes (``build._record_published``), with the
    clock read past their racy second as a build of some seconds would: the no-op that follows hashes
    none of its pages or row files (only the two the site-level note reads); an edit in place since is
    hashed and refused as always (exit 5)."""
    monkeypatch.setattr(StatStore, "stamp", lambda self: time.time_ns() + LATER - CLOCK_SLACK_NS)
    cache, out = tmp_path / "cache", tmp_path / "site"
    build = ("build", "--runs", corpus, "--out", out, "--site-version", "v1", "--cache", cache)
    assert run_cli(*build).exit_code == 0
    calls: list[Path] = []
    original = write._sha256
    monkeypatch.setattr(write, "_sha256", lambda path: calls.append(path) or original(path))
    result = run_cli(*build)
    assert result.exit_code == 0 and "nothing re-rendered" in result.output, result.output
    hashed = {path.relative_to(out / "v1").as_posix() for path in calls if (out / "v1") in path.parents}
    assert hashed <= {"data/build.json", "data/site.json"}, "a page or row file was hashed"
    page = out / "v1" / "index.html"
    page.chmod(0o644)
    page.write_bytes(page.read_bytes().replace(b"</body>", b"<p>edited</p></body>"))
    result = run_cli(*build)
    assert result.exit_code == 5 and "index.html" in result.output, result.output


def test_without_a_cache_a_build_records_nothing_and_its_no_op_hashes_the_version(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(StatStore, "stamp", lambda self: time.time_ns() + LATER - CLOCK_SLACK_NS)
    out = tmp_path / "site"
    build = ("build", "--runs", corpus, "--out", out, "--site-version", "v1")
    assert run_cli(*build, "--no-cache").exit_code == 0
    calls: list[Path] = []
    original = write._sha256
    monkeypatch.setattr(write, "_sha256", lambda path: calls.append(path) or original(path))
    assert run_cli(*build, "--cache", tmp_path / "cache").exit_code == 0
    hashed = {path.relative_to(out / "v1").as_posix() for path in calls if (out / "v1") in path.parents}
    assert "index.html" in hashed and len(hashed) > 10, "nothing vouched: every file hashed"


def test_a_version_is_read_only_as_each_file_is_written_and_freezing_spares_those(tmp_path: Path) -> None:
    """Files of a version's stage are read-only as they are written (their ctime is the write's),
    and ``freeze`` changes only those that are not (a writable file an older generator published,
    linked): a chmod would move a shared file's ctime, in every version that holds it."""
    stage = write.Staging(tmp_path / "stage", read_only=True)
    stage.add("index.html", b"<p>hi</p>\n")
    page = tmp_path / "stage" / "index.html"
    assert stat.S_IMODE(page.stat().st_mode) == write.PUBLISHED_MODE
    before = page.stat().st_ctime_ns
    _settle()
    stage.freeze()
    assert page.stat().st_ctime_ns == before
    loose = write.Staging(tmp_path / "export")
    loose.add("index.html", b"<p>hi</p>\n")
    assert stat.S_IMODE((tmp_path / "export" / "index.html").stat().st_mode) != write.PUBLISHED_MODE


def test_a_file_changed_after_the_build_placed_it_is_not_recorded_as_placed(tmp_path: Path) -> None:
    """Records taken as a version is published vouch only for files as they were once placed: one
    written and changed since (in place, its ctime moved) is left out and hashed by the next no-op,
    even past the racy second; so is a linked file (another version's inode, here an older
    generator's, writable) edited through the other version's path after the link, even with its
    modification time set back; one linked and left alone is recorded."""
    shared = tmp_path / "v1"
    shared.mkdir()
    for name in ("linked.html", "linked-edited.html"):
        (shared / name).write_bytes(b"<p>same</p>\n")  # an older generator's: writable
    stage = write.Staging(tmp_path / "stage", shared, read_only=True, clock=lambda: time.time_ns() + LATER)
    stage.add("kept.html", b"<p>kept</p>\n")
    stage.add("edited.html", b"<p>ours</p>\n")
    stage.add("linked.html", b"<p>same</p>\n")
    stage.add("linked-edited.html", b"<p>same</p>\n")
    assert stage.linked == 2 and stage.written("linked.html") is not None
    _settle()
    edited = tmp_path / "stage" / "edited.html"
    edited.chmod(0o644)
    edited.write_bytes(b"<p>theirs</p>\n")
    other = shared / "linked-edited.html"
    before = other.stat()
    other.write_bytes(b"<p>sane</p>\n")  # the same size, through the older version's path
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    same = hashlib.sha256(b"<p>same</p>\n").hexdigest()
    files = {
        "kept.html": hashlib.sha256(b"<p>kept</p>\n").hexdigest(),
        "edited.html": hashlib.sha256(b"<p>ours</p>\n").hexdigest(),
        "linked.html": same,
        "linked-edited.html": same,
    }
    store = _store(tmp_path)
    store.remember(tmp_path / "stage", files, store.stamp(), stage.written)
    record = store.load(tmp_path / "stage")
    assert record is not None and sorted(record.files) == ["kept.html", "linked.html"]


def test_a_link_to_a_file_written_after_it_was_compared_is_not_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shared file edited between the stage's comparison of its bytes and the link: the link is
    made (the stage compares, it does not lock), but its modification time is not the one compared,
    so the stage does not vouch for it as placed."""
    shared = tmp_path / "v1"
    shared.mkdir()
    target = shared / "raced.html"
    target.write_bytes(b"<p>same</p>\n")
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    link = os.link

    def racing(source: str, destination: str) -> None:
        Path(source).write_bytes(b"<p>sane</p>\n")
        link(source, destination)

    monkeypatch.setattr(write.os, "link", racing)
    stage = write.Staging(tmp_path / "stage", shared, read_only=True, clock=lambda: time.time_ns() + LATER)
    stage.add("raced.html", b"<p>same</p>\n")
    assert stage.linked == 1 and stage.written("raced.html") is None


def test_a_shared_file_changed_while_it_was_compared_is_not_linked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shared file is rewritten (same size, its mtime set back) after the stage read it and
    before the link: its change time moved, so the stage writes its own bytes rather than link it."""
    shared = tmp_path / "v1"
    shared.mkdir()
    target = shared / "raced.html"
    target.write_bytes(b"<p>same</p>\n")
    read = write.read_regular

    def racing(path: Any) -> bytes:
        data = read(path)
        before = Path(path).stat()
        Path(path).write_bytes(b"<p>sane</p>\n")
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        return data

    monkeypatch.setattr(write, "read_regular", racing)
    stage = write.Staging(tmp_path / "stage", shared, read_only=True, clock=lambda: time.time_ns() + LATER)
    stage.add("raced.html", b"<p>same</p>\n")
    assert stage.linked == 0 and (tmp_path / "stage" / "raced.html").read_bytes() == b"<p>same</p>\n"


def test_a_link_to_a_file_changed_within_its_second_is_not_recorded(tmp_path: Path) -> None:
    """The racy rule for links: a shared file written in the second the stage examines it could be
    changed again within the same clock tick with every time kept, so its link is not recorded."""
    shared = tmp_path / "v1"
    shared.mkdir()
    (shared / "fresh.html").write_bytes(b"<p>same</p>\n")
    stage = write.Staging(tmp_path / "stage", shared, read_only=True)
    stage.add("fresh.html", b"<p>same</p>\n")
    assert stage.linked == 1 and stage.written("fresh.html") is None


def test_a_build_in_process_leaves_the_collector_as_it_found_it(corpus: Path, tmp_path: Path) -> None:
    import gc

    before = gc.get_threshold()
    result = run_cli("build", "--runs", corpus, "--out", tmp_path / "site", "--no-cache", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def _published(folder: Path, pages: dict[str, bytes]) -> dict[str, str]:
    """A published version at ``folder``: ``pages`` and a build record listing each one's sha256."""
    for rel, data in pages.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    files = {rel: hashlib.sha256(data).hexdigest() for rel, data in pages.items()}
    (folder / BUILD_RECORD).parent.mkdir(parents=True, exist_ok=True)
    (folder / BUILD_RECORD).write_text(json.dumps({"files": files}))
    return files


def _edit_in_place(file: Path, data: bytes) -> None:
    """Rewrite ``file`` with ``data`` (its size) and set its mtime back: only its ctime moves."""
    before = file.stat()
    assert len(data) == before.st_size
    _settle()
    writable(file).write_bytes(data)
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = file.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    assert after.st_ctime_ns != before.st_ctime_ns


@pytest.fixture
def holding(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every shared file ``Staging.settle`` reads and hashes (``write._holding``), by its name."""
    hashed: list[str] = []
    original = write._holding

    def counting(paths: list[str]) -> list[write.Held | None]:
        hashed.extend(Path(path).name for path in paths)
        return original(paths)

    monkeypatch.setattr(write, "_holding", counting)
    return hashed


class _Stored:
    """A stored file of the run cache (``cache.Kept``), in memory."""

    def __init__(self, data: bytes) -> None:
        self.data, self.size, self.sha256 = data, len(data), hashlib.sha256(data).hexdigest()

    def read(self) -> bytes:
        return self.data


def _settled(
    tmp_path: Path, name: str, shared: Path, store: StatStore | None, pages: dict[str, bytes]
) -> int:
    """A new version staged over ``shared`` from the run cache's ``pages``: the files it linked."""
    stage = write.Staging(tmp_path / name, shared, read_only=True, records=store)
    for rel, data in pages.items():
        stage.add_stored(rel, _Stored(data))
    stage.settle()
    return stage.linked


def test_settle_takes_the_shared_versions_files_from_their_record_and_records_those_it_hashed(
    tmp_path: Path, holding: list[str]
) -> None:
    """``Staging.settle`` with stat records: a shared file recorded, and found as recorded, is not
    read (linked all the same); one the record lacks is hashed and then recorded, so the next stage
    over the same version hashes none. Without records (``--no-cache``) every one is hashed."""
    pages = {"runs/a.html": b"<p>a</p>\n", "runs/b.html": b"<p>b</p>\n"}
    shared = tmp_path / "v1"
    files = _published(shared, pages)
    store = _store(tmp_path)
    store.remember(shared, {"runs/a.html": files["runs/a.html"]}, store.stamp())
    assert _settled(tmp_path, "s1", shared, store, pages) == 2
    assert holding == ["b.html"], "a.html was vouched by its record"
    holding.clear()
    assert _settled(tmp_path, "s2", shared, store, pages) == 2
    assert holding == [], "b.html was recorded as settle hashed it"
    assert _settled(tmp_path, "s3", shared, None, pages) == 2
    assert sorted(holding) == ["a.html", "b.html"]


def test_settle_refuses_a_recorded_shared_file_edited_in_place(tmp_path: Path, holding: list[str]) -> None:
    """A shared file edited in place since it was recorded (same size, its mtime set back) moved its
    ctime: settle hashes it and refuses the version (exit 5), and links nothing."""
    pages = {"runs/a.html": b"<p>a</p>\n", "runs/b.html": b"<p>b</p>\n"}
    shared = tmp_path / "v1"
    files = _published(shared, pages)
    store = _store(tmp_path)
    store.remember(shared, files, store.stamp())
    _edit_in_place(shared / "runs" / "a.html", b"<p>A</p>\n")
    with pytest.raises(VersionConflict, match=r"runs/a\.html differ from") as refused:
        _settled(tmp_path, "s1", shared, store, pages)
    assert refused.value.exit_code == 5 and holding == ["a.html"]
    assert not (tmp_path / "s1" / "runs" / "b.html").exists()


def test_settle_never_records_a_file_it_linked_within_the_records_second(tmp_path: Path) -> None:
    """With the real clock: a link moves the shared file's ctime into the record's second, so the
    file settle hashed and then linked is left out of the shared version's record (racy); the one it
    hashed and did not link (the new version has other bytes there) is recorded."""
    pages = {"runs/a.html": b"<p>a</p>\n", "runs/b.html": b"<p>b</p>\n"}
    shared = tmp_path / "v1"
    _published(shared, pages)
    time.sleep(1.2)  # the files' times a second behind the stamp: not racy
    store = StatStore(tmp_path / "cache", KEY)
    assert _settled(tmp_path, "s1", shared, store, {**pages, "runs/b.html": b"<p>B</p>\n"}) == 1
    record = store.load(shared)
    assert record is not None and sorted(record.files) == ["runs/b.html"]


def _options(tmp_path: Path) -> ScoreOptions:
    return ScoreOptions(cache=RunCache(tmp_path / "cache", KEY))


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file the blind scan's key reads and hashes (``build._hashed_in_workers``), by its path."""
    hashed: list[str] = []
    original = pipeline._hashed_in_workers

    def counting(files: Any, workers: int, locks: tuple[int, ...]) -> list[str]:
        hashed.extend(rel for rel, _ in files)
        return original(files, workers, locks)

    monkeypatch.setattr(pipeline, "_hashed_in_workers", counting)
    return hashed


def test_the_blind_scan_takes_a_published_versions_sha256s_from_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scanned: list[str]
) -> None:
    """``build._sha256s_of`` (the scan key of a published blind version): hashed once and recorded,
    then taken from the record; a file edited in place since (same size, mtime set back) is hashed
    again and yields its new sha256. Without a cache, or a version only staged, all are hashed."""
    monkeypatch.setattr(StatStore, "stamp", lambda self: time.time_ns() + LATER - CLOCK_SLACK_NS)
    version = tmp_path / "site" / "v1"
    pages = {"index.html": b"<p>hi</p>\n", "runs/r1.html": b"<p>r1</p>\n"}
    _published(version, pages)
    files = [(rel, (version / rel).read_bytes) for rel in sorted(pages)]
    expected = [hashlib.sha256(pages[rel]).hexdigest() for rel, _ in files]
    hashed = scanned
    options = _options(tmp_path)
    for _ in range(3):
        assert pipeline._sha256s_of(files, version, options) == expected
    assert hashed == ["index.html", "runs/r1.html"], "hashed on the first scan only"
    hashed.clear()
    _edit_in_place(version / "index.html", b"<p>ho</p>\n")
    found = pipeline._sha256s_of(files, version, options)
    assert found == [hashlib.sha256(b"<p>ho</p>\n").hexdigest(), expected[1]] and hashed == ["index.html"]
    hashed.clear()
    assert pipeline._sha256s_of(files, version, ScoreOptions()) == found
    assert pipeline._sha256s_of(files, None, options) == found
    assert hashed == ["index.html", "runs/r1.html"] * 2


def _reveal(corpus: Path) -> tuple[str, str]:
    """The blind version the corpus's reveal cites, and one name it reveals."""
    reveal = json.loads((corpus / "vibe-delivery" / "reveal" / "reveal.json").read_text(encoding="utf-8"))
    return reveal["scores_version"], next(iter(reveal["providers"].values()))


def test_a_build_over_a_recorded_site_hashes_neither_the_blind_version_nor_the_shared_one(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, holding: list[str], scanned: list[str]
) -> None:
    """A second build into a site whose versions the first recorded as it published them (the clock
    read past their racy second) hashes no file of the blind version for its scan key and no file of
    the version it shares from. A blind page edited in place since
    (same size, mtime set back) to show a revealed name is hashed, scanned and refused as today."""
    monkeypatch.setattr(StatStore, "stamp", lambda self: time.time_ns() + LATER - CLOCK_SLACK_NS)
    hashed = scanned
    cache, out = tmp_path / "cache", tmp_path / "site"

    def build(version: str) -> Any:
        hashed.clear()
        holding.clear()
        args = ("--runs", corpus, "--out", out, "--site-version", version, "--cache", cache, "--jobs", "1")
        return run_cli("build", *args)

    assert build("v1").exit_code == 0
    result = build("v2")
    assert result.exit_code == 0, result.output
    assert hashed == [] and holding == [], "a recorded file was hashed"
    blind, name = _reveal(corpus)
    page = out / blind / "index.html"
    data = page.read_bytes()
    at = data.index(b"</main>") - len(name.encode())
    _edit_in_place(page, data[:at] + name.encode() + data[at + len(name.encode()) :])
    result = build("v3")
    assert result.exit_code == 4 and f"{blind}/index.html" in result.output, result.output
    assert hashed == ["index.html"], "only the edited page was hashed"


def test_a_build_refuses_a_recorded_file_of_the_shared_version_edited_in_place(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, holding: list[str]
) -> None:
    """A run page of the version a build shares from, recorded as it was published and edited in
    place since (same size, mtime set back): the build hashes it (and only it) and refuses (exit 5)."""
    monkeypatch.setattr(StatStore, "stamp", lambda self: time.time_ns() + LATER - CLOCK_SLACK_NS)
    cache, out = tmp_path / "cache", tmp_path / "site"
    args = ("--runs", corpus, "--out", out, "--cache", cache, "--jobs", "1")
    assert run_cli("build", *args, "--site-version", "v1").exit_code == 0
    files = json.loads((out / "v1" / BUILD_RECORD).read_bytes())["files"]
    rel = next(rel for rel in sorted(files) if "/runs/" in rel and rel.endswith(".html"))
    data = (out / "v1" / rel).read_bytes()
    _edit_in_place(out / "v1" / rel, data.replace(b"</body>", b"</BODY>"))
    holding.clear()
    result = run_cli("build", *args, "--site-version", "v2")
    assert result.exit_code == 5 and "changed after publication" in result.output, result.output
    assert rel in result.output and holding == [Path(rel).name]

"""Issue 18 (Hardening II), the output side: the site lock and staging, the run-details spools, the
versions index, the no-op rebuild and the run cache. Each test failed before its fix."""

from __future__ import annotations

import hmac
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from generator.publish.write import lock_path, temp_prefix
from generator.score.details import Details
from tests.conftest import CORPUS, run_cli, snapshot, writable
from tests.test_blind_scan import (
    BLIND,
    REVEALED,
    runs_naming_a_provider,
)

# --- the site lock and the staging folders (item 17, and a refused build's lock) ------------------


def test_a_planted_lock_symlink_is_refused_and_its_target_never_created(
    tmp_path: Path, one_benchmark: Path
) -> None:
    out, outside = tmp_path / "site", tmp_path / "outside" / "made-by-benchsite"
    out.mkdir()
    outside.parent.mkdir()
    lock_path(out).symlink_to(outside)
    result = run_cli("build", "--runs", one_benchmark, "--out", out, "--site-version", "v1", "--quiet")
    assert result.exit_code == 2, result.output
    assert f"{lock_path(out)}: is a symbolic link" in result.output
    assert not outside.exists()
    assert sorted(p.name for p in out.iterdir()) == []


@pytest.mark.parametrize("where", ["beside", "inside"])
def test_a_planted_staging_symlink_is_refused_naming_it(
    tmp_path: Path, where: str, one_benchmark: Path
) -> None:
    """Beside the site, where staging folders go, and inside it, where earlier versions put them."""
    out, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("not benchsite's")
    parent, prefix = temp_prefix(out)
    planted = parent / f"{prefix}planted" if where == "beside" else out / ".benchsite-tmp-planted"
    planted.symlink_to(elsewhere)
    result = run_cli("build", "--runs", one_benchmark, "--out", out, "--site-version", "v1", "--quiet")
    assert result.exit_code == 2, result.output
    assert f"{planted}: is a symbolic link" in result.output
    assert "None" not in result.output
    assert (elsewhere / "keep.txt").read_text() == "not benchsite's"
    assert sorted(p.name for p in out.iterdir()) == ([] if where == "beside" else [planted.name])


def test_a_build_leaves_no_lock_file_in_the_site(tmp_path: Path, one_benchmark: Path) -> None:
    out = tmp_path / "site"
    result = run_cli("build", "--runs", one_benchmark, "--out", out, "--site-version", "v1", "--quiet")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []
    parent, prefix = temp_prefix(out)
    assert not lock_path(out).exists() and not list(parent.glob(f"{prefix}*"))


def test_a_refused_build_into_a_new_out_leaves_no_out_behind(tmp_path: Path) -> None:
    """The refusal comes after the site lock was taken (the blind version's scan)."""
    runs = runs_naming_a_provider(tmp_path)
    out = tmp_path / "new" / "site"
    result = run_cli("build", "--runs", runs, "--out", out, "--site-version", REVEALED)
    assert result.exit_code == 4, result.output
    assert not out.exists()


def test_a_refused_build_into_an_existing_site_leaves_it_byte_identical(tmp_path: Path) -> None:
    """A version conflict is found with the site lock held: nothing of the build may remain."""
    out = tmp_path / "site"
    assert run_cli("build", "--runs", CORPUS, "--out", out, "--site-version", "v1", "-q").exit_code == 0
    before = snapshot(out)
    runs = tmp_path / "runs"
    shutil.copytree(CORPUS, runs)
    shutil.rmtree(runs / "agent-dx")
    result = run_cli("build", "--runs", runs, "--out", out, "--site-version", "v1", "-q")
    assert result.exit_code == 5, result.output
    assert snapshot(out) == before
    assert not lock_path(out).exists()


# --- run-details spools (item 11) ------------------------------------------------------------------


def _dead_pid() -> int:
    """The PID of a process that has exited: what a live build in another PID namespace looks like."""
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    return int(child.stdout)


def test_the_spool_sweep_keeps_a_running_builds_spool_whatever_its_pid_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    running = Details()
    try:
        elsewhere = tmp_path / f"{Details.PREFIX}{_dead_pid()}-other"
        running.folder.rename(elsewhere)  # its PID means nothing here; it is still being written
        running.folder = elsewhere
        running.put_bytes("bench", "run", b"{}")
        killed = tmp_path / f"{Details.PREFIX}{_dead_pid()}-killed"
        (killed / "bench" / "rows").mkdir(parents=True)
        Details.sweep_stale()
        assert (elsewhere / "bench" / "rows" / "run.json").read_bytes() == b"{}"
        assert not killed.exists()  # no build holds it: swept
    finally:
        running.close()
    assert not elsewhere.exists()


def test_a_spool_swept_before_it_is_locked_is_replaced_by_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another build's sweep may remove a new spool between its creation and its lock (it is not
    locked yet, so nothing holds it): the build takes another spool instead of failing."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    made = tempfile.mkdtemp
    swept: list[str] = []

    def swept_once(*args: Any, **kwargs: Any) -> str:
        folder = made(*args, **kwargs)
        if not swept:
            swept.append(folder)
            Details.sweep_stale()  # as a concurrent build would, before this one locks it
        return folder

    monkeypatch.setattr(tempfile, "mkdtemp", swept_once)
    details = Details()
    try:
        assert swept and not Path(swept[0]).exists()
        assert details.folder.is_dir() and str(details.folder) != swept[0]
        details.put_bytes("bench", "run", b"{}")
    finally:
        details.close()


# --- the versions index: damaged earlier versions (item 7), versions the site never recorded --------


def _build(runs: Path, out: Path, version: str) -> None:
    result = run_cli("build", "--runs", runs, "--out", out, "--site-version", version, "--quiet")
    assert result.exit_code == 0, result.output


def _versions(out: Path) -> dict[str, object]:
    index: dict[str, object] = json.loads((out / "versions.json").read_bytes())
    return index


def test_a_damaged_earlier_version_is_not_comparable_never_a_crash(tmp_path: Path) -> None:
    out = tmp_path / "site"
    _build(CORPUS, out, "v1")
    site_json = out / "v1" / "data" / "site.json"
    report = json.loads(site_json.read_bytes())
    ranked = next(b for b in report["benchmarks"] if b["rankings"])
    ranked["rankings"][0]["rows"][0]["estimate"] = "a string where a figure was"
    writable(site_json).write_text(json.dumps(report), encoding="utf-8")
    result = run_cli("build", "--runs", CORPUS, "--out", out, "--site-version", "v2", "--quiet")
    assert result.exit_code == 0, result.output
    change = json.loads((out / "versions.json").read_bytes())["changes"][-1]
    assert (change["version"], change["comparable"]) == ("v2", False)
    assert "v1" in change["note"] and "data/site.json" in change["note"]
    assert "Not comparable" in (out / "index.html").read_text(encoding="utf-8")


def test_the_root_index_lists_only_versions_the_site_recorded(tmp_path: Path) -> None:
    out = tmp_path / "site"
    _build(CORPUS, out, "v1")
    shutil.copytree(out / "v1", out / "copy-of-v1")  # holds a data/build.json, was never published
    (out / "stray" / "data").mkdir(parents=True)
    (out / "stray" / "data" / "build.json").write_text("{}")
    _build(CORPUS, out, "v2")
    assert json.loads((out / "versions.json").read_bytes())["versions"] == [BLIND, "v1", "v2"]
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "copy-of-v1" not in page and "stray" not in page
    (out / "versions.json").unlink()  # the record lost: rebuilt from folders whose record names them
    _build(CORPUS, out, "v3")
    assert json.loads((out / "versions.json").read_bytes())["versions"] == [BLIND, "v1", "v2", "v3"]


# --- the no-op rebuild verifies the published bytes (item 8) ---------------------------------------


@pytest.mark.parametrize(
    ("rel", "change"),
    [
        ("index.html", lambda data: data.replace(b"</main>", b"<p>tampered</p></main>")),
        ("data/site.json", lambda data: data + b"\n"),
        ("data/build.json", lambda data: data.replace(b'"title": "', b'"title": "Tampered ', 1)),
    ],
)
def test_a_no_op_rebuild_refuses_a_tampered_published_file(
    tmp_path: Path, rel: str, change: Callable[[bytes], bytes], one_benchmark: Path
) -> None:
    out = tmp_path / "site"
    _build(one_benchmark, out, "v1")
    page = out / "v1" / rel
    tampered = change(page.read_bytes())
    assert tampered != page.read_bytes()
    writable(page).write_bytes(tampered)
    result = run_cli("build", "--runs", one_benchmark, "--out", out, "--site-version", "v1", "--quiet")
    assert result.exit_code == 5, result.output
    assert f"{out / 'v1'}: published version 'v1' was changed after publication: {rel}" in result.output
    assert page.read_bytes() == tampered  # refused, not rewritten: versions are immutable


def test_a_no_op_rebuild_refuses_a_published_file_added_or_removed(
    tmp_path: Path, one_benchmark: Path
) -> None:
    out = tmp_path / "site"
    _build(one_benchmark, out, "v1")
    (out / "v1" / "extra.html").write_text("<p>planted</p>")
    result = run_cli("build", "--runs", one_benchmark, "--out", out, "--site-version", "v1", "--quiet")
    assert (result.exit_code, "extra.html" in result.output) == (5, True), result.output
    (out / "v1" / "extra.html").unlink()
    (out / "v1" / "report.html").unlink()
    result = run_cli("build", "--runs", one_benchmark, "--out", out, "--site-version", "v1", "--quiet")
    assert (result.exit_code, "report.html" in result.output) == (5, True), result.output


def test_an_untouched_version_is_still_a_no_op(tmp_path: Path, one_benchmark: Path) -> None:
    out = tmp_path / "site"
    _build(one_benchmark, out, "v1")
    before = snapshot(out)
    result = run_cli("build", "--runs", one_benchmark, "--out", out, "--site-version", "v1")
    assert result.exit_code == 0, result.output
    assert "unchanged:" in result.output and "published file" in result.output
    assert snapshot(out) == before


# --- the run cache: keyed entries, owner and mode checks (item 4) ----------------------------------


def _cached_build(runs: Path, out: Path, cache: Path, key: Path, *more: str) -> str:
    result = run_cli("build", "--runs", runs, "--out", out, "--site-version", "v1", "--cache", cache, *more)
    assert result.exit_code == 0, result.output
    return result.output


def _reused(output: str) -> int:
    return int(re.search(r"reused from the run cache (\d+)", output)[1])  # type: ignore[index]


@pytest.fixture
def keyed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A run cache folder and the user's key file, both private and apart."""
    cache, key = tmp_path / "cache", tmp_path / "config" / "cache-key"
    monkeypatch.setenv("BENCHSITE_CACHE_KEY", str(key))
    return cache, key


def _run_entries(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "runs-v1").rglob("*.json") if not p.name.endswith(".detail.json"))


def _reseal_entry(path: Path, key: bytes) -> None:
    """What a forger with write access does after changing an entry: sign it again exactly as the
    cache does (its fields as compact JSON, their MAC written first), with the only key they have
    (their own)."""
    fields = json.loads(path.read_bytes())
    fields.pop("mac", None)
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
    body = text.encode("utf-8")
    path.write_bytes(b'{"mac":"' + hmac.new(key, body, "sha256").hexdigest().encode() + b'",' + body[1:])


@pytest.mark.slow
def test_a_forged_run_entry_with_recomputed_checksums_is_redone(
    tmp_path: Path, keyed: tuple[Path, Path], one_benchmark: Path
) -> None:
    cache, key = keyed
    first = _cached_build(one_benchmark, tmp_path / "a", cache, key)
    entries = _run_entries(cache)
    assert entries and _reused(_cached_build(one_benchmark, tmp_path / "warm", cache, key)) > 0
    _forge(entries)
    # Without the ledgers every run is judged by its forged entry alone: none may be reused.
    shutil.rmtree(cache / "ledgers-v1")
    output = _cached_build(one_benchmark, tmp_path / "b", cache, key)
    assert _reused(output) == 0, output
    assert b"FORGED-PRODUCER" not in (tmp_path / "b" / "v1" / "data" / "site.json").read_bytes()
    assert snapshot(tmp_path / "b") == snapshot(tmp_path / "a"), first
    # With the signed ledgers in place a run may be vouched by its ledger line (signed, untouched by
    # the forger) once its stat records leave the racy second, which depends on timing: the property
    # held is that no forged byte is published, whichever path each run takes.
    _forge(_run_entries(cache))
    output = _cached_build(one_benchmark, tmp_path / "c", cache, key)
    assert snapshot(tmp_path / "c") == snapshot(tmp_path / "a"), output


def _forge(entries: list[Path]) -> None:
    for entry in entries:
        fields = json.loads(entry.read_bytes())
        fields["summary"]["producer"] = "FORGED-PRODUCER"
        entry.write_text(json.dumps(fields))
        _reseal_entry(entry, b"the forger's own key")


@pytest.mark.slow
def test_entries_kept_under_another_users_key_are_redone(
    tmp_path: Path, keyed: tuple[Path, Path], one_benchmark: Path
) -> None:
    cache, key = keyed
    _cached_build(one_benchmark, tmp_path / "a", cache, key)
    assert _reused(_cached_build(one_benchmark, tmp_path / "b", cache, key)) > 0
    key.unlink()  # another user (another key) sharing the folder
    assert _reused(_cached_build(one_benchmark, tmp_path / "c", cache, key)) == 0


def test_the_key_is_created_private_and_a_shared_one_is_refused(
    tmp_path: Path, keyed: tuple[Path, Path], one_benchmark: Path
) -> None:
    cache, key = keyed
    _cached_build(one_benchmark, tmp_path / "a", cache, key)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert re.fullmatch(r"[0-9a-f]{64}\n", key.read_text())
    key.chmod(0o644)
    output = _cached_build(one_benchmark, tmp_path / "b", cache, key)
    assert f"warning: {cache}: not used as the run cache: {key}: readable or writable by others" in output
    assert _reused(output) == 0


def test_a_cache_folder_writable_by_others_is_not_used(
    tmp_path: Path, keyed: tuple[Path, Path], one_benchmark: Path
) -> None:
    cache, key = keyed
    _cached_build(one_benchmark, tmp_path / "a", cache, key)
    cache.chmod(0o777)
    output = _cached_build(one_benchmark, tmp_path / "b", cache, key)
    assert f"warning: {cache}: not used as the run cache: {cache}: writable by others" in output
    assert _reused(output) == 0
    assert snapshot(tmp_path / "b") == snapshot(tmp_path / "a")


@pytest.mark.slow  # two builds per case
@pytest.mark.parametrize("how", ["another owner", "group-writable"])
def test_a_cache_entry_not_owned_by_the_user_or_writable_by_others_is_redone(
    tmp_path: Path, keyed: tuple[Path, Path], how: str, one_benchmark: Path
) -> None:
    if how == "another owner" and os.geteuid() != 0:
        pytest.skip("giving a file to another owner needs root")
    cache, key = keyed
    _cached_build(one_benchmark, tmp_path / "a", cache, key)
    entries = _run_entries(cache)
    for entry in entries:
        if how == "another owner":
            os.chown(entry, os.geteuid() + 4242, -1)
        else:
            entry.chmod(0o664)
    # the signed ledger (the user's own, untouched) may vouch a run without reading its entry once
    # its stat records leave the racy second: removed, so that every run is judged by its entry
    shutil.rmtree(cache / "ledgers-v1")
    assert _reused(_cached_build(one_benchmark, tmp_path / "b", cache, key)) == 0


def test_a_new_cache_and_key_below_missing_folders_are_made_private_and_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, one_benchmark: Path
) -> None:
    cache, key = tmp_path / "xdg-cache" / "benchsite", tmp_path / "xdg-config" / "benchsite" / "cache-key"
    monkeypatch.setenv("BENCHSITE_CACHE_KEY", str(key))
    assert "warning" not in _cached_build(one_benchmark, tmp_path / "a", cache, key)
    assert _reused(_cached_build(one_benchmark, tmp_path / "b", cache, key)) > 0
    assert stat.S_IMODE(cache.stat().st_mode) == stat.S_IMODE(key.parent.stat().st_mode) == 0o700


def test_a_key_in_a_folder_others_can_write_is_refused(
    tmp_path: Path, keyed: tuple[Path, Path], one_benchmark: Path
) -> None:
    cache, key = keyed
    _cached_build(one_benchmark, tmp_path / "a", cache, key)
    key.parent.chmod(0o777)  # anyone could put their own key there, and forge entries with it
    output = _cached_build(one_benchmark, tmp_path / "b", cache, key)
    assert f"warning: {cache}: not used as the run cache: {key.parent}: writable by others" in output


@pytest.mark.slow
def test_a_version_whose_record_lists_no_hashes_is_compared_byte_for_byte(tmp_path: Path) -> None:
    """Published by an older generator (no ``files`` in its record): the full path compares bytes."""
    out = tmp_path / "site"
    _build(CORPUS, out, "v1")
    record = out / "v1" / "data" / "build.json"
    fields = json.loads(record.read_bytes())
    del fields["files"]
    writable(record).write_text(json.dumps(fields, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    again = run_cli("build", "--runs", CORPUS, "--out", out, "--site-version", "v1")
    assert again.exit_code == 0 and "verified byte for byte" in again.output, again.output
    report = out / "v1" / "report.html"
    writable(report).write_bytes(report.read_bytes() + b"<!-- tampered -->")
    refused = run_cli("build", "--runs", CORPUS, "--out", out, "--site-version", "v1", "--quiet")
    assert refused.exit_code == 5 and "different bytes in report.html" in refused.output, refused.output

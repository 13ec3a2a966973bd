"""``benchsite verify --site SITE [--version V]``: a published version re-derived from its inputs with
no run cache and compared byte for byte. What a no-op rebuild cannot see (a version whose files and
build record were edited together, figures from a run cache entry signed with the user's key) is
named file by file (exit 5); an untouched version, a blind one included, passes (exit 0)."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import CORPUS, run_cli, snapshot, writable


def _build(runs: Path, out: Path, version: str, *more: str | Path) -> str:
    result = run_cli("build", "--runs", runs, "--out", out, "--site-version", version, *more)
    assert result.exit_code == 0, result.output
    return result.output


def _audit(runs: Path, site: Path, *more: str) -> tuple[int, str]:
    result = run_cli("verify", "--runs", runs, "--site", site, *more)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


def test_an_untouched_version_equals_its_rederivation(tmp_path: Path, one_benchmark: Path) -> None:
    site = tmp_path / "site"
    _build(one_benchmark, site, "v1", "--no-cache", "--quiet")
    before = snapshot(site)
    code, output = _audit(one_benchmark, site)
    assert code == 0, output
    files = sum(1 for p in (site / "v1").rglob("*") if p.is_file())
    assert f"re-derived: {site / 'v1'}: each of its {files} files equals its re-derivation" in output
    assert snapshot(site) == before  # the site is read, never written


def test_each_version_is_rederived_on_the_versions_published_before_it(
    tmp_path: Path, one_benchmark: Path
) -> None:
    """A later version's pages say what changed since the one before it: its re-derivation is built
    on a copy of that one, and an earlier version's on none of the later ones."""
    site = tmp_path / "site"
    _build(one_benchmark, site, "v1", "--no-cache", "--quiet")
    _build(one_benchmark, site, "v2", "--no-cache", "--quiet")
    for version in ("v1", "v2"):
        code, output = _audit(one_benchmark, site, "--version", version)
        assert code == 0, output


def _edit_with_its_record(version: Path, rel: str, old: bytes, new: bytes) -> None:
    """What an editor who knows the format does: change a published file and list its new sha256 in
    the version's build record, so the no-op rebuild's own check holds."""
    page = version / rel
    data = page.read_bytes()
    assert old in data
    writable(page).write_bytes(data.replace(old, new))
    record_path = version / "data" / "build.json"
    record = json.loads(record_path.read_bytes())
    record["files"][rel] = hashlib.sha256(page.read_bytes()).hexdigest()
    writable(record_path).write_bytes(json.dumps(record, indent=2, sort_keys=True).encode() + b"\n")


def test_a_file_edited_with_its_build_record_is_named(tmp_path: Path, one_benchmark: Path) -> None:
    site = tmp_path / "site"
    _build(one_benchmark, site, "v1", "--no-cache", "--quiet")
    _edit_with_its_record(site / "v1", "report.html", b"</main>", b"<p>edited</p></main>")
    rebuilt = run_cli("build", "--runs", one_benchmark, "--out", site, "--site-version", "v1", "--no-cache")
    assert rebuilt.exit_code == 0 and "unchanged:" in rebuilt.output  # what the no-op check cannot see
    code, output = _audit(one_benchmark, site, "--version", "v1")
    assert code == 5, output
    lines = output.strip().splitlines()
    assert lines[:2] == [
        f"Error: {site / 'v1' / 'data' / 'build.json'}: differs from its re-derivation",
        f"{site / 'v1' / 'report.html'}: differs from its re-derivation",
    ], output
    assert lines[2].startswith(f"2 file(s) of {site / 'v1'} differ from its re-derivation"), output


def test_a_file_added_or_removed_is_named(tmp_path: Path, one_benchmark: Path) -> None:
    site = tmp_path / "site"
    _build(one_benchmark, site, "v1", "--no-cache", "--quiet")
    (site / "v1" / "planted.html").write_text("<p>planted</p>")
    (site / "v1" / "release-notes.md").unlink()
    code, output = _audit(one_benchmark, site)
    assert code == 5, output
    assert f"{site / 'v1' / 'planted.html'}: not in its re-derivation" in output
    assert f"{site / 'v1' / 'release-notes.md'}: missing (its re-derivation writes it)" in output


def _sign(path: Path, fields: dict[str, object], key: bytes) -> None:
    """An entry signed as the run cache signs one (``_reseal_entry`` of test_hardening_output), here
    with the user's own key: someone who can read it (the user, root, a process running as them)."""
    fields.pop("mac", None)
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
    body = text.encode("utf-8")
    path.write_bytes(b'{"mac":"' + hmac.new(key, body, "sha256").hexdigest().encode() + b'",' + body[1:])


@pytest.mark.slow
def test_figures_from_a_poisoned_run_cache_are_found(
    tmp_path: Path, one_benchmark: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, key_file = tmp_path / "cache", tmp_path / "config" / "cache-key"
    monkeypatch.setenv("BENCHSITE_CACHE_KEY", str(key_file))
    site = tmp_path / "site"
    _build(one_benchmark, site, "v1", "--cache", cache, "--quiet")
    key = bytes.fromhex(key_file.read_text().strip())
    entries = sorted(p for p in (cache / "runs-v1").rglob("*.json") if not p.name.endswith(".detail.json"))
    assert entries
    for entry in entries:
        fields = json.loads(entry.read_bytes())
        fields["summary"]["producer"] = "POISONED-PRODUCER"
        _sign(entry, fields, key)
    shutil.rmtree(cache / "ledgers-v1")  # the ledgers' lines would vouch the runs' true figures
    _build(one_benchmark, site, "v2", "--cache", cache, "--quiet")
    assert b"POISONED-PRODUCER" in (site / "v2" / "data" / "site.json").read_bytes()  # the attack held
    code, output = _audit(one_benchmark, site, "--version", "v2")
    assert code == 5, output
    assert f"{site / 'v2' / 'data' / 'site.json'}: differs from its re-derivation" in output
    assert _audit(one_benchmark, site, "--version", "v1")[0] == 0  # built before the poisoning


def test_a_version_built_from_other_inputs_is_said_so(tmp_path: Path, one_benchmark: Path) -> None:
    site = tmp_path / "site"
    _build(one_benchmark, site, "v1", "--no-cache", "--quiet")
    code, output = _audit(CORPUS, site)
    assert code == 5, output
    assert (
        f"Error: {site / 'v1' / 'data' / 'build.json'}: inputs_digest: the version was built from " in output
    )
    assert "re-derive a version from the inputs it was built from" in output


@pytest.mark.parametrize("version", ["nope", "../v1"])
def test_a_version_the_site_did_not_publish_is_a_usage_error(
    tmp_path: Path, one_benchmark: Path, version: str
) -> None:
    site = tmp_path / "site"
    _build(one_benchmark, site, "v1", "--no-cache", "--quiet")
    code, output = _audit(one_benchmark, site, "--version", version)
    assert code == 2, output
    assert f"Error: {site}: --version {version}: not a version this site published (v1)" in output


@pytest.mark.slow
def test_the_blind_version_and_its_reveal_are_rederived(tmp_path: Path) -> None:
    """The example corpus publishes a blind version, then the version revealing it: the blind one is
    re-derived by the reveal's build (from the inputs without their reveal folders)."""
    site = tmp_path / "site"
    _build(CORPUS, site, "v1", "--no-cache", "--quiet")
    (blind,) = [p.name for p in site.iterdir() if p.is_dir() and p.name not in ("v1", "badges")]
    assert _audit(CORPUS, site)[0] == 0  # the latest: v1
    assert _audit(CORPUS, site, "--version", blind)[0] == 0
    _edit_with_its_record(site / blind, "index.html", b"</main>", b"<p>edited</p></main>")
    code, output = _audit(CORPUS, site, "--version", blind)
    assert code == 5 and f"{site / blind / 'index.html'}: differs from its re-derivation" in output, output


@pytest.mark.parametrize("option", [("--version", "v1"), ("--accent", "#000")])
def test_the_options_of_a_rederivation_need_site(option: tuple[str, str]) -> None:
    result = run_cli("verify", "--runs", CORPUS, *option)
    assert result.exit_code == 2
    assert "--version and the site look options apply only with --site" in result.output


def test_a_rederivation_does_not_run_on_a_cluster(tmp_path: Path) -> None:
    command = ("verify", "--runs", CORPUS, "--site", tmp_path, "--executor", "dask")
    result = run_cli(*command, "--scheduler", "tcp://127.0.0.1:1")
    assert result.exit_code == 2
    assert "--site re-derives every run on this machine: --executor dask does not apply" in result.output

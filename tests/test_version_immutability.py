"""Editing one version never silently changes another.

Versions share their unchanged files as hard links: one file, several versions. Every file of a
published version is read-only (0444), and a build checks the last version against the sha256 its
``data/build.json`` lists wherever a file is shared: each file the new version would share, and each
file another version holds as the same file. One changed after publication, whichever way a person or
a tool rewrote it, is refused (exit 5) naming the file, the version and every version that holds the
same file; nothing is published and no staging folder is left. A change confined to the last
version's own file (shared with no version) is that version's: its own rebuild refuses it. The tests
run as root, which the mode bits do not stop: they check the mode, and the build's check for what
gets past it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import corpus_of, reseal, run_cli, snapshot, writable

RUN_PAGE = "b/agent-dx/runs/run-subject-15bb-1.html"
"""A run page every version of these inputs shares (from the run cache: ``Staging.add_stored``)."""
CSV = "data/csv/agent-dx/ready-rate.csv"
"""A file shared because its rendered bytes are equal (``Staging.add``)."""
EDIT = b"<p>edited after publication</p>\n"


def build(runs: Path, site: Path, version: str, *options: str) -> Result:
    return run_cli("build", "--runs", runs, "--out", site, "--site-version", version, "--quiet", *options)


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    return corpus_of(tmp_path / "runs", "agent-dx")


@pytest.fixture
def site(runs: Path, tmp_path: Path) -> Path:
    """Versions A and B of the same inputs: B's unchanged files are A's, linked."""
    site = tmp_path / "site"
    for version in ("A", "B"):
        result = build(runs, site, version)
        assert result.exit_code == 0, result.output
    for rel in (RUN_PAGE, CSV):
        assert (site / "A" / rel).stat().st_ino == (site / "B" / rel).stat().st_ino
    return site


def in_place(path: Path) -> None:
    """Open for writing, truncate, write: what most editors and scripts do (as root, or as the owner
    whose tool makes the file writable first)."""
    with writable(path).open("wb") as handle:
        handle.write(EDIT)


def same_size(path: Path) -> None:
    """Overwrite bytes without changing the size (``r+``)."""
    with writable(path).open("r+b") as handle:
        handle.write(b"X")


def appended(path: Path) -> None:
    with writable(path).open("ab") as handle:
        handle.write(b"<!-- appended -->\n")


def truncated(path: Path) -> None:
    os.truncate(writable(path), 0)


def chmod_then_write(path: Path) -> None:
    """What a user who is not root does to get past the mode."""
    path.chmod(0o644)
    path.write_bytes(EDIT)


def renamed_over(path: Path) -> None:
    """Write a new file and rename it over the old one (an atomic save): a new file in B alone."""
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_bytes(EDIT)
    temp.replace(path)


def removed(path: Path) -> None:
    path.unlink()


IN_PLACE: list[Callable[[Path], None]] = [in_place, same_size, appended, truncated, chmod_then_write]
"""Ways that change the file itself: every version that holds it changes with it."""
BESIDE: list[Callable[[Path], None]] = [renamed_over, removed]
"""Ways that change the path in B alone: A keeps its file."""


def refused(site: Path, runs: Path, rel: str, *options: str) -> str:
    """Build version C; check it is refused as a changed version B, with nothing left behind."""
    before = {p.name for p in site.parent.iterdir()}
    result = build(runs, site, "C", *options)
    assert result.exit_code == 5, result.output
    assert f"{site / 'B'}: published version 'B' was changed after publication: {rel}" in result.output
    assert "no version is built on files shared with it" in result.output
    assert not (site / "C").exists()
    assert {p.name for p in site.parent.iterdir()} == before  # no staging folder left beside the site
    assert not [p for p in site.iterdir() if p.name.startswith(".")]
    assert b'"C"' not in (site / "versions.json").read_bytes()
    return str(result.output)


@pytest.mark.parametrize("rewrite", IN_PLACE, ids=lambda way: way.__name__)
def test_an_edit_in_place_of_a_shared_file_is_refused_naming_both_versions(
    site: Path, runs: Path, rewrite: Callable[[Path], None]
) -> None:
    original = (site / "A" / RUN_PAGE).read_bytes()
    rewrite(site / "B" / RUN_PAGE)
    assert (site / "A" / RUN_PAGE).read_bytes() != original  # one file: A changed with B
    output = refused(site, runs, RUN_PAGE)
    assert f"version 'A' holds {RUN_PAGE} as the same file (a hard link): changed too" in output


@pytest.mark.parametrize("rewrite", BESIDE, ids=lambda way: way.__name__)
def test_a_file_replaced_or_removed_in_the_last_version_is_refused(
    site: Path, runs: Path, rewrite: Callable[[Path], None]
) -> None:
    original = (site / "A" / RUN_PAGE).read_bytes()
    rewrite(site / "B" / RUN_PAGE)
    output = refused(site, runs, RUN_PAGE)
    assert (site / "A" / RUN_PAGE).read_bytes() == original  # not the same file: A holds its own
    assert "version 'A'" not in output


def test_an_edit_is_refused_whichever_way_the_new_version_would_take_the_file(site: Path, runs: Path) -> None:
    """A file linked because its rendered bytes are equal (``Staging.add``: a CSV; every run page of a
    build without the run cache) is checked as a file from the run cache is."""
    in_place(site / "B" / CSV)
    assert "version 'A' holds" in refused(site, runs, CSV)
    assert "version 'A' holds" in refused(site, runs, CSV, "--no-cache")


def test_a_change_confined_to_the_last_version_is_its_own(site: Path, runs: Path) -> None:
    """B's own index page (it names B, so no version shares it) edited in place, a file added to B: no
    other version changed, nothing the new version takes from B: C is built; B's rebuild refuses."""
    in_place(site / "B" / "index.html")
    (site / "B" / "notes.txt").write_bytes(b"added after publication\n")
    assert build(runs, site, "C").exit_code == 0
    result = build(runs, site, "B")
    assert result.exit_code == 5, result.output
    assert "published version 'B' was changed after publication: notes.txt, index.html" in result.output


CHANGED_RUN = "agent-dx/run-subject-a3f1-1"
CHANGED_PAGE = "b/agent-dx/runs/run-subject-a3f1-1.html"


def change_a_run(runs: Path) -> None:
    """One attempt of a run marked as tampered, the run and its benchmark resealed: C has other bytes
    for that run's page than A and B."""
    attempts = runs / CHANGED_RUN / "attempts.jsonl"
    text = attempts.read_text(encoding="utf-8")
    attempts.write_text(text.replace('"tampering_detected": false', '"tampering_detected": true', 1))
    reseal(runs / CHANGED_RUN)
    reseal(runs / "agent-dx")


def test_a_file_the_new_version_does_not_share_but_another_version_does_is_checked(
    site: Path, runs: Path
) -> None:
    """C renders other bytes for the changed run's page, so it shares it with no version; but A and B
    share it: an edit of it in place changed both, and is refused. Renamed over in B alone, it
    changed B only: C is built."""
    change_a_run(runs)
    assert (site / "A" / CHANGED_PAGE).samefile(site / "B" / CHANGED_PAGE)
    in_place(site / "B" / CHANGED_PAGE)
    assert "version 'A' holds" in refused(site, runs, CHANGED_PAGE)
    renamed_over(site / "B" / CHANGED_PAGE)
    result = build(runs, site, "C")
    assert result.exit_code == 0, result.output
    assert (site / "C" / CHANGED_PAGE).read_bytes() != EDIT


@pytest.mark.parametrize(
    "touch",
    [
        lambda path: os.utime(path, ns=(1, 1)),
        lambda path: path.chmod(0o644),
        lambda path: writable(path).write_bytes(path.read_bytes()),
    ],
    ids=["times", "mode", "same-bytes"],
)
def test_what_leaves_the_bytes_as_published_is_no_change(
    site: Path, runs: Path, touch: Callable[[Path], None]
) -> None:
    """A build checks bytes, not times or modes: a file touched, made writable or written again with
    its own bytes is the published file; the new version shares it, read-only again."""
    touch(site / "B" / RUN_PAGE)
    result = build(runs, site, "C")
    assert result.exit_code == 0, result.output
    assert (site / "C" / RUN_PAGE).stat().st_ino == (site / "B" / RUN_PAGE).stat().st_ino
    assert stat.S_IMODE((site / "B" / RUN_PAGE).stat().st_mode) == 0o444


def test_published_files_are_read_only_and_builds_still_work(site: Path, runs: Path) -> None:
    """Every file of every version is 0444 (its folders stay writable, so ``rm -rf`` removes a
    version); a no-op rebuild, a new version over read-only files, and a version deleted and built
    again all work, and the site-level files stay the site's to replace."""
    for version in ("A", "B"):
        files = [p for p in (site / version).rglob("*") if p.is_file()]
        assert files and {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o444}
        folders = [p for p in (site / version).rglob("*") if p.is_dir()]
        assert all(p.stat().st_mode & stat.S_IWUSR for p in folders)
    assert build(runs, site, "B").exit_code == 0  # a no-op: the version's files checked
    kept = snapshot(site / "B")
    assert build(runs, site, "C").exit_code == 0
    assert snapshot(site / "B") == kept
    assert (site / "C" / RUN_PAGE).stat().st_ino == (site / "A" / RUN_PAGE).stat().st_ino
    assert {stat.S_IMODE(p.stat().st_mode) for p in (site / "C").rglob("*") if p.is_file()} == {0o444}
    for name in ("index.html", "versions.json"):
        assert (site / name).stat().st_mode & stat.S_IWUSR
    rebuilt = snapshot(site / "C")
    import shutil

    shutil.rmtree(site / "C")
    assert build(runs, site, "C").exit_code == 0
    assert snapshot(site / "C") == rebuilt


def test_a_no_op_rebuild_names_the_versions_an_edit_in_place_changed(site: Path, runs: Path) -> None:
    """The rebuild of either version notices the edit (exit 5), and names the other version that holds
    the same file."""
    in_place(site / "A" / RUN_PAGE)
    for version, other in (("A", "B"), ("B", "A")):
        result = build(runs, site, version)
        assert result.exit_code == 5, result.output
        assert f"published version {version!r} was changed after publication: {RUN_PAGE}" in result.output
        assert f"version {other!r} holds {RUN_PAGE} as the same file (a hard link)" in result.output

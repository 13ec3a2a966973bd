"""The auditor's re-derivation (``benchsite verify --site SITE [--version V]``): a published version
built again from its inputs, with no run cache, in a temporary folder, and compared byte for byte.

A no-op rebuild checks a version against the sha256s its own build record lists, and a cached build
trusts what the run cache (signed with the user's key) and a dask worker (running the client's
generator) say. None of those catches a version whose figures were wrong when it was published (a
poisoned cache entry, a lying worker) or whose files and record were edited together. This does:
every figure is derived again here, from the sealed inputs, and every file of the version must be
the one that derivation writes.

The version is rebuilt on top of a copy of the versions the site published before it (its history
and "what changed" pages read them, ``publish.past``) and of the site's record of them, with the
same site look (``--config`` and the site flags, as the version was built with). A blind version a
later reveal applies to is re-derived by that later version's build, which publishes the blind one
first from the same inputs without their reveal folders. The site-level files (``index.html``,
``versions.json``…) are not part of a version and are not compared.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from generator.build import BuildConfig, _cited_versions, build
from generator.errors import OutputError, VersionConflict, printable
from generator.inputs.discover import FolderReads
from generator.inputs.identity import generator_digest, seals_digest
from generator.publish.write import BUILD_RECORD, VERSIONS, _recorded
from generator.score.cache import RunCache
from generator.score.run import ScoreOptions


@dataclass(frozen=True)
class Audited:
    """A version found equal to its re-derivation."""

    version: Path
    files: int
    """Files of the version, each compared byte for byte."""


def audit(runs: Path, site: Path, version: str | None, options: ScoreOptions) -> Audited:
    """``site``'s version ``version`` (the latest when None) re-derived from ``runs`` with no run
    cache and compared file by file: VersionConflict (exit 5) naming every file that differs, or
    when the version was built from other inputs."""
    order = _recorded(site)
    if not order:
        raise OutputError(
            f"{site}: no published version (no {VERSIONS} or version folder with a build record)"
        )
    version = version or order[-1]
    if version not in order:
        raise OutputError(
            f"{site}: --version {version}: not a version this site published ({', '.join(order)})"
        )
    built = _derived_by(runs, site, order, version)
    options = dataclasses.replace(options, cache=RunCache(None), scheduler=None)  # derived here, all of it
    with tempfile.TemporaryDirectory(prefix="benchsite-audit-") as temporary:
        again = Path(temporary) / "site"
        _copy_earlier(site, again, order[: order.index(version)])
        build(BuildConfig(runs=runs, out=again, site_version=built, options=options))
        differences = list(_differences(site / version, again / version))
        files = sum(1 for _ in _files(site / version))
    if differences:
        raise VersionConflict("\n".join([*differences, _verdict(site / version, runs, len(differences))]))
    return Audited(site / version, files)


def _derived_by(runs: Path, site: Path, order: list[str], version: str) -> str:
    """The version whose build re-derives ``version`` from ``runs``: itself when its build record
    names these inputs, else a later version built from them whose reveal applies to it."""
    digest = seals_digest(runs, FolderReads())  # every file hashed against its seal: no record trusted
    recorded = _inputs_digest(site / version)
    if digest is None or recorded == digest:  # None: the build says what is wrong with the inputs
        return version
    later = order[order.index(version) + 1 :]
    for candidate in later:
        if _inputs_digest(site / candidate) == digest and version in _cited_versions(site / candidate):
            return candidate
    raise VersionConflict(
        f"{site / version / BUILD_RECORD}: inputs_digest: the version was built from inputs "
        f"{printable(str(recorded))[:16]}…, {runs} holds inputs {digest[:16]}…: re-derive a version "
        "from the inputs it was built from"
    )


def _inputs_digest(folder: Path) -> object:
    try:
        return json.loads((folder / BUILD_RECORD).read_bytes()).get("inputs_digest")
    except (OSError, ValueError, AttributeError):
        return None


def _copy_earlier(site: Path, into: Path, versions: list[str]) -> None:
    """A site holding the versions published before the one audited, and the site's record."""
    into.mkdir()
    if (site / VERSIONS).is_file():
        shutil.copyfile(site / VERSIONS, into / VERSIONS)
    for version in versions:
        shutil.copytree(site / version, into / version, symlinks=True)


def _files(folder: Path) -> Iterator[str]:
    """Every entry below ``folder`` that is not a folder (files, links), relative, sorted."""
    for parent, folders, names in os.walk(folder):
        folders.sort()
        for name in sorted(names):
            yield Path(parent, name).relative_to(folder).as_posix()


def _differences(published: Path, derived: Path) -> Iterator[str]:
    """``<published>/<path>: <how it differs>`` for every file of either folder not in both alike."""
    ours, theirs = set(_files(published)), set(_files(derived))
    for rel in sorted(ours | theirs):
        where = f"{published / rel}"
        if rel not in theirs:
            yield f"{where}: not in its re-derivation (a file the build does not write)"
        elif rel not in ours:
            yield f"{where}: missing (its re-derivation writes it)"
        elif not _same(published / rel, derived / rel):
            yield f"{where}: differs from its re-derivation"


def _same(published: Path, derived: Path) -> bool:
    """Whether a published file holds its re-derivation's bytes (a link never does)."""
    if not stat.S_ISREG(os.lstat(published).st_mode):
        return False
    with published.open("rb") as ours, derived.open("rb") as theirs:
        while True:
            a, b = ours.read(1 << 20), theirs.read(1 << 20)
            if a != b:
                return False
            if not a:
                return True


def _verdict(version: Path, runs: Path, count: int) -> str:
    built_by = _built_by(version)
    note = (
        ""
        if built_by in (None, generator_digest())
        else f" (it was built by generator {printable(str(built_by))[:16]}…, this is generator "
        f"{generator_digest()[:16]}…: re-derive it with the generator that built it)"
    )
    return (
        f"{count} file(s) of {version} differ from its re-derivation from {runs} with no run cache{note}; "
        "the published version is not what its inputs give (exit 5)"
    )


def _built_by(folder: Path) -> object:
    try:
        return json.loads((folder / BUILD_RECORD).read_bytes()).get("generator_digest")
    except (OSError, ValueError, AttributeError):
        return None

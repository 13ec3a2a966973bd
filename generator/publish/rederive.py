"""What the auditor's re-derivation (``build.rederive``, ``benchsite verify --site``) reads of a
published site and compares: which build re-derives a version, the site as it stood before that
version, and every file of the version against the one its re-derivation wrote.

A no-op rebuild checks a version against the sha256s its own build record lists, and a cached build
trusts what the run cache (signed with the user's key) and a dask worker (running the client's
generator) say. None of those catches a version whose figures were wrong when it was published (a
poisoned cache entry, a lying worker) or whose files and record were edited together. A
re-derivation does: every figure derived again from the sealed inputs, with no run cache, and every
file of the version compared byte for byte with the one that derivation writes.

The version is rebuilt on a copy of the versions the site published before it (its history and
"what changed" pages read them, ``past``) and of the site's record of them. A blind version a later
reveal applies to is re-derived by that later version's build, which publishes the blind one first
from the same inputs without their reveal folders. The site-level files (``index.html``,
``versions.json``…) belong to no version and are not compared.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

from generator.errors import OutputError, VersionConflict, printable
from generator.inputs.discover import FolderReads
from generator.inputs.identity import generator_digest, seals_digest
from generator.inputs.outputs import BUILD_RECORD, VERSIONS
from generator.publish.write import _recorded, cited_versions


def published_order(site: Path, version: str | None) -> tuple[list[str], str]:
    """The versions ``site`` published, oldest first, and the one to re-derive (``version``, or the
    latest); OutputError (exit 2) when there is none or the site did not publish ``version``."""
    order = _recorded(site)
    if not order:
        raise OutputError(f"{site}: no published version (no version folder with a build record)")
    version = version or order[-1]
    if version not in order:
        raise OutputError(
            f"{site}: --version {printable(version)}: not a version this site published ({', '.join(order)})"
        )
    return order, version


def derived_by(runs: Path, site: Path, order: list[str], version: str) -> str:
    """The version whose build re-derives ``version`` from ``runs``: itself when its build record
    names these inputs, else a later version built from them whose reveal applies to it (a blind
    version); VersionConflict (exit 5) when neither: the version was built from other inputs."""
    digest = seals_digest(runs, FolderReads())  # every file hashed against its seal: no record trusted
    recorded = _record_field(site / version, "inputs_digest")
    if digest is None or recorded == digest:  # None: the build says what is wrong with the inputs
        return version
    for later in order[order.index(version) + 1 :]:
        if _record_field(site / later, "inputs_digest") == digest and version in cited_versions(site / later):
            return later
    raise VersionConflict(
        f"{site / version / BUILD_RECORD}: inputs_digest: the version was built from inputs "
        f"{printable(str(recorded))[:16]}…, {runs} holds inputs {digest[:16]}…: re-derive a version "
        "from the inputs it was built from"
    )


def _record_field(folder: Path, name: str) -> object:
    """A field of a version's build record (None when it cannot be read)."""
    try:
        return json.loads((folder / BUILD_RECORD).read_bytes()).get(name)
    except (OSError, ValueError, AttributeError):
        return None


def copy_earlier(site: Path, into: Path, versions: list[str]) -> None:
    """``into``: a site holding ``versions`` of ``site`` (those before the one re-derived) and the
    site's record, which lists the later ones too (a version whose folder is absent is not listed)."""
    into.mkdir()
    if (site / VERSIONS).is_file():
        shutil.copyfile(site / VERSIONS, into / VERSIONS)
    for version in versions:
        shutil.copytree(site / version, into / version, symlinks=True)


def files_of(folder: Path) -> Iterator[str]:
    """Every entry below ``folder`` that is not a folder (files, links), relative, sorted."""
    for parent, folders, names in os.walk(folder):
        folders.sort()
        for name in sorted(names):
            yield Path(parent, name).relative_to(folder).as_posix()


def differences(published: Path, derived: Path) -> list[str]:
    """``<published>/<path>: <how>`` for every file not alike in the published version and its
    re-derivation: one the build does not write, one missing, one whose bytes differ."""
    ours, theirs = set(files_of(published)), set(files_of(derived))
    found = []
    for rel in sorted(ours | theirs):
        if rel not in theirs:
            found.append(f"{published / rel}: not in its re-derivation (a file the build does not write)")
        elif rel not in ours:
            found.append(f"{published / rel}: missing (its re-derivation writes it)")
        elif not _same(published / rel, derived / rel):
            found.append(f"{published / rel}: differs from its re-derivation")
    return found


def _same(published: Path, derived: Path) -> bool:
    """Whether a published file holds its re-derivation's bytes (a link never does)."""
    if not stat.S_ISREG(os.lstat(published).st_mode):
        return False
    with published.open("rb") as ours, derived.open("rb") as theirs:
        while True:
            chunk = ours.read(1 << 20)
            if chunk != theirs.read(1 << 20):
                return False
            if not chunk:
                return True


def verdict(version: Path, runs: Path, count: int) -> str:
    """The summary line after the files a re-derivation found different."""
    built_by, ours = _record_field(version, "generator_digest"), generator_digest()
    note = ""
    if built_by not in (None, ours):
        note = (
            f" (it was built by generator {printable(str(built_by))[:16]}…, this is generator {ours[:16]}…: "
            "re-derive it with the generator that built it)"
        )
    return (
        f"{count} file(s) of {version} differ from its re-derivation from {runs} with no run cache{note}; "
        "the published version is not what its inputs give (exit 5); if every page differs, give the "
        "site look it was built with (--config, the site flags)"
    )

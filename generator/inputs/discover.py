"""Load and verify: find the sealed folders under the inputs root and read them, verified.

Layout: ``<root>/<benchmark>/`` is a sealed benchmark folder; any subfolder holding its own
``SHA256SUMS`` is a sealed run folder. Nothing is parsed until its bytes matched the seal.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from generator.errors import Problem, Problems, Result
from generator.inputs.files import ReadFailure, read_regular, reason
from generator.inputs.seal import (
    SEAL_NAME,
    SealedFolder,
    check_coverage,
    native,
    nested_seals,
    read_sealed_folder,
    read_verified,
    walk_files,
)

SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


@dataclass(frozen=True)
class BenchmarkLayout:
    """A benchmark folder and the sealed subfolders (its runs) found below it."""

    id: str
    path: Path
    runs: tuple[str, ...]
    """Sealed subfolders as UTF-8 text relative to ``path`` (open them with :meth:`run_path`)."""

    def run_path(self, rel: str) -> Path:
        """The folder of one of ``runs``, named so that this process's OS calls find it in any locale."""
        return self.path / native(rel)


@dataclass(frozen=True)
class VerifiedFolder:
    """A sealed folder whose every listed file was read and matched its seal."""

    path: Path
    seal: SealedFolder
    files: Mapping[str, bytes] = field(repr=False)

    @property
    def digest(self) -> str:
        return self.seal.digest


def id_problem(kind: str, value: str, file: Path) -> Problem | None:
    """Ids become file names and anchors: they must pass an allow-list."""
    if SAFE_ID.match(value):
        return None
    shown = value if len(value) <= 60 else value[:60] + "…"
    message = f"{kind} id {shown!r} is not usable in output paths: letters, digits, '.', '_', '-'"
    return Problem(str(file), "", message + ", starting with a letter or digit, at most 128")


def discover(root: Path, reads: FolderReads | None = None) -> Result[tuple[BenchmarkLayout, ...]]:
    """Every benchmark folder under the inputs root, in sorted order, and a problem for each entry
    that is not one (the layouts found are usable whatever the problems). A benchmark's sealed
    subfolders are listed through ``reads`` when given (once per build)."""
    reads = reads or FolderReads()
    problems = Problems()
    layouts: list[BenchmarkLayout] = []
    seen: dict[str, str] = {}
    for entry in sorted(root.iterdir()):
        try:
            info = entry.lstat()
            if stat.S_ISDIR(info.st_mode):
                os.scandir(entry).close()  # a benchmark folder that cannot be listed is refused here
        except OSError as exc:
            problems.append(Problem(str(entry), "", f"cannot be listed: {reason(exc)}", refused=True))
            continue
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            message = "is not a benchmark folder and no seal covers it (inputs root holds folders)"
            problems.append(Problem(str(entry), "", message, refused=True))
            continue
        bad = id_problem("benchmark", entry.name, entry)
        if bad:
            problems.append(bad)
            continue
        folded = entry.name.casefold()
        if folded in seen:
            message = f"benchmark id collides with {seen[folded]!r} when case is ignored"
            problems.append(Problem(str(entry), "", message))
            continue
        seen[folded] = entry.name
        layouts.append(BenchmarkLayout(entry.name, entry, reads.nested(entry)))
    if not layouts and not problems:
        problems.append(Problem(str(root), "", "holds no benchmark folder", refused=True))
    return problems.result(tuple(layouts))


def verify_folder(
    path: Path, nested: tuple[str, ...] = (), sealed: Result[SealedFolder] | None = None
) -> Result[VerifiedFolder]:
    """Read a sealed folder: seal format, coverage, and every file's bytes against its hash (the seal
    as ``sealed`` already read it, when given). None with the problems when anything is wrong."""
    read = sealed if sealed is not None else read_sealed_folder(path)
    seal = read.value
    if seal is None:
        return Result(None, read.problems)
    problems = Problems(check_coverage(seal, set(nested)))
    files: dict[str, bytes] = {}
    seal_file = str(path / SEAL_NAME)
    flagged = {(problem.file, problem.where) for problem in problems}
    for rel in sorted(seal.entries):
        if (str(path / native(rel)), "") in flagged or (seal_file, rel) in flagged:
            continue  # check_coverage reported it (a link, a pipe, missing)
        data = problems.take(read_verified(seal, rel))
        if data is not None:
            files[rel] = data
    return problems.result(None if problems else VerifiedFolder(path, seal, files))


class FolderReads:
    """One build's reads of its sealed folders, by path: each seal is read once, and the verified files
    of every folder below a *kept* benchmark (one with a reveal, whose blind version is scored again
    from the same inputs) are held, so every stage of a build sees the same bytes and opens each
    input once. Any other folder is verified against the seal read first, never a second seal, and
    the sealed folders below a folder are listed once."""

    def __init__(self) -> None:
        self.seals: dict[Path, Result[SealedFolder]] = {}
        self.folders: dict[Path, VerifiedFolder] = {}
        self.kept: set[Path] = set()
        self.listed: dict[Path, tuple[str, ...]] = {}

    def nested(self, path: Path) -> tuple[str, ...]:
        """The nearest sealed folders below ``path`` (``seal.nested_seals``), listed on first use:
        a no-op check, the build after it and its workers (forked later) list each folder once."""
        if path not in self.listed:
            leaves: list[str] = []
            self.listed[path] = tuple(nested_seals(path, leaves))
            self.listed.update((path / native(rel), ()) for rel in leaves)  # nothing to list below
        return self.listed[path]

    def seal(self, path: Path) -> Result[SealedFolder]:
        """The folder's seal, read on first use."""
        if path not in self.seals:
            self.seals[path] = read_sealed_folder(path)
        return self.seals[path]

    def verify(self, path: Path, nested: tuple[str, ...] = ()) -> Result[VerifiedFolder]:
        """:func:`verify_folder` of ``path``, against its seal as first read; held when kept."""
        if path in self.folders:
            return Result(self.folders[path])
        verified = verify_folder(path, nested, self.seal(path))
        folder = verified.value
        if folder is not None and any(k == path or k in path.parents for k in self.kept):
            self.folders[path] = folder
        return verified

    def keep(self, folder: VerifiedFolder) -> None:
        """Hold this benchmark folder and every folder below it verified from now on."""
        self.kept.add(folder.path)
        self.folders[folder.path] = folder


def read_unsealed(path: Path, suffix: str) -> Result[dict[str, bytes]]:
    """Every file below an unsealed folder whose name ends in ``suffix``, by relative path: regular
    files only (a link, a pipe, a device or a folder so named is refused, never followed or waited
    on), each size-capped, nothing below the folder skipped in silence. The files read are given
    whatever the problems."""
    problems = Problems()
    files: dict[str, bytes] = {}
    for rel, info in walk_files(path, None, problems):
        if not rel.endswith(suffix):
            continue
        full = path / native(rel)
        if not stat.S_ISREG(info.st_mode):
            problems.append(
                Problem(str(full), "", "is not a regular file (a link, folder, device or pipe)", refused=True)
            )
            continue
        try:
            files[rel] = read_regular(full)
        except ReadFailure as exc:
            problems.append(Problem(str(full), "", exc.message, refused=exc.refused))
    return problems.result(files)


def inputs_digest(digests: Mapping[str, str]) -> str:
    """One digest for a build's inputs: sha256 over sorted '<folder> <seal digest>' lines."""
    text = "".join(f"{rel} {digests[rel]}\n" for rel in sorted(digests))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


__all__ = ["SEAL_NAME", "BenchmarkLayout", "FolderReads", "VerifiedFolder", "discover", "verify_folder"]

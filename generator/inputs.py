"""Load and verify: find the sealed folders under the inputs root and read them, verified.

Layout: ``<root>/<benchmark>/`` is a sealed benchmark folder; any subfolder holding its own
``SHA256SUMS`` is a sealed run folder. Nothing is parsed until its bytes matched the seal.
"""

from __future__ import annotations

import hashlib
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from generator.errors import Problem
from generator.seal import (
    SEAL_NAME,
    SealedFolder,
    check_coverage,
    nested_seals,
    read_sealed_folder,
    read_verified,
)

SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


@dataclass(frozen=True)
class BenchmarkLayout:
    """A benchmark folder and the sealed subfolders (its runs) found below it."""

    id: str
    path: Path
    runs: tuple[str, ...]


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


def discover(root: Path) -> tuple[list[BenchmarkLayout], list[Problem]]:
    """Every benchmark folder under the inputs root, in sorted order."""
    problems: list[Problem] = []
    layouts: list[BenchmarkLayout] = []
    seen: dict[str, str] = {}
    for entry in sorted(root.iterdir()):
        info = entry.lstat()
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
        layouts.append(BenchmarkLayout(entry.name, entry, tuple(nested_seals(entry))))
    if not layouts and not problems:
        problems.append(Problem(str(root), "", "holds no benchmark folder", refused=True))
    return layouts, problems


def verify_folder(path: Path, nested: tuple[str, ...] = ()) -> tuple[VerifiedFolder | None, list[Problem]]:
    """Read a sealed folder: seal format, coverage, and every file's bytes against its hash."""
    seal, problems = read_sealed_folder(path)
    if seal is None:
        return None, problems
    problems = check_coverage(seal, set(nested))
    files: dict[str, bytes] = {}
    for rel in sorted(seal.entries):
        full = path / rel
        if not full.is_file() or full.is_symlink():
            continue  # check_coverage reported it
        data, problem = read_verified(seal, rel)
        if problem is not None:
            problems.append(problem)
        elif data is not None:
            files[rel] = data
    if problems:
        return None, problems
    return VerifiedFolder(path, seal, files), []


def inputs_digest(digests: Mapping[str, str]) -> str:
    """One digest for a build's inputs: sha256 over sorted '<folder> <seal digest>' lines."""
    text = "".join(f"{rel} {digests[rel]}\n" for rel in sorted(digests))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


__all__ = ["SEAL_NAME", "BenchmarkLayout", "VerifiedFolder", "discover", "verify_folder"]

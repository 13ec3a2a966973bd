"""Seals: ``SHA256SUMS`` files in the GNU coreutils format, and the rules that make a folder frozen.

A seal lists ``<64 lowercase hex>  <relative path>`` per line, sorted by the path's UTF-8 bytes,
so that ``sha256sum -c SHA256SUMS`` verifies it with a stock tool. The sealed folder's *digest*
is the sha256 of the seal's own bytes. Every file below a sealed folder is covered by the nearest
seal above it; a subfolder holding its own seal is a separate sealed folder.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from generator.errors import InputRefused, Problem, Problems, Result, printable
from generator.inputs.files import ReadFailure, chunks, is_link, open_regular, read_regular, reason

SEAL_NAME = "SHA256SUMS"
_LINE = re.compile(r"^([0-9a-f]{64}) ([ *])(.+)$")


@dataclass(frozen=True)
class SealedFolder:
    """A folder whose seal was read. ``entries`` maps a relative POSIX path to its sha256."""

    path: Path
    seal_bytes: bytes
    entries: dict[str, str]

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.seal_bytes).hexdigest()


def _refuse(file: Path | str, where: str, message: str) -> Problem:
    return Problem(str(file), where, message, refused=True)


def _entry_problem(rel: str) -> str | None:
    pure = PurePosixPath(rel)
    if rel.startswith("/") or re.match(r"^[A-Za-z]:", rel):
        return "absolute path: a seal lists paths relative to its folder"
    if any(c in rel for c in "\\\x00\n\r"):
        return "path contains a backslash, NUL or line break (coreutils would escape it)"
    if any(part in ("..", ".", "") for part in rel.split("/")):
        return "path escapes the folder or is not normalised (no '.', '..' or empty parts)"
    if pure.name == SEAL_NAME and len(pure.parts) == 1:
        return "the seal lists itself"
    return None


def parse_seal(path: Path, data: bytes) -> Result[dict[str, str]]:
    """Parse a seal's bytes into entries, refusing anything a strict reader should not guess at
    (None when any line is refused)."""
    seal = path / SEAL_NAME
    problems = Problems()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Result(None, (_refuse(seal, "", "is not UTF-8 text"),))
    if text and not text.endswith("\n"):
        problems.append(_refuse(seal, "last line", "does not end with a newline"))
    entries: dict[str, str] = {}
    previous = b""
    lines = text.split("\n")  # only LF ends a line, as in coreutils; never str.splitlines()
    if lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        where = f"line {number}"
        match = _LINE.match(line)
        if match is None:
            problems.append(_refuse(seal, where, "not '<64 lowercase hex>  <path>' (coreutils format)"))
            continue
        digest, _mode, rel = match.groups()
        reason = _entry_problem(rel)
        if reason:
            problems.append(_refuse(seal, where, f"{rel!r}: {reason}"))
            continue
        if rel in entries:
            problems.append(_refuse(seal, where, f"{rel!r}: duplicate entry"))
            continue
        key = rel.encode("utf-8")
        if key < previous:
            problems.append(_refuse(seal, where, f"{rel!r}: entries are not sorted by path"))
        previous = key
        entries[rel] = digest
    if not entries and not problems:
        problems.append(_refuse(seal, "", "lists no files"))
    return problems.result(None if problems else entries)


def native(rel: str) -> str:
    """A seal entry (UTF-8 text) as the name this process's OS calls turn back into the same bytes,
    whatever the locale (under ``LC_ALL=C`` a 'U+00B7' in a name is two escaped bytes)."""
    return os.fsdecode(rel.encode("utf-8"))


def key_of(name: str) -> str | None:
    """A walked name as seal entry text (its bytes decoded as UTF-8); None when they are not UTF-8."""
    try:
        return os.fsencode(name).decode("utf-8")
    except UnicodeDecodeError:
        return None


def read_sealed_folder(path: Path) -> Result[SealedFolder]:
    """Read and parse the seal of ``path``; refuse when there is none."""
    seal = path / SEAL_NAME
    try:
        data = read_regular(seal)
    except ReadFailure as exc:
        if exc.errno == errno.ENOENT:
            return Result(None, (_refuse(path, "", f"no seal: the folder has no {SEAL_NAME}"),))
        if is_link(seal):
            return Result(None, (_refuse(seal, "", "is not a regular file (a symbolic link)"),))
        return Result(None, (Problem(str(seal), "", exc.message, refused=exc.refused),))
    entries = parse_seal(path, data)
    if entries.value is None:
        return Result(None, entries.problems)
    return Result(SealedFolder(path, data, entries.value))


def walk_files(root: Path, skip: set[str] | None, problems: Problems) -> Iterator[tuple[str, os.stat_result]]:
    """Every entry below ``root`` as (relative path as UTF-8 text, lstat), sorted, never following
    links, never entering the folders in ``skip`` (relative paths: nested sealed folders). A folder
    that cannot be listed, an entry that cannot be examined and a name that is not UTF-8 are refusals
    in ``problems``: nothing below a folder is skipped in silence."""

    def unlisted(exc: OSError) -> None:
        problems.append(_refuse(os.fsdecode(exc.filename or root), "", f"cannot be listed: {reason(exc)}"))

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=unlisted):
        base = Path(dirpath)
        here = "" if base == root else (key_of(base.relative_to(root).as_posix()) or "") + "/"
        keep = []
        for name in sorted(dirnames):
            if key_of(name) is None:
                problems.append(_refuse(base / name, "", "the folder name is not valid UTF-8"))
            elif not skip or here + (key_of(name) or "") not in skip:
                keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames + [d for d in keep if is_link(base / d)]):
            key = key_of(name)
            if key is None:
                problems.append(_refuse(base / name, "", "the file name is not valid UTF-8"))
                continue
            try:
                info = (base / name).lstat()
            except OSError as exc:
                problems.append(_refuse(base / name, "", reason(exc)))
                continue
            yield here + key, info


def nested_seals(root: Path, leaves: list[str] | None = None) -> list[str]:
    """Relative paths of the nearest sealed subfolders below ``root`` (not ``root`` itself); those of
    them that hold no folder at all (so no sealed folder either) are also added to ``leaves``."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(dirpath)
        if base != root and SEAL_NAME in filenames:
            found.append(key_of(base.relative_to(root).as_posix()) or "")
            if leaves is not None and not dirnames:
                leaves.append(found[-1])
            dirnames.clear()
        dirnames[:] = sorted(d for d in dirnames if key_of(d) is not None)  # walk_files refuses the rest
    return sorted(found)


def check_coverage(folder: SealedFolder, nested: set[str]) -> list[Problem]:
    """Every file under the folder (outside nested sealed subfolders) listed, and nothing else."""
    problems = Problems()
    seal = folder.path / SEAL_NAME
    present: set[str] = set()
    for rel, info in walk_files(folder.path, nested, problems):
        full = folder.path / native(rel)
        if stat.S_ISLNK(info.st_mode):
            problems.append(_refuse(full, "", "is a symbolic link: sealed inputs must be regular files"))
        elif not stat.S_ISREG(info.st_mode):
            problems.append(_refuse(full, "", "is not a regular file (device, socket or pipe)"))
        elif rel != SEAL_NAME:
            present.add(rel)
            if rel not in folder.entries:
                problems.append(_refuse(full, "", f"is not listed in {seal}"))
    for rel in sorted(folder.entries):
        parts = rel.split("/")
        inside = next((p for p in ("/".join(parts[:i]) for i in range(1, len(parts))) if p in nested), None)
        if inside is not None:
            problems.append(_refuse(seal, rel, f"lists a file inside {inside}/, which has its own seal"))
        elif rel not in present and not is_link(folder.path / native(rel)):
            problems.append(_refuse(seal, rel, "listed file is missing"))
    return problems.as_list()


def hash_file(path: Path) -> str:
    """sha256 of a regular file, streamed (no size cap: sealing is not reading)."""
    digest = hashlib.sha256()
    with open_regular(path, limit=sys.maxsize) as fd:
        for chunk in chunks(fd, limit=sys.maxsize):
            digest.update(chunk)
    return digest.hexdigest()


def read_verified(folder: SealedFolder, rel: str) -> Result[bytes]:
    """Read one listed file and check its bytes against the seal in the same read."""
    full = folder.path / native(rel)
    try:
        data = read_regular(full)
    except ReadFailure as exc:
        return Result(None, (Problem(str(full), "", exc.message, refused=exc.refused),))
    actual = hashlib.sha256(data).hexdigest()
    if actual != folder.entries[rel]:
        message = f"hash mismatch: sealed {folder.entries[rel][:16]}…, found {actual[:16]}…"
        return Result(None, (_refuse(full, "", message),))
    return Result(data)


def write_seal(path: Path) -> Path:
    """Seal a folder that has no seal: hash every regular file below it, sorted by path."""
    seal = path / SEAL_NAME
    if os.path.lexists(seal):
        raise InputRefused(f"{seal}: a seal already exists; benchsite never changes an existing seal")
    lines: list[tuple[bytes, str]] = []
    problems = Problems()
    bad: list[str] = []
    for rel, info in walk_files(path, set(nested_seals(path)), problems):
        full = path / native(rel)
        if not stat.S_ISREG(info.st_mode) or _entry_problem(rel):
            bad.append(f"{full}: cannot be sealed (not a regular file, or an unsafe name)")
            continue
        try:
            lines.append((rel.encode("utf-8"), f"{hash_file(full)}  {rel}\n"))
        except ReadFailure as exc:
            bad.append(f"{full}: cannot be sealed: {exc.message}")
    bad = [p.render() for p in problems] + [printable(line) for line in bad]
    if bad:
        raise InputRefused("\n".join(bad))
    if not lines:
        raise InputRefused(f"{path}: nothing to seal: the folder holds no files")
    data = "".join(line for _, line in sorted(lines)).encode("utf-8")
    temp = path / f".{SEAL_NAME}.tmp"
    temp.write_bytes(data)
    temp.replace(seal)
    return seal

"""What identifies a build without parsing a byte: the generator's own digest and the seals digest.

A no-op rebuild (the version these inputs would publish already exists, built by this same
generator from the same sealed folders) needs only every file hashed against its seal: no JSON is
parsed, nothing is scored or rendered. Both digests are recorded in ``data/build.json``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cache
from pathlib import Path

from generator.inputs.discover import FolderReads, discover
from generator.inputs.seal import native

PACKAGE = Path(__file__).parent.parent
"""The ``generator`` package's folder."""


def templates_dir() -> Path:
    """Templates ship inside the wheel as ``generator/templates``; in a checkout they are top-level."""
    packaged = PACKAGE / "templates"
    return packaged if packaged.is_dir() else PACKAGE.parent / "templates"


@cache
def generator_digest() -> str:
    """sha256 over the generator's code, templates and schemas: any change makes a new identity."""
    roots = [PACKAGE, templates_dir(), PACKAGE.parent / "schemas"]
    digest = hashlib.sha256()
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(f"{path.relative_to(root).as_posix()}\n".encode())
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def seals_digest(
    root: Path,
    reads: FolderReads | None = None,
    files: bool = True,
    vouched: Callable[[Path, tuple[str, ...]], bool] | None = None,
) -> str | None:
    """sha256 over every sealed folder's path and seal digest, after checking every file against
    its seal (``files=False``: the seals only, no other file opened); None when anything is wrong
    (the full build then says what). Seals and folders are read through ``reads`` when given. A
    folder ``vouched`` vouches for (path, its nested sealed folders: its stat record holds) is not
    hashed again."""
    reads = reads or FolderReads()
    layouts = discover(root, reads)
    if layouts.problems or layouts.value is None:
        return None
    lines = []
    pending = [(layout.path, layout.id) for layout in layouts.value]
    while pending:
        path, label = pending.pop()
        nested = reads.nested(path)
        seal = reads.seal(path).value
        checked = not files or (vouched is not None and vouched(path, tuple(nested)))
        if seal is None or (not checked and reads.verify(path, tuple(nested)).value is None):
            return None
        lines.append(f"{label} {seal.digest}\n")
        pending += [(path / native(rel), f"{label}/{rel}") for rel in nested]
    return hashlib.sha256("".join(sorted(lines)).encode("utf-8")).hexdigest()

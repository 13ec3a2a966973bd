"""A producer's files read with the build's caps, so that what imports, builds.

A producer file is kept byte for byte in the run folder the import writes, where the build reads it
within its input cap: a larger file is refused here, with the build's words, before it is read
whole. A zip member (an inspect ``.eval`` log's) is decompressed as a stream and refused past the
size of a JSON document the build reads, or once an archive gives out over :data:`MAX_RATIO` times
its own size (a decompression bomb), never read whole first.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator.errors import Problem, Result
from generator.inputs.files import MAX_FILE_BYTES, too_large
from generator.inputs.jsonio import MAX_DOCUMENT_BYTES

MAX_RATIO = 100
"""The most bytes an archive's members may decompress to, per byte of the archive (inspect_ai's
zstd-compressed JSON gives about ten)."""
_CHUNK = 1 << 20


class Oversized(Exception):
    """A stream that gave out more than it may; its message says how much it may."""


def read_file(path: Path, limit: int = MAX_FILE_BYTES) -> Result[bytes]:
    """A producer file's bytes, or why they cannot be read: missing, not a file, over ``limit``."""
    try:
        with path.open("rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            data = b"" if size > limit else stream.read(limit + 1)
    except OSError as exc:
        return Result(None, (Problem(str(path), "", f"cannot be read: {exc.strerror or exc}"),))
    if size > limit or len(data) > limit:
        return Result(None, (Problem(str(path), "", too_large(max(size, len(data)), limit)),))
    return Result(data)


class Budget:
    """What is left of an archive's decompression allowance: :data:`MAX_RATIO` times its size (at
    least one JSON document's worth), spent as its members are read. Local to one archive's read."""

    def __init__(self, archive_bytes: int) -> None:
        self.archive_bytes = archive_bytes
        self.left = max(MAX_RATIO * archive_bytes, MAX_DOCUMENT_BYTES)

    def read(self, read: Callable[[int], bytes], declared: int) -> bytes:
        """A member's bytes from ``read`` (a stream's ``read(n)``), at most one JSON document and
        what is left of the allowance; raises :class:`Oversized` past either, or when the member
        declares more than that."""
        cap = min(MAX_DOCUMENT_BYTES, self.left)
        if declared > cap:
            raise Oversized(self._why(cap))
        chunks: list[bytes] = []
        kept = 0
        while chunk := read(min(_CHUNK, cap + 1 - kept)):
            chunks.append(chunk)
            kept += len(chunk)
            if kept > cap:
                raise Oversized(self._why(cap))
        self.left -= kept
        return b"".join(chunks)

    def _why(self, cap: int) -> str:
        if cap < MAX_DOCUMENT_BYTES:
            return (
                f"the archive's members decompress to over {MAX_RATIO} times its {self.archive_bytes} bytes:"
                " refused as a decompression bomb"
            )
        return f"decompresses to over {cap} bytes: a JSON document may hold at most {cap} bytes"


class DuplicateKey(ValueError):
    """A key written twice in one JSON object of a producer file: refused, as in every input
    (``json`` would keep the last silently). Each reader words the refusal its own way."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def object_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' object hook for producer files: the object, or :class:`DuplicateKey`."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise DuplicateKey(key)
        found[key] = value
    return found

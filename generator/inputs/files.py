"""Reading one input file safely: regular files only, never through a link, never blocking, size-capped.

A file is opened once with ``O_NOFOLLOW | O_NONBLOCK`` (where the platform has them: ``portable``),
its *descriptor* is checked (a regular file, at most :data:`MAX_FILE_BYTES`) and the bytes are read
from that same descriptor, so a file swapped for a link, a pipe or a device after any earlier check is
refused, not followed or waited on. Every failure is a :class:`ReadFailure` naming the reason.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from generator.inputs.portable import BINARY, CLOEXEC, NOFOLLOW, NONBLOCK

MAX_FILE_BYTES = 64 << 20
"""Any one input file (a seal, a JSON document, a JSON Lines file, a text file): 64 MiB. Larger files
are refused before they are read (exit 4): a run's rows beyond that are not a result anyone reviews,
and reading them costs memory many times their size."""

_CHUNK = 1 << 20
_FLAGS = os.O_RDONLY | NOFOLLOW | NONBLOCK | CLOEXEC | BINARY


class Stored(Protocol):
    """A file known by the sha256 and size of its bytes, read on demand and checked when read (a file
    the run cache keeps: ``cache.Kept``)."""

    @property
    def sha256(self) -> str: ...

    @property
    def size(self) -> int: ...

    def read(self) -> bytes: ...


class ReadFailure(Exception):
    """A file that could not be read as an input. ``refused``: exit 3 (False: too large, exit 4)."""

    def __init__(self, message: str, refused: bool = True, errno: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.refused = refused
        self.errno = errno
        """The OS error number when opening failed (``ENOENT``: there is no such file)."""


def reason(exc: OSError) -> str:
    """An OS error in words, for a refusal."""
    if exc.errno == errno.ENOENT:
        return "vanished or is missing: it cannot be read"
    if exc.errno == errno.ELOOP:
        return "is a symbolic link: inputs must be regular files"
    if exc.errno == errno.ENAMETOOLONG:
        return "the path is too long for this system (PATH_MAX): shorten the names inside the folder"
    return f"cannot be read: {exc.strerror or exc}"


@contextmanager
def open_regular(path: str | bytes | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> Iterator[int]:
    """A descriptor on ``path``, checked to be a regular file of at most ``limit`` bytes."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        raise ReadFailure(reason(exc), errno=exc.errno) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ReadFailure("is not a regular file (a folder, device, socket or pipe)")
        if info.st_size > limit:
            raise ReadFailure(too_large(info.st_size, limit), refused=False)
        yield fd
    finally:
        os.close(fd)


def is_link(path: str | os.PathLike[str]) -> bool:
    """True for a symbolic link; False for anything else, including a path that cannot be examined
    (too long, no permission: whoever reads it next reports why)."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def too_large(size: int, limit: int) -> str:
    return f"the file is {size} bytes: an input file may hold at most {limit} bytes"


def chunks(fd: int, limit: int = MAX_FILE_BYTES) -> Iterator[bytes]:
    """The descriptor's bytes in chunks; a file that grows past ``limit`` while read is refused."""
    total = 0
    while True:
        try:
            chunk = os.read(fd, _CHUNK)
        except OSError as exc:
            raise ReadFailure(reason(exc)) from None
        if not chunk:
            return
        total += len(chunk)
        if total > limit:
            raise ReadFailure(too_large(total, limit), refused=False)
        yield chunk


def read_regular(path: str | bytes | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> bytes:
    """The whole of a regular file, read from the descriptor that was checked."""
    with open_regular(path, limit) as fd:
        return b"".join(chunks(fd, limit))


class SealedFile:
    """An input file published as it is (a producer's own log beside its run): known by the sha256
    its seal verified, read again only when the site is written, and refused if it changed since."""

    def __init__(self, path: str, sha256: str, size: int) -> None:
        self.path = path
        self._sha256 = sha256
        self._size = size

    @property
    def sha256(self) -> str:
        return self._sha256

    @property
    def size(self) -> int:
        return self._size

    def read(self) -> bytes:
        import hashlib

        from generator.errors import InputRefused

        try:
            data = read_regular(self.path, limit=max(self._size, 1))
        except ReadFailure as exc:
            raise InputRefused(f"{self.path}: {exc.message}") from None
        if hashlib.sha256(data).hexdigest() != self._sha256:
            raise InputRefused(f"{self.path}: changed after its seal was verified: nothing was published")
        return data

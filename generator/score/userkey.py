"""The user's side of the run cache's trust model, without the cache itself: where the cache and
its key live, the ssh-like ownership checks, and the key (created on first use). Kept apart so a
no-op rebuild can check the site-level record it signs without importing the cache's models; the
trust model is described in ``cache.py``."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import tempfile
from pathlib import Path

from generator.inputs.portable import CLOEXEC, NOFOLLOW, user_id

KEY_ENV = "BENCHSITE_CACHE_KEY"
OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


APP = "benchsite"


def default_folder() -> Path:
    """The user's cache folder for benchsite, as ``platformdirs`` finds it: on Linux
    ``$XDG_CACHE_HOME/benchsite``, else ``~/.cache/benchsite``; on macOS ``~/Library/Caches/benchsite``;
    on Windows ``%LOCALAPPDATA%\\benchsite\\Cache``."""
    from platformdirs import user_cache_path

    return user_cache_path(APP, appauthor=False)


def default_key_file() -> Path:
    """``$BENCHSITE_CACHE_KEY``, else ``cache-key`` in the user's configuration folder for benchsite
    (``platformdirs``: on Linux ``$XDG_CONFIG_HOME/benchsite``, else ``~/.config/benchsite``): apart
    from the cache, which others may be able to read."""
    if os.environ.get(KEY_ENV):
        return Path(os.environ[KEY_ENV])
    from platformdirs import user_config_path

    return user_config_path(APP, appauthor=False) / "cache-key"


class Untrusted(Exception):
    """Why a cache folder, key or entry is not used (names the path and the reason)."""


def _check_owned(path: Path, mode: os.stat_result, private: bool = False) -> None:
    """As ssh checks its files: the user's own, not writable (``private``: nor readable) by others."""
    me = user_id()  # None: the platform has no user ids (``portable``), the mode bits still count
    if me is not None and mode.st_uid != me:
        raise Untrusted(f"{path}: owned by user {mode.st_uid}, not by you")
    if mode.st_mode & (0o077 if private else OTHERS_WRITE):
        raise Untrusted(f"{path}: {'readable or writable' if private else 'writable'} by others")


def _check_folder(folder: Path) -> None:
    """The folder (if present) the user's own and closed to others; every folder above it owned by
    the user or root and closed to others unless sticky (as ``/tmp`` is), so no one else can swap it."""
    real = folder.resolve()
    if real.exists():
        if not real.is_dir():
            raise Untrusted(f"{folder}: not a folder")
        _check_owned(folder, real.stat())
    for above in (p for p in real.parents if p.exists()):  # the missing ones are made 0700
        mode = above.stat()
        me = user_id()
        if me is not None and mode.st_uid not in (0, me):
            raise Untrusted(f"{above}: owned by user {mode.st_uid}, not by you or root")
        if mode.st_mode & OTHERS_WRITE and not mode.st_mode & stat.S_ISVTX:
            raise Untrusted(f"{above}: writable by others")


def read_owned(path: Path, private: bool = False, limit: int = -1) -> bytes:
    """Up to ``limit`` bytes (-1: all) of a regular file that is the user's own and not writable by
    others (``private``: nor readable), opened without following a link; else Untrusted."""
    fd = os.open(path, os.O_RDONLY | NOFOLLOW | CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(handle.fileno())
        if not stat.S_ISREG(mode.st_mode):
            raise Untrusted(f"{path}: not a regular file")
        _check_owned(path, mode, private=private)
        return handle.read(limit)


def _read_key(path: Path) -> bytes:
    text = read_owned(path, private=True, limit=200).decode("ascii", "replace").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != 32:
        raise Untrusted(f"{path}: not a benchsite cache key (64 hex digits); delete it to make a new one")
    return key


def _create_key(path: Path) -> None:
    """32 random bytes as hex, 0600, in place at once (a concurrent build's key wins if it was first)."""
    for folder in reversed([path.parent, *path.parent.parents]):
        if not folder.exists():
            folder.mkdir(mode=0o700)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-key-")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(secrets.token_hex(32) + "\n")
        with contextlib.suppress(FileExistsError):
            os.link(temp, path)
    finally:
        Path(temp).unlink(missing_ok=True)


def user_key(path: Path) -> bytes:
    """The user's cache key, created on first use."""
    try:
        return _read_key(path)
    except FileNotFoundError:
        _create_key(path)
        return _read_key(path)


def trusted_key(folder: Path, key_file: Path | None = None) -> tuple[bytes | None, str | None]:
    """The user's key for the cache in ``folder``, or None and why the folder or key is not trusted."""
    key_path = key_file or default_key_file()
    try:
        if key_path.resolve().is_relative_to(folder.resolve()):
            raise Untrusted(f"{key_path}: the key may not be kept inside the cache it protects")
        _check_folder(folder)
        key = user_key(key_path)
        _check_folder(key_path.parent)  # else another could put their key there, and forge with it
    except (Untrusted, OSError) as exc:
        reason = str(exc) if isinstance(exc, Untrusted) else f"{exc.filename or key_path}: {exc.strerror}"
        return None, reason
    return key, None

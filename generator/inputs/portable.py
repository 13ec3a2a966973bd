"""Every call whose behaviour differs between operating systems, in one place, each with its fallback.

benchsite is written for POSIX (Linux, macOS) and keeps to what Windows can do as well. The rest of
the package asks this module, never ``os`` directly, for:

- **open flags**: :data:`NOFOLLOW`, :data:`DIRECTORY`, :data:`CLOEXEC`, :data:`NONBLOCK` and
  :data:`BINARY` are the platform's flags, or 0 where it has none. Without ``O_NOFOLLOW`` (Windows)
  an open follows a link: only the ``lstat`` checks made before it (``files.is_link``) refuse one,
  and a link planted between the check and the open is followed.
- **locks**: :func:`try_lock` and :func:`wait_lock` take an exclusive lock on an open descriptor
  through ``filelock`` (``flock`` on POSIX, ``LockFileEx`` on Windows), held until the descriptor is
  closed; ``filelock`` is imported when a lock is first taken, not at start-up. A lock dies with the
  process that holds it, so a build killed with ``kill -9`` leaves none behind. A forked worker
  closes its copies of the build's locks (:func:`worker_start`), so a lock never outlives the build.
- **a folder lock**: :func:`open_folder` opens a folder for locking where folders can be opened
  (POSIX); elsewhere it returns None and a spool folder is then never swept by another build (it
  stays in the temporary folder until the system clears it: safe, only untidy).
- **the user**: :func:`user_id` is the effective user id, or None where there is none (Windows):
  ownership checks are then skipped, and the permission bits alone are checked.
- **processes**: :func:`usable_cores` (the affinity mask where the platform has one), :func:`can_fork`
  (workers are forked where the platform can; elsewhere runs are scored in the build's own process:
  the same figures, more slowly) and :func:`worker_start` (what a forked worker does first).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
DIRECTORY: int = getattr(os, "O_DIRECTORY", 0)
CLOEXEC: int = getattr(os, "O_CLOEXEC", 0)
NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)
BINARY: int = getattr(os, "O_BINARY", 0)


def try_lock(fd: int) -> bool:
    """Lock the open ``fd`` exclusively without waiting; False when another holds it."""
    from filelock import lock_descriptor

    return lock_descriptor(fd, blocking=False)


def wait_lock(fd: int) -> None:
    """Lock the open ``fd`` exclusively, waiting while another holds it."""
    from filelock import lock_descriptor

    lock_descriptor(fd, blocking=True)


def open_folder(folder: Path, follow: bool = True) -> int | None:
    """A descriptor on ``folder`` to lock (``follow=False``: never through a link), or None where
    the platform cannot open folders. OSError when it is gone, not a folder, or a link."""
    if not DIRECTORY:
        return None
    return os.open(folder, os.O_RDONLY | DIRECTORY | CLOEXEC | (0 if follow else NOFOLLOW))


def user_id() -> int | None:
    """The effective user id; None where the platform has no user ids."""
    geteuid = getattr(os, "geteuid", None)
    return geteuid() if geteuid is not None else None


def usable_cores() -> int:
    """The cores this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def can_fork() -> bool:
    """Whether worker processes can be forked (they then inherit what the build read). (multiprocessing
    is imported here, where workers are about to start: it costs a no-op rebuild 15 ms.)"""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def worker_start(parent: int, locks: tuple[int, ...]) -> None:
    """First thing in a forked worker: ignore Ctrl-C (the parent stops the pool), close its copies of
    the build's ``locks`` (a ``flock`` is held while any copy of its descriptor stays open), and exit
    once the parent is gone, so a killed build leaves nothing behind."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for fd in locks:
        with contextlib.suppress(OSError):
            os.close(fd)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()

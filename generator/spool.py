"""Sweeping the run-details spools that killed builds left in the temporary folder, with the
standard library only: every build sweeps first, a no-op rebuild too, before it imports anything
heavier. A spool (``score.Details``) holds an ``flock`` on itself while its build runs."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from pathlib import Path

SPOOL_PREFIX = "benchsite-details-"


def sweep_stale(prefix: str = SPOOL_PREFIX) -> None:
    """Remove the spools no build holds: a build killed with -9 skips its cleanup, and its lock went
    with its process (a running build's lock, in this process or in any other, is never free)."""
    for stale in Path(tempfile.gettempdir()).glob(f"{prefix}*"):
        try:
            folder = os.open(stale, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue  # gone meanwhile, not a folder, or another user's
        try:
            fcntl.flock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
            shutil.rmtree(stale, ignore_errors=True)
        except OSError:
            pass  # held: a build is writing it
        finally:
            os.close(folder)

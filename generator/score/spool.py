"""Sweeping the run-details spools that killed builds left in the temporary folder: every build
sweeps first, a no-op rebuild too, before it imports anything heavier (``filelock`` only when a
spool is found). A spool (``score.details.Details``) holds a lock on itself while its build runs."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from generator.inputs.portable import open_folder, try_lock

SPOOL_PREFIX = "benchsite-details-"


def sweep_stale(prefix: str = SPOOL_PREFIX) -> None:
    """Remove the spools no build holds: a build killed with -9 skips its cleanup, and its lock went
    with its process (a running build's lock, in this process or in any other, is never free)."""
    for stale in Path(tempfile.gettempdir()).glob(f"{prefix}*"):
        try:
            folder = open_folder(stale, follow=False)
        except OSError:
            continue  # gone meanwhile, not a folder, or another user's
        if folder is None:
            return  # folders cannot be locked here: none is known to be free (``portable``)
        try:
            if try_lock(folder):
                shutil.rmtree(stale, ignore_errors=True)
        except OSError:
            pass  # cannot be locked: a build may be writing it
        finally:
            os.close(folder)

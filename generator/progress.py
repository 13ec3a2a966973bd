"""A one-line progress display on stderr for long builds: only on a terminal, never in a pipe or a
log, and silenced by ``--quiet``. It reports; it never decides anything."""

from __future__ import annotations

import sys
import time
from typing import TextIO

REFRESH_SECONDS = 0.1


class Progress:
    """Counts work in named stages and redraws one line at most ten times a second."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream
        self.stage = ""
        self.total = 0
        self.done = 0
        self._drawn = 0.0

    @classmethod
    def for_terminal(cls, quiet: bool) -> Progress:
        stream = sys.stderr
        return cls(None if quiet or not stream.isatty() else stream)

    def start(self, stage: str, total: int) -> None:
        self.stage, self.total, self.done = stage, total, 0
        self._draw(force=True)

    def advance(self, count: int = 1) -> None:
        self.done += count
        self._draw(force=self.done >= self.total)

    def finish(self) -> None:
        if self.stream is not None:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def _draw(self, force: bool) -> None:
        now = time.monotonic()
        if self.stream is None or (not force and now - self._drawn < REFRESH_SECONDS):
            return
        self._drawn = now
        share = f" {100 * self.done // self.total:3d}%" if self.total else ""
        self.stream.write(f"\r\033[K{self.stage}: {self.done}/{self.total}{share}")
        self.stream.flush()


class _Silent(Progress):
    """Progress nobody watches: it counts nothing, so the one shared instance never changes."""

    def start(self, stage: str, total: int) -> None:
        """Nothing to draw."""

    def advance(self, count: int = 1) -> None:
        """Nothing to count."""

    def finish(self) -> None:
        """Nothing to clear."""


SILENT: Progress = _Silent()
"""The progress of a build nobody watches (the default): shared, and never changed."""

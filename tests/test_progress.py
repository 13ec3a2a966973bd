"""The progress line (generator.progress): drawn only to a stream, and the shared silent default
never changes, however many builds count with it."""

from __future__ import annotations

import io

from generator.progress import SILENT, Progress


def test_the_silent_default_counts_nothing() -> None:
    SILENT.start("verifying and scoring runs", 10)
    SILENT.advance(3)
    SILENT.finish()
    assert (SILENT.stage, SILENT.total, SILENT.done) == ("", 0, 0)


def test_a_progress_with_a_stream_counts_and_draws_its_stage() -> None:
    stream = io.StringIO()
    progress = Progress(stream)
    progress.start("scoring", 4)
    progress.advance(4)
    progress.finish()
    assert progress.done == 4
    assert "scoring: 4/4 100%" in stream.getvalue()

"""The spool of a build's run details: each run's rows and rendered pages, kept outside memory
between the score pass and the writer (a private temporary folder, or the run cache's files for a
reused run). Standard library, pydantic's ``BaseModel`` type and the run cache only: the score
stage's workers and the renderer both read it, and it imports neither."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from generator.canon import compact_json, compact_json_bytes
from generator.errors import OutputError
from generator.inputs.files import Stored
from generator.inputs.portable import open_folder, wait_lock
from generator.score.cache import Kept
from generator.score.ledger import PagesKept
from generator.score.spool import SPOOL_PREFIX, sweep_stale


def rows_json(detail: BaseModel) -> bytes:
    """A run's published rows (``data/runs/<id>/<run>.json``): ``compact_json`` of the model's JSON
    dump, written by the compiled encoder (``canon.compact_json_bytes``) when the model refuses NaN and
    infinity (every row model does: ``allow_inf_nan=False``), the one value that encoder would spell
    otherwise without a trace in its output; by the standard library for any other model."""
    dumped = detail.model_dump(mode="json", by_alias=True)
    if detail.model_config.get("allow_inf_nan", True):
        return compact_json(dumped).encode("utf-8")
    return compact_json_bytes(dumped)


@dataclass(frozen=True)
class RunPagesOutcome:
    """One run's pages: rendered now (and spooled), or taken from the run cache (``kept``)."""

    run_id: str
    rendered: bool
    kept: tuple[tuple[str, Kept], ...] = ()
    """(site path, cache file) of each page taken from the cache; empty when rendered and spooled."""
    located: dict[str, str] = field(default_factory=dict)
    """For kept pages of a paged run: the page of every row id."""
    stored: PagesKept | None = None
    """The pages as the run cache keeps them (taken from there or stored now), for the benchmark's
    ledger (``score.ledger``); None when they are not kept."""


@dataclass(frozen=True)
class RunFiles:
    """One run's files in a version: its rows (``data/runs/…``) and its pages (site path and bytes, or
    a file the run cache keeps), and for a paged run the page of every row id."""

    rows: bytes | Stored
    pages: Sequence[tuple[str, bytes | Stored]]
    located: dict[str, str]


class Details:
    """Each run's scored rows as canonical JSON and its rendered pages: spooled to a private temporary
    folder when made by this build, or read from the run cache when reused (``keep_rows`` and
    ``keep_pages``: a reused run costs the spool nothing, neither a copy nor its removal)."""

    PREFIX = SPOOL_PREFIX

    def __init__(self) -> None:
        self.sweep_stale()
        self.folder, self._held = self._claim()
        self._rows: dict[tuple[str, str], Kept] = {}
        self._pages: dict[tuple[str, str], RunPagesOutcome] = {}
        self._lent: dict[str, Path] = {}
        """Benchmark → the spool of another build's details, whose runs of it these are (``borrow``)."""

    @classmethod
    def _claim(cls) -> tuple[Path, int]:
        """A new spool folder, locked (a lock on the folder itself) until ``close``: the lock, not a
        PID, tells a sweep that a build is using it, so it holds across PID namespaces sharing TMPDIR.
        Where folders cannot be locked (``portable.open_folder``), no sweep removes it (-1)."""
        while True:
            folder = Path(tempfile.mkdtemp(prefix=f"{cls.PREFIX}{os.getpid()}-"))
            try:
                held = open_folder(folder)
            except FileNotFoundError:
                continue  # another build's sweep removed it before it could be locked: take another
            if held is None:
                return folder, -1
            wait_lock(held)  # waits only while a sweep that got there first deletes it
            if os.fstat(held).st_nlink > 0:
                return folder, held
            os.close(held)  # swept between mkdtemp and flock: take another

    @classmethod
    def sweep_stale(cls) -> None:
        """Remove the spools no build holds (``spool.sweep_stale``)."""
        sweep_stale(cls.PREFIX)

    @property
    def locks(self) -> tuple[int, ...]:
        """The descriptor of the spool's lock, if one is held: a forked worker closes its copy, so
        the lock dies with the build (``portable.worker_start``)."""
        return (self._held,) if self._held >= 0 else ()

    def put(self, bench: str, run: str, detail: BaseModel) -> bytes:
        data = rows_json(detail)
        self.put_bytes(bench, run, data)
        return data

    def put_bytes(self, bench: str, run: str, data: bytes) -> None:
        self._write(self.folder / bench / "rows" / f"{run}.json", data)

    def keep_rows(self, bench: str, run: str, kept: Kept) -> None:
        """A reused run's rows are the run cache's file ``kept`` (in this process: before a fork)."""
        self._rows[bench, run] = kept

    def keep_pages(self, bench: str, pages: RunPagesOutcome) -> None:
        """A run's pages are the run cache's files ``pages.kept`` (in this process)."""
        self._pages[bench, pages.run_id] = pages

    def borrow(self, other: Details, bench: str) -> None:
        """Every run of ``bench`` is ``other``'s: its rows and pages read from where ``other`` keeps
        them (``other`` stays open while these are read: the blind build of a reveal borrows the
        benchmarks without a reveal from the revealed build, whose details close last)."""
        self._lent[bench] = other._lent.get(bench, other.folder)
        self._rows.update((key, kept) for key, kept in other._rows.items() if key[0] == bench)
        self._pages.update((key, kept) for key, kept in other._pages.items() if key[0] == bench)

    def _spool(self, bench: str) -> Path:
        return self._lent.get(bench, self.folder) / bench

    def get(self, bench: str, run: str) -> bytes:
        kept = self._rows.get((bench, run))
        return kept.read() if kept else (self._spool(bench) / "rows" / f"{run}.json").read_bytes()

    def put_pages(
        self, bench: str, run: str, pages: list[tuple[str, bytes]], located: dict[str, str]
    ) -> None:
        """A run's rendered pages (``page-<n>.html``) and an index of their paths and paged rows."""
        folder = self.folder / bench / "pages" / run
        index = {"paths": [path for path, _ in pages], "located": located}
        self._write(folder / "index.json", compact_json(index).encode("utf-8"))
        for number, (_, data) in enumerate(pages, start=1):
            self._write(folder / f"page-{number}.html", data)

    def run_files(self, bench: str, run: str) -> RunFiles:
        """A run's files as its version gets them: what the run cache keeps as kept files (the writer
        links them to an equal file of the last version without reading them), the rest as bytes."""
        rows = self._rows.get((bench, run))
        kept = self._pages.get((bench, run))
        if kept is None:
            return RunFiles(rows or self.get(bench, run), *self._spooled_pages(bench, run))
        return RunFiles(rows or self.get(bench, run), list(kept.kept), kept.located)

    def _spooled_pages(self, bench: str, run: str) -> tuple[list[tuple[str, bytes]], dict[str, str]]:
        """The pages this build rendered for a run (``put_pages``), and where each paged row is."""
        folder = self._spool(bench) / "pages" / run
        index = json.loads((folder / "index.json").read_bytes())
        paths = enumerate(index["paths"], start=1)
        return [(path, (folder / f"page-{n}.html").read_bytes()) for n, path in paths], index["located"]

    def _write(self, path: Path, data: bytes) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        except OSError as exc:
            message = f"cannot spool run details: {exc.strerror} (TMPDIR chooses where)"
            raise OutputError(f"{path}: {message}") from None

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        if self._held >= 0:
            os.close(self._held)
            self._held = -1

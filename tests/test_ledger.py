"""A benchmark's ledger (``score.ledger``): a rebuild takes every run whose files are as the ledger
records them from it, in the build's own process (no stat record, run entry or pages entry read, no
run file hashed, nothing scored or rendered), and publishes the same bytes as a build without a
cache; an input or cache file edited in place, a forged ledger, ``verify`` and ``--no-cache`` take
the full path, as before."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import generator.inputs.discover as discover
import generator.score.run as run_stage
from generator.errors import OutputError
from generator.score.cache import Kept, RunCache
from generator.score.statrecords import CLOCK_SLACK_NS, StatStore
from scripts import benchmark, make_corpus
from tests.conftest import run_cli, snapshot
from tests.test_incremental import same_site_without

LATER = 5_000_000_000
"""How far ahead of the files' times the stamps read: past the racy second, as in a build of some
seconds (a build of this small corpus takes less than one, and would leave every file racy)."""


RUNS = 23
"""Run folders of the corpus: 10 made (8 points, 2 components), the example's 4 trials and 9
definitions runs."""
BLIND = 4
"""Runs a build into a site without the blind version scores again for it (the trials runs)."""


@dataclass
class Calls:
    scored: list[str]
    """The sealed subfolder of each run that went the full way (``workers.score_one``)."""
    loaded: list[str]
    """The key of each run entry and pages entry read from the run cache."""


@pytest.fixture
def late(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stamps read past the racy second of every file the build writes or hashes."""
    monkeypatch.setattr(StatStore, "stamp", lambda self: time.time_ns() + LATER - CLOCK_SLACK_NS)


@pytest.fixture
def calls(late: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    found = Calls([], [])
    score_one, load, load_pages = run_stage.score_one, RunCache.load, RunCache.load_pages

    def scoring(shared: Any, job: tuple[str, str]) -> Any:
        found.scored.append(job[0])
        return score_one(shared, job)

    def loading(self: RunCache, key: str, *args: Any) -> Any:
        found.loaded.append(key)
        return load(self, key, *args)

    def loading_pages(self: RunCache, key: str) -> Any:
        found.loaded.append(key)
        return load_pages(self, key)

    monkeypatch.setattr(run_stage, "score_one", scoring)
    monkeypatch.setattr(RunCache, "load", loading)
    monkeypatch.setattr(RunCache, "load_pages", loading_pages)
    yield found


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    make_corpus.make(root, 10, 5, seed=3)
    return root


def _build(runs: Path, out: Path, *options: str | Path) -> str:
    result = run_cli("build", "--runs", runs, "--out", out, "--jobs", "1", *options)
    assert result.exit_code == 0, result.output
    return result.output


def _first_points_run(runs: Path) -> Path:
    return sorted(p for p in (runs / "agent-dx").iterdir() if p.is_dir())[0]


def _version(output: str) -> str:
    return output.split("\n", 1)[0].rsplit("/", 1)[1]


def _points_keys(cache: Path, pages: bool = False) -> list[str]:
    """The run cache keys of the points runs (or of their pages) the ledger of ``agent-dx`` names."""
    for file in (cache / "ledgers-v1").rglob("*.json"):
        ledger = json.loads(file.read_bytes())
        if ledger["family"] == "points":
            lines = ledger["runs"].values()
            if pages:
                return [RunCache.pages_key(line["key"], line["pages"]["view"]) for line in lines]
            return [line["key"] for line in lines]
    raise AssertionError("no ledger of the points benchmark")


def _edit_in_place(file: Path) -> None:
    """Change one byte, keeping the size and the modification time (the change time moves)."""
    info = file.stat()
    mode = info.st_mode
    file.chmod(0o644)
    data = bytearray(file.read_bytes())
    data[-2] = ord("0") if data[-2] != ord("0") else ord("1")
    file.write_bytes(bytes(data))
    os.utime(file, ns=(info.st_atime_ns, info.st_mtime_ns))
    file.chmod(mode & 0o7777)


def test_a_rebuild_takes_the_unchanged_runs_from_the_ledger_and_publishes_the_same_bytes(
    runs: Path, tmp_path: Path, calls: Calls
) -> None:
    cache = tmp_path / "cache"
    _build(runs, tmp_path / "site", "--cache", cache)
    ledgers = list((cache / "ledgers-v1").rglob("*.json"))
    assert len(ledgers) == 4  # one a benchmark (the blind build's rescoring of the reveal's reads
    # the runs the build verified already: it has no stat record of them to keep)
    changed = _first_points_run(runs)
    benchmark.change_one_run(runs, 0)
    calls.scored[:], calls.loaded[:] = [], []
    output = _build(runs, tmp_path / "site", "--cache", cache)
    assert f"runs {RUNS} (scored 1, reused from the run cache {RUNS - 1}; pages rendered for 1)" in output, (
        output
    )
    assert calls.scored == [changed.relative_to(runs / "agent-dx").as_posix()], calls.scored
    assert len(calls.loaded) == 1, "a run entry or pages entry was read though the ledger vouched for it"
    version = _version(output)
    fresh = same_site_without(tmp_path / "site", version, tmp_path / "fresh")
    _build(runs, fresh, "--no-cache")
    assert snapshot(tmp_path / "site" / version) == snapshot(fresh / version)


def test_an_input_edited_in_place_is_hashed_and_refused(runs: Path, tmp_path: Path, calls: Calls) -> None:
    cache = tmp_path / "cache"
    _build(runs, tmp_path / "site", "--cache", cache)
    edited = _first_points_run(runs) / "attempts.jsonl"
    _edit_in_place(edited)
    result = run_cli("build", "--runs", runs, "--out", tmp_path / "site", "--jobs", "1", "--cache", cache)
    assert result.exit_code == 3, result.output
    assert "attempts.jsonl" in result.output, result.output


def test_rows_kept_in_the_cache_edited_in_place_are_scored_again(
    runs: Path, tmp_path: Path, calls: Calls
) -> None:
    cache = tmp_path / "cache"
    first = _build(runs, tmp_path / "site", "--cache", cache)
    rows = RunCache(cache, b"-" * 16).rows_file(_points_keys(cache)[0])
    _edit_in_place(rows)
    calls.scored[:] = []
    output = _build(runs, tmp_path / "two", "--cache", cache)
    assert "(scored 1," in output, output
    assert len(calls.scored) == 1 + BLIND, calls.scored
    version = _version(first)
    assert snapshot(tmp_path / "two" / version) == snapshot(tmp_path / "site" / version)


def test_a_page_kept_in_the_cache_edited_in_place_is_rendered_again(
    runs: Path, tmp_path: Path, calls: Calls
) -> None:
    cache = tmp_path / "cache"
    first = _build(runs, tmp_path / "site", "--cache", cache)
    cached = RunCache(cache, b"-" * 16)
    page = cached.page_file(_points_keys(cache, pages=True)[0], 1)
    _edit_in_place(page)
    output = _build(runs, tmp_path / "two", "--cache", cache)
    assert "(scored 0," in output and "pages rendered for 1)" in output, output
    version = _version(first)
    assert snapshot(tmp_path / "two" / version) == snapshot(tmp_path / "site" / version)


def test_a_ledger_that_fails_its_mac_is_ignored(runs: Path, tmp_path: Path, calls: Calls) -> None:
    cache = tmp_path / "cache"
    first = _build(runs, tmp_path / "site", "--cache", cache)
    for ledger in (cache / "ledgers-v1").rglob("*.json"):
        data = bytearray(ledger.read_bytes())
        data[-3] ^= 1
        ledger.write_bytes(bytes(data))
    calls.scored[:] = []
    output = _build(runs, tmp_path / "two", "--cache", cache)
    assert f"runs {RUNS} (scored 0, reused from the run cache {RUNS}; pages rendered for 0)" in output, output
    assert len(calls.scored) == RUNS + BLIND  # every run the full way: its stat record and run entry
    version = _version(first)
    assert snapshot(tmp_path / "two" / version) == snapshot(tmp_path / "site" / version)


def test_verify_and_no_cache_keep_no_ledger(runs: Path, tmp_path: Path, late: None) -> None:
    cache = tmp_path / "cache"
    _build(runs, tmp_path / "site", "--no-cache")
    result = run_cli("verify", "--runs", runs, "--cache", cache)
    assert result.exit_code == 0, result.output
    assert not (cache / "ledgers-v1").exists()


def test_a_no_op_takes_the_run_folders_from_the_ledger(runs: Path, tmp_path: Path, late: None) -> None:
    """The no-op check vouches for each run folder by its benchmark's ledger, with no stat record of
    its own kept (deleted here): no run file is hashed; an input edited in place since is, and the
    build that follows refuses it."""
    cache, out = tmp_path / "cache", tmp_path / "site"
    _build(runs, out, "--cache", cache)
    shutil.rmtree(cache / "stats-v1")
    hashed: list[str] = []
    original = discover.read_verified

    def counting(folder: Any, rel: str) -> Any:
        hashed.append(rel)
        return original(folder, rel)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(discover, "read_verified", counting)
        output = _build(runs, out, "--cache", cache)
    assert "nothing re-rendered" in output or "unchanged" in output, output
    runs_hashed = [rel for rel in hashed if rel.endswith((".jsonl", "run.json"))]
    assert runs_hashed == [], runs_hashed
    _edit_in_place(_first_points_run(runs) / "attempts.jsonl")
    result = run_cli("build", "--runs", runs, "--out", out, "--jobs", "1", "--cache", cache)
    assert result.exit_code == 3 and "attempts.jsonl" in result.output, result.output


def test_a_cache_file_found_changed_when_read_is_deleted(tmp_path: Path) -> None:
    """A run cache file whose bytes are not the ones named when the version needs them (a change that
    kept its stat: a disk's bit rot, a repair) stops the build (exit 2) and is deleted, so the next
    build misses it and does the work again rather than trusting its stat once more."""
    rows = tmp_path / "rows.json"
    rows.write_bytes(b"[]\n")
    kept = Kept(rows, "0" * 64, 3)
    with pytest.raises(OutputError) as refused:
        kept.read()
    assert refused.value.exit_code == 2 and str(rows) in refused.value.message
    assert not rows.exists()

"""Unit tests of ``generator.publish.past``: what a build derives from published versions' site.json, once
per content, kept in the run cache; here on the golden site's two versions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from generator.publish import past as past_module
from generator.publish.past import KIND, Past, read_report
from generator.render.badges import render_badges
from generator.render.syndication import summary
from generator.report.changes import version_changes
from generator.report.history import report_points
from generator.report.model import headlines
from generator.score.cache import RunCache
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "site"
EARLIER, LATER = "2026.11-blind", "sha-b8df8bd9b2c8"  # the order versions.json publishes them in
KEY = b"k" * 32


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return Path(shutil.copytree(GOLDEN, tmp_path / "site"))


def derived(past: Past, site: Path) -> tuple[object, ...]:
    before, after = site / EARLIER, site / LATER
    return (
        past.points(EARLIER, before),
        past.points(LATER, after),
        past.changes(LATER, EARLIER, before, after),
        past.changes(EARLIER, None, None, before),
        past.badges(after),
        past.run_counts(after),
        past.headlines(after),
    )


def expected(site: Path) -> tuple[object, ...]:
    """The same values derived straight from the reports, as every build did before ``Past``."""
    before, after = read_report(site / EARLIER), read_report(site / LATER)
    assert before is not None and after is not None
    return (
        report_points(EARLIER, before),
        report_points(LATER, after),
        version_changes(LATER, EARLIER, before, after),
        version_changes(EARLIER, None, None, None),
        render_badges(after),
        {b.id: b.run_count for b in after.benchmarks},
        headlines(after),
    )


def test_each_value_is_what_the_report_yields_and_a_second_build_reads_no_report(
    site: Path, tmp_path: Path
) -> None:
    cache = RunCache(tmp_path / "cache", KEY)
    first = Past(cache)
    assert derived(first, site) == expected(site)
    assert derived(first, site) == expected(site)  # asked again in the same build: from memory
    assert (
        first.reports_read == 7
    )  # the points of each, the badges, run counts and headlines of one, two for the changes
    second = Past(RunCache(tmp_path / "cache", KEY))
    assert derived(second, site) == expected(site)
    assert second.reports_read == 0


def test_without_a_cache_each_value_is_derived_once_per_build(site: Path) -> None:
    past = Past(RunCache(None))
    assert derived(past, site) == expected(site)
    read = past.reports_read
    assert derived(past, site) == expected(site)
    assert past.reports_read == read
    assert derived(Past(), site) == expected(site)


def test_changed_bytes_are_a_new_key_never_a_stale_answer(site: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert derived(Past(RunCache(cache, KEY)), site) == expected(site)
    path = site / LATER / "data" / "site.json"
    report = json.loads(path.read_bytes())
    for bench in report["benchmarks"]:
        bench["run_count"] += 1
    path.write_text(json.dumps(report))
    again = Past(RunCache(cache, KEY))
    assert derived(again, site) == expected(site)
    assert again.run_counts(site / LATER) == {b["id"]: b["run_count"] for b in report["benchmarks"]}
    assert again.reports_read > 0


@pytest.mark.parametrize("how", ["blob changed", "not a value of its kind", "another key"])
def test_a_damaged_entry_is_discarded_and_derived_again(site: Path, tmp_path: Path, how: str) -> None:
    cache = tmp_path / "cache"
    assert derived(Past(RunCache(cache, KEY)), site) == expected(site)
    blobs = sorted((cache / f"{KIND}-v1").rglob("*.blob"))
    assert len(blobs) == 6  # the first version's changes need no report: not kept
    for blob in blobs:
        if how == "blob changed":
            blob.write_bytes(blob.read_bytes().replace(b'"', b"'", 1))
        elif how == "not a value of its kind":  # a valid signed entry whose bytes are no such value
            RunCache(cache, KEY).store_blob(KIND, blob.name.removesuffix(".blob"), b'{"forged": 1}')
    key = b"o" * 32 if how == "another key" else KEY
    again = Past(RunCache(cache, key))
    assert derived(again, site) == expected(site)
    assert again.reports_read == 7


def test_an_unreadable_report_derives_nothing_and_is_not_comparable(site: Path, tmp_path: Path) -> None:
    (site / EARLIER / "data" / "site.json").write_text("{}")
    past = Past(RunCache(tmp_path / "cache", KEY))
    assert past.points(EARLIER, site / EARLIER) == {}
    assert past.badges(site / EARLIER) == {}
    assert past.run_counts(site / EARLIER) is None
    assert past.headlines(site / EARLIER) is None
    assert summary(past.run_counts(site / EARLIER), {"benchmarks": [{"id": "a", "title": "A"}]}) == (
        "1 benchmark: A"
    )
    changes = past.changes(LATER, EARLIER, site / EARLIER, site / LATER)
    assert not changes.comparable and EARLIER in changes.note
    (site / LATER / "data" / "site.json").unlink()  # missing altogether
    assert past.points(LATER, site / LATER) == {}
    assert not past.changes(LATER, EARLIER, site / EARLIER, site / LATER).comparable


def test_a_version_remembered_from_its_report_in_memory_is_never_read_back(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a build remembers of the version it rendered equals what reading that version's
    site.json back yields (so publishing it from memory cannot change a byte)."""
    before, after = read_report(site / EARLIER), read_report(site / LATER)
    assert before is not None and after is not None
    changes = version_changes(LATER, EARLIER, before, after)
    cache = tmp_path / "cache"
    past = Past(RunCache(cache, KEY))
    past.remember(LATER, site / LATER, after, (EARLIER, site / EARLIER), changes)
    past.remember(EARLIER, site / EARLIER, before, None, None)
    reads: list[Path] = []
    monkeypatch.setattr(past_module, "read_report", lambda folder: reads.append(folder))
    fresh = Past(RunCache(cache, KEY))
    found = derived(fresh, site)
    monkeypatch.undo()
    assert reads == [] and fresh.reports_read == 0
    assert found == expected(site)

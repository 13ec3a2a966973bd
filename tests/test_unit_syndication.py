"""Unit tests of ``generator.render.syndication``: the date, summary and change lines of a feed entry, and
the page URLs of the sitemap."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from generator.inputs.siteconfig import SiteLook
from generator.render.syndication import changed, page_urls, stamp, summary
from generator.report.changes import BenchmarkChanges, VersionChanges
from generator.report.model import SiteReport
from tests.conftest import ROOT

GOLDEN_SITE = ROOT / "tests" / "golden" / "site"
GOLDEN = GOLDEN_SITE / json.loads((GOLDEN_SITE / "versions.json").read_bytes())["versions"][-1]
"""The newest version of the golden example site: a real report."""


def test_stamp_is_source_date_epoch_else_the_records_modification_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "build.json"
    record.write_text("{}")
    os.utime(record, (86400, 86400))
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    assert stamp(record) == "1970-01-02T00:00:00Z"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert stamp(record) == "2023-11-14T22:13:20Z"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "not-a-number")  # ignored: the file's time
    assert stamp(record) == "1970-01-02T00:00:00Z"
    assert stamp(tmp_path / "missing.json") == "1970-01-01T00:00:00Z"


def test_summary_is_the_benchmarks_with_their_run_counts() -> None:
    report = SiteReport.model_validate_json((GOLDEN / "data" / "site.json").read_bytes())
    counts = {bench.id: bench.run_count for bench in report.benchmarks}
    record = {"benchmarks": [{"id": "agent-dx", "title": "Agent DX"}, {"id": "gone", "title": "Gone"}]}
    assert summary(counts, record) == f"2 benchmarks: Agent DX ({counts['agent-dx']} runs); Gone"
    assert summary(None, record) == "2 benchmarks: Agent DX; Gone"
    assert summary(None, {"benchmarks": []}) == "No benchmarks."


def bench_change(name: str, **facts: object) -> BenchmarkChanges:
    base: dict[str, object] = {
        "benchmark": name,
        "state": "changed",
        "folders_added": (),
        "folders_removed": (),
        "folders_resealed": (),
        "rubric_changed": False,
        "figures": (),
        "corrections_added": (),
        "revealed": None,
    }
    return BenchmarkChanges.model_validate({**base, **facts})


def test_changed_says_one_line_per_benchmark_that_changed() -> None:
    first = VersionChanges(version="v1", previous=None, comparable=True, note="", benchmarks=())
    assert changed(first) == ("The first published version.",)
    quiet = VersionChanges(version="v2", previous="v1", comparable=True, note="", benchmarks=())
    assert changed(quiet) == ("Since v1:", "no benchmark changed")
    busy = VersionChanges(
        version="v3",
        previous="v2",
        comparable=False,
        note="rubric v2",
        benchmarks=(
            bench_change("a", folders_added=("r1", "r2"), rubric_changed=True, revealed="v3"),
            bench_change("b", state="added", corrections_added=("c1",), folders_resealed=("r9",)),
        ),
    )
    assert changed(busy) == (
        "Since v2: rubric v2",
        "a: changed, 2 new sealed folders, rubric changed, identities revealed (scores frozen in v3)",
        "b: added, 1 resealed, 1 correction",
    )


def test_page_urls_list_the_versions_page_then_each_versions_html_files_sorted() -> None:
    look = SiteLook(base_url="https://example.org/s/")
    records = {
        "v1": {"files": {"b/x/index.html": "h", "data/site.json": "h", "a.html": "h"}},
        "v2": {},
    }
    assert page_urls(look, ["v1", "v2"], records) == [
        "https://example.org/s/",
        "https://example.org/s/v1/a.html",
        "https://example.org/s/v1/b/x/",
    ]

"""Unit tests of ``generator.history``: each subject's primary figure across the versions a site
published, read from the earlier versions' ``data/site.json`` (here, the golden site's two)."""

from __future__ import annotations

import copy
import gc
import json
import shutil
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from generator.history import NO_HISTORY, History, Point, Series, site_history
from generator.report import SiteReport
from generator.write import earlier_reports
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "site"
EARLIER, LATER = "2026.11-blind", "sha-7bc69d342e6a"  # the order versions.json publishes them in
BEFORE: dict[str, Any] = json.loads((GOLDEN / EARLIER / "data" / "site.json").read_text())
REPORT = SiteReport.model_validate_json((GOLDEN / LATER / "data" / "site.json").read_bytes())


def primary_rows(report: dict[str, Any], bench_id: str) -> list[dict[str, Any]]:
    bench = next(b for b in report["benchmarks"] if b["id"] == bench_id)
    ranking = next(r for r in bench["rankings"] if r["id"] == bench["headline"]["ranking"])
    rows: list[dict[str, Any]] = ranking["rows"]
    return rows


def test_a_first_version_has_no_history() -> None:
    assert site_history(REPORT, []) is NO_HISTORY
    assert NO_HISTORY.changes is None and NO_HISTORY.series == ()


def test_each_subject_gets_its_earlier_point_then_this_versions() -> None:
    before = copy.deepcopy(BEFORE)
    row = primary_rows(before, "agent-dx")[0]
    row.update(estimate=0.25, numerator=3, denominator=12)
    history = site_history(REPORT, [(EARLIER, SiteReport.model_validate_json(json.dumps(before)))])
    assert history.changes is not None
    assert (history.changes.version, history.changes.previous) == (LATER, EARLIER)
    series = next(s for s in history.series if s.benchmark == "agent-dx" and s.subject == row["subject"])
    assert [p.version for p in series.points] == [EARLIER, LATER]
    assert series.points[0] == Point(version=EARLIER, estimate=0.25, numerator=3, denominator=12)
    expected = len(REPORT.benchmarks[0].rankings[0].rows)
    assert len([s for s in history.series if s.benchmark == "agent-dx"]) == expected


def test_an_unreadable_or_other_format_version_adds_no_point_and_is_not_comparable() -> None:
    history = site_history(REPORT, [(EARLIER, None)])  # its site.json did not validate as a report
    assert history.series and all(len(s.points) == 1 for s in history.series)
    assert all(s.points[0].version == LATER for s in history.series)
    assert history.changes is not None and not history.changes.comparable


def test_trends_keep_a_benchmarks_subjects_with_at_least_two_points() -> None:
    one = Point(version="v1", estimate=0.5, numerator=1, denominator=2)
    two = Point(version="v2", estimate=1.0, numerator=2, denominator=2)

    def series(bench: str, subject: str, *points: Point) -> Series:
        return Series(
            benchmark=bench, ranking="r", kind="rate", scale=(0.0, 1.0), subject=subject, points=points
        )

    history = History(
        changes=None,
        series=(series("a", "s1", one, two), series("a", "s2", two), series("b", "s1", one, two)),
    )
    assert [s.subject for s in history.trends("a")] == ["s1"]
    assert [s.benchmark for s in history.trends("b")] == ["b"]
    assert history.trends("c") == ()


def test_earlier_reports_are_read_one_at_a_time_and_only_the_last_is_kept() -> None:
    """A site's tenth version must not hold nine reports in memory: each earlier report is reduced
    to its points as it is read (``write.earlier_reports`` yields them lazily)."""
    alive: list[weakref.ref[SiteReport]] = []

    def earlier() -> Iterator[tuple[str, SiteReport | None]]:
        for n in range(5):
            assert sum(ref() is not None for ref in alive) <= 1, f"before version {n}: more than one kept"
            report = SiteReport.model_validate_json(json.dumps(BEFORE))
            alive.append(weakref.ref(report))
            yield f"v{n}", report
            del report

    history = site_history(REPORT, earlier())
    assert history.changes is not None and history.changes.previous == "v4"
    assert all(len(s.points) == 6 for s in history.series if s.benchmark == "agent-dx")
    gc.collect()
    assert all(ref() is None for ref in alive)


def test_earlier_reports_lists_the_versions_first_and_reads_each_when_reached(tmp_path: Path) -> None:
    out = tmp_path / "site"
    shutil.copytree(GOLDEN, out)
    found = earlier_reports(out, "sha-new")
    (out / EARLIER / "data" / "site.json").write_text("{}")  # read after the call: not a report
    assert [(v, r is None) for v, r in found] == [(EARLIER, True), (LATER, False)]

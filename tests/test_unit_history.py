"""Unit tests of ``generator.report.history``: each subject's primary figure across the versions a site
published, read from the earlier versions' ``data/site.json`` (here, the golden site's two)."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

from generator.publish.write import earlier_versions
from generator.report.history import NO_HISTORY, EarlierVersion, History, Point, Series, site_history
from generator.report.model import SiteReport
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "site"
EARLIER, LATER = "2026.11-blind", "sha-b8df8bd9b2c8"  # the order versions.json publishes them in
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
    earlier = EarlierVersion.held(EARLIER, SiteReport.model_validate_json(json.dumps(before)))
    history = site_history(REPORT, [earlier])
    assert history.changes is not None
    assert (history.changes.version, history.changes.previous) == (LATER, EARLIER)
    series = next(s for s in history.series if s.benchmark == "agent-dx" and s.subject == row["subject"])
    assert [p.version for p in series.points] == [EARLIER, LATER]
    assert series.points[0] == Point(version=EARLIER, estimate=0.25, numerator=3, denominator=12)
    expected = len(REPORT.benchmarks[0].rankings[0].rows)
    assert len([s for s in history.series if s.benchmark == "agent-dx"]) == expected


def test_an_unreadable_or_other_format_version_adds_no_point_and_is_not_comparable() -> None:
    history = site_history(REPORT, [EarlierVersion.held(EARLIER, None)])  # site.json not a report
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


def test_only_the_last_earlier_version_is_read_whole() -> None:
    """A site's tenth version must not read nine reports: each earlier version gives its points
    (derived once per content, ``past.Past``), and only the last one its whole report, for the
    changes since it."""
    asked: list[str] = []
    before = SiteReport.model_validate_json(json.dumps(BEFORE))
    points = EarlierVersion.held("v", before).points()

    def version(n: int) -> EarlierVersion:
        def report() -> SiteReport:
            asked.append(f"v{n}")
            return before

        return EarlierVersion(
            f"v{n}", lambda: {k: p.model_copy(update={"version": f"v{n}"}) for k, p in points.items()}, report
        )

    history = site_history(REPORT, [version(n) for n in range(5)])
    assert asked == ["v4"]
    assert history.changes is not None and history.changes.previous == "v4"
    agent_dx = [s for s in history.series if s.benchmark == "agent-dx"]
    assert agent_dx and all(
        [p.version for p in s.points] == ["v0", "v1", "v2", "v3", "v4", LATER] for s in agent_dx
    )


def test_earlier_versions_lists_the_versions_first_and_reads_each_when_reached(tmp_path: Path) -> None:
    out = tmp_path / "site"
    shutil.copytree(GOLDEN, out)
    found = earlier_versions(out, "sha-new")
    (out / EARLIER / "data" / "site.json").write_text("{}")  # read after the call: not a report
    assert [(e.version, e.report() is None) for e in found] == [(EARLIER, True), (LATER, False)]
    assert [e.points() == {} for e in found] == [True, False]

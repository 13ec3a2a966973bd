"""A version's past: the versions this site published before it, as this version's pages show them.

What changed since the previous version (``changes``) and each subject's primary figure across the
versions (a small chart on the leaderboard). Read from the earlier versions' own ``data/site.json``
when a version is built: a published version is immutable, so what came before it never changes
afterwards, and a rebuild of the same version in the same site says the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pydantic import Field

from generator.changes import VersionChanges, version_changes
from generator.figures import Model

if TYPE_CHECKING:
    from generator.ranking import Ranking
    from generator.report import BenchmarkReport, SiteReport


class Point(Model):
    """One subject's primary figure in one version."""

    version: str
    estimate: float | None = Field(description="None when the subject had no measurement then.")
    numerator: int | None
    denominator: int


class Series(Model):
    """One subject of one benchmark's primary ranking, oldest version first (this version last)."""

    benchmark: str
    ranking: str
    kind: str = Field(description="'rate' or 'mean', as the ranking's kind.")
    scale: tuple[float, float]
    subject: str
    points: tuple[Point, ...]


class History(Model):
    changes: VersionChanges | None = Field(description="Against the version published before; None if first.")
    series: tuple[Series, ...] = Field(description="Only subjects present in this version.")

    def trends(self, benchmark: str) -> tuple[Series, ...]:
        """The benchmark's subjects that appear in at least two versions, in the ranking's order."""
        return tuple(s for s in self.series if s.benchmark == benchmark and len(s.points) >= 2)


NO_HISTORY = History(changes=None, series=())


def _primary(bench: BenchmarkReport) -> Ranking | None:
    """The ranking a benchmark's headline reads (None when it has none)."""
    return next((r for r in bench.rankings if r.id == bench.headline.ranking), None)


def _points(version: str, report: SiteReport) -> dict[tuple[str, str, str], Point]:
    found = {}
    for bench in report.benchmarks:
        ranking = _primary(bench)
        if ranking is None:
            continue
        for row in ranking.rows:
            point = Point(
                version=version, estimate=row.estimate, numerator=row.numerator, denominator=row.denominator
            )
            found[(bench.id, ranking.id, row.subject)] = point
    return found


def site_history(report: SiteReport, earlier: Iterable[tuple[str, SiteReport | None]]) -> History:
    """``report``'s history from ``earlier`` (version, its site.json read through the report model,
    or None when it could not be: that version adds no point and is not comparable), oldest first.
    Each earlier report is reduced to its points as it comes, and only the last one is kept whole
    (for the changes since it): ``write.earlier_reports`` reads them one at a time, so a site's
    hundredth version holds no more reports in memory than its second."""
    past: list[dict[tuple[str, str, str], Point]] = []
    last: tuple[str, SiteReport | None] | None = None
    for version, data in earlier:
        past.append(_points(version, data) if data is not None else {})
        last = version, data
    if last is None:
        return NO_HISTORY
    previous, before = last
    changes = version_changes(report.site_version, previous, before, report)
    series = []
    for bench in report.benchmarks:
        ranking = _primary(bench)
        if ranking is None:
            continue
        for row in ranking.rows:
            key = (bench.id, ranking.id, row.subject)
            points = [p[key] for p in past if key in p]
            points.append(
                Point(
                    version=report.site_version,
                    estimate=row.estimate,
                    numerator=row.numerator,
                    denominator=row.denominator,
                )
            )
            series.append(
                Series(
                    benchmark=bench.id,
                    ranking=ranking.id,
                    kind=ranking.kind,
                    scale=ranking.scale,
                    subject=row.subject,
                    points=tuple(points),
                )
            )
    return History(changes=changes, series=tuple(series))

"""A version's past: the versions this site published before it, as this version's pages show them.

What changed since the previous version (``changes``) and each subject's primary figure across the
versions (a small chart on the leaderboard). Read from the earlier versions' own ``data/site.json``
when a version is built: a published version is immutable, so what came before it never changes
afterwards, and a rebuild of the same version in the same site says the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from generator.figures.model import Model
from generator.report.changes import VersionChanges, version_changes

if TYPE_CHECKING:
    from generator.figures.ranking import Ranking
    from generator.report.model import BenchmarkReport, SiteReport


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


PointKey = tuple[str, str, str]
"""(benchmark, ranking, subject)."""


def report_points(version: str, report: SiteReport) -> dict[PointKey, Point]:
    """Each subject's primary figure in one version's report."""
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


@dataclass(frozen=True)
class EarlierVersion:
    """A version published before, as its history is read: its points and, for the last one only,
    its whole report (each read when asked: ``past.Past`` derives them once per content)."""

    version: str
    points: Callable[[], dict[PointKey, Point]]
    report: Callable[[], SiteReport | None]
    """None when its site.json cannot be read as a report of this format."""
    folder: Path | None = None
    """Where it is published (or staged); None for one held in memory only."""

    @classmethod
    def held(cls, version: str, report: SiteReport | None) -> EarlierVersion:
        """A version whose report is already in memory (None: it could not be read)."""
        points = report_points(version, report) if report is not None else {}
        return cls(version, lambda: points, lambda: report)


def site_history(report: SiteReport, earlier: Iterable[EarlierVersion]) -> History:
    """``report``'s history from the versions published before it, oldest first. Each earlier version
    gives its points, and only the last one its whole report (for the changes since it): a site's
    hundredth version reads no more reports than its second."""
    past: list[dict[PointKey, Point]] = []
    last: EarlierVersion | None = None
    for version in earlier:
        past.append(version.points())
        last = version
    if last is None:
        return NO_HISTORY
    changes = version_changes(report.site_version, last.version, last.report(), report)
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

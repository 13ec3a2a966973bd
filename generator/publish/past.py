"""What a build derives from the versions a site published before: read once, kept by content.

Each published version's ``data/site.json`` yields a few small things later builds need again: its
subjects' primary figures (the history a leaderboard charts, ``history.py``), what changed since the
version before it (the versions page and ``versions.json``, ``changes.py``), its badges, its
benchmarks' headlines (the home page says who leads in the latest version) and its run counts (the
feed). Reading a report back through its model costs about a second for a version of
10,000 runs, and every build used to read every version, twice: a site's tenth version paid ten
times what its second did.

:class:`Past` derives each of those once per content. It is keyed by the sha256 of the site.json
bytes (read and hashed again by every build, so a changed file is a new key, never a stale answer),
the version names involved and the generator's digest, and kept

- for the build, in memory (small values only: never a whole report), and
- across builds, in the run cache (``RunCache.store_blob``: signed with the user's key, validated
  when read; an entry that does not hold is deleted and derived again; ``--no-cache`` keeps none).

A version this build renders is remembered from its report in memory (:meth:`Past.remember`), so
publishing it reads no report back. A site.json that cannot be read as a report of this format
yields no points, badges or run counts (nothing is kept for it, so it is read again next time, as
before) and changes that say "not comparable" (kept: the same bytes always say so).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from generator.canon import canonical_json
from generator.figures.model import Model
from generator.report.history import Point, PointKey, report_points

if TYPE_CHECKING:
    from generator.report.changes import VersionChanges
    from generator.report.model import Headlines, SiteReport
    from generator.score.cache import RunCache

SITE_JSON = "data/site.json"
KIND = "past"
"""The run cache's folder of these entries: ``<cache>/past-v1/``."""

M = TypeVar("M", bound=BaseModel)


class KeyedPoint(Model):
    benchmark: str
    ranking: str
    subject: str
    point: Point


class VersionPoints(Model):
    """One version's primary figures, as the run cache keeps them."""

    points: tuple[KeyedPoint, ...]


class Badges(Model):
    """One version's badges (``badges.render_badges``): path → SVG text."""

    files: dict[str, str]


class RunCounts(Model):
    """Runs per benchmark of one version (its feed entry's summary)."""

    runs: dict[str, int]


def read_report(folder: Path) -> SiteReport | None:
    """A version's report read through its model; None when it cannot be read or is not a report of
    this format (damaged, or from another generator): then it is not comparable."""
    from generator.inputs.jsonio import PUBLISHED
    from generator.report.model import SiteReport

    try:
        return SiteReport.model_validate_json((folder / SITE_JSON).read_bytes(), context=PUBLISHED)
    except (OSError, ValueError):
        return None


@dataclass
class Past:
    """The derived values of published (or staged) versions, by the sha256 of their site.json.

    ``cache``: the run cache to keep them in across builds (None, or a cache without a folder: this
    build's memory only)."""

    cache: RunCache | None = None
    _digests: dict[Path, str | None] = field(default_factory=dict)
    _memo: dict[str, Any] = field(default_factory=dict)
    reports_read: int = 0
    """Reports this build read back through the model (a test holds it to what is new)."""

    def digest(self, folder: Path) -> str | None:
        """The sha256 of a version folder's site.json, read once per build (None: unreadable)."""
        if folder not in self._digests:
            try:
                with (folder / SITE_JSON).open("rb") as handle:
                    self._digests[folder] = hashlib.file_digest(handle, "sha256").hexdigest()
            except OSError:
                self._digests[folder] = None
        return self._digests[folder]

    def report(self, folder: Path) -> SiteReport | None:
        """The whole report (not kept: the caller holds it as long as it needs it)."""
        self.reports_read += 1
        return read_report(folder)

    def _key(self, what: str, *parts: str | None) -> str:
        from generator.inputs.identity import generator_digest

        text = "\n".join([KIND, what, generator_digest(), *(p if p is not None else "-" for p in parts)])
        return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()

    def _derived(self, key: str, model: type[M], derive: Callable[[], M | None]) -> M | None:
        """The value under ``key``: this build's, else the run cache's, else derived (and kept)."""
        if key in self._memo:
            return self._memo[key]  # type: ignore[no-any-return]
        value: M | None = None
        raw = self.cache.load_blob(KIND, key) if self.cache is not None else None
        if raw is not None:
            try:
                value = model.model_validate_json(raw)
            except ValidationError:
                self.cache.discard(KIND, key)  # type: ignore[union-attr]
        if value is None:
            value = derive()
            if value is not None:
                self._keep(key, value)
        self._memo[key] = value
        return value

    def _keep(self, key: str, value: BaseModel) -> None:
        self._memo[key] = value
        if self.cache is not None:
            self.cache.store_blob(KIND, key, canonical_json(value.model_dump(mode="json")).encode("utf-8"))

    def points(self, version: str, folder: Path) -> dict[PointKey, Point]:
        """A version's primary figures (empty when its report cannot be read)."""
        digest = self.digest(folder)
        if digest is None:
            return {}

        def derive() -> VersionPoints | None:
            report = self.report(folder)
            return None if report is None else _keyed(report_points(version, report))

        found = self._derived(self._key("points", version, digest), VersionPoints, derive)
        return {} if found is None else _unkeyed(found)

    def changes(self, version: str, previous: str | None, before: Path | None, after: Path) -> VersionChanges:
        """What changed from ``previous`` (its folder ``before``) to ``version`` (its folder ``after``)."""
        from generator.report.changes import VersionChanges, version_changes

        if previous is None or before is None:
            return version_changes(version, None, None, None)
        old, new = self.digest(before), self.digest(after)
        if old is None or new is None:  # a site.json that cannot be read: not comparable, not kept
            return version_changes(version, previous, None, None)

        def derive() -> VersionChanges:
            earlier = self.report(before)
            later = self.report(after) if earlier is not None else None  # both whole, as before
            return version_changes(version, previous, earlier, later)

        found = self._derived(self._key("changes", version, previous, old, new), VersionChanges, derive)
        assert found is not None  # derive always yields changes
        return found

    def badges(self, folder: Path) -> dict[str, bytes]:
        """A version's badges (none when its report cannot be read)."""
        from generator.render.badges import render_badges

        digest = self.digest(folder)
        if digest is None:
            return {}

        def derive() -> Badges | None:
            report = self.report(folder)
            return None if report is None else _badges(render_badges(report))

        found = self._derived(self._key("badges", digest), Badges, derive)
        return {} if found is None else {rel: text.encode("utf-8") for rel, text in found.files.items()}

    def headlines(self, folder: Path) -> Headlines | None:
        """A version's benchmarks with their headlines; None when its report cannot be read."""
        from generator.report.model import Headlines, headlines

        digest = self.digest(folder)
        if digest is None:
            return None

        def derive() -> Headlines | None:
            report = self.report(folder)
            return None if report is None else headlines(report)

        return self._derived(self._key("headlines", digest), Headlines, derive)

    def run_counts(self, folder: Path) -> dict[str, int] | None:
        """Runs per benchmark of a version; None when its report cannot be read."""
        digest = self.digest(folder)
        if digest is None:
            return None

        def derive() -> RunCounts | None:
            report = self.report(folder)
            return None if report is None else _counts(report)

        found = self._derived(self._key("runs", digest), RunCounts, derive)
        return None if found is None else dict(found.runs)

    def remember(
        self,
        version: str,
        folder: Path,
        report: SiteReport,
        previous: tuple[str, Path] | None,
        changes: VersionChanges | None,
    ) -> None:
        """A version this build rendered into ``folder``, from its ``report`` in memory (the one its
        site.json was written from): its points, badges, run counts and, when ``changes`` were
        computed against ``previous`` (version, folder), those; publishing then reads it back for none.
        Its headlines too: the home page names them when it is the latest."""
        from generator.render.badges import render_badges
        from generator.report.model import headlines

        digest = self.digest(folder)
        if digest is None:
            return
        self._keep(self._key("points", version, digest), _keyed(report_points(version, report)))
        self._keep(self._key("badges", digest), _badges(render_badges(report)))
        self._keep(self._key("runs", digest), _counts(report))
        self._keep(self._key("headlines", digest), headlines(report))
        if previous is not None and changes is not None and changes.previous == previous[0]:
            old = self.digest(previous[1])
            if old is not None and changes.comparable:
                self._keep(self._key("changes", version, previous[0], old, digest), changes)


def _keyed(points: dict[PointKey, Point]) -> VersionPoints:
    return VersionPoints(
        points=tuple(
            KeyedPoint(benchmark=b, ranking=r, subject=s, point=p) for (b, r, s), p in points.items()
        )
    )


def _unkeyed(found: VersionPoints) -> dict[PointKey, Point]:
    return {(k.benchmark, k.ranking, k.subject): k.point for k in found.points}


def _badges(files: dict[str, bytes]) -> Badges:
    return Badges(files={rel: data.decode("utf-8") for rel, data in files.items()})


def _counts(report: SiteReport) -> RunCounts:
    return RunCounts(runs={bench.id: bench.run_count for bench in report.benchmarks})

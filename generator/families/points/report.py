"""Report section of the points family: what its pages, Markdown and JSON show."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from generator.families.points.models import Outcome, PointsContract, PointsTask
from generator.families.points.spec import PointsSpec
from generator.families.specs import ScoringBase
from generator.figures.headline import Caveat, Headline, Wording, lead_headline, listed
from generator.figures.model import Mean, Model, Rate, SectionDefaults
from generator.figures.ranking import Breakdown, Ranking, rate_ranking

DimensionState = Literal["scored", "inconclusive", "unavailable", "not executed"]


class DimensionScore(Model):
    """One dimension of one attempt."""

    key: str
    points: float | None = Field(
        description="None when inconclusive (never converted to zero); 0 when an unavailable diagnostic."
    )
    max: int
    state: DimensionState
    detail: str = Field(description="The facts the points follow from, e.g. '4/5 passed'.")


class AttemptResult(Model):
    """One attempt, scored."""

    attempt_id: str
    task: str
    outcome: Outcome
    reasons: tuple[str, ...] = Field(description="Why this outcome, one clause each.")
    dimensions: tuple[DimensionScore, ...]
    deterministic: float | None = Field(description="Of 90; None when inconclusive or invalid.")
    blockers: tuple[str, ...]
    invalid_reason: str | None
    producer_outcome: Outcome | None
    disagrees: bool = Field(description="The producer's own outcome differs from benchsite's.")


class OutcomeCounts(Model):
    ready: int = 0
    needs_review: int = 0
    not_ready: int = 0
    inconclusive: int = 0
    invalid: int = 0
    total: int = 0


class DimensionMean(Model):
    key: str
    name: str
    max: int
    mean: Mean
    diagnostic: bool = Field(description="Diagnostics never change an outcome.")


class SubjectRow(Model):
    """One subject (an opaque id) on the leaderboard."""

    position: int = Field(description="1-based order: Ready rate, then mean deterministic, then id.")
    subject: str
    runs: tuple[str, ...]
    counts: OutcomeCounts
    ready_rate: Rate = Field(description="Ready / valid attempts (every outcome but Invalid).")
    mean_deterministic: Mean
    dimensions: tuple[DimensionMean, ...]
    disagreements: int
    blocked: int = Field(
        default=0,
        description="Attempts with a launch blocker (each decides NotReady); 0 from older generators.",
    )
    blockers: tuple[tuple[str, int], ...] = Field(
        default=(),
        description="(launch blocker, attempts it blocked), most frequent first; an attempt may have "
        "several.",
    )


class PointsRunSummary(Model):
    """One run directory, summarised: what the leaderboard lists."""

    id: str
    subject: str
    digest: str
    producer: str
    counts: OutcomeCounts
    disagreements: int


class RunResult(PointsRunSummary):
    """One run directory with every attempt: its page and ``data/runs/<bench>/<run>.json``."""

    rows_field: ClassVar[str] = "attempts"
    """The field holding the run's rows (a long run is paged by them)."""

    attempts: tuple[AttemptResult, ...]


class ScoringInfo(ScoringBase):
    """The points specification a benchmark was scored by, where it came from, and its rules in words."""

    specification: PointsSpec


class RunColumns(Model):
    """What a points run page shows of its benchmark's specification: column heads and the total."""

    total: int
    labels: tuple[str, ...]


class PointsSection(SectionDefaults):
    """Everything the points family computed for one benchmark."""

    family: Literal["points"] = "points"
    contract: PointsContract
    scoring: ScoringInfo
    purpose: str
    tasks: tuple[PointsTask, ...]
    totals: OutcomeCounts
    leaderboard: tuple[SubjectRow, ...]
    runs: tuple[PointsRunSummary, ...]

    @staticmethod
    def detail_model() -> type[RunResult]:
        return RunResult

    def rankings(self) -> tuple[Ranking, ...]:
        entries = [(row.subject, row.ready_rate) for row in self.leaderboard]
        return (rate_ranking("ready-rate", "Ready rate", "Ready / valid attempts", entries),)

    def headline(self, rankings: tuple[Ranking, ...]) -> Headline:
        """Who leads on the Ready rate over valid attempts, with the launch blockers behind NotReady
        outcomes and the invalid attempts every denominator leaves out."""
        caveats = self._blocker_caveats() + self._invalid_caveats()
        return lead_headline(rankings[0], Wording("subject", "subjects", "Ready rate"), caveats)

    def _blocker_caveats(self) -> tuple[Caveat, ...]:
        """Which subjects' attempts a launch blocker made NotReady (tampering, a critical regression…)."""
        blocked = [r for r in self.leaderboard if r.blocked]
        if not blocked:
            return ()
        each = [
            f"{r.subject} {r.blocked} ({listed([f'{b} in {n}' if n > 1 else b for b, n in r.blockers])})"
            for r in blocked
        ]
        total = sum(r.blocked for r in blocked)
        text = f"Launch blockers made {total} {_attempts(total)} NotReady: {listed(each)}."
        return (Caveat(kind="launch-blockers", text=text),)

    def _invalid_caveats(self) -> tuple[Caveat, ...]:
        """Invalid attempts: excluded from every denominator, so subjects' rates rest on fewer attempts."""
        invalid = [r for r in self.leaderboard if r.counts.invalid]
        if not invalid:
            return ()
        total = sum(r.counts.invalid for r in invalid)
        each = listed([f"{r.subject} {r.counts.invalid}" for r in invalid])
        verb = "is" if total == 1 else "are"
        text = f"{total} invalid {_attempts(total)} {verb} excluded from every denominator: {each}."
        return (Caveat(kind="invalid-excluded", text=text),)

    def breakdown(self) -> Breakdown | None:
        if not self.leaderboard:
            return None
        series = tuple((d.name, float(d.max)) for d in self.leaderboard[0].dimensions)
        rows = tuple((r.subject, tuple(d.mean.value for d in r.dimensions)) for r in self.leaderboard)
        return Breakdown(
            title="Mean points per dimension, each bar on the dimension's maximum", series=series, rows=rows
        )


def _attempts(n: int) -> str:
    return "attempt" if n == 1 else "attempts"

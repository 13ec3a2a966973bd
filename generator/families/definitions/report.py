"""Report section of the definitions family: verdicts, floors, paired arms, census, corrections."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from generator.families.definitions.models import Correction, Definition
from generator.families.definitions.spec import DefinitionsSpec
from generator.families.specs import ScoringBase
from generator.figures.headline import Headline, Wording, lead_headline
from generator.figures.model import Interval, Model, SectionDefaults
from generator.figures.ranking import Breakdown, Ranking, rate_ranking
from generator.figures.stats import rate

RowState = Literal["measured", "notApplicable", "notMeasured"]
Verdict = Literal["PASS", "FAIL", "WARN", "PENDING"]


class AdrContract(Model):
    """ADR-032 as pinned text: its title and status lines, shown verbatim."""

    title: str
    status: str
    decision: str


class DefinitionsScoring(ScoringBase):
    """The specification a benchmark was scored by: built-in (the seed ADR) or a pinned scoring.json."""

    specification: DefinitionsSpec


class FloorRow(Model):
    check: str
    kind: str
    params: tuple[tuple[str, int], ...]
    derivation: str
    bar: float | None = Field(description="Derived by benchsite from the kind and parameters.")
    usable: bool = Field(description="Derived and has a bar: usable as a bar.")


class RowResult(Model):
    id: str
    case: str
    check: str
    state: RowState
    outcome: Literal["pass", "fail", "warn"] | None = Field(description="None when not measured.")
    value: float | None
    judge: str | None = Field(description="The judge's model id; None for a deterministic check.")
    self_judged: bool


class RunCounts(Model):
    measured: int
    not_applicable: int
    not_measured: int
    passed: int
    failed: int
    warned: int
    ignored_not_applicable: int = Field(
        description="Not-applicable rows for no (case, check) of the definition."
    )


class DefinitionsRunSummary(Model):
    id: str
    arm: str
    rep: int
    subject: str
    digest: str
    parent_invocation: str | None
    producer_verdict: str = Field(description="manifest.json run.verdict")
    summary_verdict: str = Field(description="summary.json verdict")
    verdict: Verdict = Field(description="Recomputed by benchsite from the rows.")
    disagrees: bool
    counts: RunCounts


class DefinitionsRunDetail(DefinitionsRunSummary):
    rows_field: ClassVar[str] = "rows"
    """The field holding the run's rows (a long run is paged by them)."""

    rows: tuple[RowResult, ...]


class FloorTest(Model):
    """A check's successes over measured cases against its own floor, for one arm and one rule."""

    check: str
    arm: str
    rule: str
    successes: int
    cases: int
    bar: float | None
    p_value: float | None = Field(description="Exact one-sided P(X ≥ k | n, bar); None when undefined.")
    test: str
    minimum_p: float | None
    underpowered: bool
    above_floor: bool
    interval: Interval | None
    flag: str | None = Field(description="A caution about the collapse rule ('any' is best-of-N).")


class CaseValue(Model):
    check: str
    arm: str
    rule: str
    value: float | None = Field(description="Mean over measured cases of each case's collapsed value.")
    cases: int


class PairedRow(Model):
    check: str
    reference: str
    challenger: str
    wins: int
    losses: int
    ties: int
    p_value: float = Field(description="Exact two-sided sign test on wins + losses (1 when none).")
    minimum_p: float
    mean_delta: float | None = Field(
        description="Mean over the paired cases of (challenger − reference) on the collapsed values: "
        "AgentEval's PairedEvalComparer figure."
    )
    rep_mean_delta: float | None = Field(
        description="Extra: mean over the same cases of (challenger's rep mean − reference's rep mean)."
    )
    undecidable: bool
    excluded_not_measured: int
    excluded_not_applicable: int


class CensusRow(Model):
    """Collapsed cases of one (check, arm) by state (not cases × reps)."""

    check: str
    arm: str
    measured: int
    not_applicable: int
    not_measured: int
    void: bool = Field(description="Something was observed and nothing measured.")


class DefinitionsSection(SectionDefaults):
    family: Literal["definitions"] = "definitions"
    contract: AdrContract
    definition: Definition
    floors: tuple[FloorRow, ...]
    runs: tuple[DefinitionsRunSummary, ...]
    floor_tests: tuple[FloorTest, ...]
    values: tuple[CaseValue, ...]
    paired: tuple[PairedRow, ...]
    census: tuple[CensusRow, ...]
    corrections: tuple[Correction, ...]
    floors_note: str
    scoring: DefinitionsScoring

    @staticmethod
    def detail_model() -> type[DefinitionsRunDetail]:
        return DefinitionsRunDetail

    def rankings(self) -> tuple[Ranking, ...]:
        """Per check: the arms' collapsed pass rates against the check's floor. Arms share their cases,
        so neighbour tests are the paired sign tests under 'Against reference', not independent tests."""
        rule = self.definition.paired_collapse
        result = []
        for check in self.definition.checks:
            tests = [t for t in self.floor_tests if t.check == check.key and t.rule == rule]
            tests.sort(key=lambda t: (-(t.successes / t.cases) if t.cases else 1.0, t.arm))
            entries = [(t.arm, rate(t.successes, t.cases)) for t in tests]
            bar = tests[0].bar if tests else None
            result.append(
                rate_ranking(
                    f"check-{check.key}",
                    check.key,
                    f"Cases passed ({rule} of the reps) / measured cases",
                    entries,
                    reference=bar,
                    reference_label=None if bar is None else "chance floor",
                    tested=False,
                    note="Arms share their cases: see the paired sign tests against the reference.",
                )
            )
        return tuple(result)

    def headline(self, rankings: tuple[Ranking, ...]) -> Headline:
        """Who leads on the definition's first check (its declared primary), in cases passed."""
        if not rankings:
            return lead_headline(None, Wording("arm", "arms", "cases passed"))
        return lead_headline(
            rankings[0], Wording("arm", "arms", f"cases passed on check {rankings[0].title}")
        )

    def breakdown(self) -> Breakdown | None:
        rule = self.definition.paired_collapse
        checks = [c.key for c in self.definition.checks]
        found = {(t.arm, t.check): t for t in self.floor_tests if t.rule == rule}
        rows = []
        for arm in self.definition.arms:
            tests = [found.get((arm.id, check)) for check in checks]
            rows.append(
                (
                    arm.id,
                    tuple(None if t is None or not t.cases else rate(t.successes, t.cases) for t in tests),
                )
            )
        title = f"Cases passed ({rule} of the reps) / measured cases, per check and arm"
        return Breakdown(title=title, series=tuple((c, 1.0) for c in checks), rows=tuple(rows))

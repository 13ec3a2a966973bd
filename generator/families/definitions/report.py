"""Report section of the definitions family: verdicts, floors, paired arms, census, corrections."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import ClassVar, Literal

from pydantic import Field

from generator.families.definitions.models import Correction, Definition
from generator.families.definitions.spec import DefinitionsSpec
from generator.families.specs import ScoringBase
from generator.figures.headline import Caveat, Headline, Wording, count_words, lead_headline, listed
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
        """Run verdicts first (which arm has the most passing runs, or plainly that none passes), then
        who leads on the first check the definition lists: the definition names no primary check, and
        benchsite reads the first listed as the primary, so the basis line says so."""
        caveats = self._verdict_caveats(rankings) + self._correction_caveats()
        sentence = self._verdict_lead()
        if not rankings:
            lead = lead_headline(None, Wording("arm", "arms", "cases passed"), caveats)
            return lead.model_copy(update={"sentence": f"{sentence} {lead.sentence}"})
        check = rankings[0].title
        lead = lead_headline(rankings[0], Wording("arm", "arms", f"cases passed on check {check}"), caveats)
        basis = (
            f"The check-level lead is on {check}, the first of the definition's "
            f"{count_words(len(self.definition.checks), 'checks')}: the definition names no primary check, "
            f"so benchsite takes the first it lists. {lead.basis}"
        )
        return lead.model_copy(
            update={"sentence": f"{sentence} Over the checks: {lead.sentence}", "basis": basis}
        )

    def _arm_verdicts(self) -> list[tuple[str, Counter[str]]]:
        """Each arm with the verdicts of its scored runs, in the definition's arm order."""
        return [
            (arm.id, Counter(r.verdict for r in self.runs if r.arm == arm.id)) for arm in self.definition.arms
        ]

    def _verdict_lead(self) -> str:
        """Who has the most passing runs (as a share of the arm's runs), or that no run passes."""
        arms = [(arm, verdicts) for arm, verdicts in self._arm_verdicts() if verdicts.total()]
        if not arms:
            return "No run has been scored."
        if not any(verdicts["PASS"] for _, verdicts in arms):
            total = sum(verdicts.total() for _, verdicts in arms)
            counts = _verdict_counts(sum((v for _, v in arms), Counter()))
            return f"No arm has a passing run: none of the {total} runs has the verdict PASS ({counts})."
        best = max(Fraction(v["PASS"], v.total()) for _, v in arms)
        leaders = [(arm, v) for arm, v in arms if Fraction(v["PASS"], v.total()) == best]
        others = [f"{arm} {v['PASS']} of {v.total()}" for arm, v in arms if (arm, v) not in leaders]
        first = leaders[0][1]
        each = " each" if len(leaders) > 1 else ""
        verb = "lead" if len(leaders) > 1 else "leads"
        sentence = f"{listed([arm for arm, _ in leaders])} {verb} on run verdicts with {first['PASS']} of "
        sentence += f"{first.total()} runs PASS{each}"
        return f"{sentence}; {', '.join(others)}." if others else f"{sentence}."

    def _verdict_caveats(self, rankings: tuple[Ranking, ...]) -> tuple[Caveat, ...]:
        """No run passes; or the arm leading on the check has no passing run while another arm has."""
        arms = [(arm, verdicts) for arm, verdicts in self._arm_verdicts() if verdicts.total()]
        present = sorted({v for _, verdicts in arms for v in verdicts}, key=VERDICT_ORDER.index)
        per_arm = "; ".join(f"{arm} {_verdict_counts(verdicts)}" for arm, verdicts in arms)
        if arms and "PASS" not in present:
            text = f"Every run of every arm has the verdict {' or '.join(present)}: {per_arm}."
            return (Caveat(kind="no-run-passes", text=text),)
        leaders = _check_leaders(rankings)
        failing = [(arm, verdicts) for arm, verdicts in arms if arm in leaders and not verdicts["PASS"]]
        return tuple(
            Caveat(
                kind="no-run-passes",
                text=f"{arm} leads on check {rankings[0].title} but has no passing run "
                f"({_verdict_counts(verdicts)}).",
            )
            for arm, verdicts in failing
        )

    def _correction_caveats(self) -> tuple[Caveat, ...]:
        """Each ledger correction in effect in this version: what it touches and which way it moves."""
        return tuple(
            Caveat(
                kind="corrections", text=f"Correction {c.id} is in effect for {_targets(c)}: {c.direction}."
            )
            for c in self.corrections
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


VERDICT_ORDER: tuple[Verdict, ...] = ("PASS", "WARN", "FAIL", "PENDING")


def _verdict_counts(verdicts: Counter[str]) -> str:
    """'6 FAIL, 1 PENDING': a run count per verdict present, in a fixed order."""
    return ", ".join(f"{verdicts[v]} {v}" for v in VERDICT_ORDER if verdicts[v])


def _targets(correction: Correction) -> str:
    """'check policy-match and arm baseline': what a correction affects, in words."""
    return listed([target.replace(":", " ", 1) for target in correction.affects])


def _check_leaders(rankings: tuple[Ranking, ...]) -> set[str]:
    """The arms with the top measured figure on the first check's ranking (none without one)."""
    measured = [r for r in rankings[0].rows if r.estimate is not None] if rankings else []
    best = max((r.estimate for r in measured if r.estimate is not None), default=None)
    return {r.subject for r in measured if r.estimate == best}

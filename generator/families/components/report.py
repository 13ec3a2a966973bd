"""Report section of the components family. A score never appears without its three components."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from generator.families.components.models import ComponentsContract, FocusCriterion, Task
from generator.families.components.spec import ComponentsSpec
from generator.families.specs import ScoringBase
from generator.figures.headline import Caveat, Headline, Wording, lead_headline, listed
from generator.figures.model import Model, Rate, SectionDefaults
from generator.figures.numbers import fmt_number
from generator.figures.ranking import Breakdown, Ranking, mean_ranking


class Spread(Model):
    """Mean, sample standard deviation and n of one figure over a group of episodes."""

    mean: float | None = Field(description="None when n = 0.")
    sd: float | None = Field(description="Sample standard deviation (n − 1); None when n < 2.")
    n: int


class Components(Model):
    """The three components and the weighted score, always together."""

    outcome: float | None
    process: float | None
    rationale: float | None = Field(description="None when not scored (see the rationale note).")
    score: float | None = Field(description="Σ weight · component; None when rationale is not scored.")


class CriterionScore(Model):
    criterion: str
    score: float | None = Field(description="Median over the judges; None when not judged.")
    judges: int


class EpisodeResult(Model):
    episode_id: str
    task: str
    level: str
    subject: str
    kind: str
    seed: int
    components: Components
    f1: float
    precision: float | None = Field(description="Detection precision TP / (TP + FP); None with no findings.")
    recall: float | None = Field(description="TP / (TP + FN); None with no seeded defect.")
    issue_type_accuracy: float | None
    exactness: float | None = Field(description="None when no matched defect specifies a figure.")
    true_positives: int
    false_positives: int
    false_negatives: int
    coverage: float
    evidence_precision: float
    efficiency: float
    hard_fails: tuple[str, ...]
    missing_calls: tuple[str, ...]
    criteria: tuple[CriterionScore, ...]
    rationale_total: float | None
    pass_bar: bool | None
    rationale_note: str | None
    fabricated_citations: tuple[str, ...]
    judges: tuple[str, ...]
    sme_grades: tuple[CriterionScore, ...] = Field(description="SME grades per criterion, when supplied.")


class ComponentSpreads(Model):
    outcome: Spread
    process: Spread
    rationale: Spread
    score: Spread


class Cell(Model):
    """One (task, subject) cell over its seeds."""

    task: str
    subject: str
    seeds: int
    flagged: bool = Field(description="Fewer seeds than the benchmark's minimum: single-seed noise.")
    spreads: ComponentSpreads


class SubjectRow(Model):
    position: int = Field(
        description="Order by mean score, then mean outcome, then id; never the score alone."
    )
    subject: str
    episodes: int
    spreads: ComponentSpreads
    pass_bar: Rate = Field(
        description="Episodes meeting the rationale pass bar / episodes with a scored rationale."
    )
    fabricated_citations: int
    episodes_with_fabrication: int
    flagged_cells: int


class BaselineCheck(Model):
    task: str
    level: str
    baseline: str
    episodes: int
    spreads: ComponentSpreads
    threshold: float | None = Field(
        description="None where no check applies (no-evidence on L1 or on a clean control)."
    )
    passes: bool | None = Field(description="Mean outcome ≤ threshold; None when not checked.")


class FamilyGrades(Model):
    family: str
    graded_rationales: int
    under_bar: bool = Field(description="Fewer than the 20 human-graded rationales the protocol asks for.")


class Agreement(Model):
    """Judge–SME agreement on rationale criteria."""

    measured: bool
    pairs: int
    exact: Rate | None = Field(description="Pairs where the judges' median equals the SME grade.")
    weighted_kappa: float | None = Field(description="Quadratic-weighted Cohen's kappa over 0–3 grades.")
    skipped_non_integral: int
    families: tuple[FamilyGrades, ...]
    unmeasured_families: tuple[str, ...] = Field(description="Task families without any SME grade.")
    note: str


class RunSummary(Model):
    id: str
    digest: str
    subject: str
    kind: str
    producer: str
    episode_count: int


class RunDetail(RunSummary):
    """One run with every episode: its page and ``data/runs/<bench>/<run>.json``."""

    rows_field: ClassVar[str] = "episodes"
    """The field holding the run's rows (a long run is paged by them)."""

    episodes: tuple[EpisodeResult, ...]


ALL_RUNS = "all runs"
"""The batch of a judge-drift row over the whole version."""


class JudgeDrift(Model):
    """One judge's scores on one criterion, in one batch (a run) or over the whole version: kept
    apart so drift of the one non-deterministic component is measurable."""

    judge: str = Field(description="The judge's hash.")
    criterion: str
    batch: str = Field(description="A run id, or 'all runs' for the whole version.")
    counts: tuple[int, int, int, int] = Field(description="How many times it scored 0, 1, 2 and 3.")
    n: int
    mean: float


class ComponentsScoring(ScoringBase):
    """The specification this benchmark was scored by, where it came from, and its rules in words."""

    specification: ComponentsSpec


class ComponentsSection(SectionDefaults):
    family: Literal["components"] = "components"
    contract: ComponentsContract
    scoring: ComponentsScoring
    tasks: tuple[Task, ...]
    minimum_seeds: int = Field(description="The specification's seeds.minimum.")
    leaderboard: tuple[SubjectRow, ...]
    cells: tuple[Cell, ...]
    baselines: tuple[BaselineCheck, ...]
    agreement: Agreement
    runs: tuple[RunSummary, ...]
    focus: dict[str, FocusCriterion] = Field(
        default_factory=dict, description="Per task family, its declared focus criterion."
    )
    judge_drift: tuple[JudgeDrift, ...] = Field(
        default=(), description="Each judge's score distribution per criterion, per run and overall."
    )

    @staticmethod
    def detail_model() -> type[RunDetail]:
        return RunDetail

    def rankings(self) -> tuple[Ranking, ...]:
        entries = [
            (r.subject, r.spreads.score.mean, r.spreads.score.sd, r.spreads.score.n) for r in self.leaderboard
        ]
        return (
            mean_ranking(
                "score", "Mean weighted score", "Mean episode score (outcome, process, rationale)", entries
            ),
        )

    def headline(self, rankings: tuple[Ranking, ...]) -> Headline:
        """Who leads on the mean weighted episode score (its three components are shown beside it),
        with what weakens the score's reading: violated anti-gaming baselines, judge–expert agreement
        under the protocol's bar, fabricated citations."""
        details = {
            row.subject: "outcome {}, process {}, rationale {}".format(
                *(
                    fmt_number(m.mean, 2)
                    for m in (row.spreads.outcome, row.spreads.process, row.spreads.rationale)
                )
            )
            for row in self.leaderboard
        }
        caveats = self._baseline_caveats() + self._agreement_caveats() + self._fabrication_caveats()
        wording = Wording("model", "models", "mean weighted score", details=details)
        return lead_headline(rankings[0], wording, caveats)

    def _baseline_caveats(self) -> tuple[Caveat, ...]:
        """Each anti-gaming baseline whose mean outcome is above its threshold, with the tasks."""
        violated: dict[str, list[BaselineCheck]] = {}
        for check in self.baselines:
            if check.passes is False:
                violated.setdefault(check.baseline, []).append(check)
        caveats = []
        for baseline, checks in violated.items():
            outcomes = listed([fmt_number(c.spreads.outcome.mean, 2) for c in checks])
            thresholds = sorted({fmt_number(c.threshold, 2) for c in checks})
            word = "threshold" if len(thresholds) == 1 else "thresholds"
            text = (
                f"The anti-gaming baseline {baseline} is violated on {listed([c.task for c in checks])}: "
                f"mean outcome {outcomes}, above its {word} of {listed(thresholds)}."
            )
            caveats.append(Caveat(kind="baseline-violated", text=text))
        return tuple(caveats)

    def _agreement_caveats(self) -> tuple[Caveat, ...]:
        """Judge–expert agreement not measured at all, or resting on fewer graded rationales than the
        protocol's bar in some task families (named with their counts)."""
        bar = self.scoring.specification.agreement.sme_rationales_per_family
        agreement = self.agreement
        if not agreement.measured:
            text = (
                "Judge–expert agreement is not measured: no rationale has a human grade, where the protocol "
                f"asks for {bar} per task family."
            )
            return (Caveat(kind="agreement-not-measured", text=text),)
        under = [f for f in agreement.families if f.under_bar]
        if not under:
            return ()
        counts = listed([str(f.graded_rationales) for f in under])
        families = listed([f.family for f in under])
        noun = "rationale" if len(under) == 1 and under[0].graded_rationales == 1 else "rationales"
        text = (
            f"Judge–expert agreement rests on {counts} human-graded {noun} for {families}, "
            f"against the protocol's {bar} per task family."
        )
        return (Caveat(kind="agreement-below-protocol", text=text),)

    def _fabrication_caveats(self) -> tuple[Caveat, ...]:
        """Models whose rationales cite sources that do not exist: a score hides them."""
        found = [r for r in self.leaderboard if r.fabricated_citations]
        if not found:
            return ()
        each = [
            f"{r.subject} {r.fabricated_citations} in {r.episodes_with_fabrication} "
            f"{'episode' if r.episodes_with_fabrication == 1 else 'episodes'}"
            for r in found
        ]
        return (Caveat(kind="fabricated-citations", text=f"Fabricated citations: {listed(each)}."),)

    def breakdown(self) -> Breakdown | None:
        series = (("Outcome", 1.0), ("Process", 1.0), ("Rationale", 1.0), ("Score", 1.0))
        rows = tuple(
            (
                r.subject,
                (
                    r.spreads.outcome.mean,
                    r.spreads.process.mean,
                    r.spreads.rationale.mean,
                    r.spreads.score.mean,
                ),
            )
            for r in self.leaderboard
        )
        return Breakdown(
            title="Mean of each component and of the weighted score per model", series=series, rows=rows
        )

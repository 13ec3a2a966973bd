"""Report section of the trials family. ``scores`` is the frozen part: blind labels only."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar, Literal

from pydantic import Field

from generator.canon import canonical_json
from generator.families.specs import ScoringBase
from generator.families.trials.models import TrialsContract
from generator.families.trials.spec import NotApplicable, TrialsSpec, condition_words
from generator.figures.headline import Caveat, Headline, Wording, lead_headline, listed
from generator.figures.model import Model, Rate, producer_file_path
from generator.figures.ranking import Breakdown, Ranking, rate_ranking


class TrialRow(Model):
    """One planned trial, scored (or counted as a failure when its result is missing)."""

    trial_id: str
    provider: str = Field(description="Blind label.")
    prompt_id: str
    prompt_corpus_version: str
    run: str | None = Field(description="Run folder holding the result; None when missing.")
    success: bool
    reasons: tuple[str, ...] = Field(description="Why not an autonomous success; empty for a success.")
    terminal: str
    build: str
    boot: str
    required_passed: int = Field(description="Required functional checks that passed.")
    required_total: int = Field(description="Required functional checks of the trial's prompt.")
    counted_interventions: tuple[str, ...]
    cost_usd_micros: int | None = Field(description="None when unavailable (never zero).")
    cost_note: str
    elapsed_ms: int | None
    failure_code: str | None
    evaluator: str | None = Field(description="'sha256:' hash of the evaluator; None when missing.")


class FailureCount(Model):
    code: str
    count: int


class Metrics(Model):
    """The seed's primary and secondary metrics, over every planned trial of a group."""

    planned: int
    success: Rate = Field(description="autonomous_success_rate: successes / planned trials.")
    build_pass: Rate
    boot_pass: Rate
    all_functional_checks_pass: Rate
    zero_intervention: Rate
    median_elapsed_ms: int | None = Field(description="Nearest rank over trials with an elapsed time.")
    p95_elapsed_ms: int | None
    elapsed_n: int
    elapsed_unavailable: int
    median_measured_cost_usd_micros: int | None = Field(description="Nearest rank over measured costs only.")
    cost_measured: int
    cost_unavailable: int = Field(description="Unavailable or missing: excluded, never zero.")
    failure_codes: tuple[FailureCount, ...]


class ProviderRow(Model):
    position: int = Field(description="Order by success basis points, then successes, then label.")
    provider: str = Field(description="Blind label.")
    metrics: Metrics


class EvaluatorRecord(Model):
    evaluator: str
    trials: int
    providers: tuple[str, ...]


class SourceRecord(Model):
    """One of the producer's own files, sealed in the run folder (``run.json``'s ``sources``)."""

    name: str = Field(description="Its file name in the run folder.")
    sha256: str
    size: int

    @property
    def published(self) -> str:
        """Where the site publishes it, under its run's folder (an inert name the site chooses)."""
        return producer_file_path(self.name, self.sha256)


class ReportedFigure(Model):
    """A figure the producer computed itself, beside the one benchsite computed from the same trials."""

    name: str
    check: str
    value: str = Field(description="Exactly as the producer wrote it.")
    basis: str
    derived: Rate = Field(
        description="benchsite's own: this run's trials where the check passed / planned trials."
    )
    agrees: bool = Field(
        description="The producer's value states derived numerator / denominator: its nearest double, "
        "or within half a unit of its last digit."
    )


def _empty(value: object) -> bool:
    return not value


class RunSummary(Model):
    id: str
    digest: str
    producer: str
    plan_sha256: str
    trial_count: int
    subject: str | None = Field(
        default=None,
        exclude_if=_empty,
        description="The subject as the producer names it, when the plan's labels are not blind.",
    )
    sources: tuple[SourceRecord, ...] = Field(default=(), exclude_if=_empty)
    reported: tuple[ReportedFigure, ...] = Field(default=(), exclude_if=_empty)
    notes: tuple[str, ...] = Field(default=(), exclude_if=_empty)


class RunDetail(RunSummary):
    """One run with every trial row: its page and ``data/runs/<bench>/<run>.json``."""

    rows_field: ClassVar[str] = "trials"
    """The field holding the run's rows (a long run is paged by them)."""

    trials: tuple[TrialRow, ...]


class PairedRow(Model):
    """Two providers compared prompt by prompt (``spec.Paired``)."""

    first: str = Field(description="The higher-placed provider of the two.")
    second: str
    prompts: int = Field(description="Prompts both were planned on.")
    wins: int = Field(description="Prompts where the first's success share is higher.")
    losses: int
    ties: int
    p_value: float = Field(description="Exact two-sided sign test on wins and losses (1 when none).")
    method: str
    only_first: tuple[str, ...] = Field(description="Prompts only the first was planned on: not compared.")
    only_second: tuple[str, ...]


class TrialsScores(Model):
    """Everything scored, under blind labels. Its canonical JSON is ``data/scores/<id>.json``."""

    rubric_id: str
    plan_sha256: str
    overall: Metrics
    leaderboard: tuple[ProviderRow, ...]
    runs: tuple[RunSummary, ...]
    missing: tuple[TrialRow, ...] = Field(description="Planned trials without a result.")
    evaluators: tuple[EvaluatorRecord, ...]


class RevealedName(Model):
    provider: str
    name: str


class RevealRecord(Model):
    scores_version: str = Field(description="The earlier published version whose scores were frozen.")
    scores_sha256: str
    names: tuple[RevealedName, ...]


class TrialsScoring(ScoringBase):
    """The trials specification a benchmark was scored by, where it came from, and its rules in words."""

    specification: TrialsSpec


class TrialsSection(Model):
    family: Literal["trials"] = "trials"
    contract: TrialsContract
    scoring: TrialsScoring
    scores: TrialsScores
    scores_sha256: str = Field(description="sha256 of data/scores/<id>.json in this version.")
    reveal: RevealRecord | None
    names: tuple[RevealedName, ...] = Field(
        default=(),
        exclude_if=_empty,
        description="Each provider label's own name (the subject its runs name), when the plan's labels "
        "are the subjects' names: the leaderboard shows the name, the label beside it.",
    )
    paired: tuple[PairedRow, ...] = Field(default=(), exclude_if=_empty)

    @property
    def autonomy(self) -> bool:
        """Whether success asks anything of the trial's autonomy (build, boot, interventions): then it
        is "autonomous success", as the seed calls it; else (an imported evaluation) plain "success"."""
        kinds = {c.kind for c in self.scoring.specification.primary.all_of}
        return bool(kinds & {"observed", "counted_interventions"})

    @property
    def success_label(self) -> str:
        return "Autonomous success" if self.autonomy else "Success"

    @property
    def named(self) -> bool:
        """The plan's labels are the subjects' own names (not blind)."""
        return self.scoring.specification.blind.labels == "subject_names"

    @property
    def provider_names(self) -> dict[str, str]:
        """Provider label → its own name (the plan's labels are names), else none."""
        return {n.provider: n.name for n in self.names}

    @property
    def shown(self) -> dict[str, str]:
        """Provider label → what a reader reads for it: its own name, with the label when another
        label has the same name (two kinds of runs of one model); the label when it has no name."""
        names = self.provider_names
        held = Counter(names.values())
        shown = {label: name if held[name] == 1 else f"{name} ({label})" for label, name in names.items()}
        return {row.provider: shown.get(row.provider, row.provider) for row in self.scores.leaderboard}

    @property
    def primary_words(self) -> str | None:
        """The success conjunction in words, for a specification of the benchmark's own; None for the
        seed's rules, which the leaderboard states in the seed's own terms."""
        if self.scoring.source == "built-in":
            return None
        clauses = " ∧ ".join(condition_words(c) for c in self.scoring.specification.primary.all_of)
        return f"success = {clauses}"

    @property
    def sources_published(self) -> bool:
        """Whether the producers' own files are published: they name the subjects, so only when the
        plan's labels are names or this version reveals them."""
        return self.scoring.specification.blind.labels == "subject_names" or self.reveal is not None

    def attachments(self) -> tuple[tuple[str, str, str, int], ...]:
        """(run id, file name, sha256, size) of every producer file the site publishes beside its run."""
        if not self.sources_published:
            return ()
        return tuple((run.id, s.name, s.sha256, s.size) for run in self.scores.runs for s in run.sources)

    @property
    def not_applicable(self) -> dict[str, str]:
        """Secondary rates the specification declares not applicable: metric field → why."""
        return {
            m.name.removesuffix("_rate"): m.why
            for m in self.scoring.specification.secondary
            if isinstance(m, NotApplicable)
        }

    @property
    def runs(self) -> tuple[RunSummary, ...]:
        return self.scores.runs

    @staticmethod
    def detail_model() -> type[RunDetail]:
        return RunDetail

    def frozen_scores(self) -> bytes | None:
        return scores_file(self.scores)

    def rankings(self) -> tuple[Ranking, ...]:
        entries = [(row.provider, row.metrics.success) for row in self.scores.leaderboard]
        if self.autonomy:
            figure = "Autonomous successes / planned trials"
            return (rate_ranking("autonomous-success", "Autonomous success rate", figure, entries),)
        return (rate_ranking("success", "Success rate", "Successes / planned trials", entries),)

    def headline(self, rankings: tuple[Ranking, ...]) -> Headline:
        """Who leads on autonomous success, under blind labels until a reveal names them."""
        names = (
            {r.provider: f"{r.provider} ({r.name})" for r in self.reveal.names}
            if self.reveal is not None
            else {label: text for label, text in self.shown.items() if text != label}
        )
        wording = Wording(
            "provider", "providers", "autonomous success" if self.autonomy else "success", names
        )
        return lead_headline(rankings[0], wording, self._missing_caveats() + self._producer_caveats())

    def _missing_caveats(self) -> tuple[Caveat, ...]:
        """Planned trials without a result: each counts as a failure of its provider."""
        missing = self.scores.missing
        if not missing:
            return ()
        each = listed([f"{t.trial_id} ({t.provider})" for t in missing])
        have = "has" if len(missing) == 1 else "have"
        trials = "trial" if len(missing) == 1 else "trials"
        text = f"{len(missing)} planned {trials} {have} no result and count as failures: {each}."
        return (Caveat(kind="missing-trials", text=text),)

    def _producer_caveats(self) -> tuple[Caveat, ...]:
        """Figures a producer reported that benchsite's count over every planned trial does not equal:
        a reader who saw the producer's number should know why this page's differs."""
        differing = [
            f"{run.id}: {f.name} {f.value} against {f.derived.numerator}/{f.derived.denominator}"
            for run in self.scores.runs
            for f in run.reported
            if not f.agrees
        ]
        if not differing:
            return ()
        figures = "figure differs" if len(differing) == 1 else "figures differ"
        text = (
            f"{len(differing)} {figures} from the producer's own ({listed(differing)}): benchsite counts "
            "every planned trial, errored and missing ones as failures; the run pages say how each was "
            "computed."
        )
        return (Caveat(kind="producer-differs", text=text),)

    def breakdown(self) -> Breakdown | None:
        shown = {
            "build_pass": "Build passes",
            "boot_pass": "Boots",
            "all_functional_checks_pass": "All checks pass",
            "zero_intervention": "No intervention",
            "success": "Autonomous success" if self.autonomy else "Success",
        }
        for name in self.not_applicable:
            del shown[name]
        names, labels = tuple(shown), tuple(shown.values())
        rows = []
        for row in self.scores.leaderboard:
            rates = [getattr(row.metrics, name) for name in names]
            rows.append(
                (
                    row.provider,
                    tuple(None if r.denominator == 0 else r for r in rates),
                )
            )
        series = tuple((label, 1.0) for label in labels)
        return Breakdown(
            title="Secondary rates per provider, over planned trials", series=series, rows=tuple(rows)
        )

    def reveal_citation(self) -> tuple[str, str] | None:
        """(earlier version, sha256 of its frozen scores file) that this version's reveal applies to."""
        return None if self.reveal is None else (self.reveal.scores_version, self.reveal.scores_sha256)

    def revealed_names(self) -> tuple[str, ...]:
        return () if self.reveal is None else tuple(n.name for n in self.reveal.names)


def scores_file(scores: TrialsScores) -> bytes:
    """The frozen scores file: the same bytes in the blind version and in any later reveal."""
    return canonical_json(scores.model_dump(mode="json", by_alias=True)).encode("utf-8")

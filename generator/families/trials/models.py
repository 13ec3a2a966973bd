"""Input models of the trials family: the seed-001 contract, the benchmark, the frozen trial plan,
trial results and the reveal.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from generator.families.input_base import (
    EVALUATOR_HASH,
    SAFE_ID,
    SHA256_HEX,
    RubricPin,
    SchemaVersion1,
    Shown,
    SpecPin,
    Strict,
)
from generator.families.rules import rules_digest
from generator.families.trials.fastrow import result_row
from generator.families.trials.spec import CheckState, EvidenceKind, Observed, Terminal, TrialsSpec
from generator.inputs import numbers

# --- the contract (seed 001), as its owner froze it ---------------------------------------------


class PrimaryMetric(Strict):
    id: Literal["autonomous_success_rate"]
    numerator: str
    denominator: str
    aggregation: str


class ObservableDimension(Strict):
    pass_: str = Field(alias="pass")
    fail: str
    not_observable: str


class FunctionalityDimension(Strict):
    pass_: str = Field(alias="pass")
    fail: str


class InterventionDimension(Strict):
    zero: str
    positive: str


class CostDimension(Strict):
    measured: str
    unavailable: str


class TimeDimension(Strict):
    unit: Literal["milliseconds"]
    clock: str
    failed_trial: str


class TrialsDimensions(Strict):
    build: ObservableDimension
    boot: ObservableDimension
    functionality: FunctionalityDimension
    human_intervention: InterventionDimension
    cost: CostDimension
    time: TimeDimension


class BlindScoring(Strict):
    required: bool
    evaluator_identifier: str
    provider_identity_revealed_after_score_is_frozen: bool


TRIALS_RULES = ("primary_metric", "dimensions", "secondary_metrics", "blind_scoring")
SEED_RULES_SHA256 = "82f4a41103104926e42a8502d890159fff3f35b719ce982c30c1ed52f73aa11c"
"""The rules digest of seed 001 (``rules.rules_digest`` over ``TRIALS_RULES``): a contract with these
rules and no specification of its own is scored by the built-in specification."""


class TrialsContract(Strict):
    """A ``bia.vibe-benchmark-rubric/v1`` rubric: seed 001 (``autonomous-delivery-v1``), its
    successors, or a team's own rubric in the same shape. How it scores is its specification
    (``trials.spec``): the contract's ``scoring`` object, a pinned ``scoring.json``, or the built-in
    one for the seed's rules."""

    schema_: Literal["bia.vibe-benchmark-rubric/v1"] = Field(alias="schema")
    rubric_id: str
    primary_metric: PrimaryMetric
    dimensions: TrialsDimensions
    secondary_metrics: tuple[str, ...]
    blind_scoring: BlindScoring
    scoring: TrialsSpec | None = Field(default=None, description="The contract's own scoring specification.")

    @property
    def rules_sha256(self) -> str:
        return rules_digest(self, TRIALS_RULES)


# --- the benchmark, its prompt corpus and its frozen trial plan ---------------------------------


class Prompt(Strict):
    id: Shown = Field(
        min_length=1,
        description="The prompt's id as its producer wrote it, in any script: text the pages show, never a"
        " file name (a trial id is).",
    )
    required_checks: tuple[Shown, ...] = Field(
        min_length=1, description="Every required functional check of this prompt."
    )


class PromptCorpus(Strict):
    version: Shown = Field(min_length=1)
    prompts: tuple[Prompt, ...] = Field(min_length=1)


class TrialsDeclaration(Strict):
    """``benchmark.json`` for a trials benchmark."""

    schema_version: SchemaVersion1
    family: Literal["trials"]
    title: Shown = Field(min_length=1)
    description: str = ""
    rubric: RubricPin
    scoring: SpecPin | None = Field(
        default=None,
        description="A sealed scoring specification beside the contract, pinned like it (docs/scoring.md).",
    )
    plan: str = Field(description="The frozen trial plan file in this folder.")
    prompt_corpora: tuple[PromptCorpus, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> TrialsDeclaration:
        versions = [c.version for c in self.prompt_corpora]
        if len(set(versions)) != len(versions):
            raise ValueError("duplicate prompt corpus version")
        for corpus in self.prompt_corpora:
            ids = [p.id for p in corpus.prompts]
            if len(set(ids)) != len(ids):
                raise ValueError(f"duplicate prompt id in corpus {corpus.version!r}")
        return self


class PlannedTrial(Strict):
    trial_id: str = Field(pattern=SAFE_ID)
    prompt_id: str
    prompt_corpus_version: str
    provider: str = Field(pattern=SAFE_ID, description="Blind provider label, never a name.")


class TrialPlan(Strict):
    """The trial plan, frozen (sealed) before execution: every planned trial is in the denominator."""

    schema_version: SchemaVersion1
    trials: tuple[PlannedTrial, ...] = Field(min_length=1)


# --- a run folder: run.json + results.jsonl -----------------------------------------------------


class SourcePin(Strict):
    """One of the producer's own files, kept byte for byte in the run folder (sealed with it)."""

    file: str = Field(pattern=SAFE_ID, description="Its file name in the run folder.")
    sha256: str = Field(pattern=SHA256_HEX)


class ReportedPin(Strict):
    """A figure the producer computed itself over this run's trials of one provider and prompt corpus:
    shown beside the figure benchsite derives (trials whose check passed / planned trials), never used."""

    name: Shown = Field(min_length=1, max_length=80)
    check: Shown = Field(min_length=1, description="The check (a required check of the corpus) it is of.")
    provider: str = Field(pattern=SAFE_ID)
    prompt_corpus_version: str
    value: str = Field(
        pattern=r"^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$", description="As the producer wrote it."
    )
    basis: Shown = Field(min_length=1, max_length=600, description="How the producer computed it.")

    @field_validator("value", mode="before")
    @classmethod
    def _figure(cls, value: object) -> object:
        """The importers' own rule (``inputs.numbers``), so an import and a build say the same."""
        problem = numbers.figure_problem(value) if isinstance(value, str) else None
        if problem is not None:
            raise ValueError(problem)
        return value


class TrialsRun(Strict):
    schema_version: SchemaVersion1
    plan_sha256: str = Field(pattern=SHA256_HEX, description="sha256 of the trial plan file's bytes.")
    producer: Shown = ""
    subject: Shown | None = Field(
        default=None, description="The subject as the producer names it (plans whose labels are names)."
    )
    sources: tuple[SourcePin, ...] = Field(default=(), description="The producer's own files, pinned.")
    reported: tuple[ReportedPin, ...] = ()
    notes: tuple[Annotated[Shown, Field(min_length=1, max_length=600)], ...] = Field(
        default=(), description="What the producer's files say that the figures cannot (an unfinished log…)."
    )


class CheckResult(Strict):
    id: str = Field(min_length=1)
    state: CheckState


class Intervention(Strict):
    kind: str = Field(min_length=1, description="setup, initial_submit, native_permission, publish, …")
    note: str = ""


class CostEvidence(Strict):
    kind: EvidenceKind
    reference: str = Field(min_length=1, description="Which artifact: an invoice id, a usage export, …")


class MeasuredCost(Strict):
    state: Literal["measured"]
    usd_micros: int = Field(ge=0)
    evidence: CostEvidence


class UnavailableCost(Strict):
    state: Literal["unavailable"]
    reason: str = Field(min_length=1)


class TrialResult(Strict):
    """One line of ``results.jsonl``: one planned trial, as observed."""

    fast_row = staticmethod(result_row)

    trial_id: str
    terminal: Terminal
    build: Observed
    boot: Observed
    checks: tuple[CheckResult, ...]
    interventions: tuple[Intervention, ...]
    cost: MeasuredCost | UnavailableCost = Field(discriminator="state")
    elapsed_ms: int | None = Field(
        ge=0, description="Monotonic, prompt submission → terminal evaluation; null when not recorded."
    )
    failure_code: str | None
    evaluator: str = Field(description="One-way hash of the evaluator: 'sha256:' + 64 hex.")

    @field_validator("evaluator")
    @classmethod
    def _hashed(cls, value: str) -> str:
        if not re.match(EVALUATOR_HASH, value):
            raise ValueError("evaluator identifier must be a one-way hash ('sha256:' + 64 lowercase hex)")
        return value

    @field_validator("checks")
    @classmethod
    def _unique_checks(cls, value: tuple[CheckResult, ...]) -> tuple[CheckResult, ...]:
        ids = [c.id for c in value]
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate check id")
        return value


# --- the reveal ---------------------------------------------------------------------------------


class Reveal(Strict):
    """``reveal/reveal.json``: blind label → provider, accepted only against frozen scores."""

    schema_version: SchemaVersion1
    scores_version: str = Field(pattern=SAFE_ID, description="The earlier published version.")
    scores_sha256: str = Field(pattern=SHA256_HEX, description="sha256 of its data/scores/<id>.json.")
    providers: dict[str, str] = Field(description="Blind label → provider name.")

"""The trials family's scoring specification: every number and rule choice its engine uses, as data.

A specification is read from the contract's ``scoring`` object, from a sealed ``scoring.json``
pinned in ``benchmark.json``, or, for a contract stating seed 001's rules, from the built-in
specification shipped beside this module. Nothing in a specification runs: a trial's success is a
conjunction of conditions from a closed set of kinds (``terminal``, ``observed``,
``required_checks``, ``counted_interventions``), each secondary rate counts the trials meeting one
such condition, and every other choice (free interventions, rounding of basis points, percentile
method, failure-code fallbacks, blind labelling) is one of a few named values.
:func:`compile_spec` turns a specification into plain values once per benchmark, before any trial
is scored.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from generator.families.input_base import SPEC_TEXT, SchemaVersion1, Strict
from generator.families.specs import read_builtin

Terminal = Literal["completed", "error", "timeout"]
Observed = Literal["pass", "fail", "not_observable"]
CheckState = Literal["pass", "fail", "skipped", "not_evaluable"]
EvidenceKind = Literal["provider_usage", "invoice", "versioned_allocation"]
RateName = Literal[
    "build_pass_rate", "boot_pass_rate", "all_functional_checks_pass_rate", "zero_intervention_rate"
]
PercentileName = Literal["median_elapsed_ms", "p95_elapsed_ms", "median_measured_cost_usd_micros"]
Quantity = Literal["elapsed_ms", "measured_cost_usd_micros"]
Code = Annotated[str, Field(min_length=1, max_length=80)]

RATES: tuple[str, ...] = (
    "build_pass_rate",
    "boot_pass_rate",
    "all_functional_checks_pass_rate",
    "zero_intervention_rate",
)
"""The secondary rates the scores file holds, in its order (``report.Metrics``)."""
PERCENTILES: dict[str, tuple[str, int]] = {
    "median_elapsed_ms": ("elapsed_ms", 50),
    "p95_elapsed_ms": ("elapsed_ms", 95),
    "median_measured_cost_usd_micros": ("measured_cost_usd_micros", 50),
}
"""The percentile figures the scores file holds: what each is of, and the percentile its name states."""
SECONDARY = (*RATES, *PERCENTILES, "failure_code_counts")
"""Every secondary metric the scores file has a field for: a specification defines each once."""


# --- conditions: the closed set of what a trial can be asked to meet ------------------------------


class TerminalIs(Strict):
    """The trial ended in one of the accepted terminal states."""

    kind: Literal["terminal"]
    accept: tuple[Terminal, ...] = Field(min_length=1)


class ObservedIs(Strict):
    """The build (or boot) was observed in one of the accepted states."""

    kind: Literal["observed"]
    of: Literal["build", "boot"]
    accept: tuple[Observed, ...] = Field(min_length=1)


class RequiredChecks(Strict):
    """Every required check of the trial's prompt is in an accepted state (an absent one is in the
    state ``required_checks.absent`` names)."""

    kind: Literal["required_checks"]
    accept: tuple[CheckState, ...] = Field(min_length=1)


class CountedInterventions(Strict):
    """At most this many counted interventions (``interventions`` says which count)."""

    kind: Literal["counted_interventions"]
    at_most: int = Field(ge=0, le=1000)


Condition = Annotated[
    TerminalIs | ObservedIs | RequiredChecks | CountedInterventions, Field(discriminator="kind")
]


class Primary(Strict):
    name: Literal["autonomous_success_rate"]
    all_of: tuple[Condition, ...] = Field(
        min_length=1, max_length=8, description="A success meets every condition; reasons follow this order."
    )


class RateMetric(Strict):
    """Trials meeting ``counts`` / planned trials."""

    kind: Literal["rate"]
    name: RateName
    counts: Condition


class PercentileMetric(Strict):
    """A percentile of the observed values only (unavailable ones are excluded and counted)."""

    kind: Literal["percentile"]
    name: PercentileName
    of: Quantity
    percentile: int = Field(ge=1, le=100, description="As the name states: median 50, p95 95.")


class FailureCodeCounts(Strict):
    """The number of failed trials per failure code (``failure_codes`` gives the fallbacks)."""

    kind: Literal["failure_code_counts"]
    name: Literal["failure_code_counts"]


class NotApplicable(Strict):
    """A secondary rate the benchmark's trials cannot have (an imported language-model evaluation has
    no build or boot): published as 0/0, shown as not applicable, with the reason."""

    kind: Literal["not_applicable"]
    name: RateName
    why: str = Field(min_length=1, max_length=SPEC_TEXT, description="Why no trial can have this figure.")


Secondary = Annotated[
    RateMetric | PercentileMetric | FailureCodeCounts | NotApplicable, Field(discriminator="kind")
]


class Interval(Strict):
    method: Literal["clopper_pearson"]
    confidence: float = Field(gt=0.5, lt=1)


class Rates(Strict):
    denominator: Literal["planned_trials"] = Field(
        description="Every planned trial, with or without a result."
    )
    missing_result: Literal["meets_no_condition"] = Field(
        description="A planned trial without a result is no success and counts in no rate."
    )
    basis_points: Literal["floor", "half_up", "half_even"] = Field(
        description="How 10000 · numerator / denominator becomes an integer."
    )
    interval: Interval


class FreeAllowance(Strict):
    intervention: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$", description="An intervention kind.")
    free: Literal["any"] | Annotated[int, Field(ge=1, le=1000)] = Field(
        description="How many occurrences in a trial are free: 'any' number, or the first n."
    )


class Interventions(Strict):
    free: tuple[FreeAllowance, ...] = Field(max_length=100)
    others: Literal["counted"] = Field(description="Every kind not listed counts, known or not.")


class RequiredCheckRule(Strict):
    absent: Literal["fail", "skipped", "not_evaluable"] = Field(
        description="The state of a required check the result does not report."
    )
    unrequired: Literal["shown_not_deciding"] = Field(
        description="Checks the prompt does not require are shown and decide nothing."
    )


class FailureCodes(Strict):
    success: Literal["none"] = Field(description="A success has no failure code, whatever it reports.")
    missing_result: Code = Field(description="The code of a planned trial without a result.")
    uncoded_terminal: tuple[Terminal, ...] = Field(
        description="A failed result without a code counts under its terminal state when it is one of these."
    )
    uncoded_otherwise: Code = Field(description="… else under this code.")


class Cost(Strict):
    evidence: tuple[EvidenceKind, ...] = Field(
        min_length=1, description="The evidence kinds a measured cost may cite; any other is refused."
    )
    unavailable: Literal["excluded_and_counted"] = Field(description="Never coerced to zero.")


class Blind(Strict):
    labels: Literal["plan_labels", "subject_names"] = Field(
        description="plan_labels: providers are scored and published under the plan's blind labels; "
        "subject_names: the plan's labels are the subjects' own names (not blind; no reveal)."
    )
    evaluator_identifier: Literal["sha256"] = Field(
        description="'sha256:' + 64 hex; anything else is refused."
    )
    reveal: Literal["after_scores_frozen", "never"] = Field(
        description="after_scores_frozen: a reveal citing the frozen scores file's digest is accepted; "
        "never: a reveal is refused."
    )


class Paired(Strict):
    """Paired comparisons of providers planned on the same prompts (an imported evaluation's models on
    the same samples): per prompt, each provider's successes over its trials of that prompt."""

    by: Literal["prompt"] = Field(description="Trials are paired by (prompt corpus version, prompt id).")
    test: Literal["sign_test"] = Field(
        description="Exact two-sided sign test on the prompts where one provider's success share is higher."
    )


class TrialsSpec(Strict):
    """A trials rubric's scoring specification (``scoring.json``, or the contract's ``scoring``)."""

    schema_version: SchemaVersion1
    family: Literal["trials"]
    rubric: str = Field(min_length=1, description="The contract's rubric_id this specification scores.")
    primary: Primary
    secondary: tuple[Secondary, ...] = Field(
        min_length=1, max_length=len(SECONDARY), description="In the contract's order."
    )
    rates: Rates
    percentile_method: Literal["nearest_rank", "lower", "higher"]
    interventions: Interventions
    required_checks: RequiredCheckRule
    failure_codes: FailureCodes
    cost: Cost
    blind: Blind
    leaderboard: Literal["success_basis_points_then_successes_then_label"]
    paired: Paired | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Paired comparisons of providers by prompt (absent: none).",
    )

    @model_validator(mode="after")
    def _consistent(self) -> TrialsSpec:
        problems = list(spec_problems(self))
        if problems:
            raise ValueError("; ".join(problems))
        return self


def spec_problems(spec: TrialsSpec) -> Iterator[str]:
    """What makes a well-formed specification inconsistent: each a sentence naming the place."""
    yield from _condition_problems("primary.all_of", spec.primary.all_of)
    names: list[str] = [metric.name for metric in spec.secondary]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        yield f"secondary: duplicate name(s) {dupes}"
    missing = [n for n in SECONDARY if n not in names]
    if missing:
        yield f"secondary: {missing} not defined (the scores file has a figure for each of {list(SECONDARY)})"
    for index, metric in enumerate(spec.secondary):
        if isinstance(metric, PercentileMetric):
            of, percentile = PERCENTILES[metric.name]
            if (metric.of, metric.percentile) != (of, percentile):
                yield f"secondary[{index}]: {metric.name} is the {percentile}th percentile of {of}"
    kinds = [a.intervention for a in spec.interventions.free]
    dupes = sorted({k for k in kinds if kinds.count(k) > 1})
    if dupes:
        yield f"interventions.free: duplicate intervention(s) {dupes}"
    yield from _code_problems(spec.failure_codes)
    if spec.blind.labels == "subject_names" and spec.blind.reveal != "never":
        yield "blind.reveal: labels that are the subjects' names have nothing to reveal (use 'never')"
    for place, values in (
        ("cost.evidence", spec.cost.evidence),
        ("failure_codes.uncoded_terminal", spec.failure_codes.uncoded_terminal),
    ):
        if len(set(values)) != len(values):
            yield f"{place}: a value is listed twice"


def _condition_problems(place: str, conditions: tuple[Condition, ...]) -> Iterator[str]:
    seen: set[str] = set()
    for index, condition in enumerate(conditions):
        what = _condition_id(condition)
        if what in seen:
            yield f"{place}[{index}]: a second {what} condition"
        seen.add(what)
        accept = getattr(condition, "accept", ())
        if len(set(accept)) != len(accept):
            yield f"{place}[{index}].accept: a state is listed twice"


def _condition_id(condition: Condition) -> str:
    return f"{condition.kind} {condition.of}" if isinstance(condition, ObservedIs) else condition.kind


def _code_problems(codes: FailureCodes) -> Iterator[str]:
    if codes.missing_result == codes.uncoded_otherwise:
        yield f"failure_codes: missing_result and uncoded_otherwise are both {codes.missing_result!r}"
    for name, code in (
        ("missing_result", codes.missing_result),
        ("uncoded_otherwise", codes.uncoded_otherwise),
    ):
        if code in codes.uncoded_terminal:
            yield f"failure_codes.{name}: {code!r} is also a terminal state in uncoded_terminal"


# --- compiled: plain values for the hot path ----------------------------------------------------


@dataclass(frozen=True)
class CompiledCondition:
    """A condition as plain values: ``state`` (the result's ``of`` field — terminal, build or boot —
    is one of ``accept``), ``required_checks`` (each required check's state is one of ``accept``) or
    ``counted_interventions`` (at most ``at_most``)."""

    kind: Literal["state", "required_checks", "counted_interventions"]
    of: str = ""
    accept: frozenset[str] = frozenset()
    at_most: int = 0


@dataclass(frozen=True)
class TrialsRules:
    """A specification compiled once per benchmark: conditions, allowances and choices as plain values."""

    spec: TrialsSpec
    conditions: tuple[CompiledCondition, ...]
    """Every distinct condition once: the success conjunction's, in order, then any other a rate counts."""
    primary: int
    """The first ``primary`` conditions make up the success conjunction."""
    rates: tuple[int | None, ...]
    """Each secondary rate's condition (an index into ``conditions``), in ``RATES`` order; None for a
    rate the specification declares not applicable."""
    percentiles: tuple[int, ...]
    """Each percentile figure's percentile, in ``PERCENTILES`` order."""
    method: str
    rounding: str
    confidence: float
    free: Mapping[str, int | None]
    """Free occurrences per allowlisted kind (None: any number); any other kind: none."""
    absent: str
    missing_code: str
    uncoded_terminal: frozenset[str]
    uncoded_code: str
    evidence: frozenset[str]
    reveal: bool


def compile_condition(condition: Condition) -> CompiledCondition:
    if isinstance(condition, CountedInterventions):
        return CompiledCondition(condition.kind, at_most=condition.at_most)
    if isinstance(condition, RequiredChecks):
        return CompiledCondition(condition.kind, accept=frozenset(condition.accept))
    of = condition.of if isinstance(condition, ObservedIs) else "terminal"
    return CompiledCondition("state", of, frozenset(condition.accept))


def compile_spec(spec: TrialsSpec) -> TrialsRules:
    rate_of: dict[str, Condition | None] = {
        m.name: m.counts if isinstance(m, RateMetric) else None
        for m in spec.secondary
        if isinstance(m, RateMetric | NotApplicable)
    }
    percentile_of: dict[str, int] = {
        m.name: m.percentile for m in spec.secondary if isinstance(m, PercentileMetric)
    }
    conditions = [compile_condition(c) for c in spec.primary.all_of]
    counted = {name: compile_condition(c) for name, c in rate_of.items() if c is not None}
    for condition in counted.values():
        if condition not in conditions:
            conditions.append(condition)
    rates = tuple(conditions.index(counted[name]) if name in counted else None for name in RATES)
    codes = spec.failure_codes
    return TrialsRules(
        spec=spec,
        conditions=tuple(conditions),
        primary=len(spec.primary.all_of),
        rates=rates,
        percentiles=tuple(percentile_of[name] for name in PERCENTILES),
        method=spec.percentile_method,
        rounding=spec.rates.basis_points,
        confidence=spec.rates.interval.confidence,
        free={a.intervention: None if a.free == "any" else a.free for a in spec.interventions.free},
        absent=spec.required_checks.absent,
        missing_code=codes.missing_result,
        uncoded_terminal=frozenset(codes.uncoded_terminal),
        uncoded_code=codes.uncoded_otherwise,
        evidence=frozenset(spec.cost.evidence),
        reveal=spec.blind.reveal == "after_scores_frozen",
    )


# --- the built-in specification of seed 001 --------------------------------------------------------

BUILTIN_FILE = Path(__file__).with_name("builtin") / "autonomous-delivery-v1.scoring.json"


@lru_cache(maxsize=1)
def seed_rules() -> TrialsRules:
    """Seed 001's built-in specification, compiled (read once)."""
    spec: TrialsSpec = read_builtin(BUILTIN_FILE, TrialsSpec)[0]
    return compile_spec(spec)


# --- the rules in plain words, generated from the specification ----------------------------------

PERCENTILE_WORDS = {
    "nearest_rank": "nearest rank: the ⌈p/100 · N⌉-th smallest value",
    "lower": "the lower rank: the value at position ⌊(N − 1) · p/100⌋ of the sorted values (from 0)",
    "higher": "the higher rank: the value at position ⌈(N − 1) · p/100⌉ of the sorted values (from 0)",
}
ROUNDING_WORDS = {
    "floor": "floor(10000 · numerator / denominator), never rounded up",
    "half_up": "10000 · numerator / denominator rounded to the nearest integer, halves up",
    "half_even": "10000 · numerator / denominator rounded to the nearest integer, halves to the even one",
}
QUANTITY_WORDS = {
    "elapsed_ms": "elapsed milliseconds over trials with an elapsed time (a missing result has none)",
    "measured_cost_usd_micros": "measured cost in USD micros over measured costs only",
}


def _states(states: tuple[str, ...]) -> str:
    return " or ".join(states)


def condition_words(condition: Condition) -> str:
    """One condition as a clause: what a trial must meet."""
    if isinstance(condition, TerminalIs):
        return f"the terminal state is {_states(condition.accept)}"
    if isinstance(condition, ObservedIs):
        return f"{condition.of} is {_states(condition.accept)}"
    if isinstance(condition, RequiredChecks):
        return f"every required functional check of the prompt is {_states(condition.accept)}"
    if condition.at_most == 0:
        return "no intervention counts"
    return f"at most {condition.at_most} interventions count"


def explain(spec: TrialsSpec) -> tuple[str, ...]:
    """Every rule of a specification as a sentence, in the order the engine applies them."""
    conditions = "; ".join(condition_words(c) for c in spec.primary.all_of)
    lines = [
        f"Unit: a trial of the trial plan frozen before execution, scored under {spec.rubric!r}; every "
        "planned trial is in every denominator, and a planned trial without a result meets no condition.",
        f"{spec.primary.name}: a trial is an autonomous success when all of these hold: {conditions}.",
        explain_interventions(spec.interventions),
        f"A required check the result does not report counts as {spec.required_checks.absent}; checks "
        "the prompt does not require are shown but decide nothing.",
    ]
    lines += [_explain_secondary(m, spec) for m in spec.secondary]
    interval = spec.rates.interval
    lines += [
        f"Rates are published as integer numerator, denominator and basis points = "
        f"{ROUNDING_WORDS[spec.rates.basis_points]} (none when the denominator is 0), with an exact "
        f"Clopper–Pearson {interval.confidence * 100:g}% interval.",
        f"Percentiles by {PERCENTILE_WORDS[spec.percentile_method]}, so each is a value some trial produced.",
        f"A measured cost must cite evidence of kind {', '.join(spec.cost.evidence)}; an unavailable cost is "
        "excluded from cost figures and counted, never zero.",
        _explain_blind(spec.blind),
        "Providers are ranked by autonomous-success basis points, then successes, then label.",
    ]
    if spec.paired is not None:
        lines.append(
            "Providers planned on the same prompts are compared pair by pair: per prompt, each one's "
            "successes over its trials of that prompt; a prompt where one share is higher is a win for it, "
            "equal shares a tie; an exact two-sided sign test on wins and losses (no correction for the "
            "number of pairs); prompts only one of the two has are listed, never compared."
        )
    return tuple(lines)


def explain_interventions(rules: Interventions) -> str:
    anywhere = [a.intervention for a in rules.free if a.free == "any"]
    counted = [
        f"the first {'' if a.free == 1 else f'{a.free} '}{a.intervention}"
        for a in rules.free
        if a.free != "any"
    ]
    parts = []
    if anywhere:
        parts.append(f"{', '.join(anywhere)} free any number of times")
    if counted:
        parts.append(f"{', '.join(counted)} free, each further one counted")
    free = "; ".join(parts) or "no intervention is free"
    return f"Interventions: {free}; any other kind counts, known or unknown."


def _explain_secondary(metric: Secondary, spec: TrialsSpec) -> str:
    if isinstance(metric, RateMetric):
        return f"{metric.name}: trials where {condition_words(metric.counts)} / planned trials."
    if isinstance(metric, PercentileMetric):
        return f"{metric.name}: the {metric.percentile}th percentile of {QUANTITY_WORDS[metric.of]}."
    if isinstance(metric, NotApplicable):
        return f"{metric.name}: not applicable, published as 0/0: {metric.why}"
    codes = spec.failure_codes
    terminal = " or ".join(codes.uncoded_terminal)
    uncoded = (
        f"under its terminal state when it is {terminal}, else {codes.uncoded_otherwise!r}"
        if terminal
        else f"under {codes.uncoded_otherwise!r}"
    )
    return (
        f"{metric.name}: failed trials per failure code; a success has none; a planned trial without a "
        f"result counts under {codes.missing_result!r}; a failed result without a code {uncoded}."
    )


def _explain_blind(blind: Blind) -> str:
    if blind.labels == "subject_names":
        return (
            "Not scored blind: the plan's labels are the subjects' own names (from the producer's files); "
            "evaluators are identified only by sha256 hashes."
        )
    reveal = (
        "identities may be revealed only after the scores are frozen, by a reveal citing the frozen "
        "scores file's sha256"
        if blind.reveal == "after_scores_frozen"
        else "identities are never revealed (a reveal is refused)"
    )
    return (
        "Providers are scored and published under the plan's blind labels; evaluators are identified only "
        f"by sha256 hashes; {reveal}."
    )

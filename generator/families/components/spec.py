"""The components family's scoring specification: every number and rule choice its engine uses, as data.

A specification is read from the contract's ``scoring`` object, from a sealed ``scoring.json``
pinned in ``benchmark.json``, or, for the seed contract (JE validation scoring) with its frozen
rules, from the built-in specification shipped beside this module. Rules come from a closed set of
kinds (nothing in a specification runs): outcome and process are each a ``product`` or a
``weighted_sum`` of the family's metrics, gated to 0 by named events; findings match defects by
``location`` or ``location_and_issue_type``; the score combines the components by ``task_weights``
or ``fixed_weights``. :func:`compile_spec` turns a specification into plain values (exact
fractions, tuples) once per benchmark, before any episode is scored.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import cache
from math import lcm
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from generator.families.input_base import SchemaVersion1, Strict
from generator.figures.units import counted
from generator.inputs.jsonio import ExactNumber, ExactShare, exact_words, plain_decimal

OutcomeMetric = Literal["f1", "issue_type_accuracy", "exactness"]
"""What the outcome is made of: detection F1, issue-type accuracy and exactness of matched defects."""
ProcessMetric = Literal["coverage", "precision", "efficiency"]
"""What the process is made of: evidence coverage and precision, call efficiency."""
Gate = Literal["hard_fail", "missing_required_call"]
GlobalCriterion = Literal["identification", "evidence_grounding", "reasoning_validity", "disposition"]
"""The judge criteria the episode format carries (``Judgment.criterion``), besides the task focus."""
Level = Literal["L1", "L2", "L3", "L4"]
Number = ExactNumber
Share = ExactShare

METRIC_WORDS = {
    "f1": "detection F1",
    "issue_type_accuracy": "issue-type accuracy",
    "exactness": "exactness",
    "coverage": "evidence coverage",
    "precision": "evidence precision",
    "efficiency": "efficiency",
}
GATE_WORDS = {
    "hard_fail": "a hard-fail rule triggered",
    "missing_required_call": "a required call is missing",
}


def exact(value: int | Decimal) -> Fraction:
    """A specification's number as the exact decimal its author wrote (``0.1`` is 1/10, not a float)."""
    return Fraction(value)


WEIGHT_SUM_TOLERANCE = Fraction(1, 10**9)
"""How far weights as written may add up from their total: equal thirds written as JSON numbers
(``0.3333333333333333`` three times) add up to 0.9999999999999999, and are meant as 1."""


def weights_problem(weights: tuple[Fraction, ...], total: Fraction) -> str | None:
    """Why weights as written (exact) cannot stand for ``total``, with what to write instead; None
    when they add up to it within :data:`WEIGHT_SUM_TOLERANCE` of it (the figures then use the
    weights as written, and the methodology says they do not add up exactly)."""
    added = sum(weights, Fraction(0))
    if abs(added - total) <= WEIGHT_SUM_TOLERANCE * max(total, Fraction(1)):
        return None
    last = total - (added - weights[-1])
    fix = f" (for example {words(last)} for the last one)" if 0 <= last <= total else ""
    return (
        f"add up to {words(added)}, not {words(total)} (a sum within 1e-9 of it is accepted): "
        f"write weights that add up to {words(total)}{fix}"
    )


def words(value: Fraction | int | Decimal) -> str:
    """An exact figure for messages and explanations, never rounded (``jsonio.exact_words``)."""
    return exact_words(value)


class Product(Strict):
    """The product of the metrics named; a metric that does not apply counts as 1."""

    kind: Literal["product"]
    factors: tuple[str, ...] = Field(min_length=1)
    zero_when: tuple[Gate, ...] = Field(default=(), description="Events that force the component to 0.")


class WeightedSum(Strict):
    """Σ weight · metric / total; a metric that does not apply counts as 1."""

    kind: Literal["weighted_sum"]
    weights: dict[str, Number] = Field(min_length=1)
    total: Number = Field(description="What the weights add up to.")
    zero_when: tuple[Gate, ...] = Field(default=(), description="Events that force the component to 0.")


Formula = Annotated[Product | WeightedSum, Field(discriminator="kind")]


class Matching(Strict):
    """How a finding matches a seeded defect (one to one, defects in the task's order)."""

    kind: Literal["location", "location_and_issue_type"]
    text: Literal["collapse_whitespace_casefold"] = Field(
        description="Locations and issue types compare with whitespace collapsed and case ignored."
    )
    figure: Literal["trimmed_exact"] = Field(description="A figure matches exactly after trimming.")
    order: Literal["task_order_first_unmatched"] = Field(
        description="Each defect in the task's order takes the first unmatched finding that matches it."
    )
    clean_control: Literal["nothing_flagged_is_f1_one"] = Field(
        description="A task with no seeded defect and no finding has F1 = 1 (nothing to find, nothing wrong)."
    )


class Focus(Strict):
    """A task family's own criterion, declared in ``benchmark.json`` and judged as ``task_focus``."""

    in_value: bool = Field(description="Whether the focus enters the rationale value as one more criterion.")


class Judges(Strict):
    levels: tuple[Level, ...] = Field(description="Levels whose every criterion needs at_least judges.")
    at_least: int = Field(ge=1, le=100)
    aggregate: Literal["median", "mean"] = Field(description="How the judges' scores of a criterion combine.")


class CitationAudit(Strict):
    zero_criterion: GlobalCriterion = Field(
        description="Set to 0 when a finding cites evidence never opened (a fabricated citation)."
    )


class Rationale(Strict):
    criteria: tuple[GlobalCriterion, ...] = Field(min_length=1, description="The global criteria, in order.")
    scale_max: Literal[3] = Field(
        description="Each criterion is scored 0 to scale_max (the episode format's 0–3)."
    )
    focus: Focus | None = Field(description="None: no task family may declare a focus criterion.")
    judges: Judges
    citation_audit: CitationAudit | None
    value: Literal["total_over_maximum"] = Field(
        description="Σ criterion scores / (scale_max × criteria); a criterion no judge scored leaves it "
        "unscored."
    )


class PassBar(Strict):
    total_at_least: Number = Field(description="The criteria's total must reach this.")
    total_over: Literal["global", "all"] = Field(description="global: the listed criteria; all: focus too.")
    each_above: Number = Field(description="Every criterion's score must be above this.")
    each_over: Literal["global", "all"]


class TaskWeights(Strict):
    """The weights each task declares in ``benchmark.json`` (outcome, process, rationale; sum 1)."""

    kind: Literal["task_weights"]
    total: Literal[1] = Field(description="What each task's weights add up to.")


class ComponentWeights(Strict):
    outcome: Share
    process: Share
    rationale: Share


class FixedWeights(Strict):
    """The same weights for every task, stated here; a task that states others is refused."""

    kind: Literal["fixed_weights"]
    weights: ComponentWeights
    total: Literal[1] = Field(
        description="What the weights add up to (fractions of the score, like a task's)."
    )


Combine = Annotated[TaskWeights | FixedWeights, Field(discriminator="kind")]


class Seeds(Strict):
    minimum: int = Field(ge=1, le=1000, description="Seeds per (task, model) cell below which it is flagged.")
    counted_over: Literal["declared_tasks"] = Field(
        description="Cells span every declared task: a task a model skipped is an empty, flagged cell."
    )


class AntiGaming(Strict):
    component: Literal["outcome"] = Field(description="The component the baselines' thresholds bound.")
    no_evidence_levels: tuple[Level, ...] = Field(
        description="Levels the no-evidence baseline is checked on."
    )
    no_evidence_skips_clean_controls: bool


class Agreement(Strict):
    sme_rationales_per_family: int = Field(ge=1, le=100_000)
    kappa: Literal["quadratic"]


class ComponentsSpec(Strict):
    """A components rubric's scoring specification (``scoring.json``, or the contract's ``scoring``)."""

    schema_version: SchemaVersion1
    family: Literal["components"]
    rubric: str = Field(min_length=1, description="The rubric this specification scores (its name).")
    matching: Matching
    outcome: Formula = Field(description="Over f1, issue_type_accuracy, exactness.")
    process: Formula = Field(description="Over coverage, precision, efficiency.")
    process_edges: Literal["coverage_one_without_key_evidence_precision_zero_unless_none"] = Field(
        description="0/0 readings: coverage with no key evidence is 1; precision with nothing opened is 0, "
        "or 1 when the task has no key evidence; efficiency with no call is 1."
    )
    rationale: Rationale
    pass_bar: PassBar
    combine: Combine
    unscored_rationale: Literal["no_score"] = Field(
        description="An unscored rationale leaves no weighted score."
    )
    seeds: Seeds
    anti_gaming: AntiGaming
    agreement: Agreement
    ranking: Literal["score_then_outcome"] = Field(description="Mean score, then mean outcome, then id.")

    @model_validator(mode="after")
    def _consistent(self) -> ComponentsSpec:
        problems = list(spec_problems(self))
        if problems:
            raise ValueError("; ".join(problems))
        return self


# --- what makes a well-formed specification inconsistent -------------------------------------------


def spec_problems(spec: ComponentsSpec) -> Iterator[str]:
    """Each inconsistency as a sentence naming its place."""
    yield from _formula_problems("outcome", spec.outcome, ("f1", "issue_type_accuracy", "exactness"))
    yield from _formula_problems("process", spec.process, ("coverage", "precision", "efficiency"))
    rat = spec.rationale
    yield from _duplicates("rationale.criteria", rat.criteria)
    yield from _duplicates("rationale.judges.levels", rat.judges.levels)
    yield from _duplicates("anti_gaming.no_evidence_levels", spec.anti_gaming.no_evidence_levels)
    audit = rat.citation_audit
    if audit is not None and audit.zero_criterion not in rat.criteria:
        place = "rationale.citation_audit.zero_criterion"
        yield f"{place}: {audit.zero_criterion!r} is not among rationale.criteria"
    bar = spec.pass_bar
    for place, over in (("total_over", bar.total_over), ("each_over", bar.each_over)):
        if over == "all" and rat.focus is None:
            yield f"pass_bar.{place}: 'all' counts the focus criterion, but rationale.focus is null"
    most = rat.scale_max * (len(rat.criteria) + (bar.total_over == "all"))
    if exact(bar.total_at_least) > most:
        stated = bar.total_at_least
        yield f"pass_bar.total_at_least: {stated} is above the most the criteria can total ({most})"
    if exact(bar.each_above) >= rat.scale_max:
        yield f"pass_bar.each_above: {bar.each_above} leaves no score on the 0–{rat.scale_max} scale above it"
    if isinstance(spec.combine, FixedWeights):
        weights = spec.combine.weights
        shares = (exact(weights.outcome), exact(weights.process), exact(weights.rationale))
        problem = weights_problem(shares, exact(spec.combine.total))
        if problem:
            yield f"combine.weights: {problem} (combine.total)"


def _formula_problems(place: str, formula: Product | WeightedSum, metrics: tuple[str, ...]) -> Iterator[str]:
    names = list(formula.factors) if isinstance(formula, Product) else list(formula.weights)
    field = "factors" if isinstance(formula, Product) else "weights"
    for name in names:
        if name not in metrics:
            yield f"{place}.{field}: {name!r} is not one of the {place} metrics ({', '.join(metrics)})"
    yield from _duplicates(f"{place}.{field}", names)
    yield from _duplicates(f"{place}.zero_when", formula.zero_when)
    if isinstance(formula, WeightedSum):
        problem = weights_problem(tuple(exact(w) for w in formula.weights.values()), exact(formula.total))
        if problem:
            yield f"{place}.weights: {problem} ({place}.total)"
        if exact(formula.total) == 0:
            yield f"{place}.total: must be above 0"


def _duplicates(place: str, names: tuple[str, ...] | list[str]) -> Iterator[str]:
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        yield f"{place}: duplicate name(s) {dupes}"


# --- compiled: plain values for the hot path ----------------------------------------------------


@dataclass(frozen=True)
class CompiledFormula:
    """A component's formula: ``terms`` are (metric, weight); a product has weight 1 per factor."""

    product: bool
    terms: tuple[tuple[str, Fraction], ...]
    total: Fraction
    zero_when: frozenset[str]
    scaled_terms: tuple[tuple[str, int], ...] = field(init=False)
    """The weights as integer numerators over their common denominator, derived once here so the
    value of each row is integer arithmetic and one Fraction at the end."""
    scaled_total: int = field(init=False)
    """The total over the same common denominator."""

    def __post_init__(self) -> None:
        scale = lcm(self.total.denominator, *(w.denominator for _, w in self.terms))
        scaled = tuple((name, int(w * scale)) for name, w in self.terms)
        object.__setattr__(self, "scaled_terms", scaled)  # a frozen dataclass's derived field
        object.__setattr__(self, "scaled_total", int(self.total * scale))

    def value(self, metrics: Mapping[str, Fraction | None]) -> Fraction:
        """The component from its metrics (None: not applicable, counted as 1); gates are the caller's."""
        if self.product:
            return self._product(metrics)
        top, bottom = 0, 1  # sum of weight × metric so far, as top / bottom (weights over the scale)
        for name, weight in self.scaled_terms:
            found = metrics[name]
            if found is None:
                top += weight * bottom
            else:
                top, bottom = (
                    top * found.denominator + weight * found.numerator * bottom,
                    bottom * found.denominator,
                )
        return Fraction(top, bottom * self.scaled_total)

    def _product(self, metrics: Mapping[str, Fraction | None]) -> Fraction:
        top = bottom = 1
        for name, _ in self.terms:
            found = metrics[name]
            if found is not None:
                top, bottom = top * found.numerator, bottom * found.denominator
        return Fraction(top, bottom)


@dataclass(frozen=True)
class ComponentsRules:
    """A specification compiled once per benchmark: exact numbers and names, in order."""

    spec: ComponentsSpec
    match_issue_type: bool
    outcome: CompiledFormula
    process: CompiledFormula
    criteria: tuple[str, ...]
    focus: bool
    focus_in_value: bool
    judge_levels: frozenset[str]
    judges_needed: int
    median: bool
    audit_zero: str | None
    scale_max: int
    pass_total: Fraction
    pass_total_focus: bool
    pass_each_above: Fraction
    pass_each_focus: bool
    weights: tuple[Fraction, Fraction, Fraction] | None
    """The fixed (outcome, process, rationale) weights; None: each task's own."""
    minimum_seeds: int
    no_evidence_levels: frozenset[str]
    no_evidence_skips_clean: bool
    sme_bar: int


def _compile_formula(formula: Product | WeightedSum) -> CompiledFormula:
    if isinstance(formula, Product):
        terms = tuple((name, Fraction(1)) for name in formula.factors)
        return CompiledFormula(True, terms, Fraction(1), frozenset(formula.zero_when))
    terms = tuple((name, exact(w)) for name, w in formula.weights.items())
    return CompiledFormula(False, terms, exact(formula.total), frozenset(formula.zero_when))


def compile_spec(spec: ComponentsSpec) -> ComponentsRules:
    rat, bar, combine = spec.rationale, spec.pass_bar, spec.combine
    fixed = None
    if isinstance(combine, FixedWeights):
        w = combine.weights
        fixed = (exact(w.outcome), exact(w.process), exact(w.rationale))
    return ComponentsRules(
        spec=spec,
        match_issue_type=spec.matching.kind == "location_and_issue_type",
        outcome=_compile_formula(spec.outcome),
        process=_compile_formula(spec.process),
        criteria=rat.criteria,
        focus=rat.focus is not None,
        focus_in_value=rat.focus is not None and rat.focus.in_value,
        judge_levels=frozenset(rat.judges.levels),
        judges_needed=rat.judges.at_least,
        median=rat.judges.aggregate == "median",
        audit_zero=rat.citation_audit.zero_criterion if rat.citation_audit else None,
        scale_max=rat.scale_max,
        pass_total=exact(bar.total_at_least),
        pass_total_focus=bar.total_over == "all",
        pass_each_above=exact(bar.each_above),
        pass_each_focus=bar.each_over == "all",
        weights=fixed,
        minimum_seeds=spec.seeds.minimum,
        no_evidence_levels=frozenset(spec.anti_gaming.no_evidence_levels),
        no_evidence_skips_clean=spec.anti_gaming.no_evidence_skips_clean_controls,
        sme_bar=spec.agreement.sme_rationales_per_family,
    )


# --- the built-in specification of the seed contract ---------------------------------------------

BUILTIN_FILE = Path(__file__).with_name("builtin") / "je-validation-scoring.scoring.json"


@cache
def seed_rules() -> ComponentsRules:
    """The seed contract's built-in specification, compiled (read once)."""
    return compile_spec(ComponentsSpec.model_validate_json(BUILTIN_FILE.read_bytes()))


# --- the rules in plain words, generated from the specification ----------------------------------


def explain(spec: ComponentsSpec) -> tuple[str, ...]:
    """Every rule of a specification as a sentence, in the order the engine applies them."""
    rat, bar = spec.rationale, spec.pass_bar
    lines = [
        f"Unit: an episode (one task × one subject × one seed), scored under {spec.rubric!r}.",
        _explain_matching(spec.matching),
        "Outcome = " + _explain_formula(spec.outcome) + ".",
        "Process = " + _explain_formula(spec.process) + ".",
        "Coverage = key evidence opened / key evidence (1 with no key evidence); precision = key evidence "
        "opened / documents opened (0 with nothing opened, 1 when the task has no key evidence either); "
        "efficiency = distinct (name, arguments) calls / calls (1 with no call).",
        _explain_rationale(rat),
        _explain_pass_bar(rat, bar),
        _explain_combine(spec.combine),
        f"Seeds: a (task, model) cell with fewer than {spec.seeds.minimum} seeds is flagged; cells span "
        "every declared task, so a task a model skipped is an empty, flagged cell.",
        _explain_anti_gaming(spec.anti_gaming),
        f"Judge–SME agreement: exact agreement of the judges' {rat.judges.aggregate} with the SME grade and "
        f"{spec.agreement.kappa}-weighted Cohen's kappa; a task family with fewer than "
        f"{spec.agreement.sme_rationales_per_family} graded rationales is listed as under the bar.",
        "Ranking: by mean score, then mean outcome, then id; the three components are always shown "
        "beside it.",
    ]
    return tuple(lines)


def _explain_matching(matching: Matching) -> str:
    what = "locations" if matching.kind == "location" else "locations and issue types"
    return (
        f"Matching: a finding matches a seeded defect when their {what} are equal after collapsing "
        "whitespace and ignoring case; defects in the task's order each take the first unmatched finding "
        "that matches; unmatched findings are false positives, unmatched defects false negatives. Issue "
        "types compare the same way, figures exactly after trimming. A clean control with nothing "
        "flagged has F1 = 1."
    )


def _explain_formula(formula: Product | WeightedSum) -> str:
    if isinstance(formula, Product):
        body = " × ".join(METRIC_WORDS[f] for f in formula.factors)
    else:
        parts = " + ".join(f"{words(exact(w))}·{METRIC_WORDS[m]}" for m, w in formula.weights.items())
        total = exact(formula.total)
        body = parts if total == 1 else f"({parts}) / {words(total)}"
    body += " (a metric that does not apply counts as 1)"
    if formula.zero_when:
        body += "; 0 when " + " or ".join(GATE_WORDS[g] for g in formula.zero_when)
    return body


def _explain_rationale(rat: Rationale) -> str:
    names = ", ".join(rat.criteria)
    text = (
        f"Rationale: each of {len(rat.criteria)} criteria ({names}) is scored 0–{rat.scale_max} by judges in "
        f"separate calls, combined by their {rat.judges.aggregate}; rationale = the criteria's total / "
        f"({rat.scale_max} × {len(rat.criteria)})"
    )
    if rat.focus is not None:
        text += (
            "; a task whose family declares a focus criterion is judged on it too (task_focus, "
            f"0–{rat.scale_max})"
        )
        text += (
            f", which counts as one more criterion (/ {rat.scale_max * (len(rat.criteria) + 1)})"
            if rat.focus.in_value
            else ", shown but outside the value"
        )
    text += (
        f". On {', '.join(rat.judges.levels) or 'no level'} every criterion needs at least "
        f"{counted(rat.judges.at_least, 'judge')}, else the rationale is not scored; a criterion no "
        "judge scored leaves it unscored on any level."
    )
    if rat.citation_audit is not None:
        text += (
            " A cited evidence id never opened (a fabricated citation) sets "
            f"{rat.citation_audit.zero_criterion} to 0 whatever the judges said."
        )
    return text


def _explain_pass_bar(rat: Rationale, bar: PassBar) -> str:
    total = {"global": f"the {len(rat.criteria)} global criteria", "all": "every criterion, focus included,"}
    each = {"global": "no global criterion", "all": "no criterion (focus included)"}
    return (
        f"Pass bar: {total[bar.total_over]} total at least {words(exact(bar.total_at_least))}, and "
        f"{each[bar.each_over]} at or below {words(exact(bar.each_above))}."
    )


def _explain_combine(combine: TaskWeights | FixedWeights) -> str:
    head = "Score = w_outcome·outcome + w_process·process + w_rationale·rationale"
    if isinstance(combine, TaskWeights):
        text = f"{head}, with the weights each task declares in benchmark.json (adding up to {combine.total})"
    else:
        w = combine.weights
        shares = ", ".join(
            f"{name} {plain_decimal(getattr(w, name))}" for name in ("outcome", "process", "rationale")
        )
        text = f"{head}, with the same weights for every task: {shares}"
    return text + "; no score when the rationale is not scored. The three components are always reported."


def _explain_anti_gaming(anti: AntiGaming) -> str:
    levels = ", ".join(anti.no_evidence_levels) or "no level"
    clean = " with a seeded defect" if anti.no_evidence_skips_clean_controls else ""
    return (
        f"Anti-gaming: the flag-everything baseline's mean {anti.component} per task, and the no-evidence "
        f"baseline's on {levels} tasks{clean}, may not exceed the thresholds benchmark.json declares; a "
        "miss is reported and changes no score."
    )

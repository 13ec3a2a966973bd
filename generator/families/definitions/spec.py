"""The definitions family's scoring specification: every rule choice and number its engine uses, as data.

ADR-032 is prose, so it cannot carry a ``scoring`` object: a definitions benchmark is scored by a
sealed ``scoring.json`` pinned in ``benchmark.json``, or, when the pinned ADR text is the seed's
byte for byte (its sha256, :data:`SEED_ADR_SHA256`), by the built-in specification shipped beside
this module. Every rule comes from a closed set of kinds and values (nothing in a specification
runs): the run verdict is a ladder of named conditions, a (case, arm) cell takes its reps' states
in a stated precedence, floors come from the kinds benchsite can derive, and `benchsite compare`
gates on named axes. :func:`compile_spec` turns a specification into plain values once per
benchmark, before any row is scored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import Field, model_validator

from generator.families.definitions.models import FloorKind
from generator.families.input_base import SchemaVersion1, Strict

Condition = Literal["any_measured_failed", "nothing_measured", "any_measured_warned", "any_not_measured"]
"""What a verdict step tests over a run's rows (not-applicable rows never count)."""
VerdictName = Literal["PASS", "FAIL", "WARN", "PENDING"]
CellState = Literal["measured", "notApplicable", "notMeasured"]
TestedRule = Literal["all", "majority", "any"]
ValueRule = Literal["mean", "median"]
TextAxis = Literal["evalKey", "evalVersion", "judge.modelId", "judge.rubricDigest"]
Reported = Literal["usable_floor", "self_judged"]
"""Facts `benchsite compare` reports per row; gating when the specification says so."""
Gate = Literal[
    "evalKey",
    "evalVersion",
    "effectiveBar",
    "judge",
    "judge.modelId",
    "judge.rubricDigest",
    "stimulus",
    "usable_floor",
    "self_judged",
]
"""What ``compare.gating`` may name: an axis, or a reported fact made gating."""

Date = Annotated[str, Field(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")]

CONDITION_WORDS = {
    "any_measured_failed": "a measured row failed",
    "nothing_measured": "no row was measured",
    "any_measured_warned": "a measured row warned",
    "any_not_measured": "any row was not measured",
}
STATE_WORDS = {"measured": "measured", "notApplicable": "not applicable", "notMeasured": "not measured"}
REPORTED_WORDS = {"usable_floor": "a row without a usable floor", "self_judged": "a self-judged row"}


class VerdictStep(Strict):
    when: Condition
    verdict: VerdictName


class VerdictRule(Strict):
    """The first step whose condition holds gives the run's verdict, else ``otherwise``."""

    amended: Date | None = Field(
        description="The date of the ADR's verdict amendment this rule states (the ADR's 'Amended "
        "<date>' line about the run verdict); null for the ADR's original text.",
    )
    steps: tuple[VerdictStep, ...] = Field(min_length=1, max_length=4)
    otherwise: VerdictName


class CellRule(Strict):
    """How a (case, arm) cell collapses its reps' measurement states."""

    kind: Literal["precedence"] = Field(
        description="The cell takes the first state in 'order' that any of its reps has; a measured "
        "cell keeps the values of its measured reps."
    )
    order: tuple[CellState, CellState, CellState]


class FloorRules(Strict):
    kinds: tuple[FloorKind, ...] = Field(
        min_length=1, description="The floor kinds a definition may admit a check with."
    )
    bar_tolerance: float = Field(
        ge=0, le=0.001, description="How far a declared bar (or a row's chanceFloor.bar) may differ."
    )
    empirical_confidence: float = Field(
        gt=0, lt=1, description="empirical-policy: the bar is the upper end of this exact interval."
    )
    role: Literal["recorded_not_applied"] = Field(
        description="Floors are recorded and reported, never applied to a verdict (ADR-032, Q6 staged)."
    )


class FloorTestRules(Strict):
    rules: tuple[TestedRule, ...] = Field(
        min_length=1, description="Collapse rules whose 0/1 cases are tested against the floor."
    )
    best_of_n: tuple[TestedRule, ...] = Field(description="Rules flagged as optimistic by construction.")
    alpha: float = Field(gt=0, lt=1, description="above floor: p ≤ alpha and minimum attainable p ≤ alpha.")
    interval_confidence: float = Field(gt=0, lt=1, description="The exact interval of k/n.")


class DefinitionDefaults(Strict):
    pass_at: float = Field(ge=0, le=1, description="A definition without pass_at: a rep passes at ≥ this.")
    paired_collapse: TestedRule = Field(description="A definition without paired_collapse.")


class CompareRules(Strict):
    gating: tuple[Gate, ...] = Field(
        min_length=1, description="What makes a pair of rows incomparable when it differs (or is false)."
    )
    case_insensitive: tuple[TextAxis, ...] = Field(
        description="Text axes compared ignoring case, a blank value being not recorded."
    )
    neither_side: Literal["strict_only", "never"] = Field(
        description="An axis recorded on neither side: blocks only under --strict, or never."
    )
    not_measured_rows: Literal["compared"] = Field(
        description="A row not measured on a side keeps its score and passed in the deltas."
    )


class DefinitionsSpec(Strict):
    """A definitions rubric's scoring specification (a pinned ``scoring.json``, or the built-in one)."""

    schema_version: SchemaVersion1
    family: Literal["definitions"]
    rubric: str = Field(pattern=r"^ADR-[0-9]+$", description="The ADR this specification states.")
    version: str = Field(min_length=1, description="The specification's own version.")
    verdict: VerdictRule
    cells: CellRule
    floors: FloorRules
    floor_test: FloorTestRules
    values: tuple[ValueRule, ...] = Field(description="Collapse rules shown as values over measured cases.")
    paired: Literal["exact_sign_test_two_sided"] = Field(
        description="Against reference: wins and losses of collapsed cases, exact two-sided sign test."
    )
    defaults: DefinitionDefaults
    compare: CompareRules

    @model_validator(mode="after")
    def _consistent(self) -> DefinitionsSpec:
        problems = list(spec_problems(self))
        if problems:
            raise ValueError("; ".join(problems))
        return self


def _duplicates(place: str, items: tuple[str, ...]) -> Iterator[str]:
    dupes = sorted({i for i in items if items.count(i) > 1})
    if dupes:
        yield f"{place}: duplicate name(s) {dupes}"


def spec_problems(spec: DefinitionsSpec) -> Iterator[str]:
    """What makes a well-formed specification inconsistent: each a sentence naming the place."""
    yield from _duplicates("verdict.steps[].when", tuple(s.when for s in spec.verdict.steps))
    yield from _duplicates("cells.order", spec.cells.order)
    if spec.cells.order and "measured" not in spec.cells.order:
        yield "cells.order: must name measured"
    yield from _duplicates("floors.kinds", spec.floors.kinds)
    yield from _duplicates("floor_test.rules", spec.floor_test.rules)
    yield from _duplicates("floor_test.best_of_n", spec.floor_test.best_of_n)
    yield from _duplicates("values", spec.values)
    yield from _duplicates("compare.gating", spec.compare.gating)
    yield from _duplicates("compare.case_insensitive", spec.compare.case_insensitive)
    for rule in spec.floor_test.best_of_n:
        if rule not in spec.floor_test.rules:
            yield f"floor_test.best_of_n: {rule!r} is not among floor_test.rules"
    if spec.defaults.paired_collapse not in spec.floor_test.rules:
        yield (
            f"defaults.paired_collapse: {spec.defaults.paired_collapse!r} is not among floor_test.rules "
            "(the rankings show its floor tests)"
        )
    for name in spec.compare.case_insensitive:
        if name not in spec.compare.gating:
            yield f"compare.case_insensitive: {name!r} is not a gating axis"
    judged = [a for a in ("judge.modelId", "judge.rubricDigest") if a in spec.compare.gating]
    if judged and "judge" not in spec.compare.gating:
        yield f"compare.gating: {judged} need 'judge' (presence) gating too"


# --- compiled: plain values for the hot path ----------------------------------------------------


@dataclass(frozen=True)
class DefinitionsRules:
    """A specification compiled once per benchmark."""

    spec: DefinitionsSpec
    steps: tuple[tuple[str, str], ...]
    otherwise: str
    order: tuple[CellState, CellState, CellState]
    kinds: frozenset[str]
    bar_tolerance: float
    empirical_confidence: float
    tested: tuple[TestedRule, ...]
    best_of_n: frozenset[str]
    alpha: float
    interval_confidence: float
    values: tuple[ValueRule, ...]
    pass_at: float
    paired_collapse: str
    gating: frozenset[str]
    folded: frozenset[str]
    strict_neither: bool

    def reported(self) -> tuple[str, ...]:
        """The per-row facts compare reports without gating on them."""
        return tuple(r for r in get_args(Reported) if r not in self.gating)


def compile_spec(spec: DefinitionsSpec) -> DefinitionsRules:
    return DefinitionsRules(
        spec=spec,
        steps=tuple((s.when, s.verdict) for s in spec.verdict.steps),
        otherwise=spec.verdict.otherwise,
        order=spec.cells.order,
        kinds=frozenset(spec.floors.kinds),
        bar_tolerance=spec.floors.bar_tolerance,
        empirical_confidence=spec.floors.empirical_confidence,
        tested=spec.floor_test.rules,
        best_of_n=frozenset(spec.floor_test.best_of_n),
        alpha=spec.floor_test.alpha,
        interval_confidence=spec.floor_test.interval_confidence,
        values=spec.values,
        pass_at=spec.defaults.pass_at,
        paired_collapse=spec.defaults.paired_collapse,
        gating=frozenset(spec.compare.gating),
        folded=frozenset(spec.compare.case_insensitive),
        strict_neither=spec.compare.neither_side == "strict_only",
    )


# --- the built-in specification of the seed ADR --------------------------------------------------

BUILTIN_FILE = Path(__file__).with_name("builtin") / "adr-032.scoring.json"
SEED_ADR_SHA256 = "fbc97b4413570c776af9e1ea73e905bb08e9925a27dca0ba5517ebf73878d95f"
"""sha256 of the seed's ADR-032 text (seed 004): the one text the built-in specification states."""


@lru_cache(maxsize=1)
def builtin_spec() -> tuple[DefinitionsSpec, str]:
    """The seed ADR's built-in specification and the sha256 of its file (read once)."""
    data = BUILTIN_FILE.read_bytes()
    return DefinitionsSpec.model_validate_json(data), hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=1)
def seed_rules() -> DefinitionsRules:
    """The seed ADR's built-in specification, compiled."""
    return compile_spec(builtin_spec()[0])


# --- the rules in plain words, generated from the specification ----------------------------------


def explain(spec: DefinitionsSpec) -> tuple[str, ...]:
    """Every rule of a specification as a sentence, in the order the engine applies them."""
    verdict = spec.verdict
    steps = "; ".join(f"{s.verdict} if {CONDITION_WORDS[s.when]}" for s in verdict.steps)
    text = f"as amended {verdict.amended}" if verdict.amended else "as originally written"
    order = ", then ".join(STATE_WORDS[s] for s in spec.cells.order)
    tested = ", ".join(spec.floor_test.rules)
    flagged = ", ".join(spec.floor_test.best_of_n)
    ft = spec.floor_test
    compare = spec.compare
    axes = [a for a in compare.gating if a not in get_args(Reported)]
    reported = [REPORTED_WORDS[r] for r in get_args(Reported) if r not in compare.gating]
    gated = [REPORTED_WORDS[r] for r in get_args(Reported) if r in compare.gating]
    lines = [
        f"Unit: a run binds one arm × one rep of a definition, scored under {spec.rubric} "
        f"(specification {spec.version}).",
        f"Run verdict ({spec.rubric} {text}), from the rows, not-applicable rows left out: {steps}; "
        f"otherwise {verdict.otherwise}.",
        f"A (case, arm) cell takes the first of these states that any of its reps has: {order}; a "
        "measured cell collapses its measured reps' values.",
        f"Floor kinds a check may be admitted with: {', '.join(spec.floors.kinds)}. benchsite derives "
        f"each bar and refuses a declared bar (or a row's chanceFloor.bar) more than "
        f"{spec.floors.bar_tolerance:g} away; empirical-policy's bar is the upper end of the exact "
        f"{spec.floors.empirical_confidence:.0%} interval.",
        "Floors are recorded and reported, never applied to a verdict.",
        f"Against floor, per check and arm, for the collapse rules {tested} (0/1 per measured case; a "
        "rep passes when its value ≥ pass_at): exact one-sided binomial tail P(X ≥ k | n, bar), "
        f"minimum attainable p = barⁿ, underpowered when it is above {ft.alpha:g}, above floor when "
        f"p ≤ {ft.alpha:g} and not underpowered, exact {ft.interval_confidence:.0%} interval of k/n"
        + (f"; {flagged} flagged best-of-N (optimistic by construction)." if flagged else "."),
        f"Values shown over measured cases: {', '.join(spec.values) or 'none'}.",
        "Against reference, per check and challenger, case by case on collapsed cells: a pair with a "
        "side not measured or not applicable is excluded, never a loss or a tie; exact two-sided sign "
        "test on wins and losses.",
        f"A definition without pass_at passes a rep at ≥ {spec.defaults.pass_at:g}; without "
        f"paired_collapse it pairs and ranks by {spec.defaults.paired_collapse!r}.",
        f"Compare: two runs are incomparable when a row is on one side only or any of "
        f"{', '.join(axes)} differs or is recorded on one side only"
        + (f" ({', '.join(compare.case_insensitive)} ignoring case)" if compare.case_insensitive else "")
        + (", or for " + " or ".join(gated) if gated else "")
        + "; a blank text value is not recorded, and an axis recorded on neither side "
        + ("blocks only under --strict" if compare.neither_side == "strict_only" else "never blocks")
        + ". A build pools a check's rows across arms and reps only when they agree on the same axes.",
        ("Reported, not gating: " + ", ".join(reported) + ". " if reported else "")
        + "A row not measured on a side keeps its score and passed in the deltas.",
    ]
    return tuple(lines)

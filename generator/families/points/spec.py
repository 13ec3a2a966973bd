"""The points family's scoring specification: every number and rule choice its engine uses, as data.

A specification is read from the contract's ``scoring`` object, from a sealed ``scoring.json``
pinned in ``benchmark.json``, or, for the seed contract ``agent-dx-score-contract`` with its
frozen rules, from the built-in specification shipped beside this module. Rules come from a closed
set of kinds (nothing in a specification runs): a dimension is a ``check_ratio``, a ``penalty``, a
``ladder``, a ``signal_sum`` or a ``gate``. :func:`compile_spec` turns a specification into plain
values (exact fractions, tuples) once per benchmark, before any row is scored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from itertools import product
from math import lcm
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from generator.families.input_base import SchemaVersion1, Shown, Strict
from generator.inputs.jsonio import ExactNumber, exact_words, plain_decimal
from generator.inputs.readable import reading_key

CheckGroup = Literal["functional", "regression", "cross_surface"]
"""The check groups an attempt row carries (``attempts.jsonl``)."""
SignalGroup = Literal["tests", "trajectory"]
Signal = Literal[
    "relevant_tests_changed",
    "passed_before",
    "passed_after",
    "explored",
    "recovered_or_no_error",
    "evidence_backed_termination",
]
SIGNALS: dict[str, tuple[str, ...]] = {
    "tests": ("relevant_tests_changed", "passed_before", "passed_after"),
    "trajectory": ("explored", "recovered_or_no_error", "evidence_backed_termination"),
}
Detection = Literal["tampering_detected", "prohibited_change_detected"]
MandatoryCheck = Literal[
    "functional checks",
    "regression checks",
    "cross-surface checks",
    "tampering and prohibited-change detection",
    "changed-path scope check",
]
InvalidReason = Literal["pre_agent_evaluator_failure", "host_infrastructure_failure", "storage_exhaustion"]
Number = ExactNumber
Key = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")]

GROUP_WORDS = {"functional": "functional", "regression": "regression", "cross_surface": "cross-surface"}
SIGNAL_WORDS = {
    "relevant_tests_changed": "relevant tests changed",
    "passed_before": "tests passed before editing",
    "passed_after": "tests passed after editing",
    "explored": "observed exploration",
    "recovered_or_no_error": "recovery or no observed error",
    "evidence_backed_termination": "evidence-backed termination",
}
UNAVAILABLE_WORDS = {"tests": "test signals", "trajectory": "trajectory data"}
DETECTION_WORDS = {
    "tampering_detected": "tampering detected",
    "prohibited_change_detected": "prohibited change detected",
}


def exact(value: int | Decimal) -> Fraction:
    """A specification's number as the exact decimal its author wrote (``0.1`` is 1/10, not a float)."""
    return Fraction(value)


def words(value: Fraction | int | Decimal) -> str:
    """An exact figure for messages and explanations, never rounded (``jsonio.exact_words``)."""
    return exact_words(value)


class CheckRatio(Strict):
    """weight × passed / total over one check group."""

    kind: Literal["check_ratio"]
    checks: CheckGroup
    when_empty: Literal["zero", "inconclusive"] = Field(
        description="A group with zero checks: 0 points, or no qualifying denominator (Inconclusive)."
    )
    when_not_run: Literal["zero", "inconclusive"] = Field(description="The group is null (not executed).")


class Penalty(Strict):
    """weight − each × items, floored; the items are the distinct changed paths outside the task allowlist."""

    kind: Literal["penalty"]
    items: Literal["paths_outside_allowlist"]
    each: Number
    floor: Number = 0


class LadderStep(Strict):
    when: tuple[Signal, ...] = Field(min_length=1, description="Every signal named must be true.")
    points: Number


class Ladder(Strict):
    """The first step whose signals all hold gives its points, else ``otherwise``."""

    kind: Literal["ladder"]
    signals: SignalGroup
    steps: tuple[LadderStep, ...] = Field(min_length=1)
    otherwise: Number = 0


class SignalSum(Strict):
    """The sum of the points of every signal that holds."""

    kind: Literal["signal_sum"]
    signals: SignalGroup
    points: dict[Signal, Number] = Field(min_length=1)


class Gate(Strict):
    """The full weight when every condition holds, else 0."""

    kind: Literal["gate"]
    requires: tuple[Literal["mandatory_checks", "no_launch_blocker"], ...] = Field(min_length=1)
    minimums: dict[Key, Number] = Field(default_factory=dict, description="Other dimensions' minimums.")


Rule = Annotated[CheckRatio | Penalty | Ladder | SignalSum | Gate, Field(discriminator="kind")]


class DimensionSpec(Strict):
    key: Key
    name: Shown = Field(min_length=1, description="As the contract names the dimension.")
    label: Shown | None = Field(
        default=None, max_length=40, description="Short column heading; default: the key, '_' as spaces."
    )
    weight: int = Field(ge=0, le=1_000_000)
    diagnostic: bool = Field(default=False, description="Shown and averaged, never in an outcome.")
    rule: Rule


class Blockers(Strict):
    critical_checks: tuple[Literal["regression"], ...] = Field(
        default=(), description="A failed check marked critical in these groups blocks launch."
    )
    detections: tuple[Detection, ...] = ()
    minimums: dict[Key, Number] = Field(default_factory=dict, description="A dimension below its minimum.")


class ReadyRule(Strict):
    deterministic_at_least: Number
    minimums: dict[Key, Number] = Field(default_factory=dict)
    nonempty: tuple[CheckGroup, ...] = Field(default=(), description="Groups whose total must be nonzero.")


class ReviewRule(Strict):
    deterministic_at_least: Number


class Outcomes(Strict):
    ready: ReadyRule
    needs_review: ReviewRule


class InvalidRule(Strict):
    reasons: tuple[InvalidReason, ...] = Field(min_length=1)
    after_agent_started: tuple[InvalidReason, ...] = Field(
        description="Reasons accepted once the agent process started; any other is refused."
    )


class PointsSpec(Strict):
    """A points rubric's scoring specification (``scoring.json``, or the contract's ``scoring``)."""

    schema_version: SchemaVersion1
    family: Literal["points"]
    rubric: str = Field(min_length=1, description="The contract's artifactId this specification scores.")
    dimensions: tuple[DimensionSpec, ...] = Field(min_length=1, max_length=40)
    deterministic_total: int = Field(ge=1, description="The sum of the non-diagnostic weights.")
    blockers: Blockers
    mandatory_checks: tuple[MandatoryCheck, ...]
    mandatory_means: Literal["executed_and_evaluable"] = Field(
        description="'Mandatory checks pass' = each category executed and evaluable, not every check passed."
    )
    outcomes: Outcomes
    invalid: InvalidRule
    unavailable_diagnostic: Literal["zero_labelled_unavailable"] = Field(
        description="A diagnostic without its signals scores 0 labelled unavailable, outside means."
    )
    allowlist: Literal["folder_slash_or_fnmatch"] = Field(
        description="'dir/' admits a folder; other entries are case-sensitive fnmatch on the whole path."
    )

    @model_validator(mode="after")
    def _consistent(self) -> PointsSpec:
        problems = list(spec_problems(self))
        if problems:
            raise ValueError("; ".join(problems))
        return self


def spec_problems(spec: PointsSpec) -> Iterator[str]:
    """What makes a well-formed specification inconsistent: each a sentence naming the place."""
    keys = [d.key for d in spec.dimensions]
    names = [reading_key(d.name) for d in spec.dimensions]  # names that read the same are one
    for what, found in (("key", keys), ("name", names)):
        dupes = sorted({k for k in found if found.count(k) > 1})
        if dupes:
            yield f"dimensions: duplicate {what}(s) {dupes}"
    known = set(keys)
    scored = {d.key for d in spec.dimensions if not d.diagnostic}
    total = sum(d.weight for d in spec.dimensions if not d.diagnostic)
    if total != spec.deterministic_total:
        stated = spec.deterministic_total
        yield f"deterministic_total: {stated}, but the non-diagnostic weights add up to {total}"
    weights = {d.key: d.weight for d in spec.dimensions}
    for index, dim in enumerate(spec.dimensions):
        yield from _rule_problems(f"dimensions[{index}]", dim, known, weights)
    places = [
        ("blockers.minimums", spec.blockers.minimums),
        ("outcomes.ready.minimums", spec.outcomes.ready.minimums),
    ]
    for place, minimums in places:
        for key, value in minimums.items():
            if key not in scored:
                yield f"{place}.{key}: no such non-diagnostic dimension"
            elif exact(value) > weights[key]:
                yield f"{place}.{key}: {value} is above the dimension's weight {weights[key]}"
    ready, review = (
        spec.outcomes.ready.deterministic_at_least,
        spec.outcomes.needs_review.deterministic_at_least,
    )
    if exact(ready) > spec.deterministic_total:
        yield f"outcomes.ready.deterministic_at_least: {ready} is above the deterministic total {total}"
    if exact(review) > exact(ready):
        yield f"outcomes.needs_review.deterministic_at_least: {review} is above the Ready threshold {ready}"
    gates = [d for d in spec.dimensions if d.rule.kind == "gate"]
    if len(gates) > 1:
        yield "dimensions: at most one gate (launch readiness) dimension"
    if any(d.diagnostic for d in gates):
        yield "dimensions: a gate cannot be a diagnostic"
    if len(set(spec.mandatory_checks)) != len(spec.mandatory_checks):
        yield "mandatory_checks: a category is listed twice"
    stray = set(spec.invalid.after_agent_started) - set(spec.invalid.reasons)
    if stray:
        yield f"invalid.after_agent_started: {sorted(stray)} not among invalid.reasons"


def _rule_problems(place: str, dim: DimensionSpec, known: set[str], weights: dict[str, int]) -> Iterator[str]:
    rule = dim.rule
    if isinstance(rule, Penalty) and exact(rule.floor) > dim.weight:
        yield f"{place}.rule.floor: {rule.floor} is above the weight {dim.weight}"
    if isinstance(rule, Ladder | SignalSum):
        allowed = SIGNALS[rule.signals]
        used = (
            [s for step in rule.steps for s in step.when] if isinstance(rule, Ladder) else list(rule.points)
        )
        for signal in used:
            if signal not in allowed:
                yield f"{place}.rule: signal {signal!r} is not in the {rule.signals!r} group {list(allowed)}"
        most = (
            max([exact(s.points) for s in rule.steps] + [exact(rule.otherwise)])
            if isinstance(rule, Ladder)
            else sum(map(exact, rule.points.values()), Fraction(0))
        )
        if most > dim.weight:
            yield f"{place}.rule: can give {words(most)} points, above the weight {dim.weight}"
    if isinstance(rule, Gate):
        for key in rule.minimums:
            if key not in known or key == dim.key:
                yield f"{place}.rule.minimums.{key}: no such other dimension"
            elif exact(rule.minimums[key]) > weights[key]:
                yield f"{place}.rule.minimums.{key}: above that dimension's weight {weights[key]}"


# --- compiled: plain values for the hot path ----------------------------------------------------


Scaled = tuple[tuple[str, int], ...]
"""(name, numerator over the rubric's common denominator ``scale``) pairs."""


@dataclass(frozen=True)
class CompiledDimension:
    key: str
    name: str
    label: str
    weight: int
    diagnostic: bool
    rule: CheckRatio | Penalty | Ladder | SignalSum | Gate
    each: Fraction = Fraction(0)
    floor: Fraction = Fraction(0)
    steps: tuple[tuple[tuple[str, ...], Fraction], ...] = ()
    otherwise: Fraction = Fraction(0)
    signal_points: tuple[tuple[str, Fraction], ...] = ()
    minimums: tuple[tuple[str, Fraction], ...] = ()
    # The same numbers as integer numerators over the rubric's ``PointsRules.scale``: the scoring
    # engine adds and compares integers, never building a Fraction per row.
    scale: int = 1
    """The rubric's common denominator (``PointsRules.scale``), repeated here for a lone dimension."""
    scaled_weight: int = 0
    scaled_each: int = 0
    scaled_floor: int = 0
    scaled_steps: tuple[tuple[tuple[str, ...], int], ...] = ()
    scaled_otherwise: int = 0
    scaled_signals: Scaled = ()
    scaled_minimums: Scaled = ()
    by_signals: dict[tuple[bool, ...], int] = field(default_factory=dict, hash=False)
    """A ladder or signal sum's points (over ``scale``) for every combination of its group's signals,
    in ``SIGNALS`` order: one look-up per row instead of walking the steps."""


@dataclass(frozen=True)
class PointsRules:
    """A specification compiled once per benchmark: exact thresholds, dimensions in order."""

    spec: PointsSpec
    dimensions: tuple[CompiledDimension, ...]
    deterministic: tuple[str, ...]
    total: int
    ready_at_least: Fraction
    ready_minimums: tuple[tuple[str, Fraction], ...]
    ready_nonempty: tuple[str, ...]
    review_at_least: Fraction
    critical_checks: tuple[str, ...]
    detections: tuple[str, ...]
    blocker_minimums: tuple[tuple[str, Fraction], ...]
    mandatory: tuple[str, ...]
    signal_diagnostics: tuple[tuple[str, str], ...]
    """(key, signal group) of each diagnostic scored from signals: its unavailable count is disclosed."""
    blocker_words: dict[str, str]
    """Each blocking minimum's wording: a penalty dimension below it is "excessive scope overreach"."""
    scale: int = 1
    """The least common denominator of every number the specification states: each threshold and
    constant below is its integer numerator over ``scale`` (7.5 of the seed is 15 over 2)."""
    scaled_ready_at_least: int = 0
    scaled_ready_minimums: Scaled = ()
    scaled_review_at_least: int = 0
    scaled_blocker_minimums: Scaled = ()


def compile_spec(spec: PointsSpec) -> PointsRules:
    scale = common_denominator(spec)
    dims = tuple(_compile_dimension(d, scale) for d in spec.dimensions)
    ready = spec.outcomes.ready
    review = spec.outcomes.needs_review.deterministic_at_least
    return PointsRules(
        spec=spec,
        dimensions=dims,
        deterministic=tuple(d.key for d in dims if not d.diagnostic),
        total=spec.deterministic_total,
        ready_at_least=exact(ready.deterministic_at_least),
        ready_minimums=tuple((k, exact(v)) for k, v in ready.minimums.items()),
        ready_nonempty=ready.nonempty,
        review_at_least=exact(review),
        critical_checks=spec.blockers.critical_checks,
        detections=spec.blockers.detections,
        blocker_minimums=tuple((k, exact(v)) for k, v in spec.blockers.minimums.items()),
        mandatory=spec.mandatory_checks,
        signal_diagnostics=tuple(
            (d.key, d.rule.signals) for d in dims if d.diagnostic and isinstance(d.rule, Ladder | SignalSum)
        ),
        blocker_words={
            d.key: f"excessive {d.key} overreach"
            if isinstance(d.rule, Penalty)
            else f"{d.name} below its minimum"
            for d in dims
        },
        scale=scale,
        scaled_ready_at_least=scaled(ready.deterministic_at_least, scale),
        scaled_ready_minimums=_scaled_items(ready.minimums.items(), scale),
        scaled_review_at_least=scaled(review, scale),
        scaled_blocker_minimums=_scaled_items(spec.blockers.minimums.items(), scale),
    )


def common_denominator(spec: PointsSpec) -> int:
    """The least common denominator of every number a specification states (weights are integers)."""
    return lcm(1, *(exact(v).denominator for v in _stated_numbers(spec)))


def _stated_numbers(spec: PointsSpec) -> Iterator[int | Decimal]:
    for dim in spec.dimensions:
        rule = dim.rule
        if isinstance(rule, Penalty):
            yield from (rule.each, rule.floor)
        elif isinstance(rule, Ladder):
            yield from (step.points for step in rule.steps)
            yield rule.otherwise
        elif isinstance(rule, SignalSum):
            yield from rule.points.values()
        elif isinstance(rule, Gate):
            yield from rule.minimums.values()
    yield from spec.blockers.minimums.values()
    yield from spec.outcomes.ready.minimums.values()
    yield spec.outcomes.ready.deterministic_at_least
    yield spec.outcomes.needs_review.deterministic_at_least


def scaled(value: int | Decimal, scale: int) -> int:
    """A stated number's numerator over ``scale`` (exact: ``scale`` is a multiple of its denominator)."""
    ratio = exact(value) * scale
    assert ratio.denominator == 1, f"{value} is not a whole number of 1/{scale}"
    return ratio.numerator


def _scaled_items(numbers: Iterable[tuple[str, int | Decimal]], scale: int) -> Scaled:
    return tuple((k, scaled(v, scale)) for k, v in numbers)


def _compile_dimension(dim: DimensionSpec, scale: int) -> CompiledDimension:
    rule = dim.rule
    label = dim.label or dim.key.replace("_", " ")
    base = CompiledDimension(
        dim.key,
        dim.name,
        label,
        dim.weight,
        dim.diagnostic,
        rule,
        scale=scale,
        scaled_weight=dim.weight * scale,
    )
    if isinstance(rule, Penalty):
        return replace(
            base,
            each=exact(rule.each),
            floor=exact(rule.floor),
            scaled_each=scaled(rule.each, scale),
            scaled_floor=scaled(rule.floor, scale),
        )
    if isinstance(rule, Ladder):
        return replace(
            base,
            steps=tuple((step.when, exact(step.points)) for step in rule.steps),
            otherwise=exact(rule.otherwise),
            scaled_steps=tuple((step.when, scaled(step.points, scale)) for step in rule.steps),
            scaled_otherwise=scaled(rule.otherwise, scale),
            by_signals=_ladder_table(rule, scale),
        )
    if isinstance(rule, SignalSum):
        return replace(
            base,
            signal_points=tuple((s, exact(p)) for s, p in rule.points.items()),
            scaled_signals=_scaled_items(rule.points.items(), scale),
            by_signals=_sum_table(rule, scale),
        )
    if isinstance(rule, Gate):
        return replace(
            base,
            minimums=tuple((k, exact(v)) for k, v in rule.minimums.items()),
            scaled_minimums=_scaled_items(rule.minimums.items(), scale),
        )
    return base


def _combinations(group: str) -> Iterator[dict[str, bool]]:
    names = SIGNALS[group]
    for values in product((False, True), repeat=len(names)):
        yield dict(zip(names, values, strict=True))


def _ladder_table(rule: Ladder, scale: int) -> dict[tuple[bool, ...], int]:
    """The first step whose signals all hold, else ``otherwise``, for each combination of signals."""
    table = {}
    for holds in _combinations(rule.signals):
        step = next((s for s in rule.steps if all(holds[x] for x in s.when)), None)
        table[tuple(holds.values())] = scaled(rule.otherwise if step is None else step.points, scale)
    return table


def _sum_table(rule: SignalSum, scale: int) -> dict[tuple[bool, ...], int]:
    """The sum of the points of the signals that hold, for each combination of signals."""
    return {
        tuple(holds.values()): sum(scaled(p, scale) for s, p in rule.points.items() if holds[s])
        for holds in _combinations(rule.signals)
    }


# --- the built-in specification of the seed contract ---------------------------------------------

BUILTIN_FILE = Path(__file__).with_name("builtin") / "agent-dx-score-contract.scoring.json"


@lru_cache(maxsize=1)
def builtin_spec() -> tuple[PointsSpec, str]:
    """The seed contract's built-in specification and the sha256 of its file (read once)."""
    data = BUILTIN_FILE.read_bytes()
    return PointsSpec.model_validate_json(data), hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=1)
def seed_rules() -> PointsRules:
    """The seed contract's built-in specification, compiled."""
    return compile_spec(builtin_spec()[0])


# --- the rules in plain words, generated from the specification ----------------------------------


def explain(spec: PointsSpec) -> tuple[str, ...]:
    """Every rule of a specification as a sentence, in the order the engine applies them."""
    lines = [f"Unit: an attempt (one agent on one task), scored under {spec.rubric!r}."]
    lines += [_explain_dimension(d) for d in spec.dimensions]
    scored = [d.name for d in spec.dimensions if not d.diagnostic]
    lines.append(f"Deterministic points = {' + '.join(scored)} (of {spec.deterministic_total}).")
    diagnostics = [d.name for d in spec.dimensions if d.diagnostic]
    if diagnostics:
        lines.append(
            f"Diagnostics ({', '.join(diagnostics)}) are shown and averaged but never change an outcome; "
            "without their signals they score 0 labelled unavailable and are left out of means."
        )
    lines.append(
        "Mandatory checks pass when each category was executed and is evaluable (not when every "
        f"check passed): {'; '.join(spec.mandatory_checks) or 'none'}."
    )
    lines.append(f"Launch blockers: {_explain_blockers(spec.blockers)}.")
    ready = spec.outcomes.ready
    conditions = [f"deterministic points at least {_num(ready.deterministic_at_least)}"]
    conditions += [f"{key} at least {_num(v)}" for key, v in ready.minimums.items()]
    conditions += [f"a nonzero {GROUP_WORDS[g]} check total" for g in ready.nonempty]
    review = _num(spec.outcomes.needs_review.deterministic_at_least)
    lines += [
        f"Invalid: an invalid marker ({', '.join(spec.invalid.reasons)}); after the agent started only "
        f"{', '.join(spec.invalid.after_agent_started) or 'no reason'} is accepted. Excluded from every "
        "denominator.",
        "NotReady: any launch blocker, whatever the points.",
        "Inconclusive: a deterministic dimension without a qualifying denominator (after blockers).",
        f"Ready: mandatory checks pass, no blocker, {', '.join(conditions)}.",
        f"NeedsReview: otherwise, deterministic points at least {review}.",
        "NotReady: otherwise.",
        "Allowlist: an entry ending in '/' admits every path below that folder; any other entry is a "
        "case-sensitive fnmatch pattern on the whole path ('*' also crosses '/'); a path counts once.",
    ]
    return tuple(lines)


def _num(value: int | Decimal) -> str:
    """A number the specification states, as written (every digit, no exponent)."""
    return plain_decimal(value)


def _explain_dimension(dim: DimensionSpec) -> str:
    rule = dim.rule
    head = f"{dim.name} ({dim.weight}{', diagnostic' if dim.diagnostic else ''}): "
    if isinstance(rule, CheckRatio):
        group = GROUP_WORDS[rule.checks]
        return head + (
            f"{dim.weight} × passed {group} checks / total {group} checks; with zero checks "
            f"{_zero_words(rule.when_empty)}; not run: {_zero_words(rule.when_not_run)}."
        )
    if isinstance(rule, Penalty):
        return head + (
            f"{dim.weight} minus {_num(rule.each)} for each distinct changed path outside the task "
            f"allowlist, floored at {_num(rule.floor)}; scope check not run: no qualifying denominator."
        )
    if isinstance(rule, Ladder):
        steps = "; ".join(
            f"{_num(s.points)} when {' and '.join(SIGNAL_WORDS[x] for x in s.when)}" for s in rule.steps
        )
        return head + f"the first that holds: {steps}; otherwise {_num(rule.otherwise)}."
    if isinstance(rule, SignalSum):
        parts = " + ".join(f"{_num(p)} for {SIGNAL_WORDS[s]}" for s, p in rule.points.items())
        return head + f"{parts}."
    needs = [
        {"mandatory_checks": "mandatory checks pass", "no_launch_blocker": "no launch blocker"}[r]
        for r in rule.requires
    ]
    needs += [f"{key} at least {_num(v)}" for key, v in rule.minimums.items()]
    return head + f"{dim.weight} only when {', '.join(needs)}; otherwise 0."


def _zero_words(choice: str) -> str:
    return "0 points" if choice == "zero" else "no qualifying denominator (Inconclusive)"


def _explain_blockers(blockers: Blockers) -> str:
    parts = [f"a failed {GROUP_WORDS[g]} check marked critical" for g in blockers.critical_checks]
    parts += [DETECTION_WORDS[d] for d in blockers.detections]
    parts += [f"{key} below {_num(v)}" for key, v in blockers.minimums.items()]
    return ", ".join(parts) or "none"

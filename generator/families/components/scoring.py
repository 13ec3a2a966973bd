"""Pure scoring of one episode under a components specification (SPEC §2.3, seed 003).

Every number and rule choice comes from the compiled specification (``ComponentsRules``).
Components are exact fractions until they are stored, so the seed's worked example (JE-06)
comes out of the built-in specification to the precision the seed prints. Sums and products are
integer numerators and denominators, compared by cross-multiplication, with one ``Fraction`` per
value the result publishes (``fractions`` reduces by a gcd at every operation).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from math import lcm

from generator.families.components.models import FOCUS, Episode, Finding, SeededDefect, Task
from generator.families.components.spec import CompiledFormula, ComponentsRules, exact
from generator.figures.units import counted

Ratio = Fraction | None


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


@dataclass(frozen=True)
class Detection:
    """Findings matched one-to-one to seeded defects."""

    pairs: tuple[tuple[Finding, SeededDefect], ...]
    false_positives: int
    false_negatives: int

    @property
    def f1(self) -> Fraction:
        tp = len(self.pairs)
        if not self.pairs and not self.false_positives and not self.false_negatives:
            return Fraction(1)  # a clean control with nothing flagged: nothing to find, nothing wrong
        return Fraction(2 * tp, 2 * tp + self.false_positives + self.false_negatives)

    @property
    def issue_type_accuracy(self) -> Ratio:
        if not self.pairs:
            return None
        right = sum(_key(f.issue_type) == _key(d.issue_type) for f, d in self.pairs)
        return Fraction(right, len(self.pairs))

    @property
    def exactness(self) -> Ratio:
        """Matched defects with a specified figure whose figure the finding states exactly."""
        specified = [(f.figure, d.figure) for f, d in self.pairs if d.figure is not None]
        if not specified:
            return None
        exact = sum(found is not None and found.strip() == seeded.strip() for found, seeded in specified)
        return Fraction(exact, len(specified))


def match(
    findings: tuple[Finding, ...], defects: tuple[SeededDefect, ...], issue_type: bool = False
) -> Detection:
    """Each seeded defect is matched by the first unmatched finding at the same location
    (whitespace-collapsed, case-insensitive) and, with ``issue_type``, of the same issue type;
    every other finding is a false positive."""
    unused = list(findings)
    pairs = []
    for defect in defects:
        hit = next((f for f in unused if _matches(f, defect, issue_type)), None)
        if hit is not None:
            unused.remove(hit)
            pairs.append((hit, defect))
    return Detection(tuple(pairs), len(unused), len(defects) - len(pairs))


def _matches(finding: Finding, defect: SeededDefect, issue_type: bool) -> bool:
    if _key(finding.location) != _key(defect.location):
        return False
    return not issue_type or _key(finding.issue_type) == _key(defect.issue_type)


def gated(formula: CompiledFormula, hard_failed: bool, missing_call: bool) -> bool:
    """Whether one of the events that force a component to 0 holds for an episode."""
    return (hard_failed and "hard_fail" in formula.zero_when) or (
        missing_call and "missing_required_call" in formula.zero_when
    )


def outcome(detection: Detection, rules: ComponentsRules, hard_failed: bool, missing_call: bool) -> Fraction:
    """The specification's outcome formula over F1, issue-type accuracy and exactness (a metric that
    does not apply counts as 1); 0 when one of its gates holds (the seed: a hard-fail)."""
    if gated(rules.outcome, hard_failed, missing_call):
        return Fraction(0)
    metrics = {
        "f1": detection.f1,
        "issue_type_accuracy": detection.issue_type_accuracy,
        "exactness": detection.exactness,
    }
    return rules.outcome.value(metrics)


@dataclass(frozen=True)
class Process:
    coverage: Fraction
    precision: Fraction
    efficiency: Fraction
    missing_calls: tuple[str, ...]


def process_value(proc: Process, rules: ComponentsRules, hard_failed: bool) -> Fraction:
    """The specification's process formula (the seed: 0.5·coverage + 0.3·precision + 0.2·efficiency),
    0 when one of its gates holds (the seed: a required call missing)."""
    if gated(rules.process, hard_failed, bool(proc.missing_calls)):
        return Fraction(0)
    metrics: dict[str, Fraction | None] = {
        "coverage": proc.coverage,
        "precision": proc.precision,
        "efficiency": proc.efficiency,
    }
    return rules.process.value(metrics)


def process(episode: Episode, task: Task) -> Process:
    """Evidence coverage and precision over the open-document log, efficiency over redundant calls."""
    key = set(task.key_evidence)
    opened = set(episode.opened_documents)
    hits = len(key & opened)
    coverage = Fraction(hits, len(key)) if key else Fraction(1)
    precision = Fraction(hits, len(opened)) if opened else Fraction(0 if key else 1)
    calls = [(c.name, c.arguments) for c in episode.calls]
    efficiency = Fraction(len(set(calls)), len(calls)) if calls else Fraction(1)
    names = {c.name for c in episode.calls}
    missing = tuple(sorted(set(task.required_calls) - names))
    return Process(coverage, precision, efficiency, missing)


@dataclass(frozen=True)
class Rationale:
    criteria: tuple[tuple[str, Fraction | None, int], ...]
    """(criterion, the judges' combined score or None, number of judges): the specification's global
    criteria, then the task family's focus when it declares one."""
    note: str | None
    """Why the rationale is not scored, when it is not."""
    total: Fraction | None = None
    """The criteria's scores summed (those in the value: the focus when it counts); None when unscored."""
    value: Fraction | None = None
    """total / (scale maximum · criteria in the value): JE-06's 7/12, or / 15 with a focus."""
    passes: bool | None = None
    """The specification's pass bar (the seed: the four global criteria total ≥ 9 of 12, and no
    criterion, focus included, at 0); None when unscored."""


def rationale(episode: Episode, task: Task, rules: ComponentsRules, focused: bool = False) -> Rationale:
    """Each criterion's judges combined (median or mean); a level that needs more judges than scored
    a criterion, or a criterion no judge scored, leaves it unscored. A task whose family declares a
    focus criterion is judged on it too."""
    names = (*rules.criteria, FOCUS) if focused else rules.criteria
    by_criterion: dict[str, list[int]] = {c: [] for c in names}
    for judgment in episode.judgments:
        if judgment.criterion in by_criterion:  # any other criterion is refused as invalid content
            by_criterion[judgment.criterion].append(judgment.score)
    zeroed = rules.audit_zero if fabricated_citations(episode) else None

    def combined(criterion: str, scores: list[int]) -> Fraction | None:
        if not scores:
            return None
        if criterion == zeroed:
            return Fraction(0)
        return median(scores) if rules.median else Fraction(sum(scores), len(scores))

    criteria = tuple((c, combined(c, s), len(s)) for c, s in by_criterion.items())
    unjudged = [c for c, s in by_criterion.items() if not s]
    fewest = min(len(s) for s in by_criterion.values())
    if unjudged:
        note = f"not scored: no judgment for {', '.join(unjudged)}"
    elif task.level in rules.judge_levels and fewest < rules.judges_needed:
        needed = rules.judges_needed
        judges = counted(fewest, "judge")
        note = f"not scored as {task.level}: {judges} on a criterion, the protocol needs {needed}"
    else:
        return _scored(criteria, rules)
    return Rationale(criteria, note)


def median(scores: list[int]) -> Fraction:
    """The median of whole scores, exact: the middle one, or the mean of the middle two."""
    ordered = sorted(scores)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return Fraction(ordered[middle])
    return Fraction(ordered[middle - 1] + ordered[middle], 2)


def total(values: Iterable[Fraction]) -> tuple[int, int]:
    """The exact sum of fractions as (numerator, denominator), never a Fraction per term."""
    return pair_sum([(v.numerator, v.denominator) for v in values])


def pair_sum(pairs: list[tuple[int, int]]) -> tuple[int, int]:
    """The exact sum of (numerator, denominator) pairs, over their least common denominator."""
    common = lcm(*(d for _, d in pairs))
    return sum(n * (common // d) for n, d in pairs), common


def at_least(value: tuple[int, int], least: Fraction) -> bool:
    """``value >= least`` by cross-multiplication (denominators are positive)."""
    return value[0] * least.denominator >= least.numerator * value[1]


def _scored(criteria: tuple[tuple[str, Fraction | None, int], ...], rules: ComponentsRules) -> Rationale:
    scores = {c: score or Fraction(0) for c, score, _ in criteria}
    focus = scores.get(FOCUS)

    def over(with_focus: bool) -> list[Fraction]:
        found = [scores[c] for c in rules.criteria]
        return [*found, focus] if with_focus and focus is not None else found

    in_value = over(rules.focus_in_value)
    top, bottom = total(in_value)
    passes = at_least(total(over(rules.pass_total_focus)), rules.pass_total) and all(
        score > rules.pass_each_above for score in over(rules.pass_each_focus)
    )
    value = Fraction(top, bottom * rules.scale_max * len(in_value))
    return Rationale(criteria, None, Fraction(top, bottom), value, passes)


def fabricated_citations(episode: Episode) -> tuple[str, ...]:
    """Evidence ids cited by a finding but never opened: fabricated citations."""
    opened = set(episode.opened_documents)
    cited = {e for f in episode.findings for e in f.evidence_ids}
    return tuple(sorted(cited - opened))


def combine(
    task: Task,
    rules: ComponentsRules,
    outcome_value: Fraction,
    process_value: Fraction,
    rationale_value: Ratio,
) -> Ratio:
    """score = Σ weight · component, with the task's weights or the specification's fixed ones; None
    when rationale is not scored."""
    if rationale_value is None:
        return None
    weights = rules.weights
    if weights is None:
        w = task.weights  # weights as written (0.55, not its binary float), so the sum is exact
        assert w is not None, "prepare refuses a task without weights under task_weights"
        weights = _exact_weights(w.outcome, w.process, w.rationale)
    parts = zip(weights, (outcome_value, process_value, rationale_value), strict=True)
    top, bottom = pair_sum([(w.numerator * v.numerator, w.denominator * v.denominator) for w, v in parts])
    return Fraction(top, bottom)


@lru_cache(maxsize=1024)
def _exact_weights(
    outcome: int | Decimal, process: int | Decimal, rationale: int | Decimal
) -> tuple[Fraction, Fraction, Fraction]:
    """A task's weights as exact fractions, once per distinct set of weights (not once per episode)."""
    return exact(outcome), exact(process), exact(rationale)

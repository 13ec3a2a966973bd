"""Pure scoring of one episode under JE validation scoring (SPEC §2.3, seed 003).

Components are exact fractions until they are stored, so the seed's worked example (JE-06)
comes out of the code to the precision the seed prints.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from fractions import Fraction

from generator.families.components.models import CRITERIA, FOCUS, Episode, Finding, SeededDefect, Task

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


def match(findings: tuple[Finding, ...], defects: tuple[SeededDefect, ...]) -> Detection:
    """Each seeded defect is matched by the first unmatched finding at the same location
    (whitespace-collapsed, case-insensitive); every other finding is a false positive."""
    unused = list(findings)
    pairs = []
    for defect in defects:
        hit = next((f for f in unused if _key(f.location) == _key(defect.location)), None)
        if hit is not None:
            unused.remove(hit)
            pairs.append((hit, defect))
    return Detection(tuple(pairs), len(unused), len(defects) - len(pairs))


def outcome(detection: Detection, hard_failed: bool) -> Fraction:
    """F1 × issue-type accuracy × exactness (when a figure is specified); a hard-fail forces 0."""
    if hard_failed:
        return Fraction(0)
    accuracy, exactness = detection.issue_type_accuracy, detection.exactness
    return detection.f1 * (1 if accuracy is None else accuracy) * (1 if exactness is None else exactness)


@dataclass(frozen=True)
class Process:
    coverage: Fraction
    precision: Fraction
    efficiency: Fraction
    missing_calls: tuple[str, ...]

    @property
    def value(self) -> Fraction:
        if self.missing_calls:
            return Fraction(0)
        return (
            Fraction(1, 2) * self.coverage
            + Fraction(3, 10) * self.precision
            + Fraction(1, 5) * self.efficiency
        )


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
    """(criterion, median score or None, number of judges): the four global criteria, then the
    task family's focus when it declares one."""
    note: str | None
    """Why the rationale is not scored, when it is not."""

    @property
    def total(self) -> Fraction | None:
        """Every criterion's median summed (focus included)."""
        if self.note is not None:
            return None
        return sum((score for _, score, _ in self.criteria if score is not None), Fraction(0))

    @property
    def value(self) -> Fraction | None:
        """total / (3 · criteria): 12 for the four global criteria (JE-06's 7/12), 15 with a focus."""
        total = self.total
        return None if total is None else total / (3 * len(self.criteria))

    @property
    def passes(self) -> bool | None:
        """Pass bar: the four global criteria total ≥ 9 of 12, and no criterion (focus included) at 0."""
        if self.total is None:
            return None
        global_total = sum(score or 0 for c, score, _ in self.criteria if c in CRITERIA)
        return global_total >= 9 and all(score != 0 for _, score, _ in self.criteria)


def rationale(episode: Episode, task: Task, focused: bool = False, judges_needed: int = 3) -> Rationale:
    """Median per criterion over the judges; L4 needs three judges or it is not scored. A task whose
    family declares a focus criterion is judged on it too."""
    names = (*CRITERIA, FOCUS) if focused else CRITERIA
    by_criterion: dict[str, list[int]] = {c: [] for c in names}
    for judgment in episode.judgments:
        if judgment.criterion in by_criterion:  # a focus judgment without a declared focus is refused
            by_criterion[judgment.criterion].append(judgment.score)
    fabricated = bool(fabricated_citations(episode))

    def median(criterion: str, scores: list[int]) -> Fraction | None:
        if not scores:
            return None
        if fabricated and criterion == "evidence_grounding":
            return Fraction(0)
        return Fraction(statistics.median(scores))

    criteria = tuple((c, median(c, s), len(s)) for c, s in by_criterion.items())
    unjudged = [c for c, s in by_criterion.items() if not s]
    note = None
    if unjudged:
        note = f"not scored: no judgment for {', '.join(unjudged)}"
    elif task.level == "L4" and min(len(s) for s in by_criterion.values()) < judges_needed:
        fewest = min(len(s) for s in by_criterion.values())
        note = f"not scored as L4: {fewest} judge(s) on a criterion, the protocol needs {judges_needed}"
    return Rationale(criteria, note)


def fabricated_citations(episode: Episode) -> tuple[str, ...]:
    """Evidence ids cited by a finding but never opened: fabricated citations."""
    opened = set(episode.opened_documents)
    cited = {e for f in episode.findings for e in f.evidence_ids}
    return tuple(sorted(cited - opened))


def combine(task: Task, outcome_value: Fraction, process_value: Fraction, rationale_value: Ratio) -> Ratio:
    """score = Σ weight · component with the task's weights; None when rationale is not scored."""
    if rationale_value is None:
        return None
    w = task.weights  # weights as written (0.55, not its binary float), so the sum is exact
    return (
        Fraction(repr(w.outcome)) * outcome_value
        + Fraction(repr(w.process)) * process_value
        + Fraction(repr(w.rationale)) * rationale_value
    )

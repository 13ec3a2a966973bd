"""Which rows of a check may be pooled across arms and reps, and a run's share of the aggregates.

A row carries the comparability facts `benchsite compare` pairs rows by. What one row says on its
own is checked while its run is scored; whether it agrees with the first row of its check (and of
its case) in any run is checked when the run's share is folded in, runs in sorted order.
"""

from __future__ import annotations

from generator.errors import Problem, Problems, Result
from generator.families.definitions.models import Scenario
from generator.families.definitions.spec import DefinitionsRules
from generator.families.definitions.store import axis
from generator.figures.model import Model

Signature = tuple[str | None, str | None, float | None, bool, str | None, str | None]
"""evalKey, evalVersion, effectiveBar, judged, judge model, rubric digest: the text axes the
specification names case-insensitive case-folded, None when blank (not recorded)."""
SIGNATURE_AXES = ("evalKey", "evalVersion", "effectiveBar", "judge", "judge.modelId", "judge.rubricDigest")
"""The axis each position of a ``Signature`` holds."""


class PooledRow(Model):
    """One row's comparability facts, as pooling needs them."""

    file: str
    """The row's file within its run folder (``scenarios/…``)."""
    id: str
    case: str
    check: str
    signature: Signature
    stimulus: str | None


class DefinitionsPart(Model):
    """One run's share: its arm, parent invocation, each row's (check, case, state, value), its
    producer disagreements, and the comparability facts of its rows."""

    arm: str
    parent: str | None
    reps: tuple[tuple[str, str, str, float | None], ...]
    disagreements: tuple[tuple[str, str, str, str], ...]
    pooled: tuple[PooledRow, ...]


def pooling_facts(
    scenario: Scenario, rel: str, case: str, check: str, bar: float | None, file: str, rules: DefinitionsRules
) -> Result[PooledRow]:
    """What a row says on its own: it must carry comparability facts, and a chance floor it records
    must be the definition's floor for its check. Its ``effectiveBar`` is the eval's own pass bar
    (AgentEval writes the score threshold, e.g. 1.0), not the floor: it only has to agree across the
    rows that are pooled, which the signature carries."""
    facts = scenario.comparability
    if facts is None:
        message = (
            "no comparability facts: rows of a check are pooled across arms and reps only "
            "when they are comparable"
        )
        return Result(None, (Problem(file, "$.comparability", message),))
    problems = Problems()
    floor = facts.chanceFloor
    tolerance = rules.bar_tolerance
    if floor is not None and floor.bar is not None and (bar is None or abs(floor.bar - bar) > tolerance):
        message = f"{floor.bar} is not the bar of the definition's floor for check {check!r} ({bar})"
        problems.append(Problem(file, "$.comparability.chanceFloor.bar", message))
    judge, folded = facts.judge, rules.folded
    signature: Signature = (
        axis(facts.evalKey, "evalKey" in folded),
        axis(facts.evalVersion, "evalVersion" in folded),
        facts.effectiveBar,
        judge is not None,
        axis(judge.modelId, "judge.modelId" in folded) if judge else None,
        axis(judge.rubricDigest, "judge.rubricDigest" in folded) if judge else None,
    )
    row = PooledRow(
        file=rel, id=scenario.id, case=case, check=check, signature=signature, stimulus=scenario.stimulusHash
    )
    return problems.result(row)


def pooling_problems(
    signatures: dict[str, tuple[Signature, str]],
    stimuli: dict[tuple[str, str], tuple[str | None, str]],
    rows: tuple[PooledRow, ...],
    label: str,
    rules: DefinitionsRules,
) -> list[Problem]:
    """Each row against the first row of its check (comparability, on the axes the specification
    gates on) and of its case × check (stimulus, when it gates on it)."""
    problems = []
    gating = [i for i, name in enumerate(SIGNATURE_AXES) if name in rules.gating]
    for row in rows:
        file = f"{label}/{row.file}"
        first, first_id = signatures.setdefault(row.check, (row.signature, row.id))
        if any(row.signature[i] != first[i] for i in gating):
            message = (
                f"differs from row {first_id!r} of the same check (evalKey, evalVersion, "
                "effectiveBar or judge): incomparable rows are never pooled"
            )
            problems.append(Problem(file, "$.comparability", message))
        stimulus, stimulus_id = stimuli.setdefault((row.case, row.check), (row.stimulus, row.id))
        if row.stimulus != stimulus and "stimulus" in rules.gating:
            message = (
                f"differs from row {stimulus_id!r} of the same case: arms and reps must answer "
                "the same stimulus"
            )
            problems.append(Problem(file, "$.stimulusHash", message))
    return problems

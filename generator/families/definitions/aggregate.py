"""Meta-lane scores of a definition: against floor, case values, against reference, census.

Which collapse rules are tested and shown, how a cell takes its reps' states, alpha and the
interval's confidence come from the compiled scoring specification (``spec.py``); without one,
the seed ADR's built-in specification."""

from __future__ import annotations

import statistics
from collections.abc import Mapping

from generator.families.definitions.models import Definition
from generator.families.definitions.report import CaseValue, CensusRow, FloorTest, PairedRow, RowState
from generator.families.definitions.spec import DefinitionsRules, seed_rules
from generator.families.definitions.stats import (
    above_floor,
    collapse,
    minimum_attainable,
    sign_minimum,
    sign_test,
    tail_p,
)
from generator.figures.stats import exact_interval

Reps = Mapping[tuple[str, str, str], list[tuple[str, float | None]]]
TAIL = "exact one-sided binomial tail P(X ≥ k | n, bar) (scipy.stats.binom.sf)"
BEST_OF_N = "best-of-N: a case passes if any rep passed, optimistic by construction"


Cell = tuple[RowState, tuple[float, ...]]
"""A (check, arm, case) cell collapsed over its reps: its state, and its reps' values when measured."""


def cell(
    reps: Reps, check: str, arm: str, case: str, order: tuple[RowState, ...] | None = None
) -> Cell | None:
    """The first state in ``order`` (the specification's ``cells.order``) that any of the cell's reps
    has; the seed's order is the worst state (not measured, not applicable, measured), as AgentEval's
    PairedEvalComparer and BenchmarkScore collapse it: one rep that did not measure the case takes
    the whole case out, since averaging the surviving reps would change the denominator. A measured
    cell keeps its measured reps' values. None when the cell has no rep."""
    observed = reps.get((check, arm, case))
    if not observed:
        return None
    states = {state for state, _ in observed}
    for state in order or seed_rules().order:
        if state in states:
            if state != "measured":
                return state, ()
            return "measured", tuple(v for s, v in observed if s == "measured" and v is not None)
    return None


def _measured_cells(
    reps: Reps, definition: Definition, check: str, arm: str, order: tuple[RowState, ...]
) -> list[tuple[float, ...]]:
    """The rep values of every case whose cell was measured, in the definition's case order."""
    return [
        c[1]
        for case in definition.cases
        if (c := cell(reps, check, arm, case.id, order)) and c[0] == "measured"
    ]


def floor_tests(
    reps: Reps,
    definition: Definition,
    floors: Mapping[str, float | None],
    rules: DefinitionsRules | None = None,
) -> tuple[FloorTest, ...]:
    rules = rules or seed_rules()
    tests = []
    for check in definition.checks:
        bar = floors[check.key]
        for arm in definition.arms:
            measured = _measured_cells(reps, definition, check.key, arm.id, rules.order)
            for rule in rules.tested:
                k = int(sum(collapse(v, rule, definition.pass_at) for v in measured))
                n = len(measured)
                p = tail_p(k, n, bar)
                min_p = minimum_attainable(n, bar)
                interval = exact_interval(k, n, rules.interval_confidence)
                tests.append(
                    FloorTest(
                        check=check.key,
                        arm=arm.id,
                        rule=rule,
                        successes=k,
                        cases=n,
                        bar=bar,
                        p_value=p,
                        test=TAIL,
                        minimum_p=min_p,
                        underpowered=min_p is not None and min_p > rules.alpha,
                        above_floor=above_floor(p, min_p, rules.alpha),
                        interval=interval,
                        flag=BEST_OF_N if rule in rules.best_of_n else None,
                    )
                )
    return tuple(tests)


def values(
    reps: Reps, definition: Definition, rules: DefinitionsRules | None = None
) -> tuple[CaseValue, ...]:
    rules = rules or seed_rules()
    out = []
    for check in definition.checks:
        for arm in definition.arms:
            per_case = _measured_cells(reps, definition, check.key, arm.id, rules.order)
            for rule in rules.values:
                collapsed = [collapse(v, rule, definition.pass_at) for v in per_case]
                value = statistics.fmean(collapsed) if collapsed else None
                out.append(
                    CaseValue(check=check.key, arm=arm.id, rule=rule, value=value, cases=len(collapsed))
                )
    return tuple(out)


def paired(
    reps: Reps, definition: Definition, rules: DefinitionsRules | None = None
) -> tuple[PairedRow, ...]:
    """Each challenger against the reference, case by case on collapsed cells (AgentEval's
    PairedEvalComparer): a pair with a side not measured or not applicable is excluded (not
    measured when either side is), never a loss or a tie; wins, losses, ties and the mean delta
    come from the collapsed values."""
    order = (rules or seed_rules()).order
    rows = []
    reference, rule = definition.reference_arm, definition.paired_collapse
    for check in definition.checks:
        for arm in definition.arms:
            if arm.id == reference:
                continue
            deltas: list[float] = []
            rep_deltas: list[float] = []
            excluded = {"notMeasured": 0, "notApplicable": 0}
            for case in definition.cases:
                ref = cell(reps, check.key, reference, case.id, order)
                ch = cell(reps, check.key, arm.id, case.id, order)
                if ref is None or ch is None:
                    continue
                if ref[0] != "measured" or ch[0] != "measured":
                    either_unmeasured = "notMeasured" in (ref[0], ch[0])
                    excluded["notMeasured" if either_unmeasured else "notApplicable"] += 1
                    continue
                r, c = collapse(ref[1], rule, definition.pass_at), collapse(ch[1], rule, definition.pass_at)
                deltas.append(c - r)
                rep_deltas.append(statistics.fmean(ch[1]) - statistics.fmean(ref[1]))
            wins, losses = sum(d > 0 for d in deltas), sum(d < 0 for d in deltas)
            rows.append(
                PairedRow(
                    check=check.key,
                    reference=reference,
                    challenger=arm.id,
                    wins=wins,
                    losses=losses,
                    ties=len(deltas) - wins - losses,
                    p_value=sign_test(wins, losses),
                    minimum_p=sign_minimum(wins + losses),
                    mean_delta=statistics.fmean(deltas) if deltas else None,
                    rep_mean_delta=statistics.fmean(rep_deltas) if rep_deltas else None,
                    undecidable=wins + losses == 0,
                    excluded_not_measured=excluded["notMeasured"],
                    excluded_not_applicable=excluded["notApplicable"],
                )
            )
    return tuple(rows)


def census(
    reps: Reps, definition: Definition, rules: DefinitionsRules | None = None
) -> tuple[CensusRow, ...]:
    """Per (check, arm), the collapsed cases by state: the same n the floor test uses."""
    order = (rules or seed_rules()).order
    rows = []
    for check in definition.checks:
        for arm in definition.arms:
            cells = [cell(reps, check.key, arm.id, c.id, order) for c in definition.cases]
            states = [c[0] for c in cells if c is not None]
            measured = states.count("measured")
            na, nm = states.count("notApplicable"), states.count("notMeasured")
            rows.append(
                CensusRow(
                    check=check.key,
                    arm=arm.id,
                    measured=measured,
                    not_applicable=na,
                    not_measured=nm,
                    void=measured == 0 and na + nm > 0,
                )
            )
    return tuple(rows)

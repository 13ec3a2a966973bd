"""Meta-lane scores of a definition: against floor, case values, against reference, census."""

from __future__ import annotations

import statistics
from collections.abc import Mapping

from generator.families.definitions_models import Definition
from generator.families.definitions_report import CaseValue, CensusRow, FloorTest, PairedRow
from generator.families.definitions_stats import (
    above_floor,
    collapse,
    minimum_attainable,
    sign_minimum,
    sign_test,
    tail_p,
)
from generator.stats import exact_interval

Reps = Mapping[tuple[str, str, str], list[tuple[str, float | None]]]
TAIL = "exact one-sided binomial tail P(X ≥ k | n, bar) (scipy.stats.binom.sf)"
BEST_OF_N = "best-of-N: a case passes if any rep passed, optimistic by construction"


def _measured(reps: Reps, check: str, arm: str, case: str) -> list[float]:
    return [v for state, v in reps.get((check, arm, case), []) if state == "measured" and v is not None]


def floor_tests(
    reps: Reps, definition: Definition, floors: Mapping[str, float | None]
) -> tuple[FloorTest, ...]:
    tests = []
    for check in definition.checks:
        bar = floors[check.key]
        for arm in definition.arms:
            per_case = [_measured(reps, check.key, arm.id, c.id) for c in definition.cases]
            measured = [v for v in per_case if v]
            for rule in ("all", "majority", "any"):
                k = int(sum(collapse(v, rule, definition.pass_at) for v in measured))
                n = len(measured)
                p = tail_p(k, n, bar)
                min_p = minimum_attainable(n, bar)
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
                        underpowered=min_p is not None and min_p > 0.05,
                        above_floor=above_floor(p, min_p),
                        interval=exact_interval(k, n),
                        flag=BEST_OF_N if rule == "any" else None,
                    )
                )
    return tuple(tests)


def values(reps: Reps, definition: Definition) -> tuple[CaseValue, ...]:
    out = []
    for check in definition.checks:
        for arm in definition.arms:
            per_case = [v for c in definition.cases if (v := _measured(reps, check.key, arm.id, c.id))]
            for rule in ("mean", "median"):
                collapsed = [collapse(v, rule, definition.pass_at) for v in per_case]
                value = statistics.fmean(collapsed) if collapsed else None
                out.append(
                    CaseValue(check=check.key, arm=arm.id, rule=rule, value=value, cases=len(collapsed))
                )
    return tuple(out)


def paired(reps: Reps, definition: Definition) -> tuple[PairedRow, ...]:
    rows = []
    reference = definition.reference_arm
    for check in definition.checks:
        for arm in definition.arms:
            if arm.id == reference:
                continue
            wins = losses = ties = skipped_nm = skipped_na = 0
            deltas = []
            for case in definition.cases:
                ref = _measured(reps, check.key, reference, case.id)
                ch = _measured(reps, check.key, arm.id, case.id)
                if not ref or not ch:
                    sides = [
                        [s for s, _ in reps.get((check.key, a, case.id), [])] for a in (reference, arm.id)
                    ]
                    if any(side and all(s == "notApplicable" for s in side) for side in sides):
                        skipped_na += 1  # the case does not apply to at least one arm
                    else:
                        skipped_nm += 1
                    continue
                r = collapse(ref, definition.paired_collapse, definition.pass_at)
                c = collapse(ch, definition.paired_collapse, definition.pass_at)
                wins, losses, ties = wins + (c > r), losses + (c < r), ties + (c == r)
                deltas.append(statistics.fmean(ch) - statistics.fmean(ref))
            rows.append(
                PairedRow(
                    check=check.key,
                    reference=reference,
                    challenger=arm.id,
                    wins=wins,
                    losses=losses,
                    ties=ties,
                    p_value=sign_test(wins, losses),
                    minimum_p=sign_minimum(wins + losses),
                    mean_delta=statistics.fmean(deltas) if deltas else None,
                    undecidable=wins + losses == 0,
                    excluded_not_measured=skipped_nm,
                    excluded_not_applicable=skipped_na,
                )
            )
    return tuple(rows)


def census(reps: Reps, definition: Definition) -> tuple[CensusRow, ...]:
    rows = []
    for check in definition.checks:
        for arm in definition.arms:
            states = [s for c in definition.cases for s, _ in reps.get((check.key, arm.id, c.id), [])]
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

"""The components engine's integer arithmetic against plain Fraction oracles (issue 33, item 2).

Formulas, the combined score, medians and the pass bar's sum are computed with integer numerators
and denominators and one Fraction at the end; each oracle here is the textbook expression in
``fractions.Fraction``, random weights and metrics, ties included.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from generator.families.components.models import Task
from generator.families.components.scoring import at_least, combine, median, total
from generator.families.components.spec import CompiledFormula, seed_rules

METRICS = ("a", "b", "c", "d")
RATIOS = st.builds(Fraction, st.integers(0, 40), st.integers(1, 40))
"""A metric: a ratio of counts (F1, coverage, ...), at most 40 over any count from 1 to 40."""
WEIGHTS = st.builds(Fraction, st.integers(0, 10_000), st.sampled_from([1, 2, 4, 10, 100, 1000, 3]))
"""A stated weight: a decimal the author wrote (the 3 stands for a denominator no decimal has)."""


@given(st.lists(WEIGHTS, min_size=1, max_size=4), st.lists(st.none() | RATIOS, min_size=4, max_size=4))
def test_a_weighted_sum_is_the_sum_of_weight_times_metric_over_the_total(
    weights: list[Fraction], found: list[Fraction | None]
) -> None:
    terms = tuple(zip(METRICS, weights, strict=False))
    stated = sum(weights, Fraction(0)) or Fraction(1)
    metrics = dict(zip(METRICS, found, strict=True))
    expected = sum((w * (1 if metrics[m] is None else metrics[m]) for m, w in terms), Fraction(0)) / stated
    value = CompiledFormula(False, terms, stated, frozenset()).value(metrics)
    assert (value, type(value)) == (expected, Fraction)


@given(st.integers(1, 4), st.lists(st.none() | RATIOS, min_size=4, max_size=4))
def test_a_product_multiplies_the_metrics_that_apply(factors: int, found: list[Fraction | None]) -> None:
    terms = tuple((m, Fraction(1)) for m in METRICS[:factors])
    expected = Fraction(1)
    for value in found[:factors]:
        expected *= 1 if value is None else value
    metrics = dict(zip(METRICS, found, strict=True))
    assert CompiledFormula(True, terms, Fraction(1), frozenset()).value(metrics) == expected


@given(st.tuples(WEIGHTS, WEIGHTS, WEIGHTS), st.tuples(RATIOS, RATIOS, RATIOS))
def test_the_score_is_the_weighted_sum_of_the_three_components(
    weights: tuple[Fraction, Fraction, Fraction], parts: tuple[Fraction, Fraction, Fraction]
) -> None:
    rules = replace(seed_rules(), weights=weights)
    task = Task.model_construct()  # fixed weights: the task's own are never read
    expected = weights[0] * parts[0] + weights[1] * parts[1] + weights[2] * parts[2]
    assert combine(task, rules, *parts) == expected
    assert combine(task, rules, parts[0], parts[1], None) is None


@given(st.lists(st.integers(0, 3), min_size=1, max_size=9))
def test_the_median_of_judges_is_the_middle_score_or_the_mean_of_the_middle_two(scores: list[int]) -> None:
    ordered = sorted(scores)
    below = [s for s in ordered if s < Fraction(median(scores))]
    above = [s for s in ordered if s > Fraction(median(scores))]
    assert len(below) <= len(scores) / 2 and len(above) <= len(scores) / 2
    n = len(ordered)
    expected = Fraction(ordered[n // 2]) if n % 2 else Fraction(ordered[n // 2 - 1] + ordered[n // 2], 2)
    assert median(scores) == expected


@given(st.lists(RATIOS, min_size=1, max_size=5), st.booleans(), RATIOS)
def test_a_sum_at_least_a_bar_compares_exactly_ties_included(
    values: list[Fraction], tie: bool, other: Fraction
) -> None:
    exact = sum(values, Fraction(0))
    bar = exact if tie else other
    top, bottom = total(values)
    assert Fraction(top, bottom) == exact
    assert at_least((top, bottom), bar) == (exact >= bar)

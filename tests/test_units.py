"""Human units: exact half-up rounding (never the rubric's floor, never a float's approximation)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from generator.figures.units import (
    basis_points,
    duration_ms,
    gap_points,
    mean_digits,
    mean_score,
    percent,
    percent_of,
    rate_words,
    share_digits,
    usd_micros,
)


@pytest.mark.parametrize(
    ("n", "d", "digits", "shown"),
    [
        (8, 11, 2, "72.73%"),  # 72.7272…: the floor (7272 bp) would read 72.72%
        (1, 8, 2, "12.50%"),
        (1, 8, 1, "12.5%"),
        (1, 16, 1, "6.3%"),  # 6.25 exactly: half up, not half to even
        (1, 200, 0, "1%"),  # 0.5 exactly
        (1, 3, 2, "33.33%"),
        (2, 3, 2, "66.67%"),
        (12, 12, 2, "100.00%"),
        (0, 7, 0, "0%"),
        (0, 0, 2, "—"),
    ],
)
def test_percent_of_rounds_the_exact_fraction_half_up(n: int, d: int, digits: int, shown: str) -> None:
    assert percent_of(n, d, digits) == shown


def test_percent_of_a_float_rounds_its_shortest_decimal_spelling() -> None:
    assert percent(0.72725) == "72.73%"  # the float is 0.72724999…; its shortest spelling ends in 5
    assert percent(0.0) == "0.00%"
    assert percent(1.0, 0) == "100%"
    assert percent(None) == "—"


def test_rate_words_and_the_published_integer() -> None:
    assert rate_words(8, 11) == "73% (8 of 11)"
    assert rate_words(0, 0) == "no result (0 of 0)"
    assert basis_points(7272) == "7272 bp (floor of 10000·n/d)"
    assert basis_points(None) == "—"


@pytest.mark.parametrize(
    ("ms", "shown"),
    [
        (0, "0 ms"),
        (999, "999 ms"),
        (1000, "1.0 s"),
        (38_649, "38.6 s"),
        (38_650, "38.7 s"),
        (59_949, "59.9 s"),
        (59_950, "1 min 0 s"),  # 59.95 s would round to "60.0 s"
        (385_965, "6 min 26 s"),
        (900_000, "15 min 0 s"),
        (3_599_499, "59 min 59 s"),
        (3_599_500, "1 h 0 min"),
        (3_840_000, "1 h 4 min"),
        (None, "—"),
    ],
)
def test_durations_in_seconds_minutes_and_hours(ms: int | None, shown: str) -> None:
    assert duration_ms(ms) == shown


@pytest.mark.parametrize(
    ("micros", "shown"),
    [
        (0, "$0"),
        (556_608, "$0.56"),
        (555_000, "$0.56"),  # half a cent: up
        (10_000, "$0.01"),
        (9_999, "$0.0100"),
        (1_234, "$0.0012"),
        (1, "$0.0000010"),
        (1_234_500_000, "$1,234.50"),
        (-556_608, "-$0.56"),
        (None, "—"),
    ],
)
def test_money_in_dollars_with_a_sensible_precision(micros: int | None, shown: str) -> None:
    assert usd_micros(micros) == shown


def test_one_precision_rule_from_n() -> None:
    assert [share_digits(n) for n in (0, 1, 11, 100, 101, 1000, 1001, 10**5)] == [0, 0, 0, 0, 1, 1, 2, 3]
    assert percent_of(8, 11) == "73%" and percent_of(8, 11, 2) == "72.73%"
    assert percent_of(375, 1000) == "37.5%" and percent_of(1, 200) == "0.5%"
    assert gap_points(Fraction(4, 11)) == "36" and gap_points(Fraction(-1, 400), 1) == "−0.3"


def test_a_mean_score_carries_the_decimals_its_n_supports() -> None:
    """Two decimals of [0, 1] (whole percent) up to n = 100, one more to n = 1000: never the third
    decimal that 0.863 over 20 episodes or 0.148 over 2 would claim."""
    assert [mean_digits(n) for n in (0, 2, 20, 100, 101, 1000, 1001)] == [2, 2, 2, 2, 3, 3, 4]
    assert mean_score(0.8625, 20) == "0.86" and mean_score(0.148, 2) == "0.15"
    assert mean_score(0.8625, 200) == "0.863" and mean_score(None, 5) == "—"

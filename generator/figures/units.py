"""Figures in the units a person reads: percentages, seconds and minutes, dollars.

The exact integers the rubrics publish (basis points, USD micros, milliseconds) stay in the JSON and
CSV files and in each cell's ``title``; these functions only say the same value in a human unit.
Every rounding here is half up on the exact value (a fraction, never a binary float's
approximation). One precision rule holds for every share on the site (:func:`share_digits`): a share
of n things carries the decimals that n can move, so 8/11 reads 73%, where the rubric's own floor
says 7272 bp and the exact value 72.7272…% stays in the JSON.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from generator.figures.numbers import fmt_number

MISSING = "—"


def _half_up(value: Fraction, digits: int) -> Decimal:
    """``value`` (not negative) rounded half up to ``digits`` decimals, computed exactly."""
    scaled = value * 10**digits
    whole, rest = divmod(scaled.numerator, scaled.denominator)
    return Decimal(whole + (2 * rest >= scaled.denominator)).scaleb(-digits)


def share_digits(denominator: int) -> int:
    """The decimals a share of ``denominator`` things can honestly carry: one thing more or less moves
    it by 100/n percent, so whole percent up to n = 100, one decimal up to n = 1000, and so on."""
    digits, step = 0, 100
    while step < denominator:
        digits, step = digits + 1, step * 10
    return digits


def mean_digits(count: int) -> int:
    """The decimals a mean of ``count`` scores on [0, 1] can honestly carry: those of a share of
    ``count`` things in percent, plus the two that percent hides (0.86 over 20 episodes, as 86% of 20
    would read; 0.862 over 200). A mean over few items never shows a third decimal it cannot move."""
    return share_digits(count) + 2


def mean_score(value: float | None, count: int) -> str:
    """A mean of ``count`` scores on [0, 1] (or its standard deviation) in the decimals ``count``
    supports (:func:`mean_digits`): 0.8625 over 20 → '0.86'; '—' when missing."""
    return fmt_number(value, mean_digits(count))


def percent_of(numerator: int, denominator: int, digits: int | None = None) -> str:
    """n/d as a percentage rounded half up, by default in the precision n allows (8/11 → '73%',
    375/1000 → '37.5%'); '—' when d is 0."""
    if denominator <= 0:
        return MISSING
    if digits is None:
        digits = share_digits(denominator)
    return f"{_half_up(Fraction(100 * numerator, denominator), digits)}%"


def percent(value: float | None, digits: int = 2) -> str:
    """A share in [0, 1] (an interval bound, an estimate) as a percentage, half up from its shortest
    decimal spelling (0.72725 → '72.73%')."""
    if value is None:
        return MISSING
    return f"{_half_up(Fraction(Decimal(repr(value))) * 100, digits)}%"


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """A count with its noun in the right number: '1 evaluator', '3 evaluators', '2 path(s)' never
    ("plural" for a noun that does not take an s: counted(2, 'repetition') → '2 repetitions')."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def percent_range(low: float, high: float, denominator: int) -> str:
    """An interval of a share of ``denominator`` things as one range, its bounds in the precision of
    the share itself (:func:`share_digits`): 0.3903 and 0.9398 of 11 → '39–94%', beside '73%'."""
    digits = share_digits(denominator)
    bounds = (_half_up(Fraction(Decimal(repr(value))) * 100, digits) for value in (low, high))
    return "–".join(map(str, bounds)) + "%"


def points(value: float | None, digits: int = 1) -> str:
    """A difference of two shares in percentage points, signed when negative ('36.4 points')."""
    if value is None:
        return MISSING
    sign, size = ("−", -value) if value < 0 else ("", value)
    return f"{sign}{_half_up(Fraction(Decimal(repr(size))) * 100, digits)} points"


def difference(value: float | None, kind: str, count: int) -> str:
    """A difference of two figures of a ranking, in the precision of the figures it subtracts: for
    rates percentage points in the decimals a share of ``count`` things carries ('36 points' beside
    73% and 36% of 11), for means the decimals a mean of ``count`` scores carries."""
    if kind == "rate":
        return points(value, share_digits(count))
    return fmt_number(value, mean_digits(count))


def gap_points(gap: Fraction, digits: int = 0) -> str:
    """An exact difference of two shares in percentage points, half up to ``digits`` decimals and
    signed when negative ('36', '−2.5'): the lead between two rates in the precision of the rates."""
    sign, size = ("−", -gap) if gap < 0 else ("", gap)
    return f"{sign}{_half_up(size * 100, digits)}"


def rate_words(numerator: int, denominator: int, digits: int | None = None) -> str:
    """A rate for a sentence: '73% (8 of 11)'; 'no result (0 of 0)' when d is 0."""
    if denominator <= 0:
        return "no result (0 of 0)"
    return f"{percent_of(numerator, denominator, digits)} ({numerator} of {denominator})"


def basis_points(value: int | None) -> str:
    """A rubric's published integer, labelled as what it is: '7272 bp (floor of 10000·n/d)'."""
    return MISSING if value is None else f"{value} bp (floor of 10000·n/d)"


def duration_ms(value: int | None) -> str:
    """Milliseconds as a person reads them: '850 ms', '38.6 s', '6 min 26 s', '1 h 4 min'."""
    if value is None:
        return MISSING
    if value < 1000:
        return f"{value} ms"
    if value < 59_950:  # below this, one decimal of seconds never rounds up to a minute
        return f"{_half_up(Fraction(value, 1000), 1)} s"
    seconds = int(_half_up(Fraction(value, 1000), 0))
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    minutes = int(_half_up(Fraction(seconds, 60), 0))
    return f"{minutes // 60} h {minutes % 60} min"


def usd_micros(value: int | None) -> str:
    """USD micros as dollars: cents from one cent up ('$0.56', '$1,234.50'); below a cent, two
    significant digits ('$0.0012'), so a small cost never reads as $0.00; '$0' for zero."""
    if value is None:
        return MISSING
    sign, size = ("-", -value) if value < 0 else ("", value)
    if size == 0:
        return "$0"
    dollars = Fraction(size, 1_000_000)
    if size >= 10_000:
        return f"{sign}${_half_up(dollars, 2):,}"
    digits = 8 - len(str(size))  # the zeros after the point, then two significant digits
    return f"{sign}${_half_up(dollars, digits)}"


_IMPLEMENTATION = re.compile(r"\s*\((?:scipy|numpy)\.[^()]*\)|\s*\(scipy's [^()]*\)")


def plain_method(text: str | None) -> str:
    """A method as a reader needs it: the test and its sidedness, without the library function that
    computed it ('Fisher's exact test, two-sided (scipy.stats.fisher_exact)' → 'Fisher's exact test,
    two-sided'). The JSON keeps the full text for an auditor."""
    return "" if text is None else _IMPLEMENTATION.sub("", text)

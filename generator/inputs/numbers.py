"""A producer's numbers bounded before they are used: its reported figures and its times.

A decimal's text can name a number whose exact value is enormous to build: ``1e-999999999`` is
twelve characters, and its power of ten a billion digits. Nothing here builds a power of ten larger
than the text's own digits and the rate's denominator call for: a figure whose last place lies far
above or far below the rate it is compared with is decided from its digits and exponent alone, with
the answer the exact comparison would give. The importers and the trials family's build (which
reads a figure back from ``run.json``) ask this module, so that what imports, builds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

from generator.inputs.jsonio import MAX_INT_DIGITS

MAX_DIGITS = MAX_INT_DIGITS
"""The most digits a producer's number may hold: the longest integer the build reads."""

FIGURE = re.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([-+]?[0-9]+))?")
"""A reported figure's text: a finite decimal, as ``run.json``'s schema admits it."""

_FAR = 10**18
"""An exponent beyond ±this decides as any larger one (the text's digits are far fewer)."""
_DOUBLE_LOWEST, _DOUBLE_HIGHEST = -330, 310
"""A figure below 10^-330 or from 10^310 up reads as no nonzero finite double (they span about
4.9e-324 to 1.8e308), so it is never one nearest a rate: decided before any text is parsed as one."""


@dataclass(frozen=True)
class _Decimal:
    """A figure's text as sign × coefficient × 10^exponent, the exponent kept as written."""

    negative: bool
    coefficient: int
    digits: int
    exponent: int


def figure_problem(text: str) -> str | None:
    """Why ``text`` cannot be a reported figure (NaN, a word, too many digits); None when it can."""
    match = FIGURE.fullmatch(text)
    if match is None:
        return f"{text[:40]!r} is not a finite decimal number: a reported figure is written in digits"
    digits = len(match.group(2)) + len(match.group(3) or "")
    if digits > MAX_DIGITS:
        return f"a figure of {digits} digits: a number may hold at most {MAX_DIGITS}"
    return None


def _parsed(text: str) -> _Decimal:
    match = FIGURE.fullmatch(text)
    if match is None or figure_problem(text) is not None:
        raise ValueError(f"not a reported figure: {text[:40]!r}")
    sign, whole, fraction, exponent = match.groups()
    written = (exponent or "0").lstrip("+")
    magnitude = written.lstrip("-").lstrip("0")
    power = _FAR if len(magnitude) > 19 else int(magnitude or "0")
    power = min(power, _FAR) * (-1 if written.startswith("-") else 1)
    places = len(fraction or "")
    coefficient = int(Decimal(whole + (fraction or "")))
    return _Decimal(sign == "-", coefficient, len(whole) + places, power - places)


def agrees(text: str, exact: Fraction) -> bool:
    """Whether a producer's figure ``text`` states the rate ``exact``: one rule for the build and
    every importer. It does when ``text`` reads as the double nearest to ``exact`` (Python writes 2/3
    as ``0.6666666666666666``, its shortest text of that double), or lies within half a unit of the
    last place it was written to from ``exact`` (a producer that rounds: ``0.667``; ``0.625`` does
    not state 9/16 = 0.5625). Not a whole unit: Python writes the double 1.0 as ``1.0``, which would
    then state 10/11 = 0.909…, hiding a disagreement. ``text`` passed :func:`figure_problem`; decided without
    building a power of ten beyond what the text's digits and ``exact``'s denominator need."""
    figure = _parsed(text)
    return _nearest_double(figure, exact) or _rounded(figure, exact)


def _nearest_double(figure: _Decimal, exact: Fraction) -> bool:
    """Whether the figure and ``exact`` round to the same double (never said of 0 by a figure that
    is not 0: ``1e-999`` rounds to 0.0 but states a number that is not 0)."""
    if exact == 0 or figure.coefficient == 0:
        return exact == 0 and figure.coefficient == 0
    magnitude = figure.exponent + len(str(figure.coefficient))  # leading zeros left out
    if not _DOUBLE_LOWEST < magnitude < _DOUBLE_HIGHEST:
        return False  # a figure past every nonzero finite double, far from any rate benchsite derives
    sign = "-" if figure.negative else ""
    return float(f"{sign}{figure.coefficient}e{figure.exponent}") == float(exact)


def _rounded(figure: _Decimal, exact: Fraction) -> bool:
    """Whether ``exact`` lies within half a unit of the figure's last written place from it."""
    ceiling = len(str(abs(exact.numerator) // exact.denominator)) + 1
    exponent = min(figure.exponent, max(ceiling, 1))
    # Above: once 10^exponent outgrows |exact|, how far above no longer changes the answer.
    if -exponent > figure.digits + len(str(exact.denominator)) + 1:
        # Far below: |coefficient × denominator| < 10^-exponent / 10, so only 0 agrees with 0.
        return exact == 0 and figure.coefficient == 0
    unit_size = Fraction(10) ** exponent
    value = (-figure.coefficient if figure.negative else figure.coefficient) * unit_size
    return abs(value - exact) <= unit_size / 2


def whole(value: Decimal, times: int = 1) -> int | None:
    """``value`` × ``times`` rounded half to even to a whole number; None when it would hold more
    than :data:`MAX_DIGITS` digits (never built: ``1e999999999`` has a billion)."""
    if not value.is_finite() or value.adjusted() + len(str(times)) > MAX_DIGITS:
        return None
    return int((value * times).to_integral_value(rounding=ROUND_HALF_EVEN))

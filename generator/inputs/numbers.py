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
from typing import Literal

from generator.inputs.jsonio import MAX_INT_DIGITS

MAX_DIGITS = MAX_INT_DIGITS
"""The most digits a producer's number may hold: the longest integer the build reads."""

FIGURE = re.compile(r"(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([-+]?[0-9]+))?")
"""A reported figure's text: a finite decimal, as ``run.json``'s schema admits it."""

_FAR = 10**18
"""An exponent beyond ±this decides as any larger one (the text's digits are far fewer)."""


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


def agrees(text: str, exact: Fraction, unit: Literal["half", "whole"]) -> bool:
    """Whether ``exact`` lies within half a unit of the last place ``text`` was written to (``half``:
    ``0.333`` agrees with 1/3, ``0.625`` not with 9/16), or less than one unit from it (``whole``).
    ``text`` passed :func:`figure_problem`; decided exactly, without building a power of ten beyond
    what the text's digits and ``exact``'s denominator need."""
    figure = _parsed(text)
    ceiling = len(str(abs(exact.numerator) // exact.denominator)) + 1
    exponent = min(figure.exponent, max(ceiling, 1))
    # Above: once 10^exponent outgrows |exact|, how far above no longer changes the answer.
    if -exponent > figure.digits + len(str(exact.denominator)) + 1:
        # Far below: |coefficient × denominator| < 10^-exponent / 10, so only 0 agrees with 0.
        return exact == 0 and figure.coefficient == 0
    unit_size = Fraction(10) ** exponent
    value = (-figure.coefficient if figure.negative else figure.coefficient) * unit_size
    difference = abs(value - exact)
    return difference <= unit_size / 2 if unit == "half" else difference < unit_size


def whole(value: Decimal, times: int = 1) -> int | None:
    """``value`` × ``times`` rounded half to even to a whole number; None when it would hold more
    than :data:`MAX_DIGITS` digits (never built: ``1e999999999`` has a billion)."""
    if not value.is_finite() or value.adjusted() + len(str(times)) > MAX_DIGITS:
        return None
    return int((value * times).to_integral_value(rounding=ROUND_HALF_EVEN))

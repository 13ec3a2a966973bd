"""The number formats of every page and chart: one place, so every surface prints a figure alike."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache


def fmt_number(value: float | int | None, digits: int = 2) -> str:
    """The one number format of every page: fixed decimals rounded half up from the shortest
    decimal spelling of the value (0.8125 → '0.813', as the rubrics print it); '—' when missing."""
    if value is None:
        return "—"
    if type(value) is float and value:
        return _nonzero(value, digits)
    if isinstance(value, int):
        return str(value)
    return _fixed(repr(value), digits)


@lru_cache(maxsize=4096)
def _nonzero(value: float, digits: int) -> str:
    """:func:`_fixed` of a non-zero float, keyed by the float itself: a run page's rows print the
    same few values thousands of times, and spelling each (``repr``) was most of the format's
    cost. Two equal non-zero floats have one spelling; 0.0 and -0.0 are equal but print apart
    (``0.00``, ``-0.00``), so zero is never a key here."""
    return _fixed(repr(value), digits)


@lru_cache(maxsize=4096)
def _fixed(spelling: str, digits: int) -> str:
    """``spelling`` (a float's shortest decimal spelling, so 0.0 and -0.0 are two keys) rounded half
    up to ``digits`` decimals: a run page prints the same few values thousands of times."""
    return str(Decimal(spelling).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def fmt_p(value: float | None) -> str:
    """A p-value: three significant digits, so a tiny p never reads as 0."""
    return "—" if value is None else f"{value:.3g}"


def fmt_bp(value: int | None) -> str:
    """Basis points as published, with the exact percentage beside them (1234 → '1234 bp (12.34%)')."""
    if value is None:
        return "—"
    return f"{value} bp ({value // 100}.{value % 100:02d}%)"


def fmt_band(best: int | None, worst: int | None) -> str:
    """A rank band: '1', '2–4', or 'not ranked' when the subject has no interval."""
    if best is None or worst is None:
        return "not ranked"
    return str(best) if best == worst else f"{best}–{worst}"

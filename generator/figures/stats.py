"""Statistics, all from scipy. Every figure says which test, which side and which n produced it."""

from __future__ import annotations

from functools import lru_cache

from generator.figures.model import Interval, Rate
from generator.figures.statproc import ask

CP_METHOD = "Clopper-Pearson exact (scipy.stats.binomtest), two-sided"


@lru_cache(maxsize=4096)
def exact_interval(successes: int, trials: int, confidence: float = 0.95) -> Interval | None:
    """Clopper–Pearson interval for successes/trials; None when there are no trials.

    Kept per (successes, trials, confidence): scipy finds each bound by root-finding (about 5 ms),
    and a site asks for the same few pairs many times (every subject, task and subset of a
    benchmark, in the blind and the revealed version): the example corpus asks 182 times for 45.
    An ``Interval`` is frozen, so sharing one is safe."""
    if trials <= 0:
        return None
    low, high = ask("clopper_pearson", successes, trials, confidence)  # scipy, in ``statproc``
    return Interval(low=low, high=high, confidence=confidence, method=CP_METHOD, n=trials)


SIGN_METHOD = "exact two-sided sign test (scipy.stats.binomtest, p = 1/2) on the non-tied pairs"


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign test on the non-tied pairs; 1 when there are none."""
    n = wins + losses
    return 1.0 if n == 0 else float(ask("sign_p", wins, n))


def basis_points(numerator: int, denominator: int) -> int | None:
    """floor(10000 · n / d) in integers; None when the denominator is 0."""
    if denominator <= 0:
        return None
    return (10000 * numerator) // denominator


def rate(numerator: int, denominator: int) -> Rate:
    """An integer rate with its basis points and exact 95% interval."""
    return Rate(
        numerator=numerator,
        denominator=denominator,
        basis_points=basis_points(numerator, denominator),
        interval=exact_interval(numerator, denominator),
    )

"""Statistics, all from scipy. Every figure says which test, which side and which n produced it."""

from __future__ import annotations

from generator.figures import Interval, Rate

CP_METHOD = "Clopper-Pearson exact (scipy.stats.binomtest), two-sided"


def exact_interval(successes: int, trials: int, confidence: float = 0.95) -> Interval | None:
    """Clopper–Pearson interval for successes/trials; None when there are no trials."""
    if trials <= 0:
        return None
    from scipy.stats import binomtest  # here, not at the top: scipy.stats costs a second of start-up

    ci = binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="exact")
    return Interval(low=float(ci.low), high=float(ci.high), confidence=confidence, method=CP_METHOD, n=trials)


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

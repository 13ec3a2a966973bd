"""Leaderboard rankings every family publishes the same way: a primary figure with its interval,
a rank band that never separates subjects whose intervals overlap, and neighbour tests adjusted
for multiplicity with the smallest difference the sample could detect.

All statistics come from scipy. A rank is a band, ``best``–``worst``: best = 1 + the number of
subjects whose interval lies entirely above; worst = the number of ranked subjects − the number
whose interval lies entirely below.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Sequence
from functools import cache
from typing import Literal

from pydantic import Field

from generator.figures.model import Interval, Model, Rate
from generator.figures.statproc import ask

ALPHA = 0.05
POWER = 0.8
ADJUSTMENT = (
    "Benjamini–Hochberg false discovery rate over the neighbour tests (scipy.stats.false_discovery_control)"
)
RATE_TEST = "Fisher's exact test, two-sided (scipy.stats.fisher_exact)"
MEAN_TEST = "Welch's t-test, two-sided (scipy.stats.ttest_ind_from_stats)"
T_METHOD = "Student t interval on the mean (scipy.stats.t), two-sided; not exact"
RATE_DETECTABLE = (
    "Smallest difference detectable at these n with 80% power, α = 0.05 two-sided: normal approximation "
    "at the pooled rate (0.5 when the pooled rate is 0 or 1)"
)
MEAN_DETECTABLE = (
    "Smallest difference detectable at these n with 80% power, α = 0.05 two-sided: normal approximation "
    "with each side's sample standard deviation"
)


class Standing(Model):
    """One subject's primary figure, its interval and its rank band."""

    subject: str
    estimate: float | None = Field(description="The primary figure; None when nothing was measured.")
    numerator: int | None = Field(description="Successes, for a rate; None for a mean.")
    denominator: int = Field(description="Trials of a rate, or observations of a mean.")
    sd: float | None = Field(description="Sample standard deviation, for a mean.")
    interval: Interval | None = Field(description="95% interval; None when it cannot be computed.")
    rank_best: int | None = Field(description="1 + subjects whose interval lies entirely above.")
    rank_worst: int | None = Field(
        description="Ranked subjects − subjects whose interval lies entirely below."
    )


class Comparison(Model):
    """A test between neighbours in the published order."""

    higher: str
    lower: str
    difference: float = Field(description="Higher estimate − lower estimate.")
    p_value: float
    adjusted_p: float = Field(description="After the multiplicity adjustment named by the ranking.")
    separated: bool = Field(description="Adjusted p ≤ 0.05.")
    detectable: float | None = Field(description="Smallest difference detectable at these n (see method).")


class Ranking(Model):
    """One leaderboard: subjects in the family's order, with bands and neighbour tests."""

    id: str = Field(description="Stable anchor and CSV name within the benchmark.")
    title: str
    figure: str = Field(description="What the estimate is, in words.")
    kind: Literal["rate", "mean"]
    scale: tuple[float, float] = Field(description="The figure's possible range, for charts.")
    reference: float | None = Field(description="A bar drawn beside the figures (a chance floor), if any.")
    reference_label: str | None
    interval_method: str
    rows: tuple[Standing, ...]
    test: str | None = Field(description="Neighbour test; None when no neighbour test applies.")
    adjustment: str | None
    detectable_method: str | None
    comparisons: tuple[Comparison, ...]
    note: str = Field(default="", description="Why neighbour tests are not shown, when they are not.")


class Breakdown(Model):
    """Per subject, one value per series (a dimension, a component, a check), each on its own maximum."""

    title: str
    series: tuple[tuple[str, float], ...] = Field(description="(name, maximum) of each series.")
    rows: tuple[tuple[str, tuple[float | Rate | None, ...]], ...] = Field(
        description="(subject, values): a number on its series' maximum, or a share of counted things."
    )


def rank_bands(intervals: Sequence[Interval | None]) -> list[tuple[int | None, int | None]]:
    """(best, worst) rank of each subject from overlapping intervals; (None, None) when unranked.

    Counted by binary search over the sorted bounds, O(n log n): the subjects entirely above one
    are those whose low exceeds its high, those entirely below are those whose high is under its
    low (every ranked subject is counted, as in the definition; figures are finite, never NaN).
    """
    lows = sorted(i.low for i in intervals if i is not None)
    highs = sorted(i.high for i in intervals if i is not None)
    bands: list[tuple[int | None, int | None]] = []
    for own in intervals:
        if own is None:
            bands.append((None, None))
            continue
        above = len(lows) - bisect.bisect_right(lows, own.high)
        below = bisect.bisect_left(highs, own.low)
        bands.append((1 + above, len(highs) - below))
    return bands


def _adjusted(raw: list[float]) -> list[float]:
    return list(ask("bh_adjusted", raw)) if raw else []  # scipy, in ``statproc``


@cache
def _z_sum() -> float:
    return float(ask("normal_quantile", 1 - ALPHA / 2) + ask("normal_quantile", POWER))


def rate_ranking(
    ranking_id: str,
    title: str,
    figure: str,
    entries: Sequence[tuple[str, Rate]],
    reference: float | None = None,
    reference_label: str | None = None,
    tested: bool = True,
    note: str = "",
) -> Ranking:
    """Subjects with an integer rate each, in the order given (the family's published order)."""
    bands = rank_bands([r.interval for _, r in entries])
    rows = tuple(
        Standing(
            subject=subject,
            estimate=None if r.denominator == 0 else r.numerator / r.denominator,
            numerator=r.numerator,
            denominator=r.denominator,
            sd=None,
            interval=r.interval,
            rank_best=best,
            rank_worst=worst,
        )
        for (subject, r), (best, worst) in zip(entries, bands, strict=True)
    )
    pairs = []
    for a, b in itertools.pairwise(rows):
        if (
            not tested
            or a.estimate is None
            or b.estimate is None
            or a.numerator is None
            or b.numerator is None
        ):
            continue
        table = [[a.numerator, a.denominator - a.numerator], [b.numerator, b.denominator - b.numerator]]
        pooled = (a.numerator + b.numerator) / (a.denominator + b.denominator)
        spread = pooled * (1 - pooled) or 0.25
        detectable = _z_sum() * math.sqrt(spread * (1 / a.denominator + 1 / b.denominator))
        pairs.append((a, b, float(ask("fisher_p", table)), detectable))
    method = exact_method(entries)
    test = RATE_TEST if tested else None
    return _ranking(
        ranking_id,
        title,
        figure,
        "rate",
        (0.0, 1.0),
        reference,
        reference_label,
        method,
        rows,
        test,
        RATE_DETECTABLE,
        pairs,
        note,
    )


def exact_method(entries: Sequence[tuple[str, Rate]]) -> str:
    methods = {r.interval.method for _, r in entries if r.interval is not None}
    return "; ".join(sorted(methods)) or "none (no trials)"


def mean_interval(mean: float | None, sd: float | None, n: int, confidence: float = 0.95) -> Interval | None:
    """Student t interval on a mean; None below two observations."""
    if mean is None or sd is None or n < 2:
        return None
    if sd == 0:
        low = high = mean  # a constant sample: scipy would warn on a zero scale
    else:
        low, high = ask("t_interval", confidence, n - 1, mean, sd / math.sqrt(n))
    return Interval(low=float(low), high=float(high), confidence=confidence, method=T_METHOD, n=n)


def mean_ranking(
    ranking_id: str,
    title: str,
    figure: str,
    entries: Sequence[tuple[str, float | None, float | None, int]],
    scale: tuple[float, float] = (0.0, 1.0),
) -> Ranking:
    """Subjects with (label, mean, sample sd, n) each, in the order given."""
    intervals = [mean_interval(mean, sd, n) for _, mean, sd, n in entries]
    bands = rank_bands(intervals)
    rows = tuple(
        Standing(
            subject=subject,
            estimate=mean,
            numerator=None,
            denominator=n,
            sd=sd,
            interval=interval,
            rank_best=best,
            rank_worst=worst,
        )
        for (subject, mean, sd, n), interval, (best, worst) in zip(entries, intervals, bands, strict=True)
    )
    pairs = []
    for a, b in itertools.pairwise(rows):
        if a.estimate is None or b.estimate is None or a.sd is None or b.sd is None:
            continue
        if a.denominator < 2 or b.denominator < 2 or (a.sd == 0 and b.sd == 0):
            continue
        pvalue = ask("welch_p", a.estimate, a.sd, a.denominator, b.estimate, b.sd, b.denominator)
        detectable = _z_sum() * math.sqrt(a.sd**2 / a.denominator + b.sd**2 / b.denominator)
        pairs.append((a, b, float(pvalue), detectable))
    return _ranking(
        ranking_id,
        title,
        figure,
        "mean",
        scale,
        None,
        None,
        T_METHOD,
        rows,
        MEAN_TEST,
        MEAN_DETECTABLE,
        pairs,
        "",
    )


def _ranking(
    ranking_id: str,
    title: str,
    figure: str,
    kind: Literal["rate", "mean"],
    scale: tuple[float, float],
    reference: float | None,
    reference_label: str | None,
    interval_method: str,
    rows: tuple[Standing, ...],
    test: str | None,
    detectable_method: str,
    pairs: list[tuple[Standing, Standing, float, float]],
    note: str,
) -> Ranking:
    adjusted = _adjusted([p for _, _, p, _ in pairs])
    comparisons = tuple(
        Comparison(
            higher=a.subject,
            lower=b.subject,
            difference=(a.estimate or 0.0) - (b.estimate or 0.0),
            p_value=p,
            adjusted_p=q,
            separated=q <= ALPHA,
            detectable=d,
        )
        for (a, b, p, d), q in zip(pairs, adjusted, strict=True)
    )
    return Ranking(
        id=ranking_id,
        title=title,
        figure=figure,
        kind=kind,
        scale=scale,
        reference=reference,
        reference_label=reference_label,
        interval_method=interval_method,
        rows=rows,
        test=test,
        adjustment=ADJUSTMENT if test else None,
        detectable_method=detectable_method if test else None,
        comparisons=comparisons,
        note=note,
    )

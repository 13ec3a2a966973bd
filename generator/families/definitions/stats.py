"""Statistics of the definitions family, all from scipy: chance floors, the exact one-sided tail
against a floor, the exact two-sided sign test between arms, rep collapse. The numbers a rubric
chooses (alpha, the empirical-policy interval) come from its scoring specification (``spec.py``);
without one, the seed ADR's built-in specification."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from generator.families.definitions.models import Collapse, Floor
from generator.families.definitions.spec import DefinitionsRules, seed_rules
from generator.figures.statproc import ask
from generator.figures.stats import exact_interval
from generator.figures.stats import sign_test as sign_test  # the family's tests, in one place


def derive_floor(floor: Floor, rules: DefinitionsRules | None = None) -> tuple[float | None, str | None]:
    """(bar, problem): the bar a floor's kind and declared parameters give, or why they cannot."""
    p = floor.params
    need = {
        "hypergeometric-at-least-one": ("pool", "favourable", "draws"),
        "hypergeometric-avoids-all": ("pool", "favourable", "draws"),
        "uniform-choice": ("alternatives",),
        "prior-rate": ("positives", "total"),
        "empirical-policy": ("successes", "trials"),
        "not-derivable": (),
    }[floor.kind]
    missing = [name for name in need if name not in p]
    if missing or set(p) - set(need):
        return None, f"{floor.kind} takes exactly the parameters {list(need)}"
    if floor.kind.startswith("hypergeometric"):
        pool, fav, draws = p["pool"], p["favourable"], p["draws"]
        if not (0 <= fav <= pool and draws >= 0 and pool > 0):
            return None, "needs 0 ≤ favourable ≤ pool, pool > 0, draws ≥ 0"
        at_least_one = float(ask("hypergeom_at_least_one", pool, fav, min(draws, pool)))
        return (at_least_one if floor.kind.endswith("at-least-one") else 1 - at_least_one), None
    if floor.kind == "uniform-choice":
        m = p["alternatives"]
        return (1 / m, None) if m >= 2 else (None, "uniform choice needs at least 2 alternatives")
    if floor.kind == "prior-rate":
        pos, total = p["positives"], p["total"]
        return (
            (pos / total, None)
            if 0 <= pos <= total and total > 0
            else (None, "needs 0 ≤ positives ≤ total > 0")
        )
    if floor.kind == "empirical-policy":
        s, n = p["successes"], p["trials"]
        confidence = (rules or seed_rules()).empirical_confidence
        ci = exact_interval(s, n, confidence) if 0 <= s <= n else None
        return (ci.high, None) if ci else (None, "needs 0 ≤ successes ≤ trials > 0")
    return None, None  # not derivable: no bar, the derivation text says why


def tail_p(successes: int, n: int, bar: float | None) -> float | None:
    """Exact one-sided P(X ≥ k), X ~ Bin(n, bar); None (undefined) when n = 0 or bar ∉ (0, 1)."""
    if bar is None or n == 0 or bar <= 0 or bar >= 1:
        return None
    if successes == 0:
        return 1.0
    return float(ask("binomial_sf", successes - 1, n, bar))


def minimum_attainable(n: int, bar: float | None) -> float | None:
    """bar^n: the smallest p-value n cases can reach against this floor (1 with no case)."""
    if bar is None or bar <= 0 or bar >= 1:
        return None
    return float(bar**n)


def above_floor(p: float | None, min_p: float | None, alpha: float | None = None) -> bool:
    """A direction, never a verdict: p defined, p ≤ alpha, and not underpowered by construction
    (alpha: the specification's ``floor_test.alpha``, by default the built-in 0.05)."""
    level = seed_rules().alpha if alpha is None else alpha
    return p is not None and min_p is not None and p <= level and min_p <= level


def sign_minimum(n: int) -> float:
    return 1.0 if n == 0 else min(1.0, 2 * 0.5**n)


def collapse(values: Sequence[float], rule: Collapse, pass_at: float) -> float:
    """Collapse one case's reps to one value: mean / median, or 0/1 for all / majority / any."""
    if rule == "mean":
        return statistics.fmean(values)
    if rule == "median":
        return float(statistics.median(values))
    passing = sum(v >= pass_at for v in values)
    if rule == "all":
        return float(passing == len(values))
    if rule == "majority":
        return float(2 * passing > len(values))
    return float(passing > 0)


def interval_or_none(k: int, n: int) -> tuple[float, float] | None:
    ci = exact_interval(k, n)
    return None if ci is None else (ci.low, ci.high)


def finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value

"""The components family's aggregates as mergeable tallies: what a run contributes, folded run by run.

Every aggregate of the family (cells over seeds, the subjects' leaderboard, the anti-gaming baselines,
judge–SME agreement, the disclosures' counts) is a function of a few sums per group of episodes: how
many, which seeds, how many passed, and for each figure its count, exact sum and exact sum of
squares. So a run's share is one small :class:`GroupShare` per task it holds (plus its SME pairs,
counted), whatever its number of episodes, and the build keeps those sums, never the episodes: the
state of a benchmark of 200,000 episodes is a few hundred groups, and a run's cached share a few
hundred bytes.

The sums are exact, so a figure never depends on the order of rows or runs, and the published
figures are the very floats the per-episode computation gave (``tests/test_components_tally.py``
compares the two on generated episodes): a float is an integer over a power of two, so a group keeps
``Σ x·2^e`` and ``Σ (x·2^e)²`` in integers over one exponent ``e``; the mean is that sum correctly
rounded to a float and divided by n, which is what ``statistics.fmean`` computes (``fsum`` is
correctly rounded), and the standard deviation is the correctly rounded square root of the exact
sample variance, which is what ``statistics.stdev`` computes, by the same function of the standard
library.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from generator.families.components.report import ComponentSpreads, Spread
from generator.figures.model import Model

FIGURES = ("outcome", "process", "rationale", "score")
"""The figures every group keeps sums of, in the order of :class:`ComponentSpreads`."""

MomentsShare = tuple[int, int, int, int]
"""(n, e, Σ x·2^e, Σ (x·2^e)²) of one figure's present values, as a run's share carries them."""

_sqrt_of_fraction: Callable[[int, int], float] = statistics._float_sqrt_of_frac  # type: ignore[attr-defined]
"""The correctly rounded square root of n/m, as ``statistics.stdev`` takes it (its own function, so
the two agree to the last bit; ``tests/test_components_tally.py`` holds them equal)."""


@dataclass
class Moments:
    """Count, exact sum and exact sum of squares of one figure over a group, in integers over 2^e."""

    n: int = 0
    exponent: int = 0
    total: int = 0
    squares: int = 0

    def _align(self, exponent: int) -> None:
        if exponent > self.exponent:
            shift = exponent - self.exponent
            self.total <<= shift
            self.squares <<= 2 * shift
            self.exponent = exponent

    def add(self, value: float) -> None:
        numerator, denominator = value.as_integer_ratio()
        self._align(denominator.bit_length() - 1)
        scaled = numerator << (self.exponent - denominator.bit_length() + 1)
        self.n += 1
        self.total += scaled
        self.squares += scaled * scaled

    def merge(self, share: MomentsShare) -> None:
        n, exponent, total, squares = share
        if not n:
            return
        self._align(exponent)
        shift = self.exponent - exponent
        self.n += n
        self.total += total << shift
        self.squares += squares << (2 * shift)

    def share(self) -> MomentsShare:
        return (self.n, self.exponent, self.total, self.squares)

    def spread(self) -> Spread:
        """``statistics.fmean`` and ``statistics.stdev`` of the values, from the sums alone."""
        n = self.n
        mean = (self.total / (1 << self.exponent)) / n if n else None
        sd = None
        if n >= 2:
            spread = n * self.squares - self.total * self.total
            variance = Fraction(spread, n * (n - 1) << (2 * self.exponent))
            sd = _sqrt_of_fraction(variance.numerator, variance.denominator)
        return Spread(mean=mean, sd=sd, n=n)


class GroupShare(Model):
    """A run's share of one group (its episodes of one task): what every aggregate needs of them."""

    task: str
    level: str
    """The level of the group's first episode."""
    seeds: tuple[int, ...]
    episodes: int
    scored: int
    """Episodes with a pass-bar verdict (a scored rationale)."""
    passed: int
    fabricated: int
    """Fabricated citations, over the episodes."""
    with_fabrication: int
    moments: tuple[MomentsShare, MomentsShare, MomentsShare, MomentsShare]
    """Of outcome, process, rationale and score (:data:`FIGURES`)."""


class Figures(NamedTuple):
    outcome: float | None
    process: float | None
    rationale: float | None
    score: float | None


class EpisodeFigure(NamedTuple):
    """The few facts of an episode the aggregates need: what is kept instead of the row."""

    task: str
    level: str
    subject: str
    kind: str
    seed: int
    components: Figures
    pass_bar: bool | None
    fabricated: int
    sme_pairs: tuple[tuple[float | None, int], ...]
    """(judges' median, SME grade) per SME-graded criterion."""


@dataclass
class Group:
    """One group of episodes, summed: a (task, subject) cell of models, or a (kind, task) baseline."""

    level: str
    seeds: set[int] = field(default_factory=set)
    episodes: int = 0
    scored: int = 0
    passed: int = 0
    fabricated: int = 0
    with_fabrication: int = 0
    moments: tuple[Moments, Moments, Moments, Moments] = field(
        default_factory=lambda: (Moments(), Moments(), Moments(), Moments())
    )

    def add(self, e: EpisodeFigure) -> None:
        self.seeds.add(e.seed)
        self.episodes += 1
        if e.pass_bar is not None:
            self.scored += 1
            self.passed += bool(e.pass_bar)
        self.fabricated += e.fabricated
        self.with_fabrication += bool(e.fabricated)
        c = e.components
        for moments, value in zip(self.moments, (c.outcome, c.process, c.rationale, c.score), strict=True):
            if value is not None:
                moments.add(value)

    def merge(self, share: GroupShare) -> None:
        self.seeds.update(share.seeds)
        self.episodes += share.episodes
        self.scored += share.scored
        self.passed += share.passed
        self.fabricated += share.fabricated
        self.with_fabrication += share.with_fabrication
        for moments, theirs in zip(self.moments, share.moments, strict=True):
            moments.merge(theirs)

    def absorb(self, other: Group) -> None:
        """Another group's sums added to this one's (a subject's row over its cells)."""
        self.merge(other.share(""))

    def share(self, task: str) -> GroupShare:
        return GroupShare(
            task=task,
            level=self.level,
            seeds=tuple(sorted(self.seeds)),
            episodes=self.episodes,
            scored=self.scored,
            passed=self.passed,
            fabricated=self.fabricated,
            with_fabrication=self.with_fabrication,
            moments=(
                self.moments[0].share(),
                self.moments[1].share(),
                self.moments[2].share(),
                self.moments[3].share(),
            ),
        )

    def spreads(self) -> ComponentSpreads:
        outcome, process, rationale, score = (m.spread() for m in self.moments)
        return ComponentSpreads(outcome=outcome, process=process, rationale=rationale, score=score)

    @property
    def unscored(self) -> int:
        """Episodes whose rationale is not scored (no rationale figure)."""
        return self.episodes - self.moments[2].n


@dataclass
class Tally:
    """Every aggregate's sums over the episodes folded so far, in the order they came."""

    cells: dict[tuple[str, str], Group] = field(default_factory=dict)
    """(task, subject) → the models' episodes of that cell."""
    baselines: dict[tuple[str, str], Group] = field(default_factory=dict)
    """(kind, task) → the episodes of one anti-gaming baseline on one task, every subject's."""
    graded: Counter[str] = field(default_factory=Counter)
    """Task → episodes with SME grades."""
    pairs: Counter[tuple[int, int]] = field(default_factory=Counter)
    """(judges' median, SME grade) → how many such integral pairs."""
    skipped: int = 0
    """SME-graded criteria whose judges' median is missing or not integral."""

    @classmethod
    def of(cls, episodes: Iterable[EpisodeFigure]) -> Tally:
        tally = cls()
        for e in episodes:
            tally.add(e)
        return tally

    def _group(self, kind: str, subject: str, task: str, level: str) -> Group:
        groups, key = (self.cells, (task, subject)) if kind == "model" else (self.baselines, (kind, task))
        group = groups.get(key)
        if group is None:
            group = groups[key] = Group(level)
        return group

    def add(self, e: EpisodeFigure) -> None:
        self._group(e.kind, e.subject, e.task, e.level).add(e)
        if e.sme_pairs:
            self.graded[e.task] += 1
        for judge, grade in e.sme_pairs:
            if judge is None or judge != int(judge):
                self.skipped += 1
            else:
                self.pairs[int(judge), grade] += 1

    def shares(self) -> tuple[GroupShare, ...]:
        """The groups of one run (one subject, one kind) as its share carries them, by task."""
        cells = ((task, group) for (task, _), group in self.cells.items())
        baselines = ((task, group) for (_, task), group in self.baselines.items())
        return tuple(group.share(task) for task, group in (*cells, *baselines))

    def merge(
        self,
        kind: str,
        subject: str,
        shares: Iterable[GroupShare],
        graded: Iterable[tuple[str, int]],
        pairs: Iterable[tuple[int, int, int]],
        skipped: int,
    ) -> None:
        """A run's share (of one subject and kind) added, after every run before it."""
        for share in shares:
            self._group(kind, subject, share.task, share.level).merge(share)
        for task, n in graded:
            self.graded[task] += n
        for judge, grade, n in pairs:
            self.pairs[judge, grade] += n
        self.skipped += skipped

    @property
    def unscored(self) -> int:
        return sum(g.unscored for g in (*self.cells.values(), *self.baselines.values()))

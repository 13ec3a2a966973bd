"""The headline of a leaderboard: who leads on the primary figure, by how much, and whether the data
can separate them, in one plain sentence, and the caveats that change how that sentence is read.

Worded from a :class:`~generator.figures.ranking.Ranking` only (its estimates, integers and rank bands), never
written by hand: each family's section names its primary ranking and what its subjects are called,
and :func:`lead_headline` does the wording. Figures are in human units (``units``); the exact
integers stay in the ranking beside it.

A lead can be true and still mislead: every run of the leader failing, an anti-gaming baseline
violated, a judge never checked against experts. Each family reads such findings off its own report
model as :class:`Caveat` values (a stable ``kind`` and one sentence with the figures) and hands them
to :func:`lead_headline`, so every surface shows them beside the sentence, never only further down.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from pydantic import Field

from generator.figures.model import Model
from generator.figures.numbers import fmt_number
from generator.figures.ranking import Ranking, Standing
from generator.figures.units import gap_points, mean_digits, mean_score, rate_words, share_digits

Separation = Literal["separated", "not separated", "alone", "nothing measured"]
CaveatKind = Literal[
    "no-run-passes",
    "not-ranked",
    "baseline-violated",
    "agreement-not-measured",
    "agreement-below-protocol",
    "fabricated-citations",
    "launch-blockers",
    "invalid-excluded",
    "missing-trials",
    "producer-differs",
    "corrections",
]
_SMALL = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


class Caveat(Model):
    """A finding that changes how the headline's lead should be read, computed from the report model."""

    kind: CaveatKind = Field(
        description="Stable machine name: 'no-run-passes' (no run has the verdict PASS), 'not-ranked' "
        "(a subject without a measured figure), 'baseline-violated' (an anti-gaming baseline), "
        "'agreement-not-measured' / 'agreement-below-protocol' (judge–expert agreement), "
        "'fabricated-citations', 'launch-blockers', 'invalid-excluded' (attempts kept out of every "
        "denominator), 'missing-trials' (planned trials without a result), 'producer-differs' (a figure "
        "the producer reported differs from benchsite's count), 'corrections' (ledger entries in effect)."
    )
    text: str = Field(description="One plain sentence naming what, where and how many.")


class Headline(Model):
    """One sentence and its caveats, worded from the primary ranking and the family's report model."""

    sentence: str = Field(description="Who leads, by how much, and whether the data can separate them.")
    ranking: str | None = Field(description="Id of the ranking it reads; None when the benchmark has none.")
    leaders: tuple[str, ...] = Field(
        description="Subjects with the top figure (several on a tie); may be none."
    )
    figure: str | None = Field(description="The leaders' figure in human units, e.g. '73% (8 of 11)'.")
    margin: str | None = Field(description="How far ahead of the next subject, in human units.")
    separation: Separation = Field(
        description="'separated': the leaders' rank band is theirs alone; 'not separated': their band "
        "overlaps others'; 'alone': one subject measured; 'nothing measured'."
    )
    facts: tuple[tuple[str, str], ...] = Field(
        description="(label, value) rows restating the sentence for machines; pages show the sentence."
    )
    basis: str = Field(
        default="",
        description="What the lead is stated over, why that figure, and how many subjects have it.",
    )
    caveats: tuple[Caveat, ...] = Field(
        default=(), description="Findings that change how the lead should be read: 'read this first'."
    )


@dataclass(frozen=True)
class Wording:
    """How a family names its subjects and its primary figure."""

    noun: str
    nouns: str
    figure: str
    """The primary figure in a few words, e.g. 'autonomous success'."""
    names: Mapping[str, str] = field(default_factory=dict)
    """How a subject is named in the sentence when not by its id (a revealed provider)."""
    details: Mapping[str, str] = field(default_factory=dict)
    """What a subject's figure is always shown with (the components family's three components)."""

    def name(self, subject: str) -> str:
        return self.names.get(subject, subject)


def number_word(n: int) -> str:
    """'four', '12': numbers up to ten in words, as prose writes them."""
    return _SMALL[n] if n < len(_SMALL) else str(n)


def count_words(n: int, nouns: str) -> str:
    """'four providers', '12 providers'."""
    return f"{number_word(n)} {nouns}"


def listed(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c': a list as a sentence writes it."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _figure(row: Standing, ranking: Ranking, wording: Wording) -> str:
    detail = wording.details.get(row.subject)
    if ranking.kind == "rate" and row.numerator is not None:
        shown = rate_words(row.numerator, row.denominator)
        return f"{shown}; {detail}" if detail else shown
    inner = f"n = {row.denominator}; {detail}" if detail else f"n = {row.denominator}"
    return f"{mean_score(row.estimate, row.denominator)} ({inner})"


def _margin(leader: Standing, runner: Standing, ranking: Ranking, wording: Wording) -> str:
    behind = f"{wording.name(runner.subject)} at {_figure(runner, ranking, wording)}"
    if ranking.kind == "rate" and leader.numerator is not None and runner.numerator is not None:
        mine = Fraction(leader.numerator, leader.denominator)
        theirs = Fraction(runner.numerator, runner.denominator)
        digits = share_digits(max(leader.denominator or 0, runner.denominator or 0))
        return f"{gap_points(mine - theirs, digits)} percentage points ahead of {behind}"
    gap = (leader.estimate or 0.0) - (runner.estimate or 0.0)
    digits = mean_digits(max(leader.denominator or 0, runner.denominator or 0))
    return f"{fmt_number(gap, digits)} ahead of {behind}"


def _separation(
    leaders: list[Standing], measured: list[Standing], wording: Wording
) -> tuple[Separation, str]:
    top = [r for r in measured if r.rank_best == 1]
    if len(measured) == 1:
        return "alone", f"no other {wording.noun} has a measured figure to compare"
    if len(top) == len(leaders) and all((r.rank_worst or 0) <= len(leaders) for r in leaders):
        return "separated", f"the data separate the lead from every other {wording.noun}"
    if len(top) == len(measured):
        return (
            "not separated",
            f"the data cannot separate the {count_words(len(top), wording.nouns)} at this n",
        )
    return (
        "not separated",
        f"the data cannot separate the top {count_words(len(top), wording.nouns)} at this n",
    )


def _not_ranked(ranking: Ranking, wording: Wording) -> tuple[Caveat, ...]:
    """Subjects the ranking lists without a measured figure: the lead is not over them."""
    unmeasured = [wording.name(r.subject) for r in ranking.rows if r.estimate is None]
    if not unmeasured or len(unmeasured) == len(ranking.rows):
        return ()
    one = len(unmeasured) == 1
    who = f"{count_words(len(unmeasured), wording.noun if one else wording.nouns)} ({listed(unmeasured)})"
    text = f"Not ranked: {who} {'has' if one else 'have'} no measured figure for {wording.figure}, "
    text += f"so the lead is not over {'it' if one else 'them'}."
    return (Caveat(kind="not-ranked", text=text),)


def _measured(n: int, of: int, wording: Wording) -> str:
    """'Four models measured.', 'Two of three arms measured.': what the sentence does not say."""
    words = count_words(of, wording.noun if of == 1 else wording.nouns)
    if n != of:
        words = f"{number_word(n)} of {words}"
    return f"{words[0].upper()}{words[1:]} measured."


def lead_headline(ranking: Ranking | None, wording: Wording, caveats: tuple[Caveat, ...] = ()) -> Headline:
    """The headline of ``ranking`` (the family's primary one), in ``wording``'s words, with the
    family's ``caveats`` (and the subjects the ranking could not rank) beside it."""
    measured = [r for r in ranking.rows if r.estimate is not None] if ranking else []
    if ranking is None or not measured:
        sentence = f"No {wording.noun} has a measured {wording.figure} yet."
        return Headline(
            sentence=sentence,
            ranking=ranking.id if ranking else None,
            leaders=(),
            figure=None,
            margin=None,
            separation="nothing measured",
            facts=(("Measured", sentence),),
            caveats=caveats,
        )
    best = max(r.estimate for r in measured if r.estimate is not None)
    leaders = [r for r in measured if r.estimate == best]
    others = [r for r in measured if r.estimate != best]
    figure = _figure(leaders[0], ranking, wording)
    names = " and ".join(wording.name(r.subject) for r in leaders)
    lead = f"{names} lead" if len(leaders) > 1 else f"{names} leads"
    runner = max(others, key=lambda r: r.estimate or 0.0, default=None)  # the first of equals
    margin = None if runner is None else _margin(leaders[0], runner, ranking, wording)
    separation, verdict = _separation(leaders, measured, wording)
    tie = " (a tie)" if len(leaders) > 1 else ""
    sentence = f"{lead} on {wording.figure} with {figure}{tie}"
    sentence += f", {margin}; {verdict}." if margin else f"; {verdict}."
    facts = (
        ("Leader" if len(leaders) == 1 else "Leaders", names),
        (wording.figure.capitalize(), figure),
        ("Lead", margin or "—"),
        ("Can the data separate them?", verdict[0].upper() + verdict[1:] + "."),
        (wording.nouns.capitalize() + " measured", str(len(measured))),
    )
    return Headline(
        sentence=sentence,
        ranking=ranking.id,
        leaders=tuple(r.subject for r in leaders),
        figure=figure,
        margin=margin,
        separation=separation,
        facts=facts,
        basis=_measured(len(measured), len(ranking.rows), wording),
        caveats=caveats + _not_ranked(ranking, wording),
    )

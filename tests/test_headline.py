"""Headlines: worded from the primary ranking alone; sentences checked against hand-worked cases."""

from __future__ import annotations

from generator.figures.headline import Wording, lead_headline
from generator.figures.ranking import mean_ranking, rate_ranking
from generator.figures.stats import rate

PROVIDERS = Wording("provider", "providers", "autonomous success")


def _rates(*entries: tuple[str, int, int]) -> list[tuple[str, object]]:
    return [(name, rate(n, d)) for name, n, d in entries]


def test_overlapping_intervals_cannot_separate_the_leader() -> None:
    # 8/11 vs 4/11: exact 95% intervals [0.390, 0.940] and [0.109, 0.692] overlap.
    ranking = rate_ranking("s", "Success", "s / n", _rates(("P-A", 8, 11), ("P-B", 4, 11)))
    h = lead_headline(ranking, PROVIDERS)
    assert h.sentence == (
        "P-A leads on autonomous success with 73% (8 of 11), 36 percentage points ahead of P-B "
        "at 36% (4 of 11); the data cannot separate the two providers at this n."
    )
    assert h.leaders == ("P-A",) and h.separation == "not separated"
    assert h.ranking == "s"


def test_a_lead_whose_interval_clears_everyone_is_separated() -> None:
    # 40/40 → [0.912, 1]; 2/40 → [0.006, 0.169]; 20/40 → [0.338, 0.662]: no overlap with the leader.
    entries = _rates(("A", 40, 40), ("B", 20, 40), ("C", 2, 40))
    h = lead_headline(rate_ranking("s", "S", "s / n", entries), PROVIDERS)
    assert h.separation == "separated"
    assert h.sentence == (
        "A leads on autonomous success with 100% (40 of 40), 50 percentage points ahead of B "
        "at 50% (20 of 40); the data separate the lead from every other provider."
    )


def test_only_the_top_group_is_named_when_the_bottom_is_separated() -> None:
    entries = _rates(("A", 39, 40), ("B", 38, 40), ("C", 1, 40))
    h = lead_headline(rate_ranking("s", "S", "s / n", entries), PROVIDERS)
    assert h.sentence.endswith("the data cannot separate the top two providers at this n.")


def test_a_tie_names_every_leader() -> None:
    entries = _rates(("A", 3, 4), ("B", 6, 8), ("C", 0, 8))
    h = lead_headline(rate_ranking("s", "S", "s / n", entries), PROVIDERS)
    assert h.leaders == ("A", "B")
    assert h.sentence.startswith("A and B lead on autonomous success with 75% (3 of 4) (a tie), ")


def test_nothing_measured_and_a_single_subject_are_said_plainly() -> None:
    empty = rate_ranking("s", "S", "s / n", _rates(("A", 0, 0)))
    assert lead_headline(empty, PROVIDERS).sentence == "No provider has a measured autonomous success yet."
    assert lead_headline(None, PROVIDERS).separation == "nothing measured"
    alone = lead_headline(rate_ranking("s", "S", "s / n", _rates(("A", 1, 2), ("B", 0, 0))), PROVIDERS)
    assert alone.separation == "alone"
    assert alone.sentence == (
        "A leads on autonomous success with 50% (1 of 2); no other provider has a measured figure to compare."
    )


def test_means_are_worded_with_their_n() -> None:
    ranking = mean_ranking("m", "Mean", "score", [("x", 0.86, 0.05, 20), ("y", 0.59, 0.05, 20)])
    h = lead_headline(ranking, Wording("model", "models", "mean weighted score"))
    assert h.sentence == (
        "x leads on mean weighted score with 0.86 (n = 20), 0.27 ahead of y at 0.59 (n = 20); "
        "the data separate the lead from every other model."
    )
    assert dict(h.facts)["Leader"] == "x"


def test_the_lead_has_the_precision_of_the_rates_it_subtracts() -> None:
    # 300/400 − 200/400 = 25 points at n = 400, where a share carries one decimal (one run = 0.25%).
    entries = _rates(("A", 301, 400), ("B", 200, 400))
    h = lead_headline(rate_ranking("s", "S", "s / n", entries), PROVIDERS)
    assert h.figure == "75.3% (301 of 400)"
    assert h.margin == "25.3 percentage points ahead of B at 50.0% (200 of 400)"

"""The components family's tallies against the per-episode computation they replaced.

Every aggregate of the family used to be computed over the list of every episode of a benchmark; it
is now folded from per-run sums (``generator.families.components.tally``). The per-episode
computation is kept here, as it was, as the reference: on generated episodes (figures of every
binary magnitude, missing figures, baselines, SME pairs with missing and non-integral medians),
the aggregates computed from a tally — of all episodes at once, or folded from each run's share as
a build folds them, in any run order — must equal it field for field and float for float.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.families.components import aggregate
from generator.families.components.family import ComponentsPart
from generator.families.components.models import ComponentsDeclaration
from generator.families.components.report import (
    Agreement,
    BaselineCheck,
    Cell,
    ComponentSpreads,
    FamilyGrades,
    Spread,
    SubjectRow,
)
from generator.families.components.spec import ComponentsRules, seed_rules
from generator.families.components.tally import EpisodeFigure, Figures, Moments, Tally
from generator.figures.stats import rate

# --- the reference: the per-episode aggregates as they were ----------------------------------------


def spread(values: Sequence[float | None]) -> Spread:
    present = [v for v in values if v is not None]
    mean = statistics.fmean(present) if present else None
    sd = statistics.stdev(present) if len(present) >= 2 else None
    return Spread(mean=mean, sd=sd, n=len(present))


def spreads(episodes: Sequence[EpisodeFigure]) -> ComponentSpreads:
    pick: Callable[[str], list[float | None]] = lambda name: [getattr(e.components, name) for e in episodes]  # noqa: E731
    return ComponentSpreads(
        outcome=spread(pick("outcome")),
        process=spread(pick("process")),
        rationale=spread(pick("rationale")),
        score=spread(pick("score")),
    )


def _groups(
    episodes: Sequence[EpisodeFigure], key: Callable[[EpisodeFigure], tuple[str, ...]]
) -> dict[tuple[str, ...], list[EpisodeFigure]]:
    groups: dict[tuple[str, ...], list[EpisodeFigure]] = defaultdict(list)
    for episode in episodes:
        groups[key(episode)].append(episode)
    return dict(sorted(groups.items()))


def cells(episodes: Sequence[EpisodeFigure], minimum: int, tasks: Sequence[str] = ()) -> tuple[Cell, ...]:
    """Every declared task × every model, over seeds: a task a model skipped is a flagged empty cell."""
    models = [e for e in episodes if e.kind == "model"]
    groups = _groups(models, lambda e: (e.task, e.subject))
    for task in tasks:
        for subject in {e.subject for e in models}:
            groups.setdefault((task, subject), [])
    return tuple(
        Cell(
            task=task,
            subject=subject,
            seeds=len({e.seed for e in group}),
            flagged=len({e.seed for e in group}) < minimum,
            spreads=spreads(group),
        )
        for (task, subject), group in sorted(groups.items())
    )


def leaderboard(
    episodes: Sequence[EpisodeFigure], minimum: int, tasks: Sequence[str]
) -> tuple[SubjectRow, ...]:
    rows = []
    for (subject,), group in _groups(episodes, lambda e: (e.subject,)).items():
        scored = [e for e in group if e.pass_bar is not None]
        per_cell = _groups(group, lambda e: (e.task,))
        rows.append((subject, group, spreads(group), scored, per_cell))

    def order(row: tuple[str, list[EpisodeFigure], ComponentSpreads, list[EpisodeFigure], dict]) -> tuple:  # type: ignore[type-arg]
        s = row[2]
        return (-(s.score.mean or 0.0), -(s.outcome.mean or 0.0), row[0])

    out = []
    for position, (subject, group, sp, scored, per_cell) in enumerate(sorted(rows, key=order), start=1):
        out.append(
            SubjectRow(
                position=position,
                subject=subject,
                episodes=len(group),
                spreads=sp,
                pass_bar=rate(sum(bool(e.pass_bar) for e in scored), len(scored)),
                fabricated_citations=sum(e.fabricated for e in group),
                episodes_with_fabrication=sum(bool(e.fabricated) for e in group),
                flagged_cells=sum(len({e.seed for e in per_cell.get((t,), [])}) < minimum for t in tasks),
            )
        )
    return tuple(out)


def baselines(
    episodes: Sequence[EpisodeFigure], decl: ComponentsDeclaration, rules: ComponentsRules
) -> tuple[BaselineCheck, ...]:
    """Each anti-gaming baseline per task, against the threshold the benchmark declares, on the levels
    (and, unless the specification says otherwise, only the tasks with a seeded defect) it names."""
    checks = []
    base = [e for e in episodes if e.kind != "model"]
    clean = {t.id for t in decl.tasks if not t.seeded_defects}
    for (kind, task), group in _groups(base, lambda e: (e.kind, e.task)).items():
        level = group[0].level
        sp = spreads(group)
        threshold: float | None
        if kind == "flag_everything_baseline":
            threshold = decl.anti_gaming.flag_everything_max_outcome
        else:  # nothing can leak into a clean control's ledger row
            skipped = rules.no_evidence_skips_clean and task in clean
            leak_possible = level in rules.no_evidence_levels and not skipped
            threshold = decl.anti_gaming.no_evidence_max_outcome_l2_plus if leak_possible else None
        mean = sp.outcome.mean
        passes = None if threshold is None or mean is None else mean <= threshold
        checks.append(
            BaselineCheck(
                task=task,
                level=level,
                baseline=kind,
                episodes=len(group),
                spreads=sp,
                threshold=threshold,
                passes=passes,
            )
        )
    return tuple(checks)


def weighted_kappa(pairs: Sequence[tuple[int, int]], categories: int = 4) -> float | None:
    """Quadratic-weighted Cohen's kappa of two raters over ordinal grades 0 … categories−1."""
    n = len(pairs)
    if n == 0:
        return None
    a = [sum(1 for x, _ in pairs if x == i) for i in range(categories)]
    b = [sum(1 for _, y in pairs if y == i) for i in range(categories)]
    scale = (categories - 1) ** 2
    observed = sum((x - y) ** 2 for x, y in pairs) / scale / n
    expected = (
        sum(a[i] * b[j] * (i - j) ** 2 for i in range(categories) for j in range(categories)) / scale / n**2
    )
    return None if expected == 0 else 1 - observed / expected


def agreement(
    episodes: Sequence[EpisodeFigure], decl: ComponentsDeclaration, rules: ComponentsRules
) -> Agreement:
    """Judge–SME agreement, and the task families under the specification's bar of graded rationales."""
    bar = rules.sme_bar
    families = {t.id: t.family for t in decl.tasks}
    pairs: list[tuple[int, int]] = []
    skipped = 0
    graded: dict[str, int] = defaultdict(int)
    for e in episodes:
        if not e.sme_pairs:
            continue
        graded[families[e.task]] += 1
        for judge, grade in e.sme_pairs:
            if judge is None or judge != int(judge):
                skipped += 1
                continue
            pairs.append((int(judge), grade))
    family_rows = tuple(
        FamilyGrades(family=f, graded_rationales=graded.get(f, 0), under_bar=graded.get(f, 0) < bar)
        for f in sorted(set(families.values()))
    )
    if not pairs:
        return Agreement(
            measured=False,
            pairs=0,
            exact=None,
            weighted_kappa=None,
            skipped_non_integral=skipped,
            families=family_rows,
            unmeasured_families=tuple(f.family for f in family_rows if f.graded_rationales == 0),
            note="Judge agreement not measured: no SME grades supplied",
        )
    exact = rate(sum(x == y for x, y in pairs), len(pairs))
    under = [f.family for f in family_rows if f.under_bar]
    note = "Judge agreement measured" + (
        f"; under the {bar}-rationale bar: {', '.join(under)}" if under else ""
    )
    return Agreement(
        measured=True,
        pairs=len(pairs),
        exact=exact,
        weighted_kappa=weighted_kappa(pairs),
        skipped_non_integral=skipped,
        families=family_rows,
        unmeasured_families=tuple(f.family for f in family_rows if f.graded_rationales == 0),
        note=note,
    )


# --- generated episodes --------------------------------------------------------------------------

TASKS = ("T-1", "T-2", "T-3")
LEVELS = ("L1", "L2", "L3")
KINDS = ("model", "model", "flag_everything_baseline", "no_evidence_baseline")


def _declaration() -> ComponentsDeclaration:
    tasks = [
        {
            "id": task,
            "family": family,
            "level": level,
            "weights": {"outcome": 0.5, "process": 0.3, "rationale": 0.2},
            "seeded_defects": defects,
            "key_evidence": ["ev-a"],
            "required_calls": ["open_ledger"],
            "hard_fail_rules": [],
        }
        for task, family, level, defects in (
            ("T-1", "accruals", "L1", [{"id": "d1", "location": "Ledger row 10", "issue_type": "cutoff"}]),
            ("T-2", "accruals", "L2", []),
            ("T-3", "revenue", "L3", [{"id": "d2", "location": "Ledger row 3", "issue_type": "duplicate"}]),
        )
    ]
    return ComponentsDeclaration.model_validate_json(
        json.dumps(
            {
                "schema_version": 1,
                "family": "components",
                "title": "T",
                "rubric": {"file": "rubric.json", "sha256": "0" * 64},
                "anti_gaming": {"flag_everything_max_outcome": 0.35, "no_evidence_max_outcome_l2_plus": 0.25},
                "tasks": tasks,
            }
        )
    )


DECLARATION = _declaration()
RULES: ComponentsRules = seed_rules()

# figures of every magnitude a float has: 1/3 and 0.1 (53-bit fractions), tiny and huge values,
# halves and quarters (short fractions), negatives, repeats (a zero variance) and missing ones
figure = st.one_of(
    st.none(),
    st.sampled_from((0.0, 0.25, 0.5, 1.0, 1 / 3, 0.1, 2 / 3, 0.7, 1e-300, 5e-324, 1e300, -0.5)),
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False),
    st.integers(min_value=0, max_value=10).map(lambda n: n / 8),
)
median = st.one_of(st.none(), st.sampled_from((0.0, 1.0, 2.0, 3.0, 1.5, 2.5)))


@st.composite
def runs(draw: st.DrawFn) -> list[list[EpisodeFigure]]:
    """Runs of episodes, each run of one subject and kind, as a benchmark's runs are."""
    out = []
    for number in range(draw(st.integers(min_value=1, max_value=6))):
        kind = draw(st.sampled_from(KINDS))
        subject = draw(st.sampled_from(("m-a", "m-b", "m-c"))) if kind == "model" else f"{kind}-{number}"
        episodes = []
        for _ in range(draw(st.integers(min_value=0, max_value=8))):
            outcome, process, rationale = draw(figure), draw(figure), draw(figure)
            score = None if rationale is None else draw(figure)
            episodes.append(
                EpisodeFigure(
                    draw(st.sampled_from(TASKS)),
                    draw(st.sampled_from(LEVELS)),
                    subject,
                    kind,
                    draw(st.integers(min_value=1, max_value=6)),
                    Figures(outcome, process, rationale, score),
                    None if rationale is None else draw(st.booleans()),
                    draw(st.integers(min_value=0, max_value=2)),
                    tuple(draw(st.lists(st.tuples(median, st.integers(0, 3)), max_size=3))),
                )
            )
        out.append(episodes)
    return out


def folded(benchmark: list[list[EpisodeFigure]]) -> Tally:
    """The benchmark's tally as a build folds it: each run's share, through the cached part's JSON."""
    tally = Tally()
    for episodes in benchmark:
        if not episodes:
            continue
        sums = Tally.of(episodes)
        part = ComponentsPart(
            subject=episodes[0].subject,
            kind=episodes[0].kind,
            units=(),
            groups=sums.shares(),
            graded=tuple(sums.graded.items()),
            pairs=tuple((judge, grade, n) for (judge, grade), n in sums.pairs.items()),
            skipped=sums.skipped,
            judges=(),
            judge_counts=(),
        )
        share = ComponentsPart.model_validate_json(part.model_dump_json())
        tally.merge(share.kind, share.subject, share.groups, share.graded, share.pairs, share.skipped)
    return tally


def reference(episodes: list[EpisodeFigure], minimum: int) -> tuple[object, ...]:
    models = [e for e in episodes if e.kind == "model"]
    return (
        cells(episodes, minimum, TASKS),
        leaderboard(models, minimum, TASKS),
        baselines(episodes, DECLARATION, RULES),
        agreement(episodes, DECLARATION, RULES),
        sum(e.components.rationale is None for e in episodes),
    )


def of_tally(tally: Tally, minimum: int) -> tuple[object, ...]:
    return (
        aggregate.cells_of(tally, minimum, TASKS),
        aggregate.leaderboard_of(tally, minimum, TASKS),
        aggregate.baselines_of(tally, DECLARATION, RULES),
        aggregate.agreement_of(tally, DECLARATION, RULES),
        tally.unscored,
    )


def dumped(figures: tuple[object, ...]) -> str:
    """Every figure, floats to the last bit (``repr``), None and NaN told apart."""
    return repr(figures)


@settings(max_examples=300, deadline=None)
@given(benchmark=runs(), minimum=st.integers(min_value=0, max_value=4))
def test_aggregates_folded_from_run_shares_equal_the_per_episode_computation(
    benchmark: list[list[EpisodeFigure]], minimum: int
) -> None:
    episodes = [e for run in benchmark for e in run]
    expected = dumped(reference(episodes, minimum))
    assert dumped(of_tally(Tally.of(episodes), minimum)) == expected
    assert dumped(of_tally(folded(benchmark), minimum)) == expected


@settings(max_examples=100, deadline=None)
@given(benchmark=runs(), minimum=st.integers(min_value=0, max_value=4))
def test_the_order_runs_are_folded_in_changes_no_figure_but_a_baseline_level(
    benchmark: list[list[EpisodeFigure]], minimum: int
) -> None:
    """Sums do not depend on order; only a baseline's level is its first episode's."""
    forward, backward = of_tally(folded(benchmark), minimum), of_tally(folded(benchmark[::-1]), minimum)
    assert dumped(forward[:2]) == dumped(backward[:2])
    assert dumped(forward[3:]) == dumped(backward[3:])


@settings(max_examples=300, deadline=None)
@given(values=st.lists(figure.filter(lambda v: v is not None), max_size=40))
def test_a_spread_from_sums_is_fmean_and_stdev_to_the_last_bit(values: list[float]) -> None:
    moments = Moments()
    for value in values:
        moments.add(value)
    assert repr(moments.spread()) == repr(spread(values))


def test_the_public_list_functions_are_the_tally_ones() -> None:
    episodes = [
        EpisodeFigure("T-1", "L1", "m-a", "model", seed, Figures(o, 0.5, r, s), r is not None, 0, ((2.0, 2),))
        for seed, o, r, s in ((1, 0.1, 1 / 3, 0.7), (2, 0.2, None, None), (3, 1.0, 0.5, 0.9))
    ]
    assert aggregate.cells(episodes, 3, TASKS) == cells(episodes, 3, TASKS)
    assert aggregate.leaderboard(episodes, 3, TASKS) == leaderboard(episodes, 3, TASKS)
    assert aggregate.agreement(episodes, DECLARATION, RULES) == agreement(episodes, DECLARATION, RULES)
    assert aggregate.weighted_kappa([(0, 1), (2, 2), (3, 1)]) == weighted_kappa([(0, 1), (2, 2), (3, 1)])

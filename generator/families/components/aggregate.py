"""Aggregates of the components family: cells over seeds, subjects, baselines, judge agreement.

Each is computed from a :class:`~generator.families.components.tally.Tally` (the ``…_of``
functions), which a build folds from every run's share without keeping an episode; the functions
named after the aggregate alone take the episodes themselves (``EpisodeFigure``) and tally them
first, for a caller that holds them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

from generator.families.components.models import ComponentsDeclaration
from generator.families.components.report import (
    Agreement,
    BaselineCheck,
    Cell,
    ComponentSpreads,
    EpisodeResult,
    FamilyGrades,
    SubjectRow,
)
from generator.families.components.spec import ComponentsRules
from generator.families.components.tally import EpisodeFigure, Figures, Group, Tally
from generator.figures.stats import rate


def episode_figure(e: EpisodeResult) -> EpisodeFigure:
    c = e.components
    medians = {k.criterion: k.score for k in e.criteria}
    pairs = tuple((medians.get(g.criterion), int(g.score or 0)) for g in e.sme_grades)
    return EpisodeFigure(
        e.task,
        e.level,
        e.subject,
        e.kind,
        e.seed,
        Figures(c.outcome, c.process, c.rationale, c.score),
        e.pass_bar,
        len(e.fabricated_citations),
        pairs,
    )


def spreads(episodes: Iterable[EpisodeFigure]) -> ComponentSpreads:
    """Mean, standard deviation and n of each figure over ``episodes`` (one group)."""
    group = Group("")
    for e in episodes:
        group.add(e)
    return group.spreads()


def cells(episodes: Iterable[EpisodeFigure], minimum: int, tasks: Sequence[str] = ()) -> tuple[Cell, ...]:
    """:func:`cells_of` the episodes' tally."""
    return cells_of(Tally.of(episodes), minimum, tasks)


def cells_of(tally: Tally, minimum: int, tasks: Sequence[str] = ()) -> tuple[Cell, ...]:
    """Every declared task × every model, over seeds: a task a model skipped is a flagged empty cell."""
    groups = dict(tally.cells)
    for task in tasks:
        for subject in {subject for _, subject in tally.cells}:
            groups.setdefault((task, subject), Group(""))
    return tuple(
        Cell(
            task=task,
            subject=subject,
            seeds=len(group.seeds),
            flagged=len(group.seeds) < minimum,
            spreads=group.spreads(),
        )
        for (task, subject), group in sorted(groups.items(), key=lambda item: item[0])
    )


def leaderboard(
    episodes: Iterable[EpisodeFigure], minimum: int, tasks: Sequence[str]
) -> tuple[SubjectRow, ...]:
    """:func:`leaderboard_of` the episodes' tally (its models' episodes)."""
    return leaderboard_of(Tally.of(episodes), minimum, tasks)


def leaderboard_of(tally: Tally, minimum: int, tasks: Sequence[str]) -> tuple[SubjectRow, ...]:
    """One row per model, over its cells, ordered by mean score, then mean outcome, then id."""
    subjects: dict[str, Group] = {}
    seeds: dict[tuple[str, str], int] = {}
    for (task, subject), cell in tally.cells.items():
        subjects.setdefault(subject, Group("")).absorb(cell)
        seeds[subject, task] = len(cell.seeds)
    rows = [(subject, group, group.spreads()) for subject, group in sorted(subjects.items())]

    def order(row: tuple[str, Group, ComponentSpreads]) -> tuple[float, float, str]:
        s = row[2]
        return (-(s.score.mean or 0.0), -(s.outcome.mean or 0.0), row[0])

    return tuple(
        SubjectRow(
            position=position,
            subject=subject,
            episodes=group.episodes,
            spreads=sp,
            pass_bar=rate(group.passed, group.scored),
            fabricated_citations=group.fabricated,
            episodes_with_fabrication=group.with_fabrication,
            flagged_cells=sum(seeds.get((subject, t), 0) < minimum for t in tasks),
        )
        for position, (subject, group, sp) in enumerate(sorted(rows, key=order), start=1)
    )


def baselines(
    episodes: Iterable[EpisodeFigure], decl: ComponentsDeclaration, rules: ComponentsRules
) -> tuple[BaselineCheck, ...]:
    """:func:`baselines_of` the episodes' tally."""
    return baselines_of(Tally.of(episodes), decl, rules)


def baselines_of(
    tally: Tally, decl: ComponentsDeclaration, rules: ComponentsRules
) -> tuple[BaselineCheck, ...]:
    """Each anti-gaming baseline per task, against the threshold the benchmark declares, on the levels
    (and, unless the specification says otherwise, only the tasks with a seeded defect) it names."""
    checks = []
    clean = {t.id for t in decl.tasks if not t.seeded_defects}
    for (kind, task), group in sorted(tally.baselines.items(), key=lambda item: item[0]):
        level = group.level
        sp = group.spreads()
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
                episodes=group.episodes,
                spreads=sp,
                threshold=threshold,
                passes=passes,
            )
        )
    return tuple(checks)


def weighted_kappa(pairs: Sequence[tuple[int, int]], categories: int = 4) -> float | None:
    """Quadratic-weighted Cohen's kappa of two raters over ordinal grades 0 … categories−1."""
    return weighted_kappa_of(Counter(pairs), categories)


def weighted_kappa_of(pairs: Mapping[tuple[int, int], int], categories: int = 4) -> float | None:
    """:func:`weighted_kappa` of pairs given as (x, y) → how many: the same integer sums, the same
    divisions in the same order, so the same float."""
    n = sum(pairs.values())
    if n == 0:
        return None
    a = [sum(c for (x, _), c in pairs.items() if x == i) for i in range(categories)]
    b = [sum(c for (_, y), c in pairs.items() if y == i) for i in range(categories)]
    scale = (categories - 1) ** 2
    observed = sum(c * (x - y) ** 2 for (x, y), c in pairs.items()) / scale / n
    expected = (
        sum(a[i] * b[j] * (i - j) ** 2 for i in range(categories) for j in range(categories)) / scale / n**2
    )
    return None if expected == 0 else 1 - observed / expected


def agreement(
    episodes: Iterable[EpisodeFigure], decl: ComponentsDeclaration, rules: ComponentsRules
) -> Agreement:
    """:func:`agreement_of` the episodes' tally."""
    return agreement_of(Tally.of(episodes), decl, rules)


def agreement_of(tally: Tally, decl: ComponentsDeclaration, rules: ComponentsRules) -> Agreement:
    """Judge–SME agreement, and the task families under the specification's bar of graded rationales."""
    bar = rules.sme_bar
    families = {t.id: t.family for t in decl.tasks}
    graded: dict[str, int] = defaultdict(int)
    for task, n in tally.graded.items():
        graded[families[task]] += n
    pairs, skipped = tally.pairs, tally.skipped
    family_rows = tuple(
        FamilyGrades(family=f, graded_rationales=graded.get(f, 0), under_bar=graded.get(f, 0) < bar)
        for f in sorted(set(families.values()))
    )
    total = sum(pairs.values())
    if not total:
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
    exact = rate(sum(c for (x, y), c in pairs.items() if x == y), total)
    under = [f.family for f in family_rows if f.under_bar]
    note = "Judge agreement measured" + (
        f"; under the {bar}-rationale bar: {', '.join(under)}" if under else ""
    )
    return Agreement(
        measured=True,
        pairs=total,
        exact=exact,
        weighted_kappa=weighted_kappa_of(pairs),
        skipped_non_integral=skipped,
        families=family_rows,
        unmeasured_families=tuple(f.family for f in family_rows if f.graded_rationales == 0),
        note=note,
    )

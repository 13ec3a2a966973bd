"""Aggregates of the components family: cells over seeds, subjects, baselines, judge agreement."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import NamedTuple

from generator.families.components.models import ComponentsDeclaration
from generator.families.components.report import (
    Agreement,
    BaselineCheck,
    Cell,
    ComponentSpreads,
    EpisodeResult,
    FamilyGrades,
    Spread,
    SubjectRow,
)
from generator.families.components.spec import ComponentsRules
from generator.figures.stats import rate


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

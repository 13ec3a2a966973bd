"""The components family (SPEC §2.3): JE validation episodes → outcome, process, rationale."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from generator.errors import Problem, Problems, Result
from generator.families.base import (
    BenchmarkContext,
    Family,
    Finished,
    RunScored,
    provenance_problems,
    read_run_meta,
)
from generator.families.components.aggregate import (
    agreement_of,
    baselines_of,
    cells_of,
    episode_figure,
    leaderboard_of,
)
from generator.families.components.drift import ComponentsChanges, drift_changes
from generator.families.components.models import (
    FOCUS,
    ComponentsContract,
    ComponentsDeclaration,
    ComponentsRun,
    Episode,
    Task,
)
from generator.families.components.report import (
    ALL_RUNS,
    Agreement,
    Components,
    ComponentsScoring,
    ComponentsSection,
    CriterionScore,
    EpisodeResult,
    JudgeDrift,
    RunDetail,
    RunSummary,
)
from generator.families.components.scoring import (
    combine,
    fabricated_citations,
    match,
    outcome,
    process,
    process_value,
    rationale,
)
from generator.families.components.source import agreement_problems, states_seed_rules, weighted_tasks
from generator.families.components.spec import (
    BUILTIN_FILE,
    ComponentsRules,
    ComponentsSpec,
    compile_spec,
    explain,
    seed_rules,
)
from generator.families.components.tally import GroupShare, Tally
from generator.families.specs import SpecSource, resolve
from generator.figures.disclosures import BlindRecord, Disclosures, Interpretation, ProvenanceHash
from generator.figures.model import Model
from generator.figures.units import counted
from generator.inputs.discover import VerifiedFolder
from generator.inputs.jsonio import exact_words, iter_models

RUN_FILE = "run.json"
EPISODES_FILE = "episodes.jsonl"

INTERPRETATIONS = (
    Interpretation(
        id="components-matching",
        text="Detection F1 vs seeded defects",
        reading="A finding matches a seeded defect when their locations are equal after collapsing "
        "whitespace and ignoring case; defects are matched in the task's order, each by the first "
        "unmatched finding at its location. Unmatched findings are false positives, unmatched defects "
        "false negatives. Issue types compare the same way; figures compare exactly after trimming.",
    ),
    Interpretation(
        id="components-clean-control",
        text="clean-control tasks with no seeded defect",
        reading="On a task with no seeded defect, an episode that flags nothing has F1 = 1 (nothing to "
        "find, nothing wrong); any finding is a false positive and F1 = 0. Issue-type accuracy and "
        "exactness are not applicable there (shown as —, counted as 1 in the product).",
    ),
    Interpretation(
        id="components-process",
        text="Evidence coverage and precision, required-call gates, efficiency over redundant calls",
        reading="Coverage = key evidence opened / key evidence; precision = key evidence opened / "
        "documents opened; efficiency = distinct calls / calls, where a call with the same name and "
        "arguments as an earlier one is redundant (1 with no calls). A required call absent from the "
        "call log gates process to 0. Precision with no document opened (0/0) is published as 0 when "
        "the task has key evidence (nothing relevant was looked at) and as 1 when it has none (there "
        "was nothing to look at); coverage with no key evidence is 1.",
    ),
    Interpretation(
        id="components-task-focus",
        text="four global criteria plus per-task focus",
        reading="A task family may declare its focus criterion in benchmark.json ('focus'); its judges "
        "score it as 'task_focus', 0–3 like the others, in a call of its own, shown beside them. A "
        "focused task's rationale is (four global criteria + focus) / 15, so the focus weighs like "
        "one more criterion; without a declared focus it is the four criteria / 12 (the worked "
        "example JE-06 keeps 7/12). The pass bar stays the contract's: the four global criteria "
        "total at least 9 of 12, and no criterion — focus included — at 0. A focus judgment for a "
        "family that declares none is invalid content.",
    ),
    Interpretation(
        id="components-judge-drift",
        text="keep it isolated so drift is measurable",
        reading="Each judge's raw scores (before any median) are published per criterion as a "
        "distribution (how many 0, 1, 2, 3) and a mean, per run (batch) and over the version; the "
        "versions page compares each judge × criterion mean with the previous version's.",
    ),
    Interpretation(
        id="components-l4",
        text="3 judges, median, on L4 tasks",
        reading="The median is taken per criterion over the judges that scored it. An L4 episode with "
        "fewer than three judges on any criterion is flagged and its rationale is not scored (so its "
        "weighted score is not either); outcome and process are still shown. A criterion no judge "
        "scored leaves the rationale unscored on any level.",
    ),
    Interpretation(
        id="components-fabricated-grounding",
        text="evidence_grounding … zero: Cites nothing, or something never opened.",
        reading="When the citation audit finds a cited evidence id that was never opened, evidence_grounding "
        "is 0 whatever the judges said (the audit is deterministic proof of the zero condition), so the "
        "rationale fails the pass bar outright.",
    ),
    Interpretation(
        id="components-seeds",
        text=">=5 seeds per task; report variance",
        reading="Seeds are counted per declared task × model: a task a model has no episode for is an empty, "
        "flagged cell. Two episodes of one (task, model, seed) are refused as invalid content.",
    ),
    Interpretation(
        id="components-separate-calls",
        text="Criteria scored in separate calls.",
        reading="Each judgment record is one call scoring one criterion; a call id scoring two "
        "criteria, or a judge scoring one criterion twice, is refused as invalid content.",
    ),
    Interpretation(
        id="components-negative",
        text="Flag-everything baseline must score clearly negative on every task",
        reading="The contract leaves how 'negative' is realised against [0, 1] components open (its "
        "ROADMAP open decision). This benchmark declares the threshold it holds each baseline to, on the "
        "component the contract names — outcome (the precision penalty, the leak into the ledger row): "
        "the flag-everything baseline's mean outcome per task, and the no-evidence baseline's on L2+ tasks "
        "with a seeded defect (a clean control has nothing to leak). A miss is reported, not hidden, and "
        "changes no score; a benchmark without baseline episodes says so.",
    ),
    Interpretation(
        id="components-agreement",
        text="20 human-graded rationales per family to measure judge-SME agreement",
        reading="Agreement is measured when SME grades are supplied: exact agreement of the judges' "
        "median with the SME grade per criterion (n/d with an exact interval) and quadratic-weighted "
        "Cohen's kappa; families with fewer than 20 graded rationales are listed as under the bar. "
        "Without SME grades every rationale figure is labelled 'judge agreement not measured'.",
    ),
    Interpretation(
        id="components-ranking",
        text="The three components are ALWAYS reported separately",
        reading="Subjects are ordered by mean score, but every row shows the three component means "
        "beside it, with the fabricated-citation count marked next to the headline.",
    ),
)
PARAMETERS = (
    ("components-matching", "matching"),
    (
        "components-clean-control",
        "matching.clean_control, outcome (a metric that does not apply counts as 1)",
    ),
    ("components-process", "process, process_edges"),
    ("components-task-focus", "rationale.focus, pass_bar"),
    ("components-l4", "rationale.judges"),
    ("components-fabricated-grounding", "rationale.citation_audit"),
    ("components-seeds", "seeds"),
    ("components-negative", "anti_gaming"),
    ("components-agreement", "agreement"),
    ("components-ranking", "ranking"),
)
"""Seed interpretations that became parameters of the specification: (interpretation id, parameter)."""
OWN_LIMITATIONS = (
    "Means and standard deviations over seeds describe this run's seeds only; with fewer than the "
    "minimum seeds a cell is flagged, and single-seed differences are noise.",
    "Rationale is the only non-deterministic component; without measured judge–SME agreement its "
    "figures rest on the judges alone.",
)


def episode_result(
    episode: Episode,
    task: Task,
    subject: str,
    kind: str,
    focused: bool = False,
    rules: ComponentsRules | None = None,
) -> EpisodeResult:
    """Score one episode from its raw facts under compiled rules (by default the seed contract's
    built-in specification); ``focused``: the task's family declares a focus criterion."""
    rules = rules or seed_rules()
    hard_failed = bool(episode.hard_fails)
    detection = match(episode.findings, task.seeded_defects, rules.match_issue_type)
    proc = process(episode, task)
    out = outcome(detection, rules, hard_failed, bool(proc.missing_calls))
    proc_value = process_value(proc, rules, hard_failed)
    rat = rationale(episode, task, rules, focused)
    score = combine(task, rules, out, proc_value, rat.value)
    tp, fp, fn = len(detection.pairs), detection.false_positives, detection.false_negatives

    def f(x: Any) -> float | None:
        return None if x is None else float(x)

    return EpisodeResult(
        episode_id=episode.episode_id,
        task=task.id,
        level=task.level,
        subject=subject,
        kind=kind,
        seed=episode.seed,
        components=Components(
            outcome=float(out), process=float(proc_value), rationale=f(rat.value), score=f(score)
        ),
        f1=float(detection.f1),
        precision=tp / (tp + fp) if tp + fp else None,
        recall=tp / (tp + fn) if tp + fn else None,
        issue_type_accuracy=f(detection.issue_type_accuracy),
        exactness=f(detection.exactness),
        true_positives=tp,
        false_positives=fp,
        false_negatives=fn,
        coverage=float(proc.coverage),
        evidence_precision=float(proc.precision),
        efficiency=float(proc.efficiency),
        hard_fails=episode.hard_fails,
        missing_calls=proc.missing_calls,
        criteria=tuple(CriterionScore(criterion=c, score=f(s), judges=n) for c, s, n in rat.criteria),
        rationale_total=f(rat.total),
        pass_bar=rat.passes,
        rationale_note=rat.note,
        fabricated_citations=fabricated_citations(episode),
        judges=tuple(sorted({j.judge for j in episode.judgments})),
        sme_grades=tuple(
            CriterionScore(criterion=g.criterion, score=g.score, judges=0) for g in episode.human_grades
        ),
    )


def _episode_problems(
    episode: Episode, task: Task, focused: bool, rules: ComponentsRules, file: str, where: str
) -> list[Problem]:
    problems = []
    for index, judgment in enumerate(episode.judgments):
        place = f"{where} $.judgments[{index}].criterion"
        if judgment.criterion == FOCUS and not focused:
            message = f"task family {task.family!r} declares no focus criterion to score"
            problems.append(Problem(file, place, message))
        elif judgment.criterion != FOCUS and judgment.criterion not in rules.criteria:
            message = f"the scoring specification has no criterion {judgment.criterion!r} to score"
            problems.append(Problem(file, place, message))
    hard_fail_rules = {r.id for r in task.hard_fail_rules}
    for rule in episode.hard_fails:
        if rule not in hard_fail_rules:
            problems.append(
                Problem(file, f"{where} $.hard_fails", f"task {task.id!r} has no hard-fail rule {rule!r}")
            )
    return problems


class Unit(Model):
    """Where one episode of a (task, seed) sits: a model's runs may hold one such episode in all."""

    task: str
    seed: int
    episode_id: str
    line: int


JudgeCounts = tuple[tuple[str, str, tuple[int, int, int, int]], ...]
"""(judge, criterion, how many times it scored 0, 1, 2, 3), sorted."""


def judge_counts(episodes: list[Episode]) -> JudgeCounts:
    """Each judge's raw scores per criterion over some episodes (before any median)."""
    counts: dict[tuple[str, str], list[int]] = {}
    for episode in episodes:
        for judgment in episode.judgments:
            counts.setdefault((judgment.judge, judgment.criterion), [0, 0, 0, 0])[judgment.score] += 1
    return tuple(
        (judge, criterion, (c[0], c[1], c[2], c[3])) for (judge, criterion), c in sorted(counts.items())
    )


def judge_drift(batches: dict[str, JudgeCounts]) -> tuple[JudgeDrift, ...]:
    """Per judge and criterion: its distribution in every batch (run), then over all of them."""
    rows = []
    overall: dict[tuple[str, str], list[int]] = {}
    for batch, counts in sorted(batches.items()):
        for judge, criterion, c in counts:
            rows.append(_drift_row(judge, criterion, batch, c))
            total = overall.setdefault((judge, criterion), [0, 0, 0, 0])
            for score in range(4):
                total[score] += c[score]
    rows += [_drift_row(j, crit, ALL_RUNS, (c[0], c[1], c[2], c[3])) for (j, crit), c in overall.items()]
    return tuple(sorted(rows, key=lambda r: (r.judge, r.criterion, r.batch == ALL_RUNS, r.batch)))


def _drift_row(judge: str, criterion: str, batch: str, c: tuple[int, int, int, int]) -> JudgeDrift:
    n = sum(c)
    mean = sum(score * count for score, count in enumerate(c)) / n
    return JudgeDrift(judge=judge, criterion=criterion, batch=batch, counts=c, n=n, mean=mean)


class ComponentsPart(Model):
    """One run's share of the aggregates: its units, the sums of its episodes' figures per task
    (``tally``), its SME pairs counted, and its judges. Never the episodes themselves."""

    subject: str
    kind: str
    units: tuple[Unit, ...]
    groups: tuple[GroupShare, ...]
    """One per task the run holds episodes of (:mod:`generator.families.components.tally`)."""
    graded: tuple[tuple[str, int], ...]
    """(task, episodes with SME grades)."""
    pairs: tuple[tuple[int, int, int], ...]
    """(judges' median, SME grade, how many such pairs)."""
    skipped: int
    """SME-graded criteria whose judges' median is missing or not integral."""
    judges: tuple[str, ...]
    judge_counts: JudgeCounts


class RunSection(Model):
    """What a run page shows of the benchmark: judge agreement labels every rationale figure."""

    agreement: Agreement


@dataclass
class ComponentsState:
    """The compiled specification and the tasks (read by ``score_run``, never changed), and every
    scored episode's figures, folded in run by run."""

    rules: ComponentsRules
    source: SpecSource
    tasks: dict[str, Task]
    """The declared tasks, each with the weights it is scored by (the specification's, when fixed)."""
    focus: frozenset[str]
    """Task families that declare a focus criterion."""
    owners: dict[str, dict[str, str]] = field(default_factory=dict)
    """Subject → episode id → the run holding it. Nested by subject and below (``units`` too), not
    keyed by tuples: at a million rows these are the state's only per-episode entries, and a tuple
    and its repeated strings per entry doubled them."""
    sums: Tally = field(default_factory=Tally)
    """The sums every aggregate is computed from, folded run by run (never an episode)."""
    judges: set[str] = field(default_factory=set)
    units: dict[str, dict[str, dict[int, str]]] = field(default_factory=dict)
    """Subject → task → seed → the episode id of that unit."""
    batches: dict[str, JudgeCounts] = field(default_factory=dict)
    """Run id → its judges' raw score counts per criterion (judge drift)."""


Bench = BenchmarkContext[ComponentsDeclaration, ComponentsContract]


class ComponentsFamily(
    Family[
        ComponentsDeclaration,
        ComponentsContract,
        ComponentsSpec,
        ComponentsState,
        ComponentsPart,
        ComponentsSection,
    ]
):
    name = "components"
    row_writer = "generator.families.components.rows:components_rows"
    declaration_model = ComponentsDeclaration
    contract_model = ComponentsContract
    spec_model = ComponentsSpec
    summary_model = RunSummary
    part_model = ComponentsPart
    section_model = ComponentsSection
    changes_model = ComponentsChanges
    schemas: ClassVar[Mapping[str, type[BaseModel]]] = {
        "benchmark": ComponentsDeclaration,
        "contract": ComponentsContract,
        "run": ComponentsRun,
        "episode": Episode,
        "scoring": ComponentsSpec,
    }

    def recognises(self, raw: object) -> bool:
        return isinstance(raw, dict) and "components" in raw

    def section_changes(
        self, before: ComponentsSection, after: ComponentsSection
    ) -> ComponentsChanges | None:
        """Judge drift: each judge × criterion mean over the version that moved (``drift.py``)."""
        return drift_changes(before, after)

    def builtin_spec(self, contract: ComponentsContract) -> Path | None:
        return BUILTIN_FILE if states_seed_rules(contract) else None

    def agreement(
        self, spec: ComponentsSpec, contract: ComponentsContract, contract_file: str, place: str
    ) -> list[Problem]:
        return agreement_problems(spec, contract, contract_file, place)

    def explain(self, spec: ComponentsSpec) -> tuple[str, ...]:
        return explain(spec)

    def prepare(self, bench: Bench) -> Result[ComponentsState]:
        decl, contract = bench.declaration, bench.contract
        hashes = {"source_sha256": contract.source_sha256}
        problems = Problems(provenance_problems(bench, decl.provenance_sources, hashes))
        resolved = problems.take(resolve(self, bench))
        if resolved is None:
            return problems.result(None)
        rules, source = compile_spec(resolved.spec), resolved.source
        weighted = weighted_tasks(decl, f"{bench.label}/benchmark.json", rules, source.place)
        tasks = problems.take(weighted)
        if weighted.problems or tasks is None:
            return problems.result(None)
        return problems.result(ComponentsState(rules, source, tasks, frozenset(decl.focus)))

    def score_run(
        self, bench: Bench, state: ComponentsState, run_id: str, run: VerifiedFolder
    ) -> Result[RunScored]:
        tasks, rules = state.tasks, state.rules
        label = f"{bench.label}/{run_id}"
        problems = Problems()
        meta = problems.take(read_run_meta(run, label, (RUN_FILE, EPISODES_FILE), ComponentsRun))
        if EPISODES_FILE not in run.files:
            return problems.result(None)
        file = f"{label}/{EPISODES_FILE}"
        results: list[EpisodeResult] = []
        units: dict[tuple[str, int], Unit] = {}
        seen: set[str] = set()
        scored: list[Episode] = []
        for number, episode in iter_models(run.files[EPISODES_FILE], file, Episode, problems):
            if meta is None:
                continue
            where = f"line {number}"
            if episode.task not in tasks:
                problems.append(Problem(file, f"{where} $.task", f"unknown task {episode.task!r}"))
                continue
            if (episode.task, episode.seed) in units:
                first = units[episode.task, episode.seed].episode_id
                message = f"a second episode of task {episode.task!r}, seed {episode.seed} (first: {first!r})"
                problems.append(Problem(file, f"{where} $.seed", message))
                continue
            units[episode.task, episode.seed] = Unit(
                task=episode.task, seed=episode.seed, episode_id=episode.episode_id, line=number
            )
            if episode.episode_id in seen:
                problems.append(
                    Problem(file, f"{where} $.episode_id", f"duplicate episode id {episode.episode_id!r}")
                )
                continue
            seen.add(episode.episode_id)
            task = tasks[episode.task]
            focused = task.family in state.focus
            problems.extend(_episode_problems(episode, task, focused, rules, file, where))
            results.append(episode_result(episode, task, meta.subject, meta.kind, focused, rules))
            scored.append(episode)
        if problems or meta is None:
            return problems.result(None)
        judges = tuple(sorted({judge for e in results for judge in e.judges}))
        sums = Tally.of(episode_figure(e) for e in results)
        part = ComponentsPart(
            subject=meta.subject,
            kind=meta.kind,
            units=tuple(units.values()),
            groups=sums.shares(),
            graded=tuple(sums.graded.items()),
            pairs=tuple((judge, grade, n) for (judge, grade), n in sums.pairs.items()),
            skipped=sums.skipped,
            judges=judges,
            judge_counts=judge_counts(scored),
        )
        summary = RunSummary(
            id=run_id,
            digest=run.digest,
            subject=meta.subject,
            kind=meta.kind,
            producer=meta.producer,
            episode_count=len(results),
        )
        return Result(RunScored(summary, RunDetail(**summary.model_dump(), episodes=tuple(results)), part))

    def run_section(self, section: ComponentsSection) -> RunSection:
        return RunSection(agreement=section.agreement)

    def fold(self, bench: Bench, state: ComponentsState, run_id: str, part: ComponentsPart) -> list[Problem]:
        """A model may hold one episode per (task, seed) and per episode id across all its runs."""
        tally, share = state, part
        file = f"{bench.label}/{run_id}/{EPISODES_FILE}"
        problems = []
        units = tally.units.setdefault(share.subject, {})
        owners = tally.owners.setdefault(share.subject, {})
        for unit in share.units:
            first = units.get(unit.task, {}).get(unit.seed)
            if first is not None:
                message = f"a second episode of task {unit.task!r}, seed {unit.seed} (first: {first!r})"
                problems.append(Problem(file, f"line {unit.line} $.seed", message))
            elif unit.episode_id in owners:
                owner = owners[unit.episode_id]
                message = f"episode {unit.episode_id!r} of {share.subject!r} also in run {owner!r}"
                problems.append(Problem(file, "", message))
        if problems:
            return problems
        for unit in share.units:
            units.setdefault(unit.task, {})[unit.seed] = unit.episode_id
            owners[unit.episode_id] = run_id
        tally.sums.merge(share.kind, share.subject, share.groups, share.graded, share.pairs, share.skipped)
        tally.judges.update(share.judges)
        tally.batches[run_id] = share.judge_counts
        return []

    def finish(
        self, bench: Bench, state: ComponentsState, runs: list[RunSummary]
    ) -> Result[Finished[ComponentsSection]]:
        decl, tally = bench.declaration, state
        rules, source, sums = tally.rules, tally.source, tally.sums
        task_ids = [t.id for t in decl.tasks]
        minimum = rules.minimum_seeds
        scoring = source.disclosed(ComponentsScoring, rules.spec, explain(rules.spec), PARAMETERS)
        section = ComponentsSection(
            contract=bench.contract,
            scoring=scoring,
            tasks=tuple(tally.tasks[t] for t in task_ids),
            minimum_seeds=minimum,
            leaderboard=leaderboard_of(sums, minimum, task_ids),
            cells=cells_of(sums, minimum, task_ids),
            baselines=baselines_of(sums, decl, rules),
            agreement=agreement_of(sums, decl, rules),
            focus=decl.focus,
            judge_drift=judge_drift(tally.batches),
            runs=tuple(sorted(runs, key=lambda r: r.id)),
        )
        return Result(Finished(section, _disclosures(bench, section, tally)))


def _interpretations(source: SpecSource) -> tuple[Interpretation, ...]:
    """The seed's readings under the built-in specification; under a specification of its own, only
    the readings it does not state (the rules in words state the rest, with its numbers)."""
    if source.kind == "built-in":
        return INTERPRETATIONS
    stated = {i for i, _ in PARAMETERS}
    return tuple(i for i in INTERPRETATIONS if i.id not in stated)


def _inexact_weights(tally: ComponentsState) -> tuple[Interpretation, ...]:
    """The reading taken where weights as written add up to 1 only within 1e-9 (equal thirds written
    ``0.3333333333333333``): said in the methodology, since the figures use them as written."""
    sums = {task_id: sum(task.weights.exact) for task_id, task in tally.tasks.items() if task.weights}
    inexact = sorted(task_id for task_id, added in sums.items() if added != 1)
    if not inexact:
        return ()
    listed = "; ".join(f"{task_id}: {exact_words(sums[task_id])}" for task_id in inexact)
    return (
        Interpretation(
            id="components-weights-as-written",
            text=f"Component weights that do not add up to exactly 1 ({listed})",
            reading="Accepted, as their sum is within 1e-9 of 1 (equal thirds written as decimals add up "
            "to 0.9999999999999999): each score is the weighted sum with the weights exactly as written, "
            "not rescaled to add up to 1.",
        ),
    )


def _disclosures(bench: Bench, section: ComponentsSection, tally: ComponentsState) -> Disclosures:
    contract, decl = bench.contract, bench.declaration
    judges = sorted(tally.judges)
    source = decl.provenance_sources.get("source_sha256")
    blind = BlindRecord(
        subjects_blind=False,
        statement=(
            f"Rationales were scored by {counted(len(judges), 'judge')} known only by one-way hashes; per "
            "the contract's judge protocol a judge sees the rationale, evidence log and ground truth "
            "— never the model's identity. Models are shown under the ids their runs declare."
        ),
        evaluator_hashes=tuple(judges),
        identities_revealed=False,
        scores_frozen_in=None,
    )
    unscored = tally.sums.unscored
    flagged = sum(c.flagged for c in section.cells)
    return Disclosures(
        status=None,
        limitations=(),
        own_limitations=OWN_LIMITATIONS,
        interpretations=_interpretations(tally.source) + _inexact_weights(tally),
        blind=blind,
        excluded_counts=(
            ("cells with fewer seeds than the minimum (flagged)", flagged),
            ("episodes whose rationale is not scored", unscored),
        ),
        unavailable=(
            ("rationale not scored, so no weighted score", unscored),
            (
                "anti-gaming baselines without any episode (not checked)",
                len(
                    {"flag_everything_baseline", "no_evidence_baseline"}
                    - {b.baseline for b in section.baselines}
                ),
            ),
        ),
        floors_note=None,
        corrections=(),
        disagreements=(),
        provenance=(
            ProvenanceHash(
                name="source_sha256",
                sha256=contract.source_sha256,
                state="verified" if source else "not re-verified (source not supplied)",
                source=source,
            ),
        ),
    )

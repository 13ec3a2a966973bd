"""The trials family (SPEC §2.2): a frozen trial plan, trial results, blind scoring and reveals."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, Field

from generator.errors import Problem, Problems, Result
from generator.families.base import BenchmarkContext, Family, Finished, RunScored, read_run_meta
from generator.families.specs import SpecSource, resolve
from generator.families.trials import provenance
from generator.families.trials.models import (
    PlannedTrial,
    Reveal,
    TrialPlan,
    TrialResult,
    TrialsContract,
    TrialsDeclaration,
    TrialsRun,
)
from generator.families.trials.report import (
    RevealedName,
    RevealRecord,
    RunDetail,
    RunSummary,
    TrialsScores,
    TrialsScoring,
    TrialsSection,
    scores_file,
)
from generator.families.trials.scoring import (
    TrialFigure,
    evaluators,
    evidence_problem,
    leaderboard,
    metrics,
    paired,
    score_trial,
)
from generator.families.trials.source import agreement_problems, states_seed_rules
from generator.families.trials.spec import (
    BUILTIN_FILE,
    PERCENTILE_WORDS,
    ROUNDING_WORDS,
    TrialsRules,
    TrialsSpec,
    compile_spec,
    explain,
    explain_interventions,
)
from generator.figures.disclosures import BlindRecord, Disclosures, Interpretation
from generator.figures.model import Model
from generator.figures.units import counted
from generator.inputs.discover import VerifiedFolder
from generator.inputs.jsonio import iter_models, load_model

RUN_FILE = "run.json"
RESULTS_FILE = "results.jsonl"
REVEAL_FILE = "reveal.json"

INTERPRETATIONS = (
    Interpretation(
        id="trials-basis-points",
        text="publish integer numerator, denominator and basis points",
        reading="Basis points are floor(10000 · numerator / denominator) in integer arithmetic, so a "
        "published figure never rounds up (1/3 → 3333, 2/3 → 6666); none when the denominator is 0.",
    ),
    Interpretation(
        id="trials-allowlist",
        text="only the allowlisted setup, initial submit, native permission and single publish actions",
        reading="setup and native_permission are free any number of times; the first initial_submit is "
        "free and a second counts (it is a follow-up); the first publish is free and a second counts "
        "(the rubric allows a single publish). Any other kind, known or unknown, counts.",
    ),
    Interpretation(
        id="trials-required-checks",
        text="every required check in the versioned prompt corpus passes",
        reading="A required check absent from the result counts as not evaluable, hence a fail; checks "
        "the corpus does not require are shown but do not decide success.",
    ),
    Interpretation(
        id="trials-secondary-denominators",
        text="build_pass_rate, boot_pass_rate, all_functional_checks_pass_rate, zero_intervention_rate",
        reading="Every rate has every planned trial as its denominator, like the primary metric; a "
        "missing result is not a pass, and its interventions are unknown, so it is not zero-intervention.",
    ),
    Interpretation(
        id="trials-nearest-rank",
        text="median_elapsed_ms, p95_elapsed_ms, median_measured_cost_usd_micros",
        reading="Nearest rank: the ⌈p/100 · N⌉-th smallest observed value (the median of two values is "
        "the lower one), so every figure is a value a trial produced. Trials without an elapsed time "
        "(missing results) and unavailable costs are excluded and counted.",
    ),
    Interpretation(
        id="trials-cost-evidence",
        text="USD micros backed by an accepted provider usage, invoice or versioned allocation artifact",
        reading="A measured cost must name its evidence kind (one of the three) and a reference to the "
        "artifact; benchsite does not open or verify the artifact itself. A cost without such evidence is "
        "refused by the schema; 'unavailable' costs are excluded from the median and counted.",
    ),
    Interpretation(
        id="trials-missing",
        text="every trial planned before execution, including failures and timeouts",
        reading="A planned trial with no result counts as a failure under failure code "
        "'missing_result'; a failed result without a code is counted as '(no failure code recorded)'.",
    ),
    Interpretation(
        id="trials-reveal",
        text="provider_identity_revealed_after_score_is_frozen",
        reading="A reveal names the earlier version whose scores file it applies to and that file's "
        "sha256; it is accepted only when the scores recomputed now have that exact digest, and every "
        "blind label is revealed exactly once. When the site already holds that version, its frozen "
        "scores file must have the digest too; when it does not (a fresh clone), that version is rebuilt "
        "from the same inputs without the reveal and published first, and benchsite then scans every "
        "byte and file name of it for the revealed names and refuses the build on any hit.",
    ),
)
PARAMETERS = (
    ("trials-basis-points", "rates.basis_points"),
    ("trials-allowlist", "interventions"),
    ("trials-required-checks", "required_checks.absent"),
    ("trials-secondary-denominators", "rates.denominator / rates.missing_result"),
    ("trials-nearest-rank", "percentile_method"),
    ("trials-cost-evidence", "cost.evidence"),
    ("trials-missing", "failure_codes"),
    ("trials-reveal", "blind.reveal"),
)
"""Seed interpretations that became parameters of the specification: (interpretation id, parameter)."""


def spec_interpretations(spec: TrialsSpec) -> tuple[Interpretation, ...]:
    """The readings of a contract scored by its own specification: each states the parameter it is."""
    codes = spec.failure_codes
    uncoded = ", ".join(codes.uncoded_terminal) or "none"
    reveal = (
        INTERPRETATIONS[-1].reading
        if spec.blind.reveal == "after_scores_frozen"
        else "A reveal is refused: identities stay blind in every version."
    )
    return (
        Interpretation(
            id="trials-basis-points",
            text=f"rates.basis_points: {spec.rates.basis_points}",
            reading=f"Basis points are {ROUNDING_WORDS[spec.rates.basis_points]}, in integer arithmetic; "
            "none when the denominator is 0.",
        ),
        Interpretation(
            id="trials-allowlist",
            text="interventions",
            reading=explain_interventions(spec.interventions),
        ),
        Interpretation(
            id="trials-required-checks",
            text=f"required_checks.absent: {spec.required_checks.absent}",
            reading=f"A required check absent from the result counts as {spec.required_checks.absent}; "
            "checks the corpus does not require are shown but do not decide success.",
        ),
        Interpretation(
            id="trials-secondary-denominators",
            text=f"rates.denominator: {spec.rates.denominator}",
            reading=INTERPRETATIONS[3].reading,
        ),
        Interpretation(
            id="trials-nearest-rank",
            text=f"percentile_method: {spec.percentile_method}",
            reading=f"Percentiles by {PERCENTILE_WORDS[spec.percentile_method]}, so every figure is a value "
            "a trial produced. Trials without an elapsed time (missing results) and unavailable costs are "
            "excluded and counted.",
        ),
        Interpretation(
            id="trials-cost-evidence",
            text=f"cost.evidence: {', '.join(spec.cost.evidence)}",
            reading="A measured cost must name one of these evidence kinds and a reference to the artifact; "
            "benchsite does not open or verify the artifact itself. Any other kind is refused; "
            "'unavailable' costs are excluded from the median and counted.",
        ),
        Interpretation(
            id="trials-missing",
            text="failure_codes",
            reading=f"A planned trial with no result counts as a failure under failure code "
            f"{codes.missing_result!r}; a failed result without a code counts under its terminal state "
            f"when it is one of {uncoded}, else under {codes.uncoded_otherwise!r}.",
        ),
        Interpretation(id="trials-reveal", text=f"blind.reveal: {spec.blind.reveal}", reading=reveal),
    )


OWN_LIMITATIONS = (
    "Exact (Clopper–Pearson) intervals treat trials as independent; trials sharing a prompt are not.",
    "Cost is summarised only where an accepted evidence artifact backs it; the median says nothing "
    "about trials whose cost is unavailable.",
)


class TrialsPart(Model):
    """One run's share of the aggregates: each scored trial's figures, in trial id order."""

    trial_ids: tuple[str, ...]
    figures: tuple[TrialFigure, ...]
    names: tuple[tuple[str, str], ...] = ()
    """(provider label, the subject its run names) when the plan's labels are names, not blind."""


@dataclass
class TrialsState:
    """The compiled specification, the plan, the reveal, and every scored trial's figures, folded in
    run by run; ``rules`` is read by ``score_run`` and never changed."""

    rules: TrialsRules
    source: SpecSource
    plan: Plan
    reveal: Reveal | None
    seen: dict[str, str] = field(default_factory=dict)
    figures: list[TrialFigure] = field(default_factory=list)
    successes: dict[str, bool] = field(default_factory=dict)
    """Each scored trial's success, by trial id (paired comparisons read it)."""
    names: dict[str, set[str]] = field(default_factory=dict)
    """Each provider label → the subjects its runs name (plans whose labels are names)."""


@dataclass(frozen=True)
class Plan:
    """The frozen plan, indexed."""

    sha256: str
    trials: dict[str, PlannedTrial]
    required: dict[tuple[str, str], tuple[str, ...]]

    def required_for(self, trial: PlannedTrial) -> tuple[str, ...]:
        return self.required[(trial.prompt_corpus_version, trial.prompt_id)]


def _prepare_plan(bench: Bench) -> Result[Plan]:
    decl = bench.declaration
    file = f"{bench.label}/{decl.plan}"
    data = bench.folder.files.get(decl.plan)
    if data is None:
        return Result(
            None, (Problem(file, "", "trial plan named in benchmark.json is not in the sealed folder"),)
        )
    problems = Problems()
    plan = problems.take(load_model(TrialPlan, data, file))
    if plan is None:
        return problems.result(None)
    required = {(c.version, p.id): p.required_checks for c in decl.prompt_corpora for p in c.prompts}
    trials: dict[str, PlannedTrial] = {}
    for index, trial in enumerate(plan.trials):
        where = f"$.trials[{index}]"
        if trial.trial_id in trials:
            problems.append(Problem(file, f"{where}.trial_id", f"duplicate trial id {trial.trial_id!r}"))
        elif (trial.prompt_corpus_version, trial.prompt_id) not in required:
            message = f"prompt {trial.prompt_id!r} is not in corpus {trial.prompt_corpus_version!r}"
            problems.append(Problem(file, f"{where}.prompt_id", message))
        trials[trial.trial_id] = trial
    return problems.result(Plan(hashlib.sha256(data).hexdigest(), trials, required))


def _reveal(bench: Bench, plan: Plan, rules: TrialsRules) -> Result[Reveal]:
    if bench.reveal is None:
        return Result(None)
    file = f"{bench.label}/reveal/{REVEAL_FILE}"
    if not rules.reveal:
        message = "this rubric's scoring specification never reveals identities (blind.reveal: never)"
        return Result(None, (Problem(file, "", message),))
    data = bench.reveal.files.get(REVEAL_FILE)
    if data is None:
        return Result(None, (Problem(file, "", "required file is missing"),))
    problems = Problems()
    reveal = problems.take(load_model(Reveal, data, file))
    if reveal is not None:
        labels = {t.provider for t in plan.trials.values()}
        if set(reveal.providers) != labels:
            message = f"must reveal exactly the plan's blind labels {sorted(labels)}"
            problems.append(Problem(file, "$.providers", message))
        named = sorted(
            label for label in labels if label.casefold() in {n.casefold() for n in reveal.providers.values()}
        )
        if named:
            problems.append(Problem(file, "$.providers", f"blind labels that are provider names: {named}"))
    return problems.result(reveal)


Bench = BenchmarkContext[TrialsDeclaration, TrialsContract]


class TrialsFamily(
    Family[TrialsDeclaration, TrialsContract, TrialsSpec, TrialsState, TrialsPart, TrialsSection]
):
    name = "trials"
    row_writer = "generator.families.trials.rows:trials_rows"
    declaration_model = TrialsDeclaration
    contract_model = TrialsContract
    spec_model = TrialsSpec
    summary_model = RunSummary
    part_model = TrialsPart
    section_model = TrialsSection
    schemas: ClassVar[Mapping[str, type[BaseModel]]] = {
        "benchmark": TrialsDeclaration,
        "contract": TrialsContract,
        "plan": TrialPlan,
        "run": TrialsRun,
        "result": TrialResult,
        "reveal": Reveal,
        "scoring": TrialsSpec,
    }
    reveal_folder = "reveal"

    def recognises(self, raw: object) -> bool:
        return isinstance(raw, dict) and "primary_metric" in raw

    def builtin_spec(self, contract: TrialsContract) -> Path | None:
        return BUILTIN_FILE if states_seed_rules(contract) else None

    def agreement(
        self, spec: TrialsSpec, contract: TrialsContract, contract_file: str, place: str
    ) -> list[Problem]:
        return agreement_problems(spec, contract, contract_file, place)

    def explain(self, spec: TrialsSpec) -> tuple[str, ...]:
        return explain(spec)

    def prepare(self, bench: Bench) -> Result[TrialsState]:
        problems = Problems()
        resolved = problems.take(resolve(self, bench))
        plan = problems.take(_prepare_plan(bench))
        if resolved is None or plan is None or problems:
            return problems.result(None)
        rules = compile_spec(resolved.spec)
        reveal = problems.take(_reveal(bench, plan, rules))
        return problems.result(TrialsState(rules, resolved.source, plan, reveal))

    def run_section(self, section: TrialsSection) -> RunSection:
        return RunSection(reveal=section.reveal, sources_published=section.sources_published)

    def score_run(
        self, bench: Bench, state: TrialsState, run_id: str, run: VerifiedFolder
    ) -> Result[RunScored]:
        plan, rules = state.plan, state.rules
        label = f"{bench.label}/{run_id}"
        problems = Problems()
        meta = problems.take(read_run_meta(run, label, (RUN_FILE, RESULTS_FILE), TrialsRun))
        if RESULTS_FILE not in run.files:
            return problems.result(None)
        if meta is not None and meta.plan_sha256 != plan.sha256:
            message = (
                f"cites trial plan {meta.plan_sha256[:16]}…, but the frozen plan is "
                f"{plan.sha256[:16]}…: results must be produced against this plan"
            )
            problems.append(Problem(f"{label}/{RUN_FILE}", "$.plan_sha256", message, refused=True))
            return problems.result(None)
        file = f"{label}/{RESULTS_FILE}"
        results: dict[str, TrialResult] = {}
        for number, result in iter_models(run.files[RESULTS_FILE], file, TrialResult, problems):
            where = f"line {number} $.trial_id"
            if result.trial_id not in plan.trials:
                problems.append(
                    Problem(file, where, f"trial {result.trial_id!r} is not in the frozen plan", refused=True)
                )
            elif result.trial_id in results:
                problems.append(Problem(file, where, f"duplicate result for trial {result.trial_id!r}"))
            elif (refused := evidence_problem(result, rules)) is not None:
                problems.append(Problem(file, f"line {number} $.cost.evidence.kind", refused))
            else:
                results[result.trial_id] = result
        if problems or meta is None:
            return problems.result(None)
        scored = [
            score_trial(plan.trials[t], results[t], run_id, plan.required_for(plan.trials[t]), rules)
            for t in sorted(results)
        ]
        rows = [row for row, _ in scored]
        subject = meta.subject if rules.spec.blind.labels == "subject_names" else None
        providers = sorted({plan.trials[t].provider for t in results})
        part = TrialsPart(
            trial_ids=tuple(sorted(results)),
            figures=tuple(f for _, f in scored),
            names=() if subject is None else tuple((p, subject) for p in providers),
        )
        sources = problems.take(provenance.sources(run, label, meta))
        reported = problems.take(provenance.reported(meta, plan, results, label))
        if problems or sources is None or reported is None:
            return problems.result(None)
        summary = RunSummary(
            id=run_id,
            digest=run.digest,
            producer=meta.producer,
            plan_sha256=meta.plan_sha256,
            trial_count=len(rows),
            subject=meta.subject if rules.spec.blind.labels == "subject_names" else None,
            sources=sources,
            reported=reported,
            notes=meta.notes,
        )
        return Result(RunScored(summary, RunDetail(**summary.model_dump(), trials=tuple(rows)), part))

    def fold(self, bench: Bench, state: TrialsState, run_id: str, part: TrialsPart) -> list[Problem]:
        file = f"{bench.label}/{run_id}/{RESULTS_FILE}"
        problems = [
            Problem(file, "", f"trial {trial_id!r} also has a result in run {state.seen[trial_id]!r}")
            for trial_id in part.trial_ids
            if trial_id in state.seen
        ]
        if not problems:
            state.seen.update(dict.fromkeys(part.trial_ids, run_id))
            state.figures.extend(part.figures)
            state.successes.update(zip(part.trial_ids, (f.success for f in part.figures), strict=True))
            for provider, subject in part.names:
                state.names.setdefault(provider, set()).add(subject)
        return problems

    def finish(
        self, bench: Bench, state: TrialsState, runs: list[RunSummary]
    ) -> Result[Finished[TrialsSection]]:
        plan, reveal, rules, contract = state.plan, state.reveal, state.rules, bench.contract
        problems = Problems()
        missing = [
            score_trial(t, None, None, plan.required_for(t), rules)
            for tid, t in sorted(plan.trials.items())
            if tid not in state.seen
        ]
        rows = [*state.figures, *(f for _, f in missing)]
        scores = TrialsScores(
            rubric_id=contract.rubric_id,
            plan_sha256=plan.sha256,
            overall=metrics(rows, rules),
            leaderboard=leaderboard(rows, rules),
            runs=tuple(sorted(runs, key=lambda r: r.id)),
            missing=tuple(row for row, _ in missing),
            evaluators=evaluators(rows),
        )
        digest = hashlib.sha256(scores_file(scores)).hexdigest()
        record = None
        if reveal is not None:
            if reveal.scores_sha256 != digest:
                message = (
                    f"cites frozen scores {reveal.scores_sha256[:16]}… of version "
                    f"{reveal.scores_version!r}, but the scores recomputed now are {digest[:16]}…: "
                    "a reveal applies only to unchanged frozen scores"
                )
                problems.append(Problem(f"{bench.label}/reveal/{REVEAL_FILE}", "$.scores_sha256", message))
            record = _reveal_record(reveal)
        order = [row.provider for row in scores.leaderboard]
        section = TrialsSection(
            contract=contract,
            scoring=_scoring(state.source, rules),
            scores=scores,
            scores_sha256=digest,
            reveal=record,
            names=_names(state.names),
            paired=()
            if rules.spec.paired is None
            else paired(tuple(plan.trials.values()), state.successes, order),
        )
        interpretations = (
            INTERPRETATIONS if state.source.kind == "built-in" else spec_interpretations(rules.spec)
        )
        disclosures = _disclosures(scores, digest, record, interpretations, rules.spec.blind.labels)
        return problems.result(Finished(section, disclosures))


def _names(names: dict[str, set[str]]) -> tuple[RevealedName, ...]:
    """Each provider label with the one subject its runs name; a label whose runs name several
    subjects keeps only its label (no one name is its own)."""
    return tuple(
        RevealedName(provider=provider, name=next(iter(subjects)))
        for provider, subjects in sorted(names.items())
        if len(subjects) == 1
    )


def _scoring(source: SpecSource, rules: TrialsRules) -> TrialsScoring:
    return source.disclosed(TrialsScoring, rules.spec, explain(rules.spec), PARAMETERS)


def _reveal_record(reveal: Reveal | None) -> RevealRecord | None:
    if reveal is None:
        return None
    names = tuple(RevealedName(provider=p, name=n) for p, n in sorted(reveal.providers.items()))
    return RevealRecord(scores_version=reveal.scores_version, scores_sha256=reveal.scores_sha256, names=names)


class RunSection(Model):
    """What a run page shows of the benchmark: the reveal, when this version has one."""

    reveal: RevealRecord | None
    sources_published: bool = Field(
        default=False,
        exclude_if=lambda value: not value,
        description="The producers' own files are published beside the runs (they may name the subjects).",
    )


def _disclosures(
    scores: TrialsScores,
    digest: str,
    reveal: RevealRecord | None,
    interpretations: tuple[Interpretation, ...],
    labels: str = "plan_labels",
) -> Disclosures:
    evaluators = tuple(e.evaluator for e in scores.evaluators)
    if labels == "subject_names":
        statement = (
            f"Not scored blind: providers are named by the producer's own names for them. "
            f"{counted(len(evaluators), 'evaluator').capitalize()}, identified by one-way hashes, scored "
            f"them. The scores are frozen in this version (scores file sha256 {digest})."
        )
    elif reveal is None:
        statement = (
            f"Providers were scored blind under labels; {counted(len(evaluators), 'evaluator')}, identified "
            f"only by one-way hashes, scored them. The scores are frozen in this version "
            f"(scores file sha256 {digest}). Identities are not revealed."
        )
    else:
        statement = (
            f"Providers were scored blind under labels by {counted(len(evaluators), 'evaluator')} "
            f"identified only by one-way hashes. The scores were frozen in version "
            f"{reveal.scores_version!r} (scores file sha256 {reveal.scores_sha256}); the "
            "scores recomputed for this version are byte-identical, and identities are "
            "revealed in this version."
        )
    blind = BlindRecord(
        subjects_blind=labels != "subject_names",
        statement=statement,
        evaluator_hashes=evaluators,
        identities_revealed=reveal is not None,
        scores_frozen_in=None if reveal is None else reveal.scores_version,
    )
    overall = scores.overall
    return Disclosures(
        status=None,
        limitations=(),
        own_limitations=OWN_LIMITATIONS + tuple(f"Run {r.id}: {n}" for r in scores.runs for n in r.notes),
        interpretations=interpretations,
        blind=blind,
        excluded_counts=(("planned trials without a result (counted as failures)", len(scores.missing)),),
        unavailable=(
            ("cost unavailable (excluded from the cost median)", overall.cost_unavailable),
            ("elapsed time unavailable (excluded from median and p95)", overall.elapsed_unavailable),
        ),
        floors_note=None,
        corrections=(),
        disagreements=provenance.disagreements(scores.runs),
        provenance=(),
    )

"""The definitions family (SPEC §2.4, ADR-032): AgentEval store-v1 runs bound to a definition's arms,
scored in the meta lane — run verdicts, floors (recorded, never applied), paired arms, census."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel

from generator.errors import Problem, Problems, Result
from generator.families.base import BenchmarkContext, Family, Finished, RunScored
from generator.families.definitions.adr import AdrText, agreement_problems, read_adr
from generator.families.definitions.aggregate import census, floor_tests, paired, values
from generator.families.definitions.models import (
    Correction,
    Definition,
    DefinitionsDeclaration,
    Ledger,
    Manifest,
    Scenario,
    Summary,
)
from generator.families.definitions.pooling import (
    DefinitionsPart,
    PooledRow,
    Signature,
    pooling_facts,
    pooling_problems,
)
from generator.families.definitions.report import (
    AdrContract,
    DefinitionsRunDetail,
    DefinitionsRunSummary,
    DefinitionsScoring,
    DefinitionsSection,
    FloorRow,
    RowResult,
    RunCounts,
)
from generator.families.definitions.spec import (
    BUILTIN_FILE,
    SEED_ADR_SHA256,
    DefinitionsRules,
    DefinitionsSpec,
    compile_spec,
    explain,
)
from generator.families.definitions.stats import derive_floor
from generator.families.definitions.store import (
    frozen_manifest,
    row_result,
    sanitized_name,
    stimulus_hash,
    verdict,
)
from generator.families.specs import SpecSource, resolve
from generator.figures.disclosures import BlindRecord, Disclosures, Interpretation
from generator.figures.model import Model
from generator.inputs.discover import VerifiedFolder
from generator.inputs.jsonio import load_json_bytes, load_model, validate_model

MIDDLE_DOT = "\u00b7"
SUMMARY_STATS = "summary stats (total, passed, failed, warnings, skipped)"
RUN_PATH = re.compile(r"^\.agenteval/subjects/(agents|workflows)/[^/]+/runs/([^/]+)$")
FLOORS_NOTE = (
    "A run's verdict comes from its rows alone (floors are reported beside it, never applied to it), "
    "and 'above floor' is a direction, never a verdict (ADR-032, Q6 staged)."
)

INTERPRETATIONS = (
    Interpretation(
        id="definitions-verdict",
        text="Run verdict (amended 2026-10-04)",
        reading="FAIL if any measured row failed; PENDING if no row was measured; WARN if a measured "
        "row warned or any row was not measured (with at least one measured); else PASS. "
        "Not-applicable rows stay out of the verdict.",
    ),
    Interpretation(
        id="definitions-measurement",
        text="Measurement state of a row",
        reading="The output tree's score.measurement when it says notApplicable or notMeasured; else "
        "label 'inapplicable' → not applicable, 'skipped' or 'error' → not measured, anything else "
        "measured. A measured row warns on label 'warn', passes when passed is true, fails otherwise. "
        "Its value is score.value when the tree has one, else 1 for passed and 0 for failed.",
    ),
    Interpretation(
        id="definitions-collapse",
        text="reps collapsed per case",
        reading="A (case, arm) cell takes the worst state of its reps (not measured, then not "
        "applicable, then measured), as AgentEval's PairedEvalComparer and BenchmarkScore collapse it: "
        "one rep that was not measured takes the whole case out of the floor test, the values, the "
        "paired test and the rankings for that arm; averaging the reps that survived would change the "
        "denominator. A measured cell collapses: 'all', 'majority' (2·passing > reps, a split loses) "
        "and 'any' give 0/1 per case and feed the exact tail test; 'mean' and 'median' are shown as "
        "values. A rep passes when its value ≥ pass_at. The census counts collapsed cases, not rows.",
    ),
    Interpretation(
        id="definitions-paired",
        text="Against reference (case as unit)",
        reading="Each case is collapsed per arm with the definition's paired_collapse rule; a pair "
        "enters only when both cells were measured, else it is excluded — as not measured when either "
        "side was not measured (one side not applicable and the other not measured is not measured), "
        "else as not applicable — never a loss or a tie. Wins, losses, ties and the mean delta come from "
        "the collapsed values: mean delta = mean over the paired cases of (challenger − reference), the "
        "figure AgentEval's comparer reports. 'Rep-mean delta' is an extra: the same cases' difference "
        "of rep means.",
    ),
    Interpretation(
        id="definitions-missing-rows",
        text="Rows missing for a (case, check) of the definition",
        reading="Every (case, check) of the definition must have a row in every run; a row for an "
        "unknown case or check is an error unless it is explicitly not applicable, then it is "
        "counted apart and ignored.",
    ),
    Interpretation(
        id="definitions-effective-bar",
        text="comparability facts: effectiveBar and chanceFloor",
        reading="A row's effectiveBar is the eval's own pass bar (AgentEval writes the score threshold, "
        "e.g. 1.0), not the chance floor: it must only agree across the rows that are pooled. A row's "
        "chanceFloor.bar, when recorded, must be the bar of the definition's floor for its check. The "
        "four text axes (evalKey, evalVersion, judge.modelId, judge.rubricDigest) compare "
        "case-insensitively, and a blank or whitespace-only value is not recorded.",
    ),
    Interpretation(
        id="definitions-pending",
        text="a finished run that measured nothing",
        reading="A run with summary.json that measured no row is published with verdict PENDING "
        "(BenchmarkRunner writes it so) and its census is void; only a run without summary.json is "
        "an incomplete (unfrozen) run, refused.",
    ),
    Interpretation(
        id="definitions-floor-bar",
        text="each check admitted with its own chance floor",
        reading="benchsite derives every floor's bar from its kind and declared parameters (the "
        "hypergeometric and exact binomial interval) and refuses a declared bar that differs by more "
        "than 1e-9; a not-derivable floor has no bar and no test.",
    ),
)
PARAMETERS = (
    ("definitions-verdict", "verdict.steps, verdict.otherwise, verdict.amended"),
    ("definitions-collapse", "cells.order, floor_test.rules, values"),
    ("definitions-paired", "paired, defaults.paired_collapse"),
    ("definitions-effective-bar", "compare.gating, compare.case_insensitive"),
    ("definitions-floor-bar", "floors.kinds, floors.bar_tolerance, floors.empirical_confidence"),
)
"""Seed interpretations that became parameters of the specification: (interpretation id, parameter)."""
SPEC_READINGS = {"definitions-verdict": 1, "definitions-collapse": 2, "definitions-floor-bar": 3}
"""Interpretations whose reading, under a specification other than the built-in one, is that
specification's rule in words (the index of its sentence in ``explain``)."""

OWN_LIMITATIONS = (
    "The exact tests treat cases as independent draws at the floor's bar; they say nothing about "
    "cases outside the definition.",
    "'Above floor' and the sign test are directions for a reader; no verdict on this site applies them.",
)


class RunSection(Model):
    """What a run page shows of the definition: the floors note and the corrections ledger."""

    floors_note: str
    corrections: tuple[Correction, ...]


@dataclass(frozen=True)
class RunRows:
    """A run's scenario rows scored, in id order; their comparability facts, as pooling needs them;
    and how many rows name no (case, check) of the definition but were not applicable (ignored)."""

    rows: tuple[RowResult, ...]
    pooled: tuple[PooledRow, ...]
    ignored: int


@dataclass
class DefinitionsState:
    """The compiled specification and the definition, read by ``score_run``; what ``fold`` merges."""

    rules: DefinitionsRules
    source: SpecSource
    definition: Definition
    floors: dict[str, float | None]
    ledger: Ledger | None
    bindings: dict[str, tuple[str, int]]
    reps: dict[tuple[str, str, str], list[tuple[str, float | None]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    """(check, arm, case) → (state, value) of every rep's row."""
    parents: dict[str, set[str | None]] = field(default_factory=lambda: defaultdict(set))
    seen: set[str] = field(default_factory=set)
    disagreements: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(run, what, as the producer wrote it, as benchsite recomputed it)."""
    signatures: dict[str, tuple[Signature, str]] = field(default_factory=dict)
    stimuli: dict[tuple[str, str], tuple[str | None, str]] = field(default_factory=dict)


Bench = BenchmarkContext[DefinitionsDeclaration, AdrText]


class DefinitionsFamily(
    Family[
        DefinitionsDeclaration,
        AdrText,
        DefinitionsSpec,
        DefinitionsState,
        DefinitionsPart,
        DefinitionsSection,
    ]
):
    name = "definitions"
    row_writer = "generator.families.definitions.rows:definitions_rows"
    declaration_model = DefinitionsDeclaration
    contract_model = AdrText
    spec_model = DefinitionsSpec
    summary_model = DefinitionsRunSummary
    part_model = DefinitionsPart
    section_model = DefinitionsSection
    schemas: ClassVar[Mapping[str, type[BaseModel]]] = {
        "benchmark": DefinitionsDeclaration,
        "definition": Definition,
        "corrections": Ledger,
        "scoring": DefinitionsSpec,
    }

    def read_contract(self, data: bytes, file: str) -> Result[AdrText]:
        """The rubric of this family is ADR-032's text, pinned; its title and status are shown verbatim."""
        return read_adr(data, file)

    def recognises(self, raw: object) -> bool:
        """The one family whose contract is text, not JSON: a file that is not JSON is read as an ADR,
        and ``read_contract`` says whether it is ADR-032."""
        return raw is None

    def builtin_spec(self, contract: AdrText) -> Path | None:
        """The built-in specification states the seed's ADR-032 text, recognised by its sha256."""
        return BUILTIN_FILE if contract.sha256 == SEED_ADR_SHA256 else None

    def agreement(
        self, spec: DefinitionsSpec, contract: AdrText, contract_file: str, place: str
    ) -> list[Problem]:
        return agreement_problems(spec, contract, contract_file, place)

    def explain(self, spec: DefinitionsSpec) -> tuple[str, ...]:
        return explain(spec)

    def run_section(self, section: DefinitionsSection) -> RunSection:
        return RunSection(floors_note=section.floors_note, corrections=section.corrections)

    def run_id(self, rel: str) -> str | None:
        match = RUN_PATH.match(rel)
        return match.group(2) if match else None

    def prepare(self, bench: Bench) -> Result[DefinitionsState]:
        decl = bench.declaration
        problems = Problems()
        resolved = problems.take(resolve(self, bench))
        if resolved is None:
            return problems.result(None)
        spec, source = resolved.spec, resolved.source
        rules = compile_spec(spec)
        file = f"{bench.label}/{decl.definition}"
        data = bench.folder.files.get(decl.definition)
        if data is None:
            message = "definition file named in benchmark.json is not in the sealed folder"
            return Result(None, (Problem(file, "", message),))
        raw = problems.take(load_json_bytes(data, file))
        if raw is None:
            return problems.result(None)
        if isinstance(raw, dict):  # what the definition leaves out, the specification's defaults say
            raw = {"pass_at": rules.pass_at, "paired_collapse": rules.paired_collapse} | raw
        definition = problems.take(validate_model(Definition, raw, file))
        if definition is None:
            return problems.result(None)
        if definition.paired_collapse not in rules.tested:
            message = (
                f"{definition.paired_collapse!r} is not among the collapse rules {source.place} tests "
                f"against the floor ({', '.join(rules.tested)}): the rankings could not show it"
            )
            problems.append(Problem(file, "$.paired_collapse", message))
        floors: dict[str, float | None] = {}
        for index, check in enumerate(definition.checks):
            where = f"$.checks[{index}].floor"
            if check.floor.kind not in rules.kinds:
                message = (
                    f"floor kind {check.floor.kind!r} is not one {source.place} admits "
                    f"({', '.join(spec.floors.kinds)})"
                )
                problems.append(Problem(file, f"{where}.kind", message))
                continue
            bar, why = derive_floor(check.floor, rules)
            if why is not None:
                problems.append(Problem(file, where, why))
            elif (bar is None) != (check.floor.bar is None) or (
                bar is not None
                and check.floor.bar is not None
                and abs(bar - check.floor.bar) > rules.bar_tolerance
            ):
                problems.append(
                    Problem(
                        file,
                        f"{where}.bar",
                        f"declared bar {check.floor.bar} disagrees with the "
                        f"bar its kind and parameters give ({bar})",
                    )
                )
            floors[check.key] = bar
        ledger = None
        if decl.corrections is not None:
            lfile = f"{bench.label}/{decl.corrections}"
            ldata = bench.folder.files.get(decl.corrections)
            if ldata is None:
                problems.append(Problem(lfile, "", "corrections ledger named in benchmark.json is missing"))
            else:
                ledger = problems.take(load_model(Ledger, ldata, lfile))
        bindings = {
            run: (arm.id, rep) for arm in definition.arms for rep, run in enumerate(arm.runs, start=1)
        }
        known = {f"check:{c.key}" for c in definition.checks} | {f"arm:{a.id}" for a in definition.arms}
        known |= {f"run:{r}" for r in bindings}
        for index, correction in enumerate(ledger.corrections if ledger else ()):
            for target in correction.affects:
                if target not in known:
                    where = f"$.corrections[{index}].affects"
                    problems.append(
                        Problem(f"{bench.label}/{decl.corrections}", where, f"{target!r} names nothing")
                    )
        return problems.result(DefinitionsState(rules, source, definition, floors, ledger, bindings))

    def score_run(
        self, bench: Bench, state: DefinitionsState, run_id: str, run: VerifiedFolder
    ) -> Result[RunScored]:
        tally = state
        label = f"{bench.label}/…/runs/{run_id}"
        problems = Problems()
        manifest = problems.take(frozen_manifest(run.files, label))
        if problems or manifest is None:
            return problems.result(None)
        summary = problems.take(load_model(Summary, run.files["summary.json"], f"{label}/summary.json"))
        if manifest.run.runId != run_id:
            problems.append(
                Problem(f"{label}/manifest.json", "$.run.runId", f"names run {manifest.run.runId!r}")
            )
        if run_id not in tally.bindings:
            problems.append(
                Problem(f"{label}/manifest.json", "", "run is not bound to an arm of the definition")
            )
        rows = problems.take(self._rows(tally, run, label, manifest.subject.modelId))
        if summary is not None and summary.runId != run_id:
            problems.append(Problem(f"{label}/summary.json", "$.runId", f"names run {summary.runId!r}"))
        if problems or summary is None or rows is None:
            return problems.result(None)
        return Result(self._scored(tally, run, run_id, manifest, summary, rows))

    def fold(
        self, bench: Bench, state: DefinitionsState, run_id: str, part: DefinitionsPart
    ) -> list[Problem]:
        """Rows of one check pool across arms and reps only when comparable: checked across runs."""
        tally, share = state, part
        label = f"{bench.label}/…/runs/{run_id}"
        problems = pooling_problems(tally.signatures, tally.stimuli, share.pooled, label, tally.rules)
        if problems:
            return problems
        tally.seen.add(run_id)
        tally.parents[share.arm].add(share.parent)
        for check, case, state_, value in share.reps:
            tally.reps[check, share.arm, case].append((state_, value))
        tally.disagreements.extend(share.disagreements)
        return []

    def _rows(
        self, tally: DefinitionsState, run: VerifiedFolder, label: str, model: str | None
    ) -> Result[RunRows]:
        definition = tally.definition
        pooled: list[PooledRow] = []
        cases = {c.id for c in definition.cases}
        checks = {c.key for c in definition.checks}
        rows: dict[str, RowResult] = {}
        problems = Problems()
        ignored = 0
        for rel in sorted(f for f in run.files if f.startswith("scenarios/") and f.endswith(".json")):
            file = f"{label}/{rel}"
            scenario = problems.take(load_model(Scenario, run.files[rel], file))
            if scenario is None:
                continue
            if rel != "scenarios/" + sanitized_name(scenario.id):
                problems.append(Problem(file, "$.id", f"file name should be {sanitized_name(scenario.id)!r}"))
            expected = stimulus_hash(scenario.input)
            if scenario.stimulusHash is not None and scenario.stimulusHash != expected:
                problems.append(Problem(file, "$.stimulusHash", "does not hash this row's input"))
            case, _, check = scenario.id.partition(MIDDLE_DOT)
            try:
                result = row_result(scenario, case, check, model)
            except ValueError as exc:
                problems.append(Problem(file, "$.output", str(exc)))
                continue
            if case not in cases or check not in checks:
                if result.state == "notApplicable":
                    ignored += 1
                else:
                    problems.append(
                        Problem(file, "$.id", f"row {scenario.id!r} names no (case, check) of the definition")
                    )
                continue
            if scenario.id in rows:
                problems.append(Problem(file, "$.id", f"duplicate row {scenario.id!r}"))
            entry = problems.take(
                pooling_facts(scenario, rel, case, check, tally.floors.get(check), file, tally.rules)
            )
            if entry is not None:
                pooled.append(entry)
            rows[scenario.id] = result
        for case in sorted(cases):
            for check in sorted(checks):
                if f"{case}{MIDDLE_DOT}{check}" not in rows:
                    problems.append(
                        Problem(f"{label}/scenarios", "", f"no row for case {case!r} × check {check!r}")
                    )
        return problems.result(RunRows(tuple(rows[k] for k in sorted(rows)), tuple(pooled), ignored))

    def _scored(
        self,
        tally: DefinitionsState,
        run: VerifiedFolder,
        run_id: str,
        manifest: Manifest,
        summary: Summary,
        run_rows: RunRows,
    ) -> RunScored:
        rows, ignored = run_rows.rows, run_rows.ignored
        arm, rep = tally.bindings[run_id]
        disagreements = []
        recomputed = verdict(rows, tally.rules)
        disagrees = recomputed != manifest.run.verdict or recomputed != summary.verdict
        if disagrees:
            producer = f"{manifest.run.verdict} / {summary.verdict}"
            disagreements.append((run_id, "run verdict", producer, recomputed))
        measured = [r for r in rows if r.state == "measured"]
        counts = RunCounts(
            measured=len(measured),
            not_applicable=sum(r.state == "notApplicable" for r in rows),
            not_measured=sum(r.state == "notMeasured" for r in rows),
            passed=sum(r.outcome == "pass" for r in measured),
            failed=sum(r.outcome == "fail" for r in measured),
            warned=sum(r.outcome == "warn" for r in measured),
            ignored_not_applicable=ignored,
        )
        stats = summary.stats
        expected = (
            len(rows) + ignored,
            counts.passed,
            counts.failed,
            counts.warned,
            counts.not_applicable + counts.not_measured + ignored,
        )
        found = (stats.total, stats.passed, stats.failed, stats.warnings, stats.skipped)
        if found != expected:
            disagreements.append((run_id, SUMMARY_STATS, str(found), str(expected)))
        summary_row = DefinitionsRunSummary(
            id=run_id,
            arm=arm,
            rep=rep,
            subject=manifest.subject.name,
            digest=run.digest,
            parent_invocation=manifest.run.parentInvocationId,
            producer_verdict=manifest.run.verdict,
            summary_verdict=summary.verdict,
            verdict=recomputed,
            disagrees=disagrees,
            counts=counts,
        )
        part = DefinitionsPart(
            arm=arm,
            parent=manifest.run.parentInvocationId,
            pooled=run_rows.pooled,
            reps=tuple((row.check, row.case, row.state, row.value) for row in rows),
            disagreements=tuple(disagreements),
        )
        detail = DefinitionsRunDetail(**summary_row.model_dump(), rows=tuple(rows))
        return RunScored(summary_row, detail, part)

    def finish(
        self, bench: Bench, state: DefinitionsState, runs: list[DefinitionsRunSummary]
    ) -> Result[Finished[DefinitionsSection]]:
        tally = state
        definition, rules, source = tally.definition, tally.rules, tally.source
        decl = bench.declaration
        file = f"{bench.label}/{decl.definition}"
        problems = Problems(
            Problem(file, "$.arms", f"run {r!r} of arm {tally.bindings[r][0]!r} has no sealed run folder")
            for r in sorted(set(tally.bindings) - tally.seen)
        )
        for arm, parents in sorted(tally.parents.items()):
            if len(parents) > 1 or None in parents:
                problems.append(
                    Problem(file, "$.arms", f"the reps of arm {arm!r} do not share one parentInvocationId")
                )
        floors = tuple(
            FloorRow(
                check=c.key,
                kind=c.floor.kind,
                params=tuple(sorted(c.floor.params.items())),
                derivation=c.floor.derivation,
                bar=tally.floors[c.key],
                usable=tally.floors[c.key] is not None,
            )
            for c in definition.checks
        )
        scoring = source.disclosed(DefinitionsScoring, rules.spec, explain(rules.spec), PARAMETERS)
        adr = bench.contract
        section = DefinitionsSection(
            contract=AdrContract(title=adr.title, status=adr.status, decision=adr.decision),
            definition=definition,
            floors=floors,
            runs=tuple(sorted(runs, key=lambda r: (r.arm, r.rep))),
            floor_tests=floor_tests(tally.reps, definition, tally.floors, rules),
            values=values(tally.reps, definition, rules),
            paired=paired(tally.reps, definition, rules),
            census=census(tally.reps, definition, rules),
            corrections=tally.ledger.corrections if tally.ledger else (),
            floors_note=FLOORS_NOTE,
            scoring=scoring,
        )
        return problems.result(Finished(section, _disclosures(section, tally)))


def _interpretations(tally: DefinitionsState) -> tuple[Interpretation, ...]:
    """The seed's readings under the built-in specification; under another, the verdict and the
    cell collapse read as that specification states them."""
    if tally.source.kind == "built-in":
        return INTERPRETATIONS
    rules = explain(tally.rules.spec)
    return tuple(
        i.model_copy(update={"reading": f"As {tally.source.place} states it: {rules[SPEC_READINGS[i.id]]}"})
        if i.id in SPEC_READINGS
        else i
        for i in INTERPRETATIONS
    )


def _disclosures(section: DefinitionsSection, tally: DefinitionsState) -> Disclosures:
    corrections = tuple(
        f"{c.id}: {c.superseded} → {c.corrected} · direction: {c.direction} · "
        f"blast radius: {c.blast_radius} · prediction: {c.prediction}"
        for c in section.corrections
    )
    from generator.figures.disclosures import Disagreement

    return Disclosures(
        status=section.contract.status or None,
        limitations=(),
        own_limitations=OWN_LIMITATIONS,
        interpretations=_interpretations(tally),
        blind=BlindRecord(
            subjects_blind=False,
            statement="Nothing in this benchmark is scored blind: arms and "
            "subjects are named by the runs' manifests.",
            evaluator_hashes=(),
            identities_revealed=False,
            scores_frozen_in=None,
        ),
        excluded_counts=tuple(
            (f"void census cells (observed, nothing measured): {c.check} × {c.arm}", 1)
            for c in section.census
            if c.void
        ),
        unavailable=(("checks without a usable floor (no test)", sum(not f.usable for f in section.floors)),),
        floors_note=section.floors_note,
        corrections=corrections,
        disagreements=tuple(
            Disagreement(run=r, item=item, producer=p, recomputed=v)
            for r, item, p, v in sorted(tally.disagreements)
        ),
        provenance=(),
    )

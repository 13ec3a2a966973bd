"""The points family (SPEC §2.1): ``agent-dx-score-contract`` attempts → outcomes and aggregates."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Annotated, ClassVar

from pydantic import BaseModel, StringConstraints

from generator.errors import Problem, Problems, Result
from generator.families.base import (
    BenchmarkContext,
    Family,
    Finished,
    RunScored,
    RunStatus,
    provenance_problems,
    read_run_meta,
)
from generator.families.points.models import (
    Attempt,
    PointsContract,
    PointsDeclaration,
    PointsRun,
)
from generator.families.points.report import (
    AttemptResult,
    DimensionMean,
    OutcomeCounts,
    PointsRunSummary,
    PointsSection,
    RunColumns,
    RunResult,
    ScoringInfo,
    SubjectRow,
)
from generator.families.points.scoring import invalid_problem, score_attempt
from generator.families.points.source import agreement_problems, states_seed_rules
from generator.families.points.spec import BUILTIN_FILE, PointsRules, PointsSpec, compile_spec, explain
from generator.families.specs import SpecSource, resolve
from generator.figures.disclosures import (
    BlindRecord,
    Disagreement,
    Disclosures,
    Interpretation,
    ProvenanceHash,
)
from generator.figures.model import Mean, Model
from generator.figures.stats import rate
from generator.inputs.discover import VerifiedFolder
from generator.inputs.jsonio import iter_models

RUN_FILE = "run.json"
ATTEMPTS_FILE = "attempts.jsonl"
UNAVAILABLE = {"tests": "test behavior signals unavailable", "trajectory": "trajectory data unavailable"}
_COUNT_FIELD = {
    "Ready": "ready",
    "NeedsReview": "needs_review",
    "NotReady": "not_ready",
    "Inconclusive": "inconclusive",
    "Invalid": "invalid",
}

INTERPRETATIONS = (
    Interpretation(
        id="points-mandatory-checks",
        text="All mandatory checks pass",
        reading="Each mandatory category (functional, regression, cross-surface, tampering and "
        "prohibited-change detection, changed-path scope) was executed and is evaluable — not "
        "that every individual check passed, which would make the 80/90 and 12/15 thresholds void.",
    ),
    Interpretation(
        id="points-blockers",
        text="no tampering, critical regression, prohibited change, or excessive scope overreach",
        reading="Launch blockers are a failed regression check marked critical, detected tampering, a "
        "detected prohibited change and excessive scope overreach (scope below 7.5), the four the Ready "
        "outcome names together. Any of them makes the attempt NotReady whatever its points: the "
        "NeedsReview text covers only a missed Ready or consistency threshold, so the three outcomes "
        "never overlap.",
    ),
    Interpretation(
        id="points-ready-threshold",
        text="the Ready threshold or consistency threshold is not met",
        reading="An attempt without blockers and with at least 60 points that misses any Ready "
        "condition other than a blocker — deterministic points below 80, consistency below 12, a "
        "mandatory check not executed or empty (e.g. tampering detection not run, zero functional "
        "checks) — is NeedsReview.",
    ),
    Interpretation(
        id="points-inconclusive",
        text="A grader or reviewer result without a valid qualifying denominator is reported "
        "separately, never converted to a zero error rate.",
        reading="Regression or cross-surface checks not run or with zero checks, or a scope check "
        "not run, make the attempt Inconclusive — unless a launch blocker is present, which decides "
        "NotReady on its own. Functional is exempt: the contract scores a zero total (and checks not "
        "executed) as 0; 'total' counts the functional checks.",
    ),
    Interpretation(
        id="points-ready-rate",
        text="Ready rate",
        reading="Ready / valid attempts (Ready + NeedsReview + NotReady + Inconclusive). Invalid "
        "attempts are excluded from every denominator. An Inconclusive attempt can never be Ready, so "
        "it stays in the denominator; it is counted and shown separately, and no dimension of it is "
        "converted to zero.",
    ),
    Interpretation(
        id="points-invalid",
        text="after the agent process starts, failures remain scored unless the predeclared "
        "storage-exhaustion exception applies",
        reading="An invalid marker citing a pre-agent evaluator or host failure is refused as invalid "
        "content when the attempt records that the agent had started. An accepted invalid attempt is "
        "excluded whole, including any blocker its facts record.",
    ),
    Interpretation(
        id="points-allowlist",
        text="each changed path outside the task allowlist",
        reading="Changed paths are normalised ('./a' and 'a//b' are 'a' and 'a/b'; '..' is refused). An "
        "allowlist entry ending in '/' admits every path below that folder; any other entry is a "
        "case-sensitive fnmatch pattern on the whole path, where '*' also crosses '/'. A path counts once.",
    ),
    Interpretation(
        id="points-test-behavior",
        text="5 when relevant tests changed and passed before and after editing; 3.5 when "
        "post-edit tests passed; 1.5 when tests changed",
        reading="The first clause that holds gives the points, in the contract's order.",
    ),
    Interpretation(
        id="points-unavailable-diagnostics",
        text="zero when trajectory data is unavailable",
        reading="An attempt without trajectory data (or without test signals) shows 0 points labelled "
        "'unavailable', as the contract says; subject means exclude such attempts and count them, so an "
        "unavailable diagnostic never drags a mean towards zero. A partly known trajectory cannot be "
        "expressed: each signal is observed true or false, or the whole block is unavailable.",
    ),
    Interpretation(
        id="points-means",
        text="mean points per dimension",
        reading="Each dimension's mean is over the attempts where it has a value (its n is shown), so "
        "Inconclusive attempts enter the dimensions they have but not the deterministic mean; the "
        "columns need not add up to the deterministic mean.",
    ),
    Interpretation(
        id="points-historical",
        text="historical-rubric; prospective release requires a frozen successor",
        reading="A contract whose status begins with 'historical' is historical: every page shows the "
        "status, and a benchmark that declares purpose 'prospective-release' under it is refused.",
    ),
    Interpretation(
        id="points-identity",
        text='"identityMapping": "withheld"',
        reading="Subjects appear only under the opaque ids their runs declare; benchsite has no mapping "
        "and offers no reveal for this family. Attempt ids are unique within a run.",
    ),
)
PARAMETERS = (
    ("points-mandatory-checks", "mandatory_means"),
    ("points-blockers", "blockers"),
    ("points-inconclusive", "dimensions[].rule.when_empty / when_not_run"),
    ("points-invalid", "invalid.after_agent_started"),
    ("points-allowlist", "allowlist"),
    ("points-test-behavior", "dimensions[test_behavior].rule (a ladder: the first step that holds)"),
    ("points-unavailable-diagnostics", "unavailable_diagnostic"),
)
"""Seed interpretations that became parameters of the specification: (interpretation id, parameter)."""


def spec_interpretations(spec: PointsSpec) -> tuple[Interpretation, ...]:
    """The readings of a contract scored by its own specification: each states the parameter it is."""
    after = ", ".join(spec.invalid.after_agent_started) or "none"
    return (
        Interpretation(
            id="points-mandatory-checks",
            text=f"mandatory_means: {spec.mandatory_means}",
            reading="Mandatory checks pass when each mandatory category was executed and is evaluable "
            f"({'; '.join(spec.mandatory_checks) or 'none listed'}), not when every check passed.",
        ),
        Interpretation(
            id="points-order",
            text="outcome order",
            reading="Invalid first, then any launch blocker decides NotReady, then a deterministic "
            "dimension without a qualifying denominator makes the attempt Inconclusive, then Ready, "
            "NeedsReview and NotReady by the specification's thresholds.",
        ),
        Interpretation(
            id="points-invalid",
            text=f"invalid.after_agent_started: {after}",
            reading="An invalid marker with another reason is refused as invalid content when the attempt "
            "records that the agent had started; an accepted invalid attempt is excluded whole.",
        ),
        Interpretation(
            id="points-allowlist",
            text=f"allowlist: {spec.allowlist}",
            reading="An allowlist entry ending in '/' admits every path below that folder; any other entry "
            "is a case-sensitive fnmatch pattern on the whole path, where '*' also crosses '/'. Paths are "
            "normalised and count once.",
        ),
        Interpretation(
            id="points-unavailable-diagnostics",
            text=f"unavailable_diagnostic: {spec.unavailable_diagnostic}",
            reading="A diagnostic without its signals shows 0 labelled 'unavailable' and is left out of "
            "means (counted in the disclosures).",
        ),
        Interpretation(
            id="points-ready-rate",
            text="Ready rate",
            reading="Ready / valid attempts (every outcome but Invalid); Inconclusive attempts stay in the "
            "denominator and are shown separately.",
        ),
    )


OWN_LIMITATIONS = (
    "Exact (Clopper–Pearson) intervals treat attempts as independent; attempts on one task are not.",
    "Means are over the attempts where a dimension has a value; their n differs per dimension.",
)


FRACTION = r"^-?[0-9]+/[1-9][0-9]*$"
"""A share's exact sum: an integer over a positive integer."""


class PointsPart(Model):
    """One run's share of the aggregates: its subject, outcome counts, exact dimension sums (as
    ``numerator/denominator`` text, so no float rounding enters a cached or merged figure) and the
    producer disagreements it holds."""

    subject: str
    counts: dict[str, int]
    sums: dict[str, Annotated[str, StringConstraints(pattern=FRACTION)]]
    ns: dict[str, int]
    disagreements: tuple[Disagreement, ...]
    blockers: dict[str, int]
    """Each launch blocker → the attempts it blocked."""
    blocked: int
    """Attempts with any launch blocker."""


@dataclass
class SubjectTally:
    """Streaming per-subject aggregate: counts and sums, never the attempts themselves. Sums are
    exact (each float is a binary fraction), so a mean never depends on the order of rows or runs."""

    runs: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    terms: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Each sum as (numerator, denominator), unreduced: adding a run's share costs a few integer
    operations (``math.lcm`` of the two denominators, powers of two in practice), not a Fraction's
    parse and gcd; ``sum`` reduces one once."""
    ns: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    disagreements: int = 0
    blockers: Counter[str] = field(default_factory=Counter)
    blocked: int = 0

    def merge(self, part: PointsPart) -> None:
        for outcome, n in part.counts.items():
            self.counts[outcome] += n
        terms = self.terms
        for key, text in part.sums.items():
            numerator, denominator = _ratio(text)
            if key in terms:
                held, common = terms[key]
                if common != denominator:
                    lcm = math.lcm(common, denominator)
                    held, numerator, common = held * (lcm // common), numerator * (lcm // denominator), lcm
                terms[key] = (held + numerator, common)
            else:
                terms[key] = (numerator, denominator)
        for key, n in part.ns.items():
            self.ns[key] += n
        self.disagreements += len(part.disagreements)
        self.blockers.update(part.blockers)
        self.blocked += part.blocked

    def sum(self, key: str) -> Fraction:
        """``key``'s exact sum (zero for a key no run had)."""
        n, d = self.terms.get(key, (0, 1))
        return Fraction(n, d)

    def mean(self, key: str) -> Mean:
        n = self.ns[key]
        return Mean(value=float(self.sum(key) / n) if n else None, n=n)


def _ratio(text: str) -> tuple[int, int]:
    """A share's exact sum, written ``n/d`` with d > 0 (``FRACTION``), as integers."""
    numerator, _, denominator = text.partition("/")
    return int(numerator), int(denominator)


def exact_sum(values: list[float]) -> Fraction:
    """The exact sum of floats: each is an integer over a power of two, so one common denominator
    (the largest) sums them in integers, with no rounding and no Fraction per value."""
    ratios = [v.as_integer_ratio() for v in values]
    common = max((d for _, d in ratios), default=1)
    return Fraction(sum(n * (common // d) for n, d in ratios), common)


def run_part(subject: str, run_id: str, attempts: list[AttemptResult]) -> PointsPart:
    """One run's outcome counts, exact dimension sums and producer disagreements."""
    values: dict[str, list[float]] = defaultdict(list)
    for attempt in attempts:
        for dim in attempt.dimensions:
            if dim.points is not None and dim.state != "unavailable":
                values[dim.key].append(dim.points)
        if attempt.deterministic is not None:
            values["deterministic"].append(attempt.deterministic)
    sums = {key: exact_sum(found) for key, found in values.items()}
    disagreements = tuple(
        Disagreement(
            run=run_id,
            item=a.attempt_id,
            producer=a.producer_outcome or "",
            recomputed=a.outcome,
            anchor=f"attempt-{a.attempt_id}",
        )
        for a in attempts
        if a.disagrees
    )
    return PointsPart(
        subject=subject,
        counts=dict(Counter(a.outcome for a in attempts)),
        disagreements=disagreements,
        sums={k: f"{v.numerator}/{v.denominator}" for k, v in sums.items()},
        ns={key: len(found) for key, found in values.items()},
        blockers=dict(Counter(b for a in attempts for b in a.blockers)),
        blocked=sum(1 for a in attempts if a.blockers),
    )


@dataclass
class PointsState:
    """Everything the leaderboard and disclosures need, merged run by run; ``rules`` (the compiled
    specification) is read by ``score_run`` and never changed."""

    rules: PointsRules
    source: SpecSource
    subjects: dict[str, SubjectTally] = field(default_factory=lambda: defaultdict(SubjectTally))
    overall: SubjectTally = field(default_factory=SubjectTally)
    disagreements: list[Disagreement] = field(default_factory=list)


def count_outcomes(outcomes: dict[str, int]) -> OutcomeCounts:
    fields = {_COUNT_FIELD[name]: n for name, n in outcomes.items()}
    return OutcomeCounts(total=sum(outcomes.values()), **fields)


Bench = BenchmarkContext[PointsDeclaration, PointsContract]


class PointsFamily(
    Family[PointsDeclaration, PointsContract, PointsSpec, PointsState, PointsPart, PointsSection]
):
    name = "points"
    row_writer = "generator.families.points.rows:points_rows"
    declaration_model = PointsDeclaration
    contract_model = PointsContract
    spec_model = PointsSpec
    summary_model = PointsRunSummary
    part_model = PointsPart
    section_model = PointsSection
    schemas: ClassVar[Mapping[str, type[BaseModel]]] = {
        "benchmark": PointsDeclaration,
        "contract": PointsContract,
        "run": PointsRun,
        "attempt": Attempt,
        "scoring": PointsSpec,
    }

    def recognises(self, raw: object) -> bool:
        return isinstance(raw, dict) and "pointDimensions" in raw

    def builtin_spec(self, contract: PointsContract) -> Path | None:
        return BUILTIN_FILE if states_seed_rules(contract) else None

    def agreement(
        self, spec: PointsSpec, contract: PointsContract, contract_file: str, place: str
    ) -> list[Problem]:
        return agreement_problems(spec, contract, contract_file, place)

    def explain(self, spec: PointsSpec) -> tuple[str, ...]:
        return explain(spec)

    def prepare(self, bench: Bench) -> Result[PointsState]:
        decl, contract = bench.declaration, bench.contract
        file = f"{bench.label}/benchmark.json"
        problems = Problems()
        if decl.purpose == "prospective-release" and contract.is_historical:
            message = (
                f"a prospective release is refused under this contract: its status says {contract.status!r}"
            )
            problems.append(Problem(file, "$.purpose", message))
        hashes = {"boundarySha256": contract.provenance.boundarySha256}
        problems.extend(provenance_problems(bench, decl.provenance_sources, hashes))
        resolved = problems.take(resolve(self, bench))
        if resolved is None:
            return problems.result(None)
        return problems.result(PointsState(compile_spec(resolved.spec), resolved.source))

    def score_run(
        self, bench: Bench, state: PointsState, run_id: str, run: VerifiedFolder
    ) -> Result[RunScored]:
        decl, rules = bench.declaration, state.rules
        label = f"{bench.label}/{run_id}"
        problems = Problems()
        meta = problems.take(read_run_meta(run, label, (RUN_FILE, ATTEMPTS_FILE), PointsRun))
        if ATTEMPTS_FILE not in run.files:
            return problems.result(None)
        tasks = {t.id: t for t in decl.tasks}
        attempts: list[AttemptResult] = []
        seen: set[str] = set()
        file = f"{label}/{ATTEMPTS_FILE}"
        for number, attempt in iter_models(run.files[ATTEMPTS_FILE], file, Attempt, problems):
            if attempt.task not in tasks:
                problems.append(Problem(file, f"line {number} $.task", f"unknown task {attempt.task!r}"))
                continue
            if attempt.attempt_id.casefold() in seen:
                problems.append(
                    Problem(
                        file, f"line {number} $.attempt_id", f"duplicate attempt id {attempt.attempt_id!r}"
                    )
                )
                continue
            seen.add(attempt.attempt_id.casefold())
            refused = invalid_problem(attempt, rules)
            if refused is not None:
                problems.append(Problem(file, f"line {number} $.invalid.reason", refused))
                continue
            attempts.append(score_attempt(attempt, tasks[attempt.task], rules))
        if not attempts and not problems:
            problems.append(Problem(file, "", "holds no attempts"))
        if problems or meta is None:
            return problems.result(None)
        part = run_part(meta.subject, run_id, attempts)
        summary = PointsRunSummary(
            id=run_id,
            subject=meta.subject,
            digest=run.digest,
            producer=meta.producer,
            counts=count_outcomes(part.counts),
            disagreements=len(part.disagreements),
        )
        detail = RunResult(**summary.model_dump(), attempts=tuple(attempts))
        return Result(RunScored(summary, detail, part))

    def run_section(self, section: PointsSection) -> RunColumns:
        return _run_columns(section.scoring.specification)

    def prepared_run_status(self, bench: Bench, state: PointsState) -> tuple[RunStatus, RunColumns]:
        """The contract's status and the specification's columns: both known before any run."""
        return RunStatus(status=bench.contract.status), _run_columns(state.rules.spec)

    def fold(self, bench: Bench, state: PointsState, run_id: str, part: PointsPart) -> list[Problem]:
        tally, share = state, part
        subject = tally.subjects[share.subject]
        subject.runs.append(run_id)
        subject.merge(share)
        tally.overall.merge(share)
        tally.disagreements.extend(share.disagreements)
        return []

    def finish(
        self, bench: Bench, state: PointsState, runs: list[PointsRunSummary]
    ) -> Result[Finished[PointsSection]]:
        decl, contract, tally = bench.declaration, bench.contract, state
        for subject in tally.subjects.values():
            subject.runs.sort()
        rules, source = tally.rules, tally.source
        scoring = source.disclosed(ScoringInfo, rules.spec, explain(rules.spec), PARAMETERS)
        section = PointsSection(
            contract=contract,
            scoring=scoring,
            purpose=decl.purpose,
            tasks=decl.tasks,
            totals=count_outcomes(tally.overall.counts),
            leaderboard=_leaderboard(rules, tally.subjects),
            runs=tuple(sorted(runs, key=lambda r: r.id)),
        )
        return Result(Finished(section, _disclosures(bench, tally)))


def _run_columns(spec: PointsSpec) -> RunColumns:
    """The columns a run page shows: the deterministic total's label and each dimension's."""
    labels = tuple(d.label or d.key.replace("_", " ") for d in spec.dimensions)
    return RunColumns(total=spec.deterministic_total, labels=labels)


def _leaderboard(rules: PointsRules, tallies: dict[str, SubjectTally]) -> tuple[SubjectRow, ...]:
    def order(item: tuple[str, SubjectTally]) -> tuple[Fraction, Fraction, str]:
        subject, t = item
        valid = sum(n for outcome, n in t.counts.items() if outcome != "Invalid")
        ready = Fraction(t.counts["Ready"], valid) if valid else Fraction(-1)
        det = t.sum("deterministic") / t.ns["deterministic"] if t.ns["deterministic"] else Fraction(-1)
        return (-ready, -det, subject)

    rows = []
    for position, (subject, t) in enumerate(sorted(tallies.items(), key=order), start=1):
        valid = sum(n for outcome, n in t.counts.items() if outcome != "Invalid")
        dims = tuple(
            DimensionMean(key=d.key, name=d.name, max=d.weight, mean=t.mean(d.key), diagnostic=d.diagnostic)
            for d in rules.dimensions
        )
        rows.append(
            SubjectRow(
                position=position,
                subject=subject,
                runs=tuple(t.runs),
                counts=count_outcomes(t.counts),
                ready_rate=rate(t.counts["Ready"], valid),
                mean_deterministic=t.mean("deterministic"),
                dimensions=dims,
                disagreements=t.disagreements,
                blocked=t.blocked,
                blockers=tuple(sorted(t.blockers.items(), key=lambda item: (-item[1], item[0]))),
            )
        )
    return tuple(rows)


def _interpretations(tally: PointsState) -> tuple[Interpretation, ...]:
    """The seed's readings under the built-in specification; the specification's own otherwise."""
    return INTERPRETATIONS if tally.source.kind == "built-in" else spec_interpretations(tally.rules.spec)


def _disclosures(bench: Bench, tally: PointsState) -> Disclosures:
    contract, decl = bench.contract, bench.declaration
    overall = tally.overall
    disagreements = tuple(sorted(tally.disagreements, key=lambda d: (d.run, d.item)))
    valid = sum(n for o, n in overall.counts.items() if o != "Invalid")
    source = decl.provenance_sources.get("boundarySha256")
    provenance = ProvenanceHash(
        name="boundarySha256",
        sha256=contract.provenance.boundarySha256,
        state="verified" if source else "not re-verified (source not supplied)",
        source=source,
    )
    blind = BlindRecord(
        subjects_blind=True,
        statement=(
            f"The contract withholds the identity mapping (identityMapping: "
            f"{contract.provenance.identityMapping!r}); subjects appear only under the "
            "opaque ids their runs declare. No reveal exists for this family."
        ),
        evaluator_hashes=(),
        identities_revealed=False,
        scores_frozen_in=None,
    )
    return Disclosures(
        status=contract.status,
        limitations=contract.limitations,
        own_limitations=OWN_LIMITATIONS,
        interpretations=_interpretations(tally),
        blind=blind,
        excluded_counts=(
            ("Invalid attempts (excluded from every denominator)", overall.counts["Invalid"]),
            ("Inconclusive attempts (reported separately)", overall.counts["Inconclusive"]),
        ),
        unavailable=tuple(
            (UNAVAILABLE[group], valid - overall.ns[key]) for key, group in tally.rules.signal_diagnostics
        ),
        floors_note=None,
        corrections=(),
        disagreements=disagreements,
        provenance=(provenance,),
    )

"""A fifth family written only against the seam: a run is a list of pass/fail items, a subject's
figure is its pass rate, and the specification holds the one number the engine reads (the pass
mark). Nothing outside this package, one line in ``registry.py`` and ``templates/tally/`` changes to
publish it (``tests/test_family_seam.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from generator.errors import Problem, Problems, Result
from generator.families.base import BenchmarkContext, Family, Finished, RunScored, read_run_meta
from generator.families.input_base import RubricPin, SchemaVersion1, SpecPin, Strict
from generator.families.specs import ScoringBase, SpecSource, resolve
from generator.figures.disclosures import BlindRecord, Disclosures
from generator.figures.headline import Headline, Wording, lead_headline
from generator.figures.model import Model, Rate, SectionDefaults
from generator.figures.ranking import Breakdown, Ranking, rate_ranking
from generator.figures.stats import rate
from generator.inputs.discover import VerifiedFolder
from generator.inputs.jsonio import iter_models


class TallySpec(Strict):
    family: Literal["tally"]
    rubric: str = Field(min_length=1)
    pass_mark: int = Field(ge=0, le=100, description="Percent of items a run must pass to count as passing.")


class TallyContract(Strict):
    artifactId: str = Field(min_length=1)
    status: str
    pass_mark: int = Field(ge=0, le=100)
    scoring: TallySpec | None = None


class TallyDeclaration(Strict):
    schema_version: SchemaVersion1
    family: Literal["tally"]
    title: str = Field(min_length=1)
    description: str = ""
    rubric: RubricPin
    scoring: SpecPin | None = None


class TallyRun(Strict):
    schema_version: SchemaVersion1
    subject: str = Field(min_length=1)


class Item(Strict):
    item: str = Field(min_length=1)
    passed: bool


class TallySummary(Model):
    id: str
    digest: str
    subject: str
    passed: int
    total: int
    run_passes: bool


class TallyDetail(TallySummary):
    rows_field: ClassVar[str] = "items"
    items: tuple[Item, ...]


class TallyPart(Model):
    subject: str
    passed: int
    total: int


class Row(Model):
    subject: str
    pass_rate: Rate


class TallyScoring(ScoringBase):
    specification: TallySpec


class TallySection(SectionDefaults):
    family: Literal["tally"] = "tally"
    scoring: TallyScoring
    leaderboard: tuple[Row, ...]
    runs: tuple[TallySummary, ...]

    @staticmethod
    def detail_model() -> type[TallyDetail]:
        return TallyDetail

    def rankings(self) -> tuple[Ranking, ...]:
        entries = [(row.subject, row.pass_rate) for row in self.leaderboard]
        return (rate_ranking("pass-rate", "Pass rate", "passed / items", entries),)

    def headline(self, rankings: tuple[Ranking, ...]) -> Headline:
        return lead_headline(rankings[0], Wording("subject", "subjects", "pass rate"))

    def breakdown(self) -> Breakdown | None:
        return None


class TallyChanges(Model):
    """What moved in a tally section from one version to the next (``TallyFamily.section_changes``)."""

    pass_mark: tuple[int, int] | None = Field(
        default=None, description="(before, after) when the pass mark moved; None otherwise."
    )


@dataclass
class TallyState:
    spec: TallySpec
    source: SpecSource
    counts: dict[str, list[int]] = field(default_factory=dict)


Bench = BenchmarkContext[TallyDeclaration, TallyContract]


class TallyFamily(Family[TallyDeclaration, TallyContract, TallySpec, TallyState, TallyPart, TallySection]):
    name = "tally"
    declaration_model = TallyDeclaration
    contract_model = TallyContract
    spec_model = TallySpec
    summary_model = TallySummary
    part_model = TallyPart
    section_model = TallySection
    changes_model = TallyChanges
    schemas: ClassVar[Mapping[str, type[BaseModel]]] = {"contract": TallyContract, "scoring": TallySpec}

    def recognises(self, raw: object) -> bool:
        return isinstance(raw, dict) and "pass_mark" in raw

    def section_changes(self, before: TallySection, after: TallySection) -> TallyChanges | None:
        old, new = before.scoring.specification.pass_mark, after.scoring.specification.pass_mark
        return None if old == new else TallyChanges(pass_mark=(old, new))

    def builtin_spec(self, contract: TallyContract) -> Path | None:
        return None

    def agreement(
        self, spec: TallySpec, contract: TallyContract, contract_file: str, place: str
    ) -> list[Problem]:
        if spec.pass_mark == contract.pass_mark:
            return []
        message = f"pass mark {contract.pass_mark} differs from {place} ($.pass_mark: {spec.pass_mark})"
        return [Problem(contract_file, "$.pass_mark", message)]

    def explain(self, spec: TallySpec) -> tuple[str, ...]:
        return (f"A run passes when at least {spec.pass_mark}% of its items pass.",)

    def prepare(self, bench: Bench) -> Result[TallyState]:
        resolved = resolve(self, bench)
        if resolved.value is None:
            return Result(None, resolved.problems)
        return Result(TallyState(resolved.value.spec, resolved.value.source))

    def score_run(
        self, bench: Bench, state: TallyState, run_id: str, run: VerifiedFolder
    ) -> Result[RunScored]:
        label = f"{bench.label}/{run_id}"
        problems = Problems()
        meta = problems.take(read_run_meta(run, label, ("run.json", "items.jsonl"), TallyRun))
        if meta is None:
            return problems.result(None)
        items = [
            item for _, item in iter_models(run.files["items.jsonl"], f"{label}/items.jsonl", Item, problems)
        ]
        if problems:
            return problems.result(None)
        passed = sum(i.passed for i in items)
        run_passes = 100 * passed >= state.spec.pass_mark * len(items)
        summary = TallySummary(
            id=run_id,
            digest=run.digest,
            subject=meta.subject,
            passed=passed,
            total=len(items),
            run_passes=run_passes,
        )
        detail = TallyDetail(**summary.model_dump(), items=tuple(items))
        part = TallyPart(subject=meta.subject, passed=passed, total=len(items))
        return Result(RunScored(summary, detail, part))

    def fold(self, bench: Bench, state: TallyState, run_id: str, part: TallyPart) -> list[Problem]:
        tally = state.counts.setdefault(part.subject, [0, 0])
        tally[0] += part.passed
        tally[1] += part.total
        return []

    def finish(
        self, bench: Bench, state: TallyState, runs: list[TallySummary]
    ) -> Result[Finished[TallySection]]:
        order = sorted(state.counts.items(), key=lambda kv: (-kv[1][0] / max(kv[1][1], 1), kv[0]))
        scoring = TallyScoring(
            source=state.source.kind,
            file=state.source.file,
            sha256=state.source.sha256,
            statement=state.source.statement(),
            rules=self.explain(state.spec),
            parameters=(),
            specification=state.spec,
        )
        section = TallySection(
            scoring=scoring,
            leaderboard=tuple(Row(subject=s, pass_rate=rate(p, n)) for s, (p, n) in order),
            runs=tuple(sorted(runs, key=lambda r: r.id)),
        )
        disclosures = Disclosures(
            status=bench.contract.status,
            limitations=(),
            own_limitations=("A fixture family: its figures prove the seam, not a benchmark.",),
            interpretations=(),
            blind=BlindRecord(
                subjects_blind=False,
                statement="Subjects are named as the runs name them.",
                evaluator_hashes=(),
                identities_revealed=False,
                scores_frozen_in=None,
            ),
            excluded_counts=(),
            unavailable=(),
            floors_note=None,
            corrections=(),
            disagreements=(),
            provenance=(),
        )
        return Result(Finished(section, disclosures))

"""Input models of the components family: the seed-003 contract, tasks, runs and episodes."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, UnsetType
from pydantic import Field, field_validator, model_validator

from generator.families.components.spec import ComponentsSpec, Share, weights_problem
from generator.families.input_base import (
    EVALUATOR_HASH,
    SAFE_ID,
    SHA256_HEX,
    RubricPin,
    SchemaVersion1,
    Shown,
    SpecPin,
    Strict,
)
from generator.families.rules import rules_digest
from generator.inputs.fastrows import no_duplicate_keys, typed

CRITERIA = ("identification", "evidence_grounding", "reasoning_validity", "disposition")
"""The global criteria the contract's judge rubric names (``JudgeCriteria``)."""
FOCUS = "task_focus"
"""The per-task focus criterion: what a task family declares it, scored 0–3 like the others."""
Criterion = Literal["identification", "evidence_grounding", "reasoning_validity", "disposition", "task_focus"]

# --- the contract (seed 003), as its owner froze it -------------------------------------------


class ContractComponents(Strict):
    outcome: str
    process: str
    rationale: str


class CriterionText(Strict):
    full_credit: str
    zero: str


class JudgeCriteria(Strict):
    identification: CriterionText
    evidence_grounding: CriterionText
    reasoning_validity: CriterionText
    disposition: CriterionText


class JudgeRubric(Strict):
    scale: str
    criteria: JudgeCriteria
    pass_bar: str


COMPONENTS_RULES = ("components", "combine", "judge_rubric", "judge_protocol", "anti_gaming_build_day_one")
COMPONENTS_RULES_SHA256 = "b8c6582f7e39760152c6be7df957b46261979b2d14aa3280d4a98eb115df1300"
"""The rules digest of seed 003 (``rules.rules_digest`` over ``COMPONENTS_RULES``): a contract with
these rules and no specification of its own is scored by the built-in specification."""


class ComponentsContract(Strict):
    """A components rubric contract: JE validation scoring (seed 003), its successors, or a team's own
    rubric in the same shape. How it scores is its specification (``components.spec``): the
    contract's ``scoring`` object, a pinned ``scoring.json``, or the built-in one for the seed's rules."""

    provenance_note: str = Field(alias="_provenance")
    source_sha256: str = Field(pattern=SHA256_HEX)
    components: ContractComponents
    combine: str
    judge_rubric: JudgeRubric
    judge_protocol: tuple[str, ...]
    anti_gaming_build_day_one: tuple[str, ...]
    scoring: ComponentsSpec | None = Field(
        default=None, description="The contract's own scoring specification (docs/components.md)."
    )

    @property
    def rules_sha256(self) -> str:
        return rules_digest(self, COMPONENTS_RULES)


# --- the benchmark: tasks and anti-gaming thresholds --------------------------------------------


class Weights(Strict):
    """A task's component weights, each the exact decimal written (``jsonio.ExactShare``)."""

    outcome: Share
    process: Share
    rationale: Share

    @property
    def exact(self) -> tuple[Fraction, Fraction, Fraction]:
        """The weights as the exact decimals written (``0.55`` is 11/20, not its binary float)."""
        return (Fraction(self.outcome), Fraction(self.process), Fraction(self.rationale))

    @model_validator(mode="after")
    def _sum_to_one(self) -> Weights:
        problem = weights_problem(self.exact, Fraction(1))
        if problem:
            raise ValueError(f"component weights {problem}")
        return self


class SeededDefect(Strict):
    id: str = Field(min_length=1)
    location: str = Field(min_length=1)
    issue_type: str = Field(min_length=1)
    figure: str | None = Field(default=None, description="The exact figure, when the defect specifies one.")


class HardFailRule(Strict):
    id: str = Field(min_length=1)
    description: str


class Task(Strict):
    id: str = Field(pattern=SAFE_ID)
    family: str = Field(min_length=1, description="Task family, e.g. 'reconciliation'.")
    level: Literal["L1", "L2", "L3", "L4"]
    weights: Weights | None = Field(
        default=None,
        description="The task's component weights; may be left out when the specification fixes them "
        "(combine kind 'fixed_weights'), and must then equal them.",
    )
    seeded_defects: tuple[SeededDefect, ...] = Field(description="Empty for a clean control task.")
    key_evidence: tuple[str, ...]
    required_calls: tuple[str, ...]
    hard_fail_rules: tuple[HardFailRule, ...] = ()

    @model_validator(mode="after")
    def _unique(self) -> Task:
        for name, ids in (
            ("seeded defect", [d.id for d in self.seeded_defects]),
            ("hard-fail rule", [r.id for r in self.hard_fail_rules]),
            ("key evidence", list(self.key_evidence)),
        ):
            if len(set(ids)) != len(ids):
                raise ValueError(f"duplicate {name} id")
        return self


class AntiGaming(Strict):
    """Thresholds this benchmark declares, since the contract leaves 'negative' open."""

    flag_everything_max_outcome: float = Field(
        ge=0,
        le=1,
        description="Flag-everything baseline 'clearly negative': its mean outcome may not exceed this.",
    )
    no_evidence_max_outcome_l2_plus: float = Field(
        ge=0,
        le=1,
        description="No-evidence baseline 'approaches zero' on L2+: its mean outcome may not exceed this.",
    )


class FocusCriterion(Strict):
    """A task family's own rationale criterion ("four global criteria plus per-task focus")."""

    name: Shown = Field(min_length=1, description="What the focus judges, e.g. 'cut-off handling'.")
    full_credit: str = Field(min_length=1)
    zero: str = Field(min_length=1)


class ComponentsDeclaration(Strict):
    """``benchmark.json`` for a components benchmark."""

    schema_version: SchemaVersion1
    family: Literal["components"]
    title: Shown = Field(min_length=1)
    description: str = ""
    rubric: RubricPin
    scoring: SpecPin | None = Field(
        default=None,
        description="A sealed scoring specification beside the contract, pinned like it (docs/scoring.md).",
    )
    provenance_sources: dict[str, str] = Field(default_factory=dict)
    minimum_seeds: int | None = Field(
        default=None,
        ge=1,
        description="Seeds per (task, model) below which a cell is flagged: the specification's "
        "seeds.minimum (5 for the seed contract); when stated here it must equal it.",
    )
    anti_gaming: AntiGaming
    focus: dict[str, FocusCriterion] = Field(
        default_factory=dict,
        description="Per task family, the focus criterion its judges score as 'task_focus' (0–3).",
    )
    tasks: tuple[Task, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _focus_families(self) -> ComponentsDeclaration:
        families = {t.family for t in self.tasks}
        for family in self.focus:
            if family not in families:
                raise ValueError(f"focus declared for task family {family!r}, which no task has")
        return self

    @field_validator("tasks")
    @classmethod
    def _unique_tasks(cls, value: tuple[Task, ...]) -> tuple[Task, ...]:
        ids = [t.id.casefold() for t in value]
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate task id")
        return value


# --- a run: run.json + episodes.jsonl -----------------------------------------------------------

SubjectKind = Literal["model", "flag_everything_baseline", "no_evidence_baseline"]


class ComponentsRun(Strict):
    schema_version: SchemaVersion1
    subject: str = Field(pattern=SAFE_ID, description="Model id, or the baseline's name.")
    kind: SubjectKind
    producer: str = ""


class Finding(Strict):
    location: str = Field(min_length=1)
    issue_type: str = Field(min_length=1)
    figure: str | None = None
    evidence_ids: tuple[str, ...] = Field(description="Evidence the finding cites.")


class Call(Strict):
    name: str = Field(min_length=1)
    arguments: str = Field(
        default="", description="Canonical argument text; identical name+arguments = redundant."
    )


class Judgment(Strict):
    """One judge call: exactly one criterion, scored 0–3, by a judge known only by its hash."""

    call_id: str = Field(min_length=1)
    judge: str = Field(pattern=EVALUATOR_HASH)
    criterion: Criterion
    score: int = Field(ge=0, le=3)


class HumanGrade(Strict):
    criterion: Criterion
    score: int = Field(ge=0, le=3)


# --- the fast path of episodes.jsonl (generator/inputs/fastrows.py) ----------------------------
# The fields of the models below as msgspec Structs; an absent optional field decodes to UNSET (the
# duplicate-key count needs the members given), then reads as the model's default.

_Text = Annotated[str, msgspec.Meta(min_length=1)]
_Score = Annotated[int, msgspec.Meta(ge=0, le=3)]


class _Row(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A row Struct: unknown fields refused; msgspec's JSON decode never coerces types."""


class FindingRow(_Row):
    location: _Text
    issue_type: _Text
    evidence_ids: tuple[str, ...]
    figure: str | UnsetType | None = UNSET


class CallRow(_Row):
    name: _Text
    arguments: str | UnsetType = UNSET


class JudgmentRow(_Row):
    call_id: _Text
    judge: str
    criterion: Criterion
    score: _Score


class HumanGradeRow(_Row):
    criterion: Criterion
    score: _Score


class EpisodeRow(_Row):
    """One line of ``episodes.jsonl`` as the fast path reads it (the fields of :class:`Episode`)."""

    episode_id: str
    task: str
    seed: int
    findings: tuple[FindingRow, ...]
    opened_documents: tuple[str, ...]
    calls: tuple[CallRow, ...]
    judgments: tuple[JudgmentRow, ...]
    hard_fails: tuple[str, ...]
    human_grades: tuple[HumanGradeRow, ...] | UnsetType = UNSET


_EPISODE_ROWS = msgspec.json.Decoder(EpisodeRow)
_SAFE_ID = re.compile(SAFE_ID.removeprefix("^").removesuffix("$"))
_JUDGE = re.compile(EVALUATOR_HASH.removeprefix("^").removesuffix("$"))
"""The patterns matched against the whole text (pydantic's ``$`` is the end of the text, never a
newline before it)."""


def episode_row(line: str) -> EpisodeRow | None:
    """One row of ``episodes.jsonl`` decoded and checked as :class:`Episode` would (its patterns,
    separate calls, one score per judge and criterion) by plain loops; None when any check fails or
    is not certain (the strict path then says why, or accepts)."""
    row = typed(_EPISODE_ROWS, line)
    if row is None or _SAFE_ID.fullmatch(row.episode_id) is None or not _judged_apart(row.judgments):
        return None
    if not no_duplicate_keys(line, _members(row), string_colons=len(row.judgments)):
        return None
    return _filled(row)


def _judged_apart(judgments: tuple[JudgmentRow, ...]) -> bool:
    """Each judge known by its hash, each criterion scored in its own call, once per judge."""
    if not all(_JUDGE.fullmatch(j.judge) for j in judgments):
        return False
    calls = {j.call_id for j in judgments}
    pairs = {(j.judge, j.criterion) for j in judgments}
    return len(calls) == len(pairs) == len(judgments)


def _members(row: EpisodeRow) -> int:
    """The object members the row holds, each counted once."""
    members = 8 + (row.human_grades is not UNSET) + 4 * len(row.judgments)
    members += 3 * len(row.findings) + sum(f.figure is not UNSET for f in row.findings)
    members += len(row.calls) + sum(c.arguments is not UNSET for c in row.calls)
    if isinstance(row.human_grades, tuple):
        members += 2 * len(row.human_grades)
    return members


def _filled(row: EpisodeRow) -> EpisodeRow:
    """The row with every absent field at the model's default."""
    if row.human_grades is UNSET:
        row.human_grades = ()
    for finding in row.findings:
        if finding.figure is UNSET:
            finding.figure = None
    for call in row.calls:
        if call.arguments is UNSET:
            call.arguments = ""
    return row


class Episode(Strict):
    """One line of ``episodes.jsonl``: one task × subject × seed."""

    fast_row = staticmethod(episode_row)

    episode_id: str = Field(pattern=SAFE_ID)
    task: str
    seed: int
    findings: tuple[Finding, ...]
    opened_documents: tuple[str, ...]
    calls: tuple[Call, ...]
    judgments: tuple[Judgment, ...]
    hard_fails: tuple[str, ...] = Field(description="Ids of the task's hard-fail rules that triggered.")
    human_grades: tuple[HumanGrade, ...] = Field(default=(), description="SME grades, when supplied.")

    @field_validator("judgments")
    @classmethod
    def _separate_calls(cls, value: tuple[Judgment, ...]) -> tuple[Judgment, ...]:
        calls = [j.call_id for j in value]
        if len(set(calls)) != len(calls):
            raise ValueError("criteria must be scored in separate calls: a call_id appears twice")
        pairs = [(j.judge, j.criterion) for j in value]
        if len(set(pairs)) != len(pairs):
            raise ValueError("a judge scored the same criterion twice")
        return value

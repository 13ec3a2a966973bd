"""Input models of the points family: the seed-000 contract, the benchmark plan, attempt facts.

The contract model mirrors ``agent-dx-score-contract`` exactly (camelCase, as its owner froze it);
the benchmark and run files are formats benchsite defines (snake_case, ``schema_version``).
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from typing import Literal

import msgspec
from msgspec import UNSET, UnsetType
from pydantic import Field, field_validator, model_validator

from generator.families.input_base import (
    SAFE_ID,
    SHA256_HEX,
    RubricPin,
    SchemaVersion1,
    Shown,
    SpecPin,
    Strict,
    unique_ids,
)
from generator.families.points.spec import PointsSpec
from generator.families.rules import rules_digest
from generator.inputs.fastrows import no_duplicate_keys, typed

# --- the contract (seed 000), read as its owner froze it -------------------------------------


class PointDimension(Strict):
    name: Shown
    weight: int
    predicate: str


class ContractProvenance(Strict):
    sourceKind: str
    boundarySha256: str = Field(pattern=SHA256_HEX)
    identityMapping: str
    rawRuns: str


class ContractOutcomes(Strict):
    ready: str
    needsReview: str
    notReady: str


class ContractDiagnostics(Strict):
    testBehavior: str
    trajectory: str
    invalidAttempt: str
    inconclusive: str


POINTS_RULES = ("pointDimensions", "outcomes", "mandatoryChecks", "diagnostics")
SEED_RULES_SHA256 = "def2d0bda49500138fb5acc715438524c2d126e992b2ccb9f03aeedf0f02b34a"
"""The rules digest of seed 000 (``rules.rules_digest`` over ``POINTS_RULES``): a contract with these
rules and no specification of its own is scored by the built-in specification."""


class PointsContract(Strict):
    """A points rubric contract: seed 000 (``agent-dx-score-contract``), its successors, or a team's
    own rubric in the same shape. How it scores is its specification (``points.spec``): the contract's
    ``scoring`` object, a pinned ``scoring.json``, or the built-in one for the seed's rules."""

    schemaVersion: SchemaVersion1
    artifactId: str = Field(min_length=1)
    artifactVersion: str
    status: str
    provenance: ContractProvenance
    pointDimensions: tuple[PointDimension, ...] = Field(min_length=1)
    outcomes: ContractOutcomes
    mandatoryChecks: tuple[str, ...]
    diagnostics: ContractDiagnostics
    limitations: tuple[str, ...]
    scoring: PointsSpec | None = Field(default=None, description="The contract's own scoring specification.")

    @property
    def rules_sha256(self) -> str:
        return rules_digest(self, POINTS_RULES)

    @property
    def is_historical(self) -> bool:
        return self.status.strip().lower().startswith("historical")


# --- the benchmark declaration -----------------------------------------------------------------


class PointsTask(Strict):
    id: str = Field(pattern=SAFE_ID)
    title: Shown
    allowlist: tuple[str, ...] = Field(
        max_length=1000,
        description="Paths the task may change: 'dir/' matches a folder, else an fnmatch pattern "
        "(at most 1,000 entries: every changed path is matched against each).",
    )


class PointsDeclaration(Strict):
    """``benchmark.json`` for a points benchmark."""

    schema_version: SchemaVersion1
    family: Literal["points"]
    title: Shown = Field(min_length=1)
    description: str = ""
    purpose: Literal["historical", "prospective-release"] = Field(
        description="A prospective release under a historical rubric is refused."
    )
    rubric: RubricPin
    scoring: SpecPin | None = Field(
        default=None,
        description="A sealed scoring specification beside the contract, pinned like it (docs/scoring.md).",
    )
    provenance_sources: dict[str, str] = Field(
        default_factory=dict,
        description="Contract provenance hash name → sealed file in this folder to verify it.",
    )
    tasks: tuple[PointsTask, ...] = Field(min_length=1)

    @field_validator("tasks")
    @classmethod
    def _unique_tasks(cls, value: tuple[PointsTask, ...]) -> tuple[PointsTask, ...]:
        unique_ids((task.id for task in value), "task")
        return value


# --- a run: run.json and attempts.jsonl --------------------------------------------------------


class PointsRun(Strict):
    """``run.json``: which opaque subject the attempts in ``attempts.jsonl`` belong to."""

    schema_version: SchemaVersion1
    subject: str = Field(pattern=SAFE_ID, description="Opaque subject id (identities withheld).")
    producer: str = Field(default="", description="What produced the run, free text.")


class Check(Strict):
    id: str = Field(min_length=1)
    passed: bool


class RegressionCheck(Check):
    critical: bool = False


class SurfaceCheck(Check):
    surface: Literal["contract", "client", "cli", "documentation"]


class TestSignals(Strict):
    relevant_tests_changed: bool
    passed_before: bool
    passed_after: bool


class Trajectory(Strict):
    explored: bool
    recovered_or_no_error: bool
    evidence_backed_termination: bool


class InvalidMarker(Strict):
    reason: Literal["pre_agent_evaluator_failure", "host_infrastructure_failure", "storage_exhaustion"]
    detail: str = ""


Outcome = Literal["Ready", "NeedsReview", "NotReady", "Invalid", "Inconclusive"]
OUTCOMES: tuple[Outcome, ...] = ("Ready", "NeedsReview", "NotReady", "Inconclusive", "Invalid")

FACT_FIELDS = (
    "functional",
    "regression",
    "cross_surface",
    "changed_paths",
    "tests",
    "trajectory",
    "tampering_detected",
    "prohibited_change_detected",
)


def _unique(checks: tuple[Check, ...] | None) -> tuple[Check, ...] | None:
    if checks is not None and len({c.id for c in checks}) != len(checks):
        counts = Counter(c.id for c in checks)  # linear: a row may hold many checks
        raise ValueError(f"duplicate check id(s) {sorted(i for i, n in counts.items() if n > 1)}")
    return checks


_PARENT = re.compile(r"(^|/)\.\.(/|$)")
_UNNORMAL = re.compile(r"//|(^|/)\.(/|$)|/$")
"""What ``posixpath.normpath`` changes in a relative path that names no parent folder."""


def _kept(path: str) -> bool:
    """Whether :func:`relative_paths` keeps ``path`` as it is, by five string tests: a path it refuses
    or changes starts with '.' or '/', ends with '/', or holds '//' or '/.' (some it keeps do too, and
    take the whole check)."""
    return bool(path) and path[0] not in "./" and path[-1] != "/" and "//" not in path and "/." not in path


def relative_paths(paths: tuple[str, ...]) -> tuple[str, ...]:
    """Relative, inside the repository, and normalised: './a' is 'a', 'a//b' is 'a/b'."""
    for path in paths:
        if path.startswith("/") or _PARENT.search(path) or not path.strip("./"):
            raise ValueError(f"changed path {path!r} must be relative and stay in the repo")
    # a path with no "//", no "." segment and no trailing "/" is already normal (most are)
    return tuple(posixpath.normpath(path) if _UNNORMAL.search(path) else path for path in paths)


# --- the fast path of attempts.jsonl (generator/inputs/fastrows.py) ----------------------------
# The same rows as the pydantic models below, as msgspec Structs: an absent optional field decodes
# to UNSET (a valid attempt states every fact; the duplicate-key count needs the members given),
# then reads as the model's default. Not frozen only so that this filling-in can happen once, here.

SurfaceName = Literal["contract", "client", "cli", "documentation"]
InvalidReason = Literal["pre_agent_evaluator_failure", "host_infrastructure_failure", "storage_exhaustion"]


class _Row(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A row Struct: unknown fields refused; msgspec's JSON decode never coerces types."""


class CheckRow(_Row):
    id: str
    passed: bool


class RegressionCheckRow(_Row):
    id: str
    passed: bool
    critical: bool | UnsetType = UNSET


class SurfaceCheckRow(_Row):
    id: str
    passed: bool
    surface: SurfaceName


class TestSignalsRow(_Row):
    relevant_tests_changed: bool
    passed_before: bool
    passed_after: bool


class TrajectoryRow(_Row):
    explored: bool
    recovered_or_no_error: bool
    evidence_backed_termination: bool


class InvalidMarkerRow(_Row):
    reason: InvalidReason
    detail: str | UnsetType = UNSET


class AttemptRow(_Row):
    """One line of ``attempts.jsonl`` as the fast path reads it (the fields of :class:`Attempt`)."""

    attempt_id: str
    task: str
    agent_started: bool
    invalid: InvalidMarkerRow | UnsetType | None = UNSET
    functional: tuple[CheckRow, ...] | UnsetType | None = UNSET
    regression: tuple[RegressionCheckRow, ...] | UnsetType | None = UNSET
    cross_surface: tuple[SurfaceCheckRow, ...] | UnsetType | None = UNSET
    changed_paths: tuple[str, ...] | UnsetType | None = UNSET
    tests: TestSignalsRow | UnsetType | None = UNSET
    trajectory: TrajectoryRow | UnsetType | None = UNSET
    tampering_detected: bool | UnsetType | None = UNSET
    prohibited_change_detected: bool | UnsetType | None = UNSET
    producer_outcome: Outcome | UnsetType | None = UNSET


_ATTEMPT_ROWS = msgspec.json.Decoder(AttemptRow)
_OPTIONAL = ("invalid", *FACT_FIELDS, "producer_outcome")
_SAFE_ID = re.compile(SAFE_ID.removeprefix("^").removesuffix("$"))
"""``SAFE_ID`` matched against the whole text (pydantic's ``$`` is the end of the text, never a
newline before it)."""


_FACTS = slice(4, 12)
"""Where :data:`FACT_FIELDS` sit among :class:`AttemptRow`'s values (checked below)."""
assert AttemptRow.__struct_fields__[_FACTS] == FACT_FIELDS


def attempt_row(line: str) -> AttemptRow | None:
    """One row of ``attempts.jsonl`` decoded and checked as :class:`Attempt` would (its pattern, unique
    check ids, relative paths, facts stated) by plain loops; None when any check fails or is not
    certain (the strict path then says why, or accepts)."""
    row = typed(_ATTEMPT_ROWS, line)
    if row is None or _SAFE_ID.fullmatch(row.attempt_id) is None:
        return None
    values = msgspec.structs.astuple(row)
    absent = values.count(UNSET)
    if absent and not isinstance(row.invalid, InvalidMarkerRow) and UNSET in values[_FACTS]:
        return None  # a valid attempt states every fact (null = not executed)
    members = _check_members(row)
    if members is None or not no_duplicate_keys(line, len(values) - absent + members):
        return None
    return _filled(row, absent > 0)


def _check_members(row: AttemptRow) -> int | None:
    """The members of the objects inside the row, each counted once; None when a check id is empty
    or given twice in its group."""
    members = 0
    for checks in (row.functional, row.regression, row.cross_surface):
        if not isinstance(checks, tuple):
            continue
        ids = {check.id for check in checks}
        if len(ids) != len(checks) or "" in ids:
            return None
        members += len(checks) * len(type(checks[0]).__struct_fields__) if checks else 0
    if isinstance(row.regression, tuple):
        members -= sum(check.critical is UNSET for check in row.regression)
    if isinstance(row.invalid, InvalidMarkerRow):
        members += 1 + (row.invalid.detail is not UNSET)
    for signals in (row.tests, row.trajectory):
        members += 3 if isinstance(signals, TestSignalsRow | TrajectoryRow) else 0
    return members


def _filled(row: AttemptRow, absent: bool) -> AttemptRow | None:
    """The row with every absent field at the model's default and its paths normalised; None when a
    path leaves the repository."""
    for name in _OPTIONAL if absent else ():
        if getattr(row, name) is UNSET:
            setattr(row, name, None)
    if isinstance(row.regression, tuple):
        for check in row.regression:
            if check.critical is UNSET:
                check.critical = False
    if isinstance(row.invalid, InvalidMarkerRow) and row.invalid.detail is UNSET:
        row.invalid.detail = ""
    if isinstance(row.changed_paths, tuple) and not all(map(_kept, row.changed_paths)):
        try:
            row.changed_paths = relative_paths(row.changed_paths)
        except ValueError:
            return None
    return row


class Attempt(Strict):
    """One line of ``attempts.jsonl``: one agent on one task. ``null`` means not executed."""

    attempt_id: str = Field(pattern=SAFE_ID)
    task: str
    agent_started: bool
    invalid: InvalidMarker | None = None
    functional: tuple[Check, ...] | None = None
    regression: tuple[RegressionCheck, ...] | None = None
    cross_surface: tuple[SurfaceCheck, ...] | None = None
    changed_paths: tuple[str, ...] | None = None
    tests: TestSignals | None = None
    trajectory: Trajectory | None = None
    tampering_detected: bool | None = None
    prohibited_change_detected: bool | None = None
    producer_outcome: Outcome | None = None

    _unique_f = field_validator("functional", "regression", "cross_surface")(_unique)

    fast_row = staticmethod(attempt_row)

    @field_validator("changed_paths")
    @classmethod
    def _relative(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if value is None else relative_paths(value)

    @model_validator(mode="after")
    def _facts_stated(self) -> Attempt:
        if self.invalid is None:
            stated = self.model_fields_set  # a property: asked once, not once per fact
            missing = [f for f in FACT_FIELDS if f not in stated]
            if missing:
                raise ValueError(
                    f"a valid attempt states every fact (null = not executed); missing {missing}"
                )
        return self

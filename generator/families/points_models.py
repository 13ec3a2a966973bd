"""Input models of the points family: the seed-000 contract, the benchmark plan, attempt facts.

The contract model mirrors ``agent-dx-score-contract`` exactly (camelCase, as its owner froze it);
the benchmark and run files are formats benchsite defines (snake_case, ``schema_version``).
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from generator.families.rules import check_rules

SHA256_HEX = r"^[0-9a-f]{64}$"
SAFE_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"


class Strict(BaseModel):
    """Input models: frozen, no unknown fields, and no type coercion ("yes" is not true)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False, strict=True)


def _exact_int(value: Any) -> Any:
    """A literal integer must be a JSON integer: not true, not 1.0 (pydantic compares by ==)."""
    if type(value) is not int:
        raise ValueError(f"must be the integer 1, not {value!r}")
    return value


SchemaVersion1 = Annotated[Literal[1], BeforeValidator(_exact_int)]


# --- the contract (seed 000), read as its owner froze it -------------------------------------


class PointDimension(Strict):
    name: str
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


IMPLEMENTED_DIMENSIONS: tuple[tuple[str, int], ...] = (
    ("functional correctness", 45),
    ("regression avoidance", 15),
    ("cross-surface consistency", 15),
    ("scope discipline", 10),
    ("test behavior", 5),
    ("trajectory and tool use", 5),
    ("launch readiness", 5),
)


POINTS_RULES = ("pointDimensions", "outcomes", "mandatoryChecks", "diagnostics")
POINTS_RULES_SHA256 = "def2d0bda49500138fb5acc715438524c2d126e992b2ccb9f03aeedf0f02b34a"


class PointsContract(Strict):
    """The ``agent-dx-score-contract`` rubric (seed 000)."""

    schemaVersion: SchemaVersion1
    artifactId: Literal["agent-dx-score-contract"]
    artifactVersion: str
    status: str
    provenance: ContractProvenance
    pointDimensions: tuple[PointDimension, ...]
    outcomes: ContractOutcomes
    mandatoryChecks: tuple[str, ...]
    diagnostics: ContractDiagnostics
    limitations: tuple[str, ...]

    @field_validator("pointDimensions")
    @classmethod
    def _implemented(cls, value: tuple[PointDimension, ...]) -> tuple[PointDimension, ...]:
        found = tuple((d.name, d.weight) for d in value)
        if found != IMPLEMENTED_DIMENSIONS:
            raise ValueError(
                "dimensions and weights differ from the rubric benchsite implements: "
                f"expected {list(IMPLEMENTED_DIMENSIONS)}"
            )
        return value

    @model_validator(mode="after")
    def _rules(self) -> PointsContract:
        check_rules(self, POINTS_RULES, POINTS_RULES_SHA256, "agent-dx-score-contract")
        return self

    @property
    def is_historical(self) -> bool:
        return self.status.strip().lower().startswith("historical")


# --- the benchmark declaration -----------------------------------------------------------------


class RubricPin(Strict):
    file: str = Field(description="Rubric contract file in the benchmark folder.")
    sha256: str = Field(pattern=SHA256_HEX, description="sha256 of the rubric file's bytes.")


class PointsTask(Strict):
    id: str = Field(pattern=SAFE_ID)
    title: str
    allowlist: tuple[str, ...] = Field(
        max_length=1000,
        description="Paths the task may change: 'dir/' matches a folder, else an fnmatch pattern "
        "(at most 1,000 entries: every changed path is matched against each).",
    )


def unique_ids(ids: Iterable[str], what: str) -> None:
    """Refuse an id given twice, ignoring letter case (ids name files and anchors)."""
    seen: set[str] = set()
    for name in ids:
        if name.casefold() in seen:
            raise ValueError(f"duplicate {what} id {name!r}")
        seen.add(name.casefold())


class PointsDeclaration(Strict):
    """``benchmark.json`` for a points benchmark."""

    schema_version: SchemaVersion1
    family: Literal["points"]
    title: str = Field(min_length=1)
    description: str = ""
    purpose: Literal["historical", "prospective-release"] = Field(
        description="A prospective release under a historical rubric is refused."
    )
    rubric: RubricPin
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
    "functional", "regression", "cross_surface", "changed_paths", "tests", "trajectory",
    "tampering_detected", "prohibited_change_detected",
)  # fmt: skip


def _unique(checks: tuple[Check, ...] | None) -> tuple[Check, ...] | None:
    if checks is not None and len({c.id for c in checks}) != len(checks):
        counts = Counter(c.id for c in checks)  # linear: a row may hold many checks
        raise ValueError(f"duplicate check id(s) {sorted(i for i, n in counts.items() if n > 1)}")
    return checks


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

    @field_validator("changed_paths")
    @classmethod
    def _relative(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """Relative, inside the repository, and normalised: './a' is 'a', 'a//b' is 'a/b'."""
        if value is None:
            return None
        for path in value:
            if path.startswith("/") or re.search(r"(^|/)\.\.(/|$)", path) or not path.strip("./"):
                raise ValueError(f"changed path {path!r} must be relative and stay in the repo")
        return tuple(posixpath.normpath(path) for path in value)

    @model_validator(mode="after")
    def _facts_stated(self) -> Attempt:
        if self.invalid is None:
            missing = [f for f in FACT_FIELDS if f not in self.model_fields_set]
            if missing:
                raise ValueError(
                    f"a valid attempt states every fact (null = not executed); missing {missing}"
                )
        elif self.agent_started and self.invalid.reason != "storage_exhaustion":
            raise ValueError(
                f"invalid reason {self.invalid.reason!r} requires agent_started = false: after the "
                "agent process starts, failures remain scored unless storage was exhausted"
            )
        return self

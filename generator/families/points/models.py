"""Input models of the points family: the seed-000 contract, the benchmark plan, attempt facts.

The contract model mirrors ``agent-dx-score-contract`` exactly (camelCase, as its owner froze it);
the benchmark and run files are formats benchsite defines (snake_case, ``schema_version``).
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from typing import Literal

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
            if path.startswith("/") or _PARENT.search(path) or not path.strip("./"):
                raise ValueError(f"changed path {path!r} must be relative and stay in the repo")
        # a path with no "//", no "." segment and no trailing "/" is already normal (most are)
        return tuple(posixpath.normpath(path) if _UNNORMAL.search(path) else path for path in value)

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

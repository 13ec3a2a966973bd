"""Input models of the definitions family (ADR-032): the definition, its corrections ledger, and
the AgentEval store-v1 run files as that producer writes them (camelCase, unknown fields ignored).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from generator.families.input_base import (
    SAFE_ID,
    RubricPin,
    SchemaVersion1,
    Shown,
    SpecPin,
    Strict,
    unique_ids,
)
from generator.inputs.jsonio import parse_json

FloorKind = Literal[
    "hypergeometric-at-least-one",
    "hypergeometric-avoids-all",
    "uniform-choice",
    "prior-rate",
    "empirical-policy",
    "not-derivable",
]
Collapse = Literal["mean", "median", "all", "majority", "any"]


class Floor(Strict):
    """A check's chance floor: its kind, the declared parameters it is derived from, and why."""

    kind: FloorKind
    params: dict[str, int] = Field(default_factory=dict, description="Declared draw budget, pool, counts.")
    derivation: str = Field(min_length=1, description="Why these parameters (or why not derivable).")
    bar: float | None = Field(description="The declared bar; benchsite derives it and refuses a mismatch.")


class Check(Strict):
    key: str = Field(pattern=SAFE_ID)
    title: Shown = ""
    kind: Literal["atomic", "composite"] = Field(
        default="atomic", description="A composite check is refused."
    )
    floor: Floor


class Case(Strict):
    id: str = Field(pattern=SAFE_ID)
    title: Shown = ""


class Arm(Strict):
    id: str = Field(pattern=SAFE_ID)
    runs: tuple[str, ...] = Field(min_length=1, description="Run ids (one per rep) of this arm.")


class Definition(Strict):
    """``definition.json``: cases × atomic checks, each admitted with its own floor, and the arms."""

    schema_version: SchemaVersion1
    key: str = Field(min_length=1)
    version: str = Field(min_length=1)
    cases: tuple[Case, ...] = Field(min_length=1)
    checks: tuple[Check, ...] = Field(min_length=1)
    arms: tuple[Arm, ...] = Field(min_length=1)
    reference_arm: str = Field(description="The arm every other arm is compared against.")
    pass_at: float = Field(
        default=1.0,
        ge=0,
        le=1,
        description="A rep passes when its value ≥ pass_at (left out: the specification's defaults.pass_at).",
    )
    paired_collapse: Literal["all", "majority", "any"] = Field(
        default="majority",
        description="How reps collapse for pairing and rankings (left out: the specification's "
        "defaults.paired_collapse).",
    )

    @model_validator(mode="after")
    def _consistent(self) -> Definition:
        for name, ids in (
            ("case", [c.id for c in self.cases]),
            ("check", [c.key for c in self.checks]),
            ("arm", [a.id for a in self.arms]),
        ):
            folded = [i.casefold() for i in ids]
            if len(set(folded)) != len(folded):
                raise ValueError(f"duplicate {name} id: each {name} is admitted once")
        runs = [r for a in self.arms for r in a.runs]
        if len(set(runs)) != len(runs):
            raise ValueError("a run is bound to one arm and one rep only")
        if self.reference_arm not in {a.id for a in self.arms}:
            raise ValueError(f"reference_arm {self.reference_arm!r} is not an arm")
        for check in self.checks:
            if check.kind == "composite":
                raise ValueError(f"check {check.key!r} is composite: only atomic checks are admitted")
        return self


class Correction(Strict):
    """One entry of the append-only corrections ledger, in the four-part form."""

    id: str = Field(pattern=SAFE_ID)
    superseded: str = Field(min_length=1)
    corrected: str = Field(min_length=1)
    direction: str = Field(min_length=1)
    blast_radius: str = Field(min_length=1)
    prediction: str = Field(min_length=1, description="A falsifiable prediction.")
    affects: tuple[str, ...] = Field(description="'check:<key>', 'arm:<id>' or 'run:<id>'.")

    @field_validator("affects")
    @classmethod
    def _targets(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for target in value:
            if target.split(":", 1)[0] not in ("check", "arm", "run") or ":" not in target:
                raise ValueError(f"{target!r}: affects names 'check:<key>', 'arm:<id>' or 'run:<id>'")
        return value


class Ledger(Strict):
    schema_version: SchemaVersion1
    corrections: tuple[Correction, ...]

    @field_validator("corrections")
    @classmethod
    def _unique_ids(cls, value: tuple[Correction, ...]) -> tuple[Correction, ...]:
        unique_ids((c.id for c in value), "correction")
        return value


class DefinitionsDeclaration(Strict):
    """``benchmark.json`` for a definitions benchmark (the rubric is ADR-032's text, pinned)."""

    schema_version: SchemaVersion1
    family: Literal["definitions"]
    title: Shown = Field(min_length=1)
    description: str = ""
    rubric: RubricPin
    definition: str = Field(default="definition.json")
    corrections: str | None = Field(default=None, description="The corrections ledger file, if any.")
    scoring: SpecPin | None = Field(
        default=None,
        description="A sealed scoring.json (the definitions scoring specification) pinned like the rubric; "
        "without it, the seed ADR-032 text is scored by benchsite's built-in specification.",
    )


# --- AgentEval store-v1: read as the producer writes it -----------------------------------------


class External(BaseModel):
    """A producer's format: typed where we rely on a field, unknown fields accepted and ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore", allow_inf_nan=False, strict=True)


class ManifestRun(External):
    runId: str
    verdict: Literal["PASS", "FAIL", "WARN", "PENDING"]
    kind: str = ""
    harness: str = ""
    parentInvocationId: str | None = None


class ManifestSubject(External):
    kind: str
    name: str
    modelId: str | None = None


class Manifest(External):
    schemaVersion: str
    subject: ManifestSubject
    run: ManifestRun
    contentHash: str = ""


class SummaryStats(External):
    total: int
    passed: int
    failed: int
    warnings: int
    skipped: int = 0


class Summary(External):
    runId: str
    verdict: Literal["PASS", "FAIL", "WARN", "PENDING"]
    stats: SummaryStats


class Judge(External):
    modelId: str
    rubricDigest: str | None = None
    subjectRelation: Literal["unknown", "sameModel", "differentModel"] = "unknown"


class ChanceFloorFact(External):
    kind: str
    state: Literal["derived", "notDerivable"]
    bar: float | None = None
    derivation: str = ""


class Comparability(External):
    evalKey: str
    evalVersion: str
    effectiveBar: float | None = None
    chanceFloor: ChanceFloorFact | None = None
    judge: Judge | None = None


class Scenario(External):
    id: str
    name: str = ""
    input: str = ""
    output: str = ""
    passed: bool
    score: float | None = None
    stimulusHash: str | None = None
    comparability: Comparability | None = None


def output_tree(output: str) -> dict[str, Any] | None:
    """The EvalResult tree a row's ``output`` may hold (JSON-encoded), else None (raw text).

    Read as strictly as any JSON file: a tree with a non-finite number, a duplicate key or nesting
    too deep to read raises ValueError (the caller reports it as invalid content)."""

    if not output.lstrip().startswith("{"):
        return None  # raw text, not a tree
    parsed = parse_json(output, "output", "$.output")
    if parsed.problems:
        first = parsed.problems[0]
        if first.message.startswith("not valid JSON"):
            return None  # raw text that happens to start with a brace
        raise ValueError(f"the output tree is not strict JSON: {first.where} {first.message}")
    tree = parsed.value
    return tree if isinstance(tree, dict) and isinstance(tree.get("score"), dict) else None

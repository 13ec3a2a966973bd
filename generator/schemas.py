"""JSON Schemas of every format benchsite defines, generated from the models.

The committed copies in ``schemas/`` are checked against these by a test, so they cannot drift.
"""

from __future__ import annotations

from pydantic import BaseModel

from generator.canon import canonical_json
from generator.changes import VersionsIndex
from generator.families.components.models import (
    ComponentsContract,
    ComponentsDeclaration,
    ComponentsRun,
    Episode,
)
from generator.families.points.models import Attempt, PointsContract, PointsDeclaration, PointsRun
from generator.families.points.spec import PointsSpec
from generator.families.trials.models import (
    Reveal,
    TrialPlan,
    TrialResult,
    TrialsContract,
    TrialsDeclaration,
    TrialsRun,
)
from generator.report import BuildRecord, SiteReport

SCHEMAS: dict[str, type[BaseModel]] = {
    "points-benchmark": PointsDeclaration,
    "points-contract": PointsContract,
    "points-run": PointsRun,
    "points-attempt": Attempt,
    "points-scoring": PointsSpec,
    "trials-benchmark": TrialsDeclaration,
    "trials-contract": TrialsContract,
    "trials-plan": TrialPlan,
    "trials-run": TrialsRun,
    "trials-result": TrialResult,
    "trials-reveal": Reveal,
    "components-benchmark": ComponentsDeclaration,
    "components-contract": ComponentsContract,
    "components-run": ComponentsRun,
    "components-episode": Episode,
    "report": SiteReport,
    "build-record": BuildRecord,
    "versions": VersionsIndex,
}


def schema_json(name: str) -> str:
    schema = SCHEMAS[name].model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"benchsite/{name}.schema.json"
    return canonical_json(schema)

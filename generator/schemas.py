"""JSON Schemas of every format benchsite defines, generated from the models.

The committed copies in ``schemas/`` are checked against these by a test, so they cannot drift.
"""

from __future__ import annotations

from pydantic import BaseModel

from generator.canon import canonical_json
from generator.families.registry import FAMILIES
from generator.report.changes import VersionsIndex
from generator.report.model import BuildRecord, SiteReport

SCHEMAS: dict[str, type[BaseModel]] = {
    **{
        f"{family.name}-{name}": model
        for family in FAMILIES.values()
        for name, model in family.schemas.items()
    },
    "report": SiteReport,
    "build-record": BuildRecord,
    "versions": VersionsIndex,
}
"""Every format's model by schema name: each family's own (``Family.schemas``), then the outputs'."""


def schema_json(name: str) -> str:
    schema = SCHEMAS[name].model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"benchsite/{name}.schema.json"
    return canonical_json(schema)

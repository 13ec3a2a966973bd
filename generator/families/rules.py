"""The rules a contract states, by digest: how a family tells a seed contract it ships a built-in
specification for (``Family.builtin_spec``).

The parts of a contract that state how to score (dimensions, predicates, outcomes, metrics, judge
rubric) are hashed in canonical JSON; a contract whose digest is the seed's is scored by the seed's
built-in specification. Status, limitations, versions and provenance may differ (a successor with
unchanged rules). A contract with other rules brings its own specification (docs/scoring.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from pydantic import BaseModel

from generator.canon import canonical_json


def rules_digest(contract: BaseModel, fields: Iterable[str]) -> str:
    """sha256 of the canonical JSON of the named (alias-spelled) parts of a contract."""
    dumped = contract.model_dump(mode="json", by_alias=True)
    return hashlib.sha256(canonical_json({f: dumped[f] for f in fields}).encode("utf-8")).hexdigest()
